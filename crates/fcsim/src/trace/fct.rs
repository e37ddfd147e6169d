//! fcsim's own binary trace format (`.fct`): convert a trace once, then read it at memory speed.
//!
//! Layout (all integers little-endian):
//!
//! | bytes   | field |
//! |---------|-------|
//! | 0..8    | magic `FCSIMTRC` |
//! | 8..12   | version (1) |
//! | 12..16  | flags: bit 0 keys are object ids, bit 1 a next-access column follows the records, bit 2 the source had no arrival times |
//! | 16..80  | stats: requests, reads, writes, trims, page accesses, unique pages, first time (ns), last time (ns) |
//! | 80..84  | page size the page stats and the next-access column were computed with |
//! | 84..88  | number of volumes |
//! | 88..120 | source format name, NUL-padded |
//! | 120..128| entries of the next-access column (0 without it) |
//! | 128..   | records of 24 bytes: `u64 time_ns, u64 offset, u32 len, u16 volume, u8 op, u8 0` |
//! | then    | if flag bit 1: one `u64` per read or write page access (trims are not accesses), the index of the next access to the same page (`u64::MAX` = never) |

use super::{FormatInfo, Opener, Source, TraceOptions, TraceReader};
use crate::error::{Error, Location, Result};
use crate::request::{HostRequest, KeyUnit, Op, PageSplitter, NEVER};
use crate::time;
use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    name: "fct",
    description: "fcsim binary (header with stats, 24-byte records, optional next-access column)",
    time_unit: "ns",
    extensions: &[".fct"],
    opener: Opener::Binary { magic: Some(MAGIC), open },
};

pub const MAGIC: &[u8; 8] = b"FCSIMTRC";
pub const VERSION: u32 = 1;
pub const HEADER: usize = 128;
pub const RECORD: usize = 24;
const FLAG_OBJECT: u32 = 1;
const FLAG_NEXT: u32 = 2;
const FLAG_UNTIMED: u32 = 4;
/// Records decoded per read.
const CHUNK: usize = 1 << 14;

/// The header of a `.fct` file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    pub object_keys: bool,
    pub has_next: bool,
    /// The source trace had no arrival times (see [`TraceReader::timed`]).
    pub untimed: bool,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub page_accesses: u64,
    pub unique_pages: u64,
    pub time_first: u64,
    pub time_last: u64,
    pub page_size: u32,
    pub volumes: u32,
    pub source_format: String,
    /// Length of the next-access column.
    pub next_entries: u64,
}

impl Header {
    pub fn encode(&self) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        let flags = if self.object_keys { FLAG_OBJECT } else { 0 }
            | if self.has_next { FLAG_NEXT } else { 0 }
            | if self.untimed { FLAG_UNTIMED } else { 0 };
        h[12..16].copy_from_slice(&flags.to_le_bytes());
        let stats =
            [self.requests, self.reads, self.writes, self.trims, self.page_accesses, self.unique_pages, self.time_first, self.time_last];
        for (i, v) in stats.iter().enumerate() {
            h[16 + 8 * i..24 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        h[80..84].copy_from_slice(&self.page_size.to_le_bytes());
        h[84..88].copy_from_slice(&self.volumes.to_le_bytes());
        let name = self.source_format.as_bytes();
        let n = name.len().min(32);
        h[88..88 + n].copy_from_slice(&name[..n]);
        h[120..128].copy_from_slice(&self.next_entries.to_le_bytes());
        h
    }

    pub fn decode(h: &[u8; HEADER], path: &Path) -> Result<Header> {
        if &h[0..8] != MAGIC {
            return Err(Error::trace(path, Location::Byte(0), "not an fcsim .fct trace (bad magic)"));
        }
        let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap_or_default());
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().unwrap_or_default());
        let version = u32_at(8);
        if version != VERSION {
            return Err(Error::trace(
                path,
                Location::Byte(8),
                format!("unsupported .fct version {version}; this fcsim reads version {VERSION}"),
            ));
        }
        let flags = u32_at(12);
        let name_end = h[88..120].iter().position(|&b| b == 0).unwrap_or(32);
        Ok(Header {
            object_keys: flags & FLAG_OBJECT != 0,
            has_next: flags & FLAG_NEXT != 0,
            untimed: flags & FLAG_UNTIMED != 0,
            requests: u64_at(16),
            reads: u64_at(24),
            writes: u64_at(32),
            trims: u64_at(40),
            page_accesses: u64_at(48),
            unique_pages: u64_at(56),
            time_first: u64_at(64),
            time_last: u64_at(72),
            page_size: u32_at(80),
            volumes: u32_at(84),
            source_format: String::from_utf8_lossy(&h[88..88 + name_end]).into_owned(),
            next_entries: u64_at(120),
        })
    }
}

/// Byte offsets of the header fields that are checked against the records.
const AT_FLAGS: u64 = 12;
const AT_READS: u64 = 24;
const AT_PAGES: u64 = 48;
const AT_UNIQUE: u64 = 56;
const AT_TIME_FIRST: u64 = 64;
const AT_PAGE_SIZE: u64 = 80;
const AT_VOLUMES: u64 = 84;
const AT_NEXT: u64 = 120;

impl Header {
    /// Checks the fields against each other and, for an uncompressed file, against its length
    /// (`file_len`), so that no field is used before it is checked: a lie is an error naming the
    /// field. What only the records can confirm (the counts, the times) is checked when they
    /// have been read ([`FctReader`] at its end).
    fn validate(&self, path: &Path, flags: u32, file_len: Option<u64>) -> Result<()> {
        let bad = |at: u64, message: String| Err(Error::trace(path, Location::Byte(at), format!("bad .fct header: {message}")));
        if flags & !(FLAG_OBJECT | FLAG_NEXT | FLAG_UNTIMED) != 0 {
            return bad(AT_FLAGS, format!("unknown flags {flags:#x}"));
        }
        if self.requests == 0 {
            return Err(Error::trace(path, Location::File, "empty trace: the .fct file holds no requests"));
        }
        let ops = self.reads.checked_add(self.writes).and_then(|n| n.checked_add(self.trims));
        if ops != Some(self.requests) {
            let (r, w, t, n) = (self.reads, self.writes, self.trims, self.requests);
            return bad(AT_READS, format!("reads {r} + writes {w} + trims {t} is not requests {n}"));
        }
        let pages_ok = if self.object_keys { self.page_accesses == self.requests } else { self.page_accesses >= self.requests };
        if !pages_ok {
            return bad(AT_PAGES, format!("page_accesses {} does not fit {} requests", self.page_accesses, self.requests));
        }
        if self.unique_pages == 0 || self.unique_pages > self.page_accesses {
            return bad(AT_UNIQUE, format!("unique_pages {} is not in 1..={} (page_accesses)", self.unique_pages, self.page_accesses));
        }
        if self.page_size == 0 && !self.object_keys {
            return bad(AT_PAGE_SIZE, "page_size is 0".into());
        }
        if self.volumes == 0 || u64::from(self.volumes) > self.requests.min(1 << 16) {
            return bad(AT_VOLUMES, format!("volumes {} is not in 1..={}", self.volumes, self.requests.min(1 << 16)));
        }
        let next_max = if self.has_next { self.page_accesses } else { 0 };
        if self.next_entries > next_max {
            return bad(AT_NEXT, format!("next-access entries {} is more than {next_max}", self.next_entries));
        }
        let len = (self.requests.checked_mul(RECORD as u64)).and_then(|r| r.checked_add(self.next_entries.checked_mul(8)?));
        let expected = len.and_then(|l| l.checked_add(HEADER as u64));
        match file_len {
            Some(actual) if expected != Some(actual) => Err(Error::trace(
                path,
                Location::File,
                format!(
                    "bad .fct: the header promises {} records and {} next-access entries, which the file's {actual} bytes do not hold",
                    self.requests, self.next_entries
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// Reads and checks the header at the start of `src`.
fn read_checked_header(src: &mut Source) -> Result<Header> {
    let mut h = [0u8; HEADER];
    src.reader.read_exact(&mut h).map_err(|_| Error::trace(&src.path, Location::Byte(0), "truncated .fct header (expected 128 bytes)"))?;
    let header = Header::decode(&h, &src.path)?;
    let flags = u32::from_le_bytes([h[12], h[13], h[14], h[15]]);
    header.validate(&src.path, flags, (!src.compressed).then_some(src.file_size))?;
    Ok(header)
}

/// Reads the header of a `.fct` file, checked as far as it can be without reading the records.
pub fn read_header(path: &Path) -> Result<Header> {
    read_checked_header(&mut Source::open(path)?)
}

/// [`read_header`] of a `.fct` file held in memory (`label` names it in errors).
pub fn read_header_bytes(label: &Path, bytes: std::sync::Arc<[u8]>) -> Result<Header> {
    read_checked_header(&mut Source::from_bytes(label, bytes)?)
}

fn open(src: Source, opts: &TraceOptions) -> Result<Box<dyn TraceReader>> {
    if let Some(k) = opts.params.keys().next() {
        return Err(Error::config(format!("unknown option trace.{k} for format fct")));
    }
    Ok(Box::new(FctReader::new(src, opts.volume)?))
}

/// What the records hold, counted as they are read, to check the header against.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    ops: [u64; 3],
    page_accesses: u64,
    /// Read and write page accesses: the length the next-access column must have.
    next_entries: u64,
    time_first: u64,
    time_last: u64,
}

impl Counts {
    /// Counts record `r`, of `pages` page accesses.
    #[inline(always)]
    fn add(&mut self, r: &HostRequest, pages: u64) {
        self.time_last = r.time_ns;
        self.ops[r.op as usize] += 1;
        self.page_accesses += pages;
        if r.op != Op::Trim {
            self.next_entries += pages;
        }
    }
}

/// Reads into `buf` until it is full or the stream ends; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Reads records after checking the header against the file. Every record is checked and, for
/// the checks after the last one, counted; a pass that uses none of the counts (an online
/// policy's run) skips the counting (`skip_count_checks`), which is most of a record's cost.
struct FctReader {
    src: Source,
    header: Header,
    /// Splits records with the header's page size, to count page accesses.
    splitter: PageSplitter,
    counts: Counts,
    /// Whether the records are counted for the checks at the end (see `skip_count_checks`).
    counting: bool,
    buf: Vec<u8>,
    pos: usize,
    filled: usize,
    /// Records read so far.
    read: u64,
    /// Records up to the last one returned (`read` less a record that failed its checks): where
    /// [`TraceReader::error_in_batch`] counts back from.
    returned: u64,
    volume: Option<u32>,
    /// The records' distinct pages, sketched to check the header's `unique_pages` at the end
    /// when a percent size was resolved against it (see `check_unique_pages`); None otherwise.
    unique: Option<Distinct>,
}

/// The number of distinct page keys in a stream: exact up to [`Distinct::K`] keys (a set of
/// their hashes; the hash is a bijection), then estimated by HyperLogLog (Flajolet, Fusy,
/// Gandouet and Meunier, "HyperLogLog: the analysis of a near-optimal cardinality estimation
/// algorithm", AofA 2007; its estimator with the linear-counting correction below 2.5 m, and no
/// large-range correction, as the hash has 64 bits) over m = 2^[`Distinct::P`] one-byte
/// registers: a relative standard error of 1.04/sqrt(m), 1.6%. Past K keys a page costs a hash
/// and one register's maximum, whatever the trace. The K-minimum-values sketch it replaces
/// sent every access whose hash was among the K smallest to a set look-up; a trace that comes
/// back to a few thousand pages (arc_OLTP: 23,360 pages, 914,145 accesses, LRU hits 0.80 at
/// 10%) sent one access in six, and the check cost a third of an LRU run there. Memory: the
/// set while exact (freed at the switch), then m bytes.
#[derive(Debug)]
struct Distinct {
    /// The hashes seen, while `exact` (at most K of them); empty after.
    seen: rustc_hash::FxHashSet<u64>,
    exact: bool,
    /// Register j: the largest rank (1 + the leading zeros after the top P bits) of the hashes
    /// whose top P bits are j; 0 for none.
    registers: Box<[u8; Distinct::M]>,
}

impl Distinct {
    /// log2 of the registers.
    const P: u32 = 12;
    const M: usize = 1 << Self::P;
    /// The count is exact up to K keys: one register per key.
    const K: usize = Self::M;
    /// How far an estimate may stray from the header's count before the header is refused:
    /// more than 6 standard errors.
    const TOLERANCE: f64 = 0.1;

    fn new() -> Distinct {
        let seen = rustc_hash::FxHashSet::with_capacity_and_hasher(Self::K + 1, Default::default());
        Distinct { seen, exact: true, registers: Box::new([0; Self::M]) }
    }

    /// Adds one page key: past the first K keys, a hash and a register's maximum.
    #[inline(always)]
    fn add(&mut self, key: u64) {
        // splitmix64's finaliser: a bijection of u64.
        let mut h = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
        if self.exact {
            self.keep(h);
        } else {
            self.register(h);
        }
    }

    #[inline(always)]
    fn register(&mut self, h: u64) {
        // The guard bit caps the rank at 64 - P + 1 when the low bits are all zero.
        let rank = ((h << Self::P) | 1 << (Self::P - 1)).leading_zeros() as u8 + 1;
        let r = &mut self.registers[(h >> (64 - Self::P)) as usize];
        *r = (*r).max(rank);
    }

    /// Keeps `h` in the exact set; past K keys, moves them all to the registers (the same
    /// registers as had every key gone there: a register keeps a maximum) and stops keeping.
    #[inline(never)]
    fn keep(&mut self, h: u64) {
        if self.seen.insert(h) && self.seen.len() > Self::K {
            let seen = std::mem::take(&mut self.seen);
            seen.into_iter().for_each(|h| self.register(h));
            self.exact = false;
        }
    }

    /// The count, and whether it is exact.
    fn count(&self) -> (u64, bool) {
        if self.exact {
            return (self.seen.len() as u64, true);
        }
        let m = Self::M as f64;
        let sum: f64 = self.registers.iter().map(|&r| (-f64::from(r)).exp2()).sum();
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        let raw = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
        let estimate = if raw <= 2.5 * m && zeros > 0 { m * (m / zeros as f64).ln() } else { raw };
        (estimate.round() as u64, false)
    }

    /// Whether `said` (the header's count) agrees with the records' count.
    fn agrees(&self, said: u64) -> bool {
        match self.count() {
            (n, true) => n == said,
            (n, false) => (n as f64 / said.max(1) as f64 - 1.0).abs() <= Self::TOLERANCE,
        }
    }
}

impl FctReader {
    fn new(mut src: Source, volume: Option<u32>) -> Result<FctReader> {
        let header = read_checked_header(&mut src)?;
        let unit = if header.object_keys { KeyUnit::Object } else { KeyUnit::Bytes };
        let splitter = PageSplitter::new(header.page_size.max(1), unit);
        let buf = vec![0; CHUNK * RECORD];
        Ok(FctReader {
            src,
            header,
            splitter,
            counts: Counts::default(),
            counting: true,
            buf,
            pos: 0,
            filled: 0,
            read: 0,
            returned: 0,
            volume,
            unique: None,
        })
    }

    /// The record at byte `at` is stamped `time_ns`, past the horizon.
    #[cold]
    fn past_horizon(&self, at: u64, time_ns: u64) -> Error {
        Error::trace(&self.src.path, Location::Byte(at), time::check_trace_time(time_ns).err().unwrap_or_default())
    }

    fn refill(&mut self) -> Result<()> {
        let left = self.header.requests - self.read;
        let want = (left.min(CHUNK as u64) as usize) * RECORD;
        let got = read_full(&mut self.src.reader, &mut self.buf[..want]).map_err(|e| Error::io(&self.src.path, &e))?;
        if got < want {
            let missing = HEADER as u64 + (self.read + (got / RECORD) as u64) * RECORD as u64;
            return Err(Error::trace(
                &self.src.path,
                Location::Byte(missing),
                format!("truncated .fct: header promises {} records", self.header.requests),
            ));
        }
        self.pos = 0;
        self.filled = want;
        Ok(())
    }

    /// Counts records for the checks at the end (while `counting`) and adds their pages to the
    /// distinct-page sketch (if there is one), splitting each record once; `first`: `rs[0]` is
    /// the file's first record.
    #[inline]
    fn tally(&mut self, rs: &[HostRequest], first: bool) {
        let FctReader { counting, unique, splitter, counts: c, .. } = self;
        if first {
            c.time_first = rs.first().map_or(0, |r| r.time_ns);
        }
        // A record outside the key space (refused where it is split) counts no pages.
        match (*counting, unique.as_mut()) {
            (false, None) => {}
            (true, None) => rs.iter().for_each(|r| c.add(r, splitter.pages(r).map_or(0, |(_, n)| n))),
            (true, Some(d)) => {
                for r in rs {
                    let (key, n) = splitter.pages(r).unwrap_or((0, 0));
                    c.add(r, n);
                    (key..key + n).for_each(|k| d.add(k));
                }
            }
            // An online run's pass (no counts): the sketch alone, on the split without its
            // check, as a refused record fails the run where it is split and the sketch's
            // count is then never used. One page is most records: a hash and a comparison.
            (false, Some(d)) => {
                for r in rs {
                    let (key, n) = splitter.pages_unchecked(r);
                    d.add(key);
                    if n > 1 {
                        (key + 1..key + n).for_each(|k| d.add(k));
                    }
                }
            }
        }
    }

    /// After the last record: the header's counts are those of the records, and (without a
    /// next-access column) nothing follows them.
    fn check_end(&mut self) -> Result<()> {
        let h = &self.header;
        if let Some(d) = self.unique.as_ref().filter(|d| !d.agrees(h.unique_pages)) {
            let found = match d.count() {
                (n, true) => n.to_string(),
                (n, false) => format!("about {n} (estimated by HyperLogLog from {} registers)", Distinct::M),
            };
            return Err(Error::trace(
                &self.src.path,
                Location::Byte(AT_UNIQUE),
                format!(
                    "bad .fct header: unique_pages is {}, the records hold {found}; the percent size was resolved against it",
                    h.unique_pages
                ),
            ));
        }
        let c = &self.counts;
        let fields = [
            ("reads", AT_READS, h.reads, c.ops[0]),
            ("writes", AT_READS + 8, h.writes, c.ops[1]),
            ("trims", AT_READS + 16, h.trims, c.ops[2]),
            ("page_accesses", AT_PAGES, h.page_accesses, c.page_accesses),
            ("time_first", AT_TIME_FIRST, h.time_first, c.time_first),
            ("time_last", AT_TIME_FIRST + 8, h.time_last, c.time_last),
            ("next-access entries", AT_NEXT, if h.has_next { h.next_entries } else { c.next_entries }, c.next_entries),
        ];
        if let Some((name, at, said, found)) = fields.into_iter().find(|f| self.counting && f.2 != f.3) {
            return Err(Error::trace(
                &self.src.path,
                Location::Byte(at),
                format!("bad .fct header: {name} is {said}, the records hold {found}"),
            ));
        }
        let at_end = HEADER as u64 + self.read * RECORD as u64;
        if !h.has_next && !self.src.reader.fill_buf().map_err(|e| Error::io(&self.src.path, &e))?.is_empty() {
            return Err(Error::trace(&self.src.path, Location::Byte(at_end), "bad .fct: bytes follow the last record"));
        }
        Ok(())
    }

    /// Moves past every record without decoding it (see `next_access_column`).
    fn skip_records(&mut self) -> Result<()> {
        let bytes = self.header.requests * RECORD as u64;
        let skipped =
            std::io::copy(&mut (&mut self.src.reader).take(bytes), &mut std::io::sink()).map_err(|e| Error::io(&self.src.path, &e))?;
        if skipped < bytes {
            return Err(Error::trace(
                &self.src.path,
                Location::Byte(HEADER as u64 + skipped),
                format!("truncated .fct: header promises {} records", self.header.requests),
            ));
        }
        self.read = self.header.requests;
        Ok(())
    }

    /// The next-access column, after the last record: exactly `next_entries` indices, each
    /// [`NEVER`] or a later access, and then the end of the file.
    fn read_next_column(&mut self) -> Result<Vec<u64>> {
        let n = self.header.next_entries;
        let start = HEADER as u64 + self.read * RECORD as u64;
        let path = &self.src.path;
        let r = &mut self.src.reader;
        // Grows with what the file holds, not with what the header says; read a chunk at a time.
        let mut next = Vec::with_capacity(n.min(1 << 20) as usize);
        let mut chunk = vec![0u8; CHUNK * 8];
        let mut i = 0u64;
        while i < n {
            let want = ((n - i).min(CHUNK as u64) as usize) * 8;
            let got = read_full(r, &mut chunk[..want]).map_err(|e| Error::io(path, &e))?;
            for (k, entry) in chunk[..got / 8 * 8].chunks_exact(8).enumerate() {
                let (v, i) = (u64::from_le_bytes(entry.try_into().unwrap_or_default()), i + k as u64);
                if v != NEVER && (v <= i || v >= n) {
                    return Err(Error::trace(
                        path,
                        Location::Byte(start + 8 * i),
                        format!("bad .fct next-access entry {v} at access {i}: expected a later access below {n}, or never"),
                    ));
                }
                next.push(v);
            }
            if got < want {
                let at = start + 8 * (i + (got / 8) as u64);
                return Err(Error::trace(
                    path,
                    Location::Byte(at),
                    format!("truncated .fct next-access column: the header promises {n} entries"),
                ));
            }
            i += (want / 8) as u64;
        }
        if !r.fill_buf().map_err(|e| Error::io(path, &e))?.is_empty() {
            return Err(Error::trace(path, Location::Byte(start + 8 * n), "bad .fct: bytes follow the next-access column"));
        }
        Ok(next)
    }
}

impl TraceReader for FctReader {
    #[inline]
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        loop {
            if self.pos == self.filled {
                if self.read == self.header.requests {
                    return Ok(None);
                }
                self.refill()?;
            }
            let r = &self.buf[self.pos..self.pos + RECORD];
            self.pos += RECORD;
            let at = HEADER as u64 + self.read * RECORD as u64;
            self.read += 1;
            let op = Op::from_u8(r[22])
                .ok_or_else(|| Error::trace(&self.src.path, Location::Byte(at + 22), format!("bad op code {}", r[22])))?;
            let time_ns = u64::from_le_bytes(r[0..8].try_into().unwrap_or_default());
            let offset = u64::from_le_bytes(r[8..16].try_into().unwrap_or_default());
            let len = u32::from_le_bytes(r[16..20].try_into().unwrap_or_default());
            let volume = u32::from(u16::from_le_bytes(r[20..22].try_into().unwrap_or_default()));
            // Checked and counted on the fields; the request is built only to be returned (built
            // earlier and kept on the stack, its copy out stalls on store forwarding).
            HostRequest::check_range(offset, len, self.key_unit()).map_err(|m| Error::trace(&self.src.path, Location::Byte(at + 8), m))?;
            if time_ns >= time::HORIZON_NS {
                return Err(self.past_horizon(at, time_ns));
            }
            if self.counting | self.unique.is_some() {
                self.tally(&[HostRequest { time_ns, offset, len, volume, op }], self.read == 1);
            }
            if self.read == self.header.requests {
                self.check_end()?;
            }
            if self.volume.is_some_and(|v| v != volume) {
                continue;
            }
            self.returned = self.read;
            return Ok(Some(HostRequest { time_ns, offset, len, volume, op }));
        }
    }

    fn format(&self) -> &'static str {
        FORMAT.name
    }

    fn key_unit(&self) -> KeyUnit {
        if self.header.object_keys {
            KeyUnit::Object
        } else {
            KeyUnit::Bytes
        }
    }

    fn progress(&self) -> (u64, u64) {
        (self.read, self.header.requests)
    }

    fn error_at_last(&self, message: String) -> Error {
        self.error_in_batch(0, message)
    }

    /// Decodes the records left in the buffer (up to `out`'s capacity) in one loop: one test per
    /// record for every check [`FctReader::next_request`] makes, which decodes a record that
    /// fails it to name the failure. A volume-filtered pass returns one request a call.
    fn next_batch(&mut self, out: &mut Vec<HostRequest>) -> Result<()> {
        out.clear();
        if self.volume.is_some() {
            // Records of other volumes are skipped: one request a call, so that
            // `error_in_batch` counts back in records.
            if let Some(r) = self.next_request()? {
                out.push(r);
            }
            return Ok(());
        }
        if self.pos == self.filled {
            if self.read == self.header.requests {
                return Ok(());
            }
            self.refill()?;
        }
        let take = ((self.filled - self.pos) / RECORD).min(out.capacity().max(1));
        let unit = self.key_unit();
        for r in self.buf[self.pos..self.pos + take * RECORD].chunks_exact(RECORD) {
            let time_ns = u64::from_le_bytes(r[0..8].try_into().unwrap_or_default());
            let offset = u64::from_le_bytes(r[8..16].try_into().unwrap_or_default());
            let len = u32::from_le_bytes(r[16..20].try_into().unwrap_or_default());
            let volume = u32::from(u16::from_le_bytes(r[20..22].try_into().unwrap_or_default()));
            let op = match r[22] {
                0 => Op::Read,
                1 => Op::Write,
                2 => Op::Trim,
                _ => break,
            };
            if !HostRequest::range_ok(offset, len, unit) | (time_ns >= time::HORIZON_NS) {
                break;
            }
            out.push(HostRequest { time_ns, offset, len, volume, op });
        }
        if self.counting | self.unique.is_some() {
            self.tally(out, self.read == 0);
        }
        self.pos += out.len() * RECORD;
        self.read += out.len() as u64;
        self.returned = self.read;
        if out.len() < take {
            // A record failed a check: `next_request` says which (and returns it if not).
            if let Some(r) = self.next_request()? {
                out.push(r);
            }
        } else if self.read == self.header.requests {
            if let Err(e) = self.check_end() {
                // As `next_request`: the error in place of the last record.
                out.pop();
                self.returned -= 1;
                return Err(e);
            }
        }
        Ok(())
    }

    fn error_in_batch(&self, back: usize, message: String) -> Error {
        let at = self.returned.saturating_sub(1 + back as u64);
        Error::trace(&self.src.path, Location::Byte(HEADER as u64 + at * RECORD as u64 + 8), message)
    }

    fn timed(&self) -> bool {
        !self.header.untimed
    }

    fn skip_count_checks(&mut self) {
        self.counting = false;
    }

    /// The check's cost is a hash and a register's maximum per page of the pass (issue 3's
    /// targets: it was 91 instructions a request, a sixth of an LRU run's time at 1%): the
    /// sketch's exact set is off the path once it holds more than K keys
    /// ([`Distinct::keep`]), an online run's pass splits a record for it without the
    /// splitter's check (a refused record fails the run where the loop splits it, so the
    /// sketch's count is then never used), and an offline run's pass, which counts the records
    /// for the header's other fields, splits each record once for both. It is asked for only
    /// when the percent size was resolved against the header's count ([`crate::run`]): a size
    /// in pages, or a percent of the caller's own count, does not depend on the header.
    fn check_unique_pages(&mut self) {
        if self.known_unique_pages(self.header.page_size).is_some() && self.unique.is_none() && self.read == 0 {
            self.unique = Some(Distinct::new());
        }
    }

    fn read_ahead(&self) -> bool {
        self.src.compressed
    }

    /// The header's count, when the whole file is read (no volume picked) at the page size it
    /// was counted with (any page size for object ids: one page a key). The header is checked
    /// to hold at least one and at most `page_accesses` pages; that it is the records' own
    /// count is what `fcsim trace convert` wrote (a pass would cost what the count saves).
    fn known_unique_pages(&self, page_size: u32) -> Option<u64> {
        (self.volume.is_none() && (self.header.page_size == page_size || self.header.object_keys)).then_some(self.header.unique_pages)
    }

    fn next_access_column(&mut self, page_size: u32) -> Result<Option<Vec<u64>>> {
        if !self.header.has_next || self.volume.is_some() || (self.header.page_size != page_size && !self.header.object_keys) {
            return Ok(None);
        }
        // The column follows the records: read it through a second handle that skips them
        // undecoded. The column's own length and entries are checked here; that the records
        // need exactly `next_entries` of them is checked by this reader's pass over them, which
        // ends in an error (before any result) if the header lies. Until then an access past
        // the column's end is never again to the consumer.
        let mut second = FctReader::new(self.src.reopen()?, None)?;
        second.skip_records()?;
        second.read_next_column().map(Some)
    }
}

/// Writes a `.fct` file: records are streamed, the header is written last (after the stats
/// are known). The caller writes to a temporary file and renames it on success.
#[derive(Debug)]
pub struct Writer<W: Write + Seek> {
    out: W,
    buf: Vec<u8>,
}

impl<W: Write + Seek> Writer<W> {
    pub fn new(mut out: W) -> std::io::Result<Self> {
        out.write_all(&[0u8; HEADER])?;
        Ok(Writer { out, buf: Vec::with_capacity(CHUNK * RECORD) })
    }

    pub fn push(&mut self, r: &HostRequest) -> std::io::Result<()> {
        self.buf.extend_from_slice(&r.time_ns.to_le_bytes());
        self.buf.extend_from_slice(&r.offset.to_le_bytes());
        self.buf.extend_from_slice(&r.len.to_le_bytes());
        self.buf.extend_from_slice(&(r.volume as u16).to_le_bytes());
        self.buf.extend_from_slice(&[r.op as u8, 0]);
        if self.buf.len() >= CHUNK * RECORD {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Appends the next-access column (after all records) and writes the header.
    pub fn finish(mut self, header: &Header, next: Option<&[u64]>) -> std::io::Result<W> {
        self.out.write_all(&self.buf)?;
        if let Some(next) = next {
            for chunk in next.chunks(CHUNK) {
                self.buf.clear();
                for v in chunk {
                    self.buf.extend_from_slice(&v.to_le_bytes());
                }
                self.out.write_all(&self.buf)?;
            }
        }
        self.out.seek(SeekFrom::Start(0))?;
        self.out.write_all(&header.encode())?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::Distinct;

    #[test]
    fn the_distinct_sketch_is_exact_up_to_k_and_close_above() {
        let mut d = Distinct::new();
        // Each key three times: repeats are not counted again.
        (0..3).for_each(|_| (0..1000u64).for_each(|k| d.add(k * 7)));
        assert_eq!(d.count(), (1000, true));
        assert!(d.agrees(1000) && !d.agrees(999) && !d.agrees(1001));
        let mut d = Distinct::new();
        (0..Distinct::K as u64).for_each(|k| d.add(k));
        assert_eq!(d.count(), (Distinct::K as u64, true));
        // Past K keys, each count within 5% (3 standard errors) across the range where the
        // estimator changes (linear counting up to 2.5 m, the raw estimate after), keys dense
        // and sparse; repeats change nothing.
        for n in [Distinct::K as u64 + 1, 6_000, 10_000, 10_300, 14_000, 20_000, 50_000, 1_000_000] {
            for stride in [1u64, 4097] {
                let mut d = Distinct::new();
                (0..2).for_each(|_| (0..n).for_each(|k| d.add(k * stride)));
                let (est, exact) = d.count();
                assert!(!exact && (est as f64 / n as f64 - 1.0).abs() < 0.05, "{est} for {n}");
                assert!(d.seen.is_empty());
                assert!(d.agrees(n) && !d.agrees(n / 2) && !d.agrees(n * 2));
            }
        }
    }
}
