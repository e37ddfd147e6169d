//! libCacheSim oracleGeneral binary traces (libCacheSim's `oracleGeneral` reader).
//!
//! Packed little-endian records of 24 bytes: `u32 time (s), u64 obj_id, u32 obj_size,
//! i64 next_access_vtime` (-1 = never). Keys are object ids: one record is one page access.
//! No header and no magic: detected by the `.oracleGeneral` / `.oracleGeneral.bin` extension.

use super::{FormatInfo, Opener, Source, TraceOptions, TraceReader};
use crate::error::{Error, Location, Result};
use crate::request::{HostRequest, KeyUnit, Op};
use std::io::{BufRead, Read, Write};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "oracle-general",
    description: "libCacheSim oracleGeneral binary (u32 time, u64 id, u32 size, i64 next)",
    time_unit: "s",
    extensions: &[".oraclegeneral", ".oraclegeneral.bin"],
    opener: Opener::Binary { magic: None, open },
};

pub const RECORD: usize = 24;

fn open(mut src: Source, opts: &TraceOptions) -> Result<Box<dyn TraceReader>> {
    if let Some(k) = opts.params.keys().next() {
        return Err(Error::config(format!("unknown option trace.{k} for format oracle-general")));
    }
    // The format has no magic, so `--format oracle-general` reads any file. Records hold binary
    // integers (a time of a few bytes, -1 as eight 0xff): a head of printable text is a text
    // trace given the wrong format, not records (it was read as garbage keys).
    let head = src.reader.fill_buf().map_err(|e| Error::io(&src.path, &e))?;
    let head = &head[..head.len().min(4096)];
    if head.len() >= RECORD && head.iter().all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace()) {
        return Err(Error::trace(
            &src.path,
            Location::Byte(0),
            "this is text, not oracleGeneral binary records (24 bytes each); leave out --format to detect the format",
        ));
    }
    Ok(Box::new(OracleReader { src, offset: 0, records: 0 }))
}

struct OracleReader {
    src: Source,
    offset: u64,
    records: u64,
}

impl TraceReader for OracleReader {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        let mut rec = [0u8; RECORD];
        let mut got = 0;
        while got < RECORD {
            let n = self.src.reader.read(&mut rec[got..]).map_err(|e| Error::io(&self.src.path, &e))?;
            if n == 0 {
                break;
            }
            got += n;
        }
        if got == 0 {
            if self.records == 0 {
                return Err(Error::trace(&self.src.path, Location::File, "empty trace: no oracleGeneral records"));
            }
            return Ok(None);
        }
        if got < RECORD {
            return Err(Error::trace(
                &self.src.path,
                Location::Byte(self.offset),
                format!("truncated record: expected {RECORD} bytes, found {got}"),
            ));
        }
        self.offset += RECORD as u64;
        self.records += 1;
        let time = u32::from_le_bytes(rec[0..4].try_into().unwrap_or_default());
        let id = u64::from_le_bytes(rec[4..12].try_into().unwrap_or_default());
        Ok(Some(HostRequest { time_ns: u64::from(time) * 1_000_000_000, volume: 0, offset: id, len: 0, op: Op::Read }))
    }

    fn format(&self) -> &'static str {
        FORMAT.name
    }

    fn key_unit(&self) -> KeyUnit {
        KeyUnit::Object
    }

    fn progress(&self) -> (u64, u64) {
        self.src.progress()
    }

    fn error_at_last(&self, message: String) -> Error {
        Error::trace(&self.src.path, Location::Byte(self.offset.saturating_sub(RECORD as u64)), message)
    }
}

/// Writes one oracleGeneral record.
pub fn write_record(w: &mut impl Write, time_s: u32, id: u64, size: u32, next: i64) -> std::io::Result<()> {
    let mut rec = [0u8; RECORD];
    rec[0..4].copy_from_slice(&time_s.to_le_bytes());
    rec[4..12].copy_from_slice(&id.to_le_bytes());
    rec[12..16].copy_from_slice(&size.to_le_bytes());
    rec[16..24].copy_from_slice(&next.to_le_bytes());
    w.write_all(&rec)
}
