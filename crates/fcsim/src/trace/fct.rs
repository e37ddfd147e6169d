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
use crate::request::{HostRequest, KeyUnit, Op};
use std::io::{Read, Seek, SeekFrom, Write};
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

/// Reads the header of a `.fct` file.
pub fn read_header(path: &Path) -> Result<Header> {
    let mut src = Source::open(path)?;
    let mut h = [0u8; HEADER];
    src.reader.read_exact(&mut h).map_err(|_| Error::trace(path, Location::Byte(0), "truncated .fct header (expected 128 bytes)"))?;
    Header::decode(&h, path)
}

fn open(mut src: Source, opts: &TraceOptions) -> Result<Box<dyn TraceReader>> {
    if let Some(k) = opts.params.keys().next() {
        return Err(Error::config(format!("unknown option trace.{k} for format fct")));
    }
    let mut h = [0u8; HEADER];
    src.reader.read_exact(&mut h).map_err(|_| Error::trace(&src.path, Location::Byte(0), "truncated .fct header (expected 128 bytes)"))?;
    let header = Header::decode(&h, &src.path)?;
    if header.requests == 0 {
        return Err(Error::trace(&src.path, Location::File, "empty trace: the .fct file holds no requests"));
    }
    Ok(Box::new(FctReader { src, header, buf: vec![0; CHUNK * RECORD], pos: 0, filled: 0, read: 0, volume: opts.volume }))
}

struct FctReader {
    src: Source,
    header: Header,
    buf: Vec<u8>,
    pos: usize,
    filled: usize,
    /// Records read so far.
    read: u64,
    volume: Option<u32>,
}

impl FctReader {
    fn refill(&mut self) -> Result<()> {
        let left = self.header.requests - self.read;
        let want = (left.min(CHUNK as u64) as usize) * RECORD;
        let mut got = 0;
        while got < want {
            match self.src.reader.read(&mut self.buf[got..want]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(&self.src.path, &e)),
            }
        }
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
            let offset = HEADER as u64 + self.read * RECORD as u64;
            self.read += 1;
            let op = Op::from_u8(r[22])
                .ok_or_else(|| Error::trace(&self.src.path, Location::Byte(offset + 22), format!("bad op code {}", r[22])))?;
            let req = HostRequest {
                time_ns: u64::from_le_bytes(r[0..8].try_into().unwrap_or_default()),
                offset: u64::from_le_bytes(r[8..16].try_into().unwrap_or_default()),
                len: u32::from_le_bytes(r[16..20].try_into().unwrap_or_default()),
                volume: u32::from(u16::from_le_bytes(r[20..22].try_into().unwrap_or_default())),
                op,
            };
            if self.volume.is_some_and(|v| v != req.volume) {
                continue;
            }
            return Ok(Some(req));
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

    fn timed(&self) -> bool {
        !self.header.untimed
    }

    fn next_access_column(&mut self, page_size: u32) -> Result<Option<Vec<u64>>> {
        if !self.header.has_next || self.volume.is_some() || (self.header.page_size != page_size && !self.header.object_keys) {
            return Ok(None);
        }
        // The column follows the records: read it through a second handle.
        let path = self.src.path.clone();
        let skip = HEADER as u64 + self.header.requests * RECORD as u64;
        let mut src = Source::open(&path)?;
        let n = self.header.next_entries as usize;
        let mut bytes = vec![0u8; n * 8];
        let r = &mut src.reader;
        let res = std::io::copy(&mut r.by_ref().take(skip), &mut std::io::sink()).and_then(|_| r.read_exact(&mut bytes));
        res.map_err(|_| Error::trace(&path, Location::Byte(skip), "truncated .fct next-access column"))?;
        Ok(Some(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default())).collect()))
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
