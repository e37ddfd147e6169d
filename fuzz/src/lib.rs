//! Fuzz targets for issue 16 ("hostile input never hangs, panics, aborts or silently lies").
//!
//! A target takes arbitrary bytes and either gets a result that passes its checks or gets one
//! clean error; any panic (a failed check, an overflow, an index out of range) is a finding.
//! libFuzzer adds the hang and memory checks (`-timeout`, `-rss_limit_mb`, `-malloc_limit_mb`).
//! `src/main.rs` drives a target under libFuzzer (`make fuzz`); `tests/corpus.rs` replays the
//! committed corpus and the regression inputs through the same code (`make test`).
//!
//! Targets:
//!
//! - one per trace format of the registry ([`fcsim::trace::FORMATS`]), named as the format:
//!   the input is a trace file of that format (see [`ReaderInput`] for its layout), read in
//!   memory exactly as a file of these bytes is read. Every request must split into a bounded
//!   page range; the next-access column is read at the end.
//! - `fct-header`: the input is a `.fct` file. If its header is accepted, the header's fields
//!   must agree with each other and with the input's length, and a read of the records that
//!   reaches the end must find exactly the counts the header states (a header that lies is an
//!   error, never a default).

use fcsim::request::{HostRequest, KeyUnit, PageSplitter, MAX_REQUEST_BYTES};
use fcsim::trace::{self, fct, FormatInfo, Opener, TraceOptions, FORMATS};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The page size requests are split with (the default of a run).
const PAGE: u32 = 4096;

/// A fuzz target.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    /// A trace reader, by its row of the format table.
    Reader(&'static FormatInfo),
    /// The `.fct` header and its agreement with the records.
    FctHeader,
}

impl Target {
    /// Every target: the formats of the registry, then the headers.
    pub fn all() -> Vec<Target> {
        FORMATS.iter().map(Target::Reader).chain([Target::FctHeader]).collect()
    }

    pub fn by_name(name: &str) -> Option<Target> {
        Target::all().into_iter().find(|t| t.name() == name)
    }

    pub fn name(&self) -> &'static str {
        match self {
            Target::Reader(f) => f.name,
            Target::FctHeader => "fct-header",
        }
    }

    /// Runs one input; panics on a finding.
    pub fn run(&self, data: &[u8]) {
        match self {
            Target::Reader(f) => read_trace(f, data),
            Target::FctHeader => fct_header(data),
        }
    }
}

/// The input of a reader target, decoded from the fuzzer's bytes:
///
/// - byte 0 holds the options: bit 0 `skip_bad_lines`; bit 1 detect the format (from content and
///   the name's extension) instead of naming it; bit 2 keep one volume, bit 3 which (0 or 1);
/// - for a text format, the next line holds the format's options as `key=value` pairs joined by
///   `&` (`offset=sector&size=bytes`; an empty line is none);
/// - the rest is the trace file.
#[derive(Debug)]
pub struct ReaderInput<'a> {
    pub opts: TraceOptions,
    pub trace: &'a [u8],
}

impl<'a> ReaderInput<'a> {
    pub fn decode(format: &FormatInfo, data: &'a [u8]) -> ReaderInput<'a> {
        let (flags, mut rest) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
        let mut params = BTreeMap::new();
        if matches!(format.opener, Opener::Text { .. }) {
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            for pair in String::from_utf8_lossy(&rest[..end]).split('&').filter(|p| !p.is_empty()) {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                params.insert(k.to_string(), v.to_string());
            }
            rest = rest.get(end + 1..).unwrap_or_default();
        }
        let opts = TraceOptions {
            format: (flags & 2 == 0).then(|| format.name.to_string()),
            volume: (flags & 4 != 0).then_some(u32::from(flags >> 3 & 1)),
            skip_bad_lines: flags & 1 != 0,
            params,
        };
        ReaderInput { opts, trace: rest }
    }

    /// The inverse of [`ReaderInput::decode`], for seeding a corpus from trace files.
    pub fn encode(format: &FormatInfo, opts: &TraceOptions, trace: &[u8]) -> Vec<u8> {
        let flags = u8::from(opts.skip_bad_lines)
            | if opts.format.is_none() { 2 } else { 0 }
            | opts.volume.map_or(0, |v| 4 | (v.min(1) as u8) << 3);
        let mut out = vec![flags];
        if matches!(format.opener, Opener::Text { .. }) {
            let pairs: Vec<String> = opts.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.extend_from_slice(pairs.join("&").as_bytes());
            out.push(b'\n');
        }
        out.extend_from_slice(trace);
        out
    }
}

/// The name a fuzz input is read under: one the format's extension matches, so that detection
/// by extension is exercised too.
fn label(format: &FormatInfo) -> String {
    format!("fuzz-input{}", format.extensions.first().copied().unwrap_or(".trace"))
}

/// An error must be one line that says something.
fn check_error(e: &fcsim::error::Error) {
    let m = e.to_string();
    assert!(!m.trim().is_empty(), "empty error message");
    assert!(!m.contains('\n'), "error of more than one line: {m:?}");
}

/// Reads a trace of `format` from fuzzer bytes: requests or one clean error.
fn read_trace(format: &FormatInfo, data: &[u8]) {
    let input = ReaderInput::decode(format, data);
    let bytes: Arc<[u8]> = Arc::from(input.trace);
    let mut reader = match trace::open_bytes(&label(format), bytes, &input.opts) {
        Ok(r) => r,
        Err(e) => return check_error(&e),
    };
    let unit = reader.key_unit();
    let splitter = PageSplitter::new(PAGE, unit);
    loop {
        match reader.next_request() {
            Ok(Some(q)) => check_request(&q, unit, &splitter),
            Ok(None) => break,
            Err(e) => return check_error(&e),
        }
    }
    if let Err(e) = reader.next_access_column(PAGE) {
        check_error(&e);
    }
}

/// A request a reader yields is one the simulator can split: within [`MAX_REQUEST_BYTES`] and
/// the 64-bit byte space, or one object; or one the splitter refuses because its volume or
/// page number has no key of its own (an error the run reports where the request was read).
fn check_request(q: &HostRequest, unit: KeyUnit, splitter: &PageSplitter) {
    let pages = match splitter.pages(q) {
        Ok((_, pages)) => pages,
        Err(m) => return assert_eq!(unit, KeyUnit::Bytes, "an object key was refused: {m}"),
    };
    match unit {
        KeyUnit::Bytes => {
            assert!(q.check(unit).is_ok(), "reader yielded a request that fails its own check: {q:?}");
            assert!(pages <= MAX_REQUEST_BYTES / u64::from(PAGE) + 1, "{q:?} spans {pages} pages");
        }
        KeyUnit::Object => assert_eq!(pages, 1, "{q:?}: an object is one page"),
    }
}

/// The `.fct` header against itself, the input's length and the records.
fn fct_header(data: &[u8]) {
    let bytes: Arc<[u8]> = Arc::from(data);
    let path = Path::new("fuzz-input.fct");
    let h = match fct::read_header_bytes(path, bytes.clone()) {
        Ok(h) => h,
        Err(e) => return check_error(&e),
    };
    assert!(h.requests > 0, "{h:?}");
    assert_eq!(h.reads.checked_add(h.writes).and_then(|n| n.checked_add(h.trims)), Some(h.requests), "{h:?}");
    assert!((1..=h.page_accesses).contains(&h.unique_pages), "{h:?}");
    assert!(h.volumes >= 1, "{h:?}");
    let compressed = [&[0x1f, 0x8b][..], &[0x28, 0xb5, 0x2f, 0xfd], &[0xfd, b'7', b'z', b'X', b'Z', 0]].iter().any(|m| data.starts_with(m));
    if !compressed {
        let len = fct::HEADER as u128 + h.requests as u128 * fct::RECORD as u128 + h.next_entries as u128 * 8;
        assert_eq!(len, data.len() as u128, "header accepted for a file of another length: {h:?}");
    }
    let opts = TraceOptions { format: Some("fct".into()), ..TraceOptions::default() };
    let mut reader = match trace::open_bytes(&path.to_string_lossy(), bytes, &opts) {
        Ok(r) => r,
        Err(e) => return check_error(&e),
    };
    let mut ops = [0u64; 3];
    loop {
        match reader.next_request() {
            Ok(Some(q)) => ops[q.op as usize] += 1,
            Ok(None) => break,
            Err(e) => return check_error(&e),
        }
    }
    assert_eq!(ops, [h.reads, h.writes, h.trims], "records read to the end disagree with the header {h:?}");
    match reader.next_access_column(h.page_size) {
        Ok(Some(next)) => assert_eq!(next.len() as u64, h.next_entries, "{h:?}"),
        Ok(None) => {}
        Err(e) => check_error(&e),
    }
}
