//! Trace input: one file per format, and the format table that detects and opens them.
//!
//! Every reader streams (constant memory in trace length) and converts its own units to the
//! common [`HostRequest`]: time in nanoseconds, offset and length in bytes. gzip, zstd and xz
//! are detected by their magic bytes and decompressed on the fly. Text formats implement
//! [`text::LineFormat`] (parse one line); one driver ([`text`]) does the I/O, line numbers,
//! volume selection, `skip_bad_lines` and error messages for all of them, so that every format
//! reports errors the same way. This file holds the format table, detection and opening.
//!
//! A trace "path" of the form `synth:KIND,key=value,...` is a seeded synthetic generator
//! ([`synth`]); `synth:clone=PATH,...` is a clone of a real trace ([`clone`]).

mod ahead;
mod arc;
mod blkparse;
pub mod clone;
pub mod convert;
mod csv;
mod diskmon;
mod disksim;
pub mod fct;
pub mod fidelity;
mod fiu;
pub mod info;
mod lcs_csv;
mod msr;
mod oracle;
pub mod profiles;
pub mod slice;
mod spc;
pub mod synth;
mod systor;
mod tencent;
pub mod text;
mod urn;
mod vscsi;

pub use ahead::{read_ahead, Feed};
use text::{parse_u64, LineFormat, TextReader};

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

/// Called every few tens of thousands of requests with (done, total) in the reader's unit;
/// returning false stops the pass with [`crate::error::Error::Interrupted`].
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64) -> bool;

/// Requests between progress calls.
pub const PROGRESS_EVERY: u64 = 1 << 16;

/// `progress` lent to one pass, to be used again after it.
pub fn lend<'b>(progress: &'b mut Option<Progress<'_>>) -> Option<Progress<'b>> {
    match progress {
        Some(p) => Some(&mut **p),
        None => None,
    }
}

/// After the `n`th request of a pass over `reader`: every [`PROGRESS_EVERY`] requests, calls
/// `progress` (if any) with the reader's progress; [`Error::Interrupted`] when it says stop.
#[inline]
pub fn report(n: u64, reader: &dyn TraceReader, progress: &mut Option<Progress<'_>>) -> Result<()> {
    if n % PROGRESS_EVERY == 0 {
        if let Some(p) = progress.as_mut() {
            let (done, total) = reader.progress();
            if !p(done, total) {
                return Err(Error::Interrupted);
            }
        }
    }
    Ok(())
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
    /// Whether the requests carry arrival times. An untimed trace (ARC `.lis`, a CSV without a
    /// time column, a generator without `iops`) stamps requests with their index or 0: order is
    /// kept, but response times, rates per day and per-epoch loads computed from them mean
    /// nothing.
    fn timed(&self) -> bool {
        true
    }
    /// A clone's arrivals repeat its original's time shape, one pass after another: the length
    /// of a pass (ns, `None` for a trace that does not repeat). Burstiness at a time scale near
    /// a pass or above it is the repetition's, not the original's ([`fidelity::TraceStats::fano`]).
    fn repeats_ns(&self) -> Option<u64> {
        None
    }
    /// Progress as (done, total) in any unit (bytes of the file, requests of a generator).
    fn progress(&self) -> (u64, u64);
    /// An error about the request returned last (one the page splitter refuses), located as
    /// the reader's own errors are: file and line, or byte offset, or the generator's request.
    fn error_at_last(&self, message: String) -> Error;
    /// The next requests in trace order, in `out` (cleared first): at least one unless the trace
    /// has ended, at most `out`'s capacity (one if it has none), so that a pass over the trace
    /// makes one call per batch rather than per request. `Err` for a bad record, with `out`
    /// holding the requests before it, which the caller takes first (so a pass by batches fails
    /// where one request at a time does, after the same requests). The default reads one
    /// request; a reader that returns more overrides [`TraceReader::error_in_batch`] too.
    fn next_batch(&mut self, out: &mut Vec<HostRequest>) -> Result<()> {
        out.clear();
        if let Some(r) = self.next_request()? {
            out.push(r);
        }
        Ok(())
    }
    /// [`TraceReader::error_at_last`] about the request `back` places before the last one of
    /// the batch [`TraceReader::next_batch`] returned last (0: its last request).
    fn error_in_batch(&self, back: usize, message: String) -> Error {
        debug_assert_eq!(back, 0, "a reader of batches of one request");
        self.error_at_last(message)
    }
    /// Next-access indices stored in the trace for page size `page_size`, if it has them.
    fn next_access_column(&mut self, _page_size: u32) -> Result<Option<Vec<u64>>> {
        Ok(None)
    }
    /// The number of distinct pages of `page_size` bytes the trace touches, if the trace knows
    /// it without a pass (a `.fct` header, read whole, at that page size): what a percent size
    /// is resolved against ([`crate::sim::working_set`]). None by default, and for any reader
    /// that does not pass every request on (a volume picked, a slice).
    fn known_unique_pages(&self, _page_size: u32) -> Option<u64> {
        None
    }
    /// For a pass whose cache was sized by [`TraceReader::known_unique_pages`]: check that
    /// count against the records at the end, as the other header counts are (an error there
    /// if it lies), whatever [`TraceReader::skip_count_checks`] says. Call before the first
    /// request; a no-op for a reader without such a count.
    fn check_unique_pages(&mut self) {}
    /// Whether a pass reads this trace on a second thread ([`read_ahead`]), overlapping reading
    /// with simulating: worth it where reading a request costs more than handing it from one
    /// core to the other (decompression, text parsing, a generator; true unless overridden).
    /// An uncompressed `.fct` file's fixed records cost less to decode than to hand over: on the
    /// 5M-request zipf trace LRU at 1% ran 1.12x faster by the clock with the thread but took
    /// 1.24x the CPU time (medians of 4 interleaved runs), where on the zstd-compressed arc_P12
    /// it runs 1.7-1.9x faster in 0.93-1.04x the CPU time (`bench/read_ahead.py`).
    fn read_ahead(&self) -> bool {
        true
    }
    /// For a pass that uses none of the header's counts of what the file holds (operations, page
    /// accesses, first and last time, next-access entries): stop checking them against the
    /// records. Only `.fct` has such counts; every other check stays.
    fn skip_count_checks(&mut self) {}
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

    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
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

/// Where a trace's bytes come from: a file, or bytes already in memory (fuzzing, tests) named
/// by a label that errors show in the file's place.
#[derive(Debug, Clone)]
enum Origin {
    File,
    Memory(Arc<[u8]>),
}

/// An opened, decompressing byte stream of a trace file.
pub struct Source {
    /// The file, or the label of bytes in memory.
    pub path: PathBuf,
    pub reader: Box<dyn BufRead + Send>,
    /// Compressed bytes consumed so far, and the file size.
    consumed: Arc<AtomicU64>,
    pub file_size: u64,
    /// Whether the file is compressed (then `file_size` is not the length of the stream).
    pub compressed: bool,
    origin: Origin,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Source({})", self.path.display())
    }
}

impl Source {
    /// Opens a regular file. A pipe, fifo or device is refused before it is opened (opening a
    /// fifo would block): fcsim reads a trace more than once (format detection, the working set,
    /// next accesses, the run), which such a stream cannot give.
    pub fn open(path: &Path) -> Result<Source> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
        if !meta.is_file() {
            let what = if meta.is_dir() { "a directory" } else { "a pipe, fifo or device, not a regular file" };
            let message = format!("is {what}; fcsim reads a trace several times, so save it to a file first");
            return Err(Error::Io { file: path.to_path_buf(), message });
        }
        let file = File::open(path).map_err(|e| Error::io(path, &e))?;
        let file_size = file.metadata().map(|m| m.len()).unwrap_or(0);
        Source::wrap(path, Box::new(file), file_size, Origin::File)
    }

    /// Reads a trace held in memory, exactly as [`Source::open`] reads a file of these bytes;
    /// `label` stands for the file name in errors and in detection by extension.
    pub fn from_bytes(label: &Path, bytes: Arc<[u8]>) -> Result<Source> {
        let file_size = bytes.len() as u64;
        Source::wrap(label, Box::new(std::io::Cursor::new(bytes.clone())), file_size, Origin::Memory(bytes))
    }

    /// The same trace opened again from its start.
    pub fn reopen(&self) -> Result<Source> {
        match &self.origin {
            Origin::File => Source::open(&self.path),
            Origin::Memory(bytes) => Source::from_bytes(&self.path, bytes.clone()),
        }
    }

    /// Buffers `inner` and puts a decompressor over it if its first bytes name one.
    fn wrap(path: &Path, inner: Box<dyn Read + Send>, file_size: u64, origin: Origin) -> Result<Source> {
        let consumed = Arc::new(AtomicU64::new(0));
        let counting = Counting { inner, count: consumed.clone() };
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
            return Ok(Source { path: path.to_path_buf(), reader: Box::new(raw), consumed, file_size, compressed: false, origin });
        };
        Ok(Source { path: path.to_path_buf(), reader, consumed, file_size, compressed: true, origin })
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

/// The first non-empty, non-comment lines of a decompressed stream (at most about
/// [`text::MAX_LINE`] bytes), for detection.
fn first_lines(src: &mut Source, n: usize) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    let mut buf = Vec::new();
    let mut read = 0usize;
    while lines.len() < n && read < text::MAX_LINE {
        let got = match text::read_line(&mut *src.reader, &mut buf) {
            Ok((_, true)) => break, // a line too long for any text format
            Ok((got, false)) => got,
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
    detect_source(Source::open(path)?)
}

/// Detects the format of an opened trace (read from its start), as [`detect`] does a file's.
fn detect_source(mut src: Source) -> Result<&'static FormatInfo> {
    let path = src.path.clone();
    let path = path.as_path();
    let stem = stem_without_compression(path);
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
    if clone::Model::is_model(&head) {
        return Err(Error::trace(
            path,
            Location::File,
            format!("is a clone model (made by 'fcsim trace clone'), not a trace: run its clone as synth:clone={}", path.display()),
        ));
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

/// Opens a trace (a file, or a `synth:` generator spec) for streaming; `trace.skip` and
/// `trace.take` in `opts.params` slice it ([`slice`]), whatever its format.
pub fn open(path: &str, opts: &TraceOptions) -> Result<Box<dyn TraceReader>> {
    sliced(opts, |opts| open_whole(path, opts))
}

/// Opens a trace held in memory, exactly as [`open`] opens a file of these bytes named `label`
/// (which errors show, and detection reads the extension of).
pub fn open_bytes(label: &str, bytes: Arc<[u8]>, opts: &TraceOptions) -> Result<Box<dyn TraceReader>> {
    let label = Path::new(label);
    sliced(opts, |opts| open_with(opts, || Source::from_bytes(label, bytes.clone())))
}

/// The reader `open` gives for `opts` without the slice keys, sliced if they were given: the one
/// place where slices apply.
fn sliced(opts: &TraceOptions, open: impl FnOnce(&TraceOptions) -> Result<Box<dyn TraceReader>>) -> Result<Box<dyn TraceReader>> {
    let mut rest = opts.clone();
    match slice::Slice::take_from(&mut rest.params)? {
        None => open(opts),
        Some(s) => Ok(Box::new(slice::Sliced::new(open(&rest)?, s))),
    }
}

fn open_whole(path: &str, opts: &TraceOptions) -> Result<Box<dyn TraceReader>> {
    if let Some(spec) = path.strip_prefix("synth:") {
        if opts.format.is_some() && opts.format.as_deref() != Some("synth") {
            return Err(Error::config("a synth: trace has no --format"));
        }
        // What reads a file does not apply to a generator: refused, never silently ignored.
        if let Some(v) = opts.volume {
            return Err(Error::config(format!(
                "--volume {v}: a synth: trace has no volumes to pick (a generator's are set by its spec's volume=N; a clone is one volume, 0); drop --volume"
            )));
        }
        if let Some(k) = opts.params.keys().next() {
            return Err(Error::config(format!(
                "trace.{k}: a synth: trace reads no file, so only trace.skip and trace.take apply to it; drop --set trace.{k}"
            )));
        }
        if spec.trim_start().starts_with("clone=") {
            return clone::open(spec.trim_start(), opts.skip_bad_lines);
        }
        if spec.trim_start().starts_with("profile=") {
            return clone::profile::open(spec.trim_start());
        }
        return Ok(Box::new(synth::Generator::from_spec(spec)?));
    }
    let p = Path::new(path);
    open_with(opts, || Source::open(p))
}

/// Opens a trace whose bytes `source` gives (once to detect the format, once to read it); the
/// format's options are checked before the trace is read.
fn open_with(opts: &TraceOptions, source: impl Fn() -> Result<Source>) -> Result<Box<dyn TraceReader>> {
    let format = match &opts.format {
        Some(name) => format_by_name(name)
            .ok_or_else(|| Error::config(format!("unknown trace format '{name}'; expected one of: {}", format_names())))?,
        None => detect_source(source()?)?,
    };
    match format.opener {
        Opener::Binary { open, .. } => open(source()?, opts),
        Opener::Text { make, .. } => {
            let mut params = Params::new(opts.params.clone());
            let parser = make(&mut params).map_err(Error::config)?;
            params.finish(format.name).map_err(Error::config)?;
            Ok(Box::new(TextReader::new(source()?, format.name, parser, opts)))
        }
    }
}
