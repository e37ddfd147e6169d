//! Fitted models kept on disk by content (issue 40): fitting the cloudphysics trace costs about
//! 14 s of CPU, and every `synth:clone=TRACE` in a new process would fit it again.
//!
//! A model is stored under a key made of two SHA-256 digests:
//!
//! - the trace's **content**: every byte of the file as stored (compressed or not), so a trace
//!   rewritten in place, even with the same size and modification time, gets a new key;
//! - the **fit**: the fitter's revision ([`revision`], a digest of the core's source, so any
//!   change to the code that reads, fits or calibrates gives new keys) and the
//!   options that change what is fitted (format, volume, whether bad lines are skipped, the
//!   `trace.*` parameters).
//!
//! A stale model is never used: a different trace or a different fitter is a different key. A
//! cached file that cannot be read or parsed is a miss (the model is fitted and the file
//! written again). Files are written atomically ([`write`]: a temporary file renamed over the
//! target, as [`Model::save`] does); a cache that cannot be
//! written (read-only home, full disk) costs a refit next time, never a failed run.
//!
//! The same folder keeps the factors a paper profile's pilots find ([`super::profile`], *Kept on
//! disk*), through [`read`] and [`write`].
//!
//! The folder: `$FCSIM_MODEL_DIR` (an empty value turns the cache off), else `models` in the
//! user's cache folder, beside the trace cache of `fcsim trace fetch`
//! (`$XDG_CACHE_HOME/fcsim/models` or `~/.cache/fcsim/models`; `~/Library/Caches/fcsim/models`
//! on macOS).

use super::model::Model;
use crate::trace::TraceOptions;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The fitter's revision: the core's source digest (`build.rs`; the crate's `SOURCE_DIGEST`,
/// read here from the build's environment as the layers allow): any change to the code that
/// reads a trace, fits or calibrates a model gives new keys.
pub fn revision() -> &'static str {
    env!("FCSIM_SOURCE_DIGEST")
}

/// What tells one version of a file from another without reading it: its size and modification
/// time and, on Unix, its device, inode and status-change time. A rewrite that keeps the size and
/// sets the modification time back (`cp -p`, `touch -r`) still moves the status-change time,
/// which no call sets; a file replaced by a rename is another inode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    node: (u64, u64, i64, i64),
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            node: (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The cache folder, `None` when turned off (`FCSIM_MODEL_DIR=""`) or no home is known.
pub fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("FCSIM_MODEL_DIR") {
        return (!d.is_empty()).then(|| PathBuf::from(d));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let base = if cfg!(target_os = "macos") {
        home?.join("Library/Caches/fcsim")
    } else {
        match std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
            Some(d) => PathBuf::from(d).join("fcsim"),
            None => home?.join(".cache/fcsim"),
        }
    };
    Some(base.join("models"))
}

/// The key of the model of the trace at `path` read with `opts`: its content digest, then the
/// fit's (revision and options). An unreadable file has no key (the fit reports the error).
pub fn key(path: &Path, opts: &TraceOptions) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut content = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => content.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let mut fit = Sha256::new();
    fit.update(revision());
    let options =
        format!("format={:?};volume={:?};skip_bad_lines={};params={:?}", opts.format, opts.volume, opts.skip_bad_lines, opts.params);
    fit.update(options.as_bytes());
    Some(format!("{}-{}", hex(&content.finalize()[..16]), hex(&fit.finalize()[..8])))
}

/// The model cached under `key` in `dir`, if there is one that parses.
pub fn get(dir: &Path, key: &str) -> Option<Model> {
    let name = format!("{key}.model");
    Model::parse(&read(dir, &name)?, &dir.join(name)).ok()
}

/// Stores `m` under `key` in `dir` (creating it); a failure is left unsaid (the cache is only
/// a shortcut).
pub fn put(dir: &Path, key: &str, m: &Model) {
    write(dir, &format!("{key}.model"), &m.to_text());
}

/// The text of the file `name` in `dir`, if it is a regular file (a fifo put there would block
/// the open) of at most [`super::model::MAX_MODEL_BYTES`] that can be read.
pub fn read(dir: &Path, name: &str) -> Option<String> {
    let path = dir.join(name);
    if !std::fs::metadata(&path).ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(&path).ok()?.take(super::model::MAX_MODEL_BYTES + 1).read_to_string(&mut text).ok()?;
    (text.len() as u64 <= super::model::MAX_MODEL_BYTES).then_some(text)
}

/// Writes `text` as the file `name` in `dir` (creating the folder), atomically; a failure is
/// left unsaid, as [`put`]'s.
pub fn write(dir: &Path, name: &str, text: &str) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok((file, mut f)) = crate::trace::convert::AtomicFile::create(&dir.join(name)) else { return };
    if std::io::Write::write_all(&mut f, text.as_bytes()).is_ok() {
        drop(f);
        let _ = file.commit();
    }
}
