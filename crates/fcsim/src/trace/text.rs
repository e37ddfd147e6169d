//! Text trace formats: the [`LineFormat`] a format implements (parse one line), the driver
//! that reads lines for every text format (`TextReader`: I/O, line numbers, volume selection,
//! `skip_bad_lines`, error messages), and the field helpers the formats share.

use super::{io_message, Source, TraceOptions, TraceReader};
use crate::error::{Error, Location, Result};
use crate::request::{HostRequest, KeyUnit, MAX_REQUEST_BYTES};
use crate::time;
use std::io::{BufRead, Read};

/// The longest line a text trace may have: 1 MiB. Trace lines are tens to hundreds of bytes;
/// the limit keeps memory bounded on a file that is not text or has no line breaks.
pub const MAX_LINE: usize = 1 << 20;

/// Reads one line into `buf` (cleared first), through its `\n`, keeping at most [`MAX_LINE`]
/// bytes. Returns the bytes read (0 at the end) and whether the line is longer than the limit;
/// then its first `MAX_LINE` bytes have been read and the rest has not.
pub(super) fn read_line(r: &mut dyn BufRead, buf: &mut Vec<u8>) -> std::io::Result<(usize, bool)> {
    buf.clear();
    let n = r.take(MAX_LINE as u64).read_until(b'\n', buf)?;
    Ok((n, n == MAX_LINE && buf.last() != Some(&b'\n')))
}

/// Consumes the rest of a line without keeping it.
fn skip_rest_of_line(r: &mut dyn BufRead) -> std::io::Result<()> {
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                r.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                r.consume(n);
            }
        }
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
    /// Whether lines carry arrival times (see [`super::TraceReader::timed`]).
    fn timed(&self) -> bool {
        true
    }
}

/// The driver of every text format.
pub(super) struct TextReader {
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
    pub(super) fn new(source: Source, format: &'static str, parser: Box<dyn LineFormat>, opts: &TraceOptions) -> Self {
        TextReader {
            source,
            format,
            parser,
            buf: Vec::with_capacity(256),
            line: 0,
            volume: opts.volume,
            skip_bad_lines: opts.skip_bad_lines,
            bad_lines: 0,
            requests: 0,
            ended: false,
        }
    }

    fn read_error(&self, e: &std::io::Error, line: u64) -> Error {
        Error::trace(&self.source.path, Location::Line(line), io_message(e))
    }

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
            let (n, long) = read_line(&mut *self.source.reader, &mut self.buf).map_err(|e| self.read_error(&e, self.line + 1))?;
            if n == 0 {
                self.ended = true;
                break;
            }
            self.line += 1;
            if long {
                self.bad(format!("line longer than {} MiB; is this a {} trace?", MAX_LINE >> 20, self.format))?;
                skip_rest_of_line(&mut *self.source.reader).map_err(|e| self.read_error(&e, self.line))?;
                continue;
            }
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
                    if let Err(message) = r.check(self.parser.key_unit()).and_then(|()| time::check_trace_time(r.time_ns)) {
                        self.bad(message)?;
                        continue;
                    }
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

    fn timed(&self) -> bool {
        self.parser.timed()
    }

    fn bad_lines(&self) -> u64 {
        self.bad_lines
    }

    fn progress(&self) -> (u64, u64) {
        self.source.progress()
    }

    fn error_at_last(&self, message: String) -> Error {
        Error::trace(&self.source.path, Location::Line(self.line), message)
    }
}

// Field helpers shared by the text formats: splitting a line without allocating, and parsing
// numbers with messages that say what was expected.

/// Detection test: at least two thirds of the first ten lines satisfy `pred`, or, in a file of
/// fewer lines, half of them: one malformed line does not hide a format (it is then reported
/// with its line number), even in a two-line file.
pub fn most(lines: &[&str], pred: impl Fn(&&str) -> bool) -> bool {
    let head = &lines[..lines.len().min(10)];
    let n = head.iter().filter(|l| pred(l)).count();
    n > 0 && if head.len() < 10 { 2 * n >= head.len() } else { 3 * n >= 2 * head.len() }
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

/// A volume number (disk, LUN, ASU, device): 0 to 2^32 − 1, never wrapped.
pub fn parse_volume(s: &str, what: &str) -> std::result::Result<u32, String> {
    let v = parse_u64(s, what)?;
    u32::try_from(v).map_err(|_| format!("{what} {v} is larger than the largest volume number fcsim reads ({})", u32::MAX))
}

/// A request length given in units of `unit` bytes, at most [`MAX_REQUEST_BYTES`].
pub fn parse_len(s: &str, unit: u64, what: &str) -> std::result::Result<u32, String> {
    let v = parse_u64(s, what)?;
    match v.checked_mul(unit) {
        Some(b) if b <= MAX_REQUEST_BYTES => Ok(b as u32),
        _ => Err(format!("{what} {s} is larger than the largest request fcsim accepts (1 GiB)")),
    }
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
