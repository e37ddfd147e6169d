//! Trace input: one file per format, and the format table that detects and opens them.
//!
//! Every reader streams (constant memory in trace length) and converts its own units to the
//! common [`HostRequest`]: time in nanoseconds, offset and length in bytes. gzip, zstd and xz
//! are detected by their magic bytes and decompressed on the fly. Text formats implement
//! [`LineFormat`] (parse one line); the driver here does the I/O, line numbers, volume selection,
//! `skip_bad_lines` and error messages, so that every format reports errors the same way.
//!
//! A trace "path" of the form `synth:KIND,key=value,...` is a seeded synthetic generator
//! ([`synth`]).

mod arc;
mod blkparse;
pub mod convert;
mod csv;
mod diskmon;
mod disksim;
pub mod fct;
mod fiu;
pub mod info;
mod lcs_csv;
mod msr;
mod oracle;
mod spc;
pub mod synth;
mod systor;
mod tencent;
mod vscsi;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{Error, Location, Result};
use crate::request::{HostRequest, KeyUnit};

/// How to read a trace. `params` holds format-specific keys (`--set trace.KEY=VALUE`), checked
/// by the format when it opens; an unknown key is an error.
#[derive(Debug, Clone, Default)]
pub struct TraceOptions {
    /// Format name from [`FORMATS`]; `None` detects it from content and extension.
    pub format: Option<String>,
    /// Keep only this volume (MSR disk number, SPC ASU, SYSTOR LUN, Tencent volume, DiskSim
    /// device). Without it, volumes are kept apart in the page key.
    pub volume: Option<u32>,
    /// Skip and count malformed lines instead of failing on the first one.
    pub skip_bad_lines: bool,
    pub params: BTreeMap<String, String>,
}

/// A stream of host requests.
pub trait TraceReader: Send {
    /// The next request in trace order, `Ok(None)` at the end.
    fn next_request(&mut self) -> Result<Option<HostRequest>>;
    /// Name of the format being read.
    fn format(&self) -> &'static str;
    /// Whether offsets are byte addresses or object ids.
    fn key_unit(&self) -> KeyUnit {
        KeyUnit::Bytes
    }
    /// Malformed lines skipped so far (only with `skip_bad_lines`).
    fn bad_lines(&self) -> u64 {
        0
    }
    /// Progress as (done, total) in any unit (bytes of the file, requests of a generator).
    fn progress(&self) -> (u64, u64);
    /// Next-access indices stored in the trace for page size `page_size`, if it has them.
    fn next_access_column(&mut self, _page_size: u32) -> Result<Option<Vec<u64>>> {
        Ok(None)
    }
}

/// Result of parsing one line of a text trace.
#[derive(Debug)]
pub enum Parsed {
    Request(HostRequest),
    /// A line that carries no request (header, comment, an event type that is not counted).
    Skip,
    /// The rest of the file carries no requests (e.g. blkparse's summary).
    End,
}

/// A text trace format: turns one line (without its line break) into a request.
pub trait LineFormat: Send {
    /// `Err` holds what was expected, e.g. "expected 7 comma-separated fields, found 3".
    fn parse(&mut self, line: &str) -> std::result::Result<Parsed, String>;
    /// Whether offsets are byte addresses (the default) or object ids.
    fn key_unit(&self) -> KeyUnit {
        KeyUnit::Bytes
    }
}

/// How a format is opened.
#[derive(Debug, Clone, Copy)]
pub enum Opener {
    /// Line-oriented text; `sniff` looks at the first non-empty lines.
    Text { sniff: fn(&[&str]) -> bool, make: fn(&mut Params) -> std::result::Result<Box<dyn LineFormat>, String> },
    /// Fixed-size binary records.
    Binary { magic: Option<&'static [u8]>, open: fn(Source, &TraceOptions) -> Result<Box<dyn TraceReader>> },
}

/// One row of the format table.
#[derive(Clone, Copy)]
pub struct FormatInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// Time unit of the raw trace (converted to ns by the reader).
    pub time_unit: &'static str,
    /// File name endings that suggest this format (after removing a compression suffix).
    pub extensions: &'static [&'static str],
    pub opener: Opener,
}

impl std::fmt::Debug for FormatInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The format table: one line per format. Detection tries them in this order.
pub static FORMATS: &[FormatInfo] = &[
    fct::FORMAT,
    oracle::FORMAT,
    blkparse::FORMAT,
    msr::FORMAT,
    systor::FORMAT,
    vscsi::FORMAT,
    lcs_csv::FORMAT,
    spc::FORMAT,
    tencent::FORMAT,
    diskmon::FORMAT,
    fiu::FORMAT,
    disksim::MQSIM,
    disksim::DISKSIM,
    arc::FORMAT,
    csv::FORMAT,
];

pub fn format_by_name(name: &str) -> Option<&'static FormatInfo> {
    FORMATS.iter().find(|f| f.name.eq_ignore_ascii_case(name))
}

fn format_names() -> String {
    FORMATS.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
}

/// Format-specific parameters; each format takes the keys it knows and [`Params::finish`]
/// rejects the rest.
#[derive(Debug)]
pub struct Params {
    map: BTreeMap<String, String>,
}

impl Params {
    pub fn new(map: BTreeMap<String, String>) -> Self {
        Params { map }
    }

    pub fn take(&mut self, key: &str) -> Option<String> {
        self.map.remove(key)
    }

    pub fn take_u64(&mut self, key: &str, default: u64) -> std::result::Result<u64, String> {
        match self.map.remove(key) {
            None => Ok(default),
            Some(v) => parse_u64(&v, &format!("trace.{key} (an unsigned integer)")),
        }
    }

    pub fn take_bool(&mut self, key: &str, default: bool) -> std::result::Result<bool, String> {
        match self.map.remove(key).as_deref() {
            None => Ok(default),
            Some("true" | "1" | "yes") => Ok(true),
            Some("false" | "0" | "no") => Ok(false),
            Some(v) => Err(format!("trace.{key}: expected true or false, found '{v}'")),
        }
    }

    pub fn finish(self, format: &str) -> std::result::Result<(), String> {
        match self.map.keys().next() {
            None => Ok(()),
            Some(k) => Err(format!("unknown option trace.{k} for format {format}")),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Opening and decompression

/// What a failed read of an opened trace means to a user.
fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => "unexpected end of file: truncated or corrupt compressed stream".to_string(),
        _ => format!("read error: {e}"),
    }
}

/// Counts the bytes read from the underlying file, for progress reports.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened, decompressing byte stream of a trace file.
pub struct Source {
    pub path: PathBuf,
    pub reader: Box<dyn BufRead + Send>,
    /// Compressed bytes consumed so far, and the file size.
    consumed: Arc<AtomicU64>,
    pub file_size: u64,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Source({})", self.path.display())
    }
}

impl Source {
    pub fn open(path: &Path) -> Result<Source> {
        let file = File::open(path).map_err(|e| Error::io(path, &e))?;
        let file_size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let consumed = Arc::new(AtomicU64::new(0));
        let counting = Counting { inner: file, count: consumed.clone() };
        let mut raw = BufReader::with_capacity(1 << 16, counting);
        let magic = raw.fill_buf().map_err(|e| Error::io(path, &e))?.to_vec();
        let reader: Box<dyn BufRead + Send> = if magic.starts_with(&[0x1f, 0x8b]) {
            Box::new(BufReader::with_capacity(1 << 18, flate2::bufread::MultiGzDecoder::new(raw)))
        } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            let dec = zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| Error::io(path, &e))?;
            Box::new(BufReader::with_capacity(1 << 18, dec))
        } else if magic.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Box::new(BufReader::with_capacity(1 << 18, xz2::bufread::XzDecoder::new_multi_decoder(raw)))
        } else if magic.starts_with(b"BZh") {
            return Err(Error::trace(path, Location::File, "bzip2 is not supported; recompress with gzip, zstd or xz"));
        } else {
            Box::new(raw)
        };
        Ok(Source { path: path.to_path_buf(), reader, consumed, file_size })
    }

    pub fn progress(&self) -> (u64, u64) {
        (self.consumed.load(Ordering::Relaxed), self.file_size)
    }
}

/// The name of a trace file without compression suffixes, lower-cased.
fn stem_without_compression(path: &Path) -> String {
    let mut name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    for suffix in [".gz", ".zst", ".zstd", ".xz"] {
        if let Some(s) = name.strip_suffix(suffix) {
            name = s.to_string();
        }
    }
    name
}

/// The first non-empty, non-comment lines of a decompressed stream (at most 1 MiB), for detection.
fn first_lines(src: &mut Source, n: usize) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    let mut buf = Vec::new();
    let mut read = 0usize;
    while lines.len() < n && read < (1 << 20) {
        buf.clear();
        let got = match src.reader.read_until(b'\n', &mut buf) {
            Ok(got) => got,
            // Detect from what could be read; the reader then reports the line that failed.
            Err(_) if !lines.is_empty() => break,
            Err(e) => return Err(Error::trace(&src.path, Location::Line(1), format!("cannot read the first line: {}", io_message(&e)))),
        };
        if got == 0 {
            break;
        }
        read += got;
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim();
        if !line.is_empty() && !line.starts_with('#') {
            lines.push(line.to_string());
        }
    }
    Ok(lines)
}

/// Detects the format of a file: binary magic first, then file extension, then content.
pub fn detect(path: &Path) -> Result<&'static FormatInfo> {
    let stem = stem_without_compression(path);
    let mut src = Source::open(path)?;
    let head = src
        .reader
        .fill_buf()
        .map_err(|e| Error::trace(path, Location::Byte(0), format!("cannot read the start of the file: {}", io_message(&e))))?
        .to_vec();
    for f in FORMATS {
        if let Opener::Binary { magic: Some(m), .. } = f.opener {
            if head.starts_with(m) {
                return Ok(f);
            }
        }
    }
    if head.is_empty() {
        return Err(Error::trace(path, Location::File, "empty trace: the file holds no requests"));
    }
    let lines = first_lines(&mut src, 20)?;
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let sniffs = |f: &FormatInfo| match f.opener {
        Opener::Text { sniff, .. } => !refs.is_empty() && sniff(&refs),
        Opener::Binary { .. } => false,
    };
    // An extension that names a format wins if the content does not contradict it.
    for f in FORMATS {
        if f.extensions.iter().any(|e| stem.ends_with(e)) {
            match f.opener {
                Opener::Binary { magic: None, .. } => return Ok(f),
                Opener::Text { .. } if sniffs(f) => return Ok(f),
                _ => {}
            }
        }
    }
    if let Some(f) = FORMATS.iter().find(|f| sniffs(f)) {
        return Ok(f);
    }
    Err(Error::trace(path, Location::File, format!("cannot detect the trace format; name one with --format (one of: {})", format_names())))
}

/// Opens a trace (a file, or a `synth:` generator spec) for streaming.
pub fn open(path: &str, opts: &TraceOptions) -> Result<Box<dyn TraceReader>> {
    if let Some(spec) = path.strip_prefix("synth:") {
        if opts.format.is_some() && opts.format.as_deref() != Some("synth") {
            return Err(Error::config("a synth: trace has no --format"));
        }
        return Ok(Box::new(synth::Generator::from_spec(spec)?));
    }
    let p = Path::new(path);
    let format = match &opts.format {
        Some(name) => format_by_name(name)
            .ok_or_else(|| Error::config(format!("unknown trace format '{name}'; expected one of: {}", format_names())))?,
        None => detect(p)?,
    };
    match format.opener {
        Opener::Binary { open, .. } => open(Source::open(p)?, opts),
        Opener::Text { make, .. } => {
            let mut params = Params::new(opts.params.clone());
            let parser = make(&mut params).map_err(Error::config)?;
            params.finish(format.name).map_err(Error::config)?;
            Ok(Box::new(TextReader {
                source: Source::open(p)?,
                format: format.name,
                parser,
                buf: Vec::with_capacity(256),
                line: 0,
                volume: opts.volume,
                skip_bad_lines: opts.skip_bad_lines,
                bad_lines: 0,
                requests: 0,
                ended: false,
            }))
        }
    }
}

/// The driver of every text format.
struct TextReader {
    source: Source,
    format: &'static str,
    parser: Box<dyn LineFormat>,
    buf: Vec<u8>,
    line: u64,
    volume: Option<u32>,
    skip_bad_lines: bool,
    bad_lines: u64,
    requests: u64,
    ended: bool,
}

impl TextReader {
    fn bad(&mut self, message: String) -> Result<()> {
        if self.skip_bad_lines {
            self.bad_lines += 1;
            Ok(())
        } else {
            Err(Error::trace(&self.source.path, Location::Line(self.line), message))
        }
    }
}

impl TraceReader for TextReader {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        while !self.ended {
            self.buf.clear();
            let n = self
                .source
                .reader
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| Error::trace(&self.source.path, Location::Line(self.line + 1), io_message(&e)))?;
            if n == 0 {
                self.ended = true;
                break;
            }
            self.line += 1;
            let Ok(text) = std::str::from_utf8(&self.buf) else {
                self.bad(format!("not valid UTF-8 text; is this a {} trace?", self.format))?;
                continue;
            };
            let text = text.trim_end_matches(['\n', '\r']);
            if text.trim().is_empty() || text.starts_with('#') {
                continue;
            }
            match self.parser.parse(text) {
                Ok(Parsed::Request(r)) => {
                    if self.volume.is_some_and(|v| v != r.volume) {
                        continue;
                    }
                    self.requests += 1;
                    return Ok(Some(r));
                }
                Ok(Parsed::Skip) => {}
                Ok(Parsed::End) => self.ended = true,
                Err(message) => self.bad(message)?,
            }
        }
        if self.requests == 0 {
            let what = match self.volume {
                Some(v) => format!("no requests on volume {v}"),
                None => format!("empty trace: no {} requests found", self.format),
            };
            return Err(Error::trace(&self.source.path, Location::File, what));
        }
        Ok(None)
    }

    fn format(&self) -> &'static str {
        self.format
    }

    fn key_unit(&self) -> KeyUnit {
        self.parser.key_unit()
    }

    fn bad_lines(&self) -> u64 {
        self.bad_lines
    }

    fn progress(&self) -> (u64, u64) {
        self.source.progress()
    }
}

// ---------------------------------------------------------------------------------------------
// Field helpers shared by the text formats

/// Detection test: at least two thirds of the first ten lines satisfy `pred`, so that one
/// malformed line does not hide a format (it is then reported with its line number).
pub fn most(lines: &[&str], pred: impl Fn(&&str) -> bool) -> bool {
    let head = &lines[..lines.len().min(10)];
    let n = head.iter().filter(|l| pred(l)).count();
    n > 0 && 3 * n >= 2 * head.len()
}

/// The first `N` items of `it` (padded with ""), and how many items there were in all.
/// Splitting a line this way allocates nothing.
pub fn take_n<'a, const N: usize>(it: impl Iterator<Item = &'a str>) -> ([&'a str; N], usize) {
    let mut out = [""; N];
    let mut n = 0;
    for x in it {
        if n < N {
            out[n] = x;
        }
        n += 1;
    }
    (out, n)
}

/// The first `N` fields of `line` split on `sep` (trimmed); at least `N` are required.
pub fn fields<'a, const N: usize>(line: &'a str, sep: char, what: &str) -> std::result::Result<[&'a str; N], String> {
    match take_n::<N>(line.split(sep).map(str::trim)) {
        (f, n) if n >= N => Ok(f),
        (_, n) => Err(format!("expected {N} {what} fields, found {n}")),
    }
}

/// The first `N` whitespace-separated fields of `line`; at least `N` are required.
pub fn words<'a, const N: usize>(line: &'a str, what: &str) -> std::result::Result<[&'a str; N], String> {
    match take_n::<N>(line.split_ascii_whitespace()) {
        (f, n) if n >= N => Ok(f),
        (_, n) => Err(format!("expected {N} {what} fields, found {n}")),
    }
}

/// Byte spans of the fields of `line` split on `sep`, into a buffer the caller reuses (for
/// formats whose columns are chosen at run time).
pub fn spans(line: &str, sep: char, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut start = 0;
    for (i, c) in line.char_indices() {
        if c == sep {
            out.push((start, i));
            start = i + c.len_utf8();
        }
    }
    out.push((start, line.len()));
}

pub fn parse_u64(s: &str, what: &str) -> std::result::Result<u64, String> {
    s.trim().parse::<u64>().map_err(|_| format!("expected {what}, found '{s}'"))
}

/// A byte count that must fit a request length (u32).
pub fn parse_len(s: &str, unit: u64, what: &str) -> std::result::Result<u32, String> {
    let v = parse_u64(s, what)?;
    v.checked_mul(unit).and_then(|b| u32::try_from(b).ok()).ok_or_else(|| format!("{what} {s} is too large for one request (max 4 GiB)"))
}

/// A byte offset given in units of `unit` bytes.
pub fn parse_offset(s: &str, unit: u64, what: &str) -> std::result::Result<u64, String> {
    parse_u64(s, what)?.checked_mul(unit).ok_or_else(|| format!("{what} {s} overflows a 64-bit byte offset"))
}

/// Parses a non-negative decimal number exactly, scaled by 10^`digits` (e.g. seconds with
/// digits = 9 gives nanoseconds). Exponent notation falls back to f64.
pub fn parse_scaled(s: &str, digits: u32, what: &str) -> std::result::Result<u64, String> {
    let s = s.trim();
    let err = || format!("expected {what}, found '{s}'");
    if s.contains(['e', 'E']) {
        let v: f64 = s.parse().map_err(|_| err())?;
        if !(v >= 0.0 && v.is_finite()) {
            return Err(err());
        }
        return Ok((v * 10f64.powi(digits as i32)).round() as u64);
    }
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if (int.is_empty() && frac.is_empty()) || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err());
    }
    let scale = 10u64.pow(digits);
    let int: u64 = if int.is_empty() { 0 } else { int.parse().map_err(|_| err())? };
    let mut f = 0u64;
    for (i, b) in frac.bytes().enumerate() {
        if (i as u32) < digits {
            f = f * 10 + u64::from(b - b'0');
        }
    }
    let kept = frac.len().min(digits as usize) as u32;
    f *= 10u64.pow(digits - kept);
    int.checked_mul(scale).and_then(|v| v.checked_add(f)).ok_or_else(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_without_allocation() {
        assert_eq!(take_n::<3>("a b c d e".split(' ')), (["a", "b", "c"], 5));
        assert_eq!(take_n::<3>("a b".split(' ')), (["a", "b", ""], 2));
        assert_eq!(fields::<2>(" x , y ,z", ',', "test"), Ok(["x", "y"]));
        assert_eq!(fields::<4>("x,y", ',', "test"), Err("expected 4 test fields, found 2".to_string()));
        let mut v = Vec::new();
        spans("ab,,c", ',', &mut v);
        assert_eq!(v, [(0, 2), (3, 3), (4, 5)]);
    }

    #[test]
    fn scaled_decimals_are_exact() {
        assert_eq!(parse_scaled("1456095145.133076000", 9, "t").unwrap(), 1_456_095_145_133_076_000);
        assert_eq!(parse_scaled("0.047339", 9, "t").unwrap(), 47_339_000);
        assert_eq!(parse_scaled("12", 6, "t").unwrap(), 12_000_000);
        assert_eq!(parse_scaled("1.5e-3", 9, "t").unwrap(), 1_500_000);
        assert!(parse_scaled("-1", 9, "t").is_err());
        assert!(parse_scaled("abc", 9, "t").is_err());
        assert!(parse_scaled(".", 9, "t").is_err());
    }
}
