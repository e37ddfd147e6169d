//! The one error type of the core. Every failure a user can cause names what was wrong and where:
//! the file and line (or byte offset) for trace input, the key and the accepted values for
//! configuration. The Python bindings map [`Error::Trace`] and [`Error::Io`] to `fcsim.TraceError`
//! and [`Error::Config`] to `fcsim.ConfigError`.

use std::path::{Path, PathBuf};

/// Where in a trace file a problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// 1-based line of a text trace.
    Line(u64),
    /// Byte offset in a binary trace (after decompression).
    Byte(u64),
    /// The file as a whole (empty, unreadable header, unknown format).
    File,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Line(n) => write!(f, ":{n}"),
            Location::Byte(n) => write!(f, " at byte {n}"),
            Location::File => Ok(()),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The trace content is not what its format expects.
    #[error("{}{}: {}", .file.display(), .location, .message)]
    Trace { file: PathBuf, location: Location, message: String },
    /// The trace file could not be opened or read (missing, truncated compressed stream, ...).
    #[error("{}: {}", .file.display(), .message)]
    Io { file: PathBuf, message: String },
    /// An impossible or unknown configuration, detected before the first request is simulated.
    #[error("{0}")]
    Config(String),
    /// The caller asked to stop (Ctrl-C); nothing was written.
    #[error("interrupted")]
    Interrupted,
}

pub type Result<T> = std::result::Result<T, Error>;

/// A number for a message, compactly: as Rust prints it (`0.25`, `1500`, `0.001`) unless the
/// exponent form is shorter by four characters or more (`1e300`, `1e-300`, `1e9`, `2e15`),
/// never hundreds of digits. Both forms are the shortest that parse back to the same value.
/// Every message that shows a number the user gave or a limit uses it.
pub fn compact(v: f64) -> String {
    let plain = format!("{v}");
    let exp = format!("{v:e}");
    if exp.len() + 4 <= plain.len() {
        exp
    } else {
        plain
    }
}

/// An I/O error in words, without the OS's error number: the common kinds said as what they
/// mean for the file named before it, others as the OS says them minus its `(os error N)`.
pub fn io_text(err: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match err.kind() {
        K::NotFound => "no such file".to_string(),
        K::PermissionDenied => "permission denied".to_string(),
        K::NotADirectory => "a part of the path before the file name is a file, not a directory".to_string(),
        K::IsADirectory => "is a directory, not a file".to_string(),
        K::InvalidFilename => "the file name is too long or not a valid name".to_string(),
        _ => {
            let text = err.to_string();
            text.split(" (os error").next().unwrap_or(&text).trim().to_string()
        }
    }
}

impl Error {
    pub fn trace(file: &Path, location: Location, message: impl Into<String>) -> Self {
        Error::Trace { file: file.to_path_buf(), location, message: message.into() }
    }

    pub fn io(file: &Path, err: &std::io::Error) -> Self {
        let message = io_text(err);
        Error::Io { file: file.to_path_buf(), message }
    }

    pub fn config(message: impl Into<String>) -> Self {
        Error::Config(message.into())
    }

    /// True for errors caused by trace input (file content or file access).
    pub fn is_trace(&self) -> bool {
        matches!(self, Error::Trace { .. } | Error::Io { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn numbers_in_messages_are_compact() {
        assert_eq!(compact(0.25), "0.25");
        assert_eq!(compact(1500.0), "1500");
        assert_eq!(compact(0.0), "0");
        assert_eq!(compact(1e300), "1e300");
        assert_eq!(compact(1e-300), "1e-300");
        assert_eq!(compact(-2.5e-7), "-2.5e-7");
        assert_eq!(compact(2e15), "2e15");
        assert_eq!(compact(1e9), "1e9");
        assert_eq!(compact(1000.0), "1000");
        assert_eq!(compact(0.001), "0.001");
        assert_eq!(compact(1152921504606846.9), "1152921504606847");
        assert_eq!(compact(f64::NAN), "NaN");
        assert_eq!(compact(1e-300).parse::<f64>(), Ok(1e-300));
    }
}
