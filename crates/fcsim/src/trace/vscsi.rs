//! CloudPhysics vSCSI traces in CSV form (Waldspurger et al., "Efficient MRC construction with
//! SHARDS", FAST'15; the CSV rendering shipped with libCacheSim).
//!
//! CSV with header `version,time,op,size,lbn`. time is in microseconds, op the SCSI opcode in
//! hex (READ(6/10/12/16) = 08/28/a8/88, WRITE(6/10/12/16) = 0a/2a/aa/8a, UNMAP = 42 as trim),
//! size in bytes, lbn a 512-byte logical block number. Single volume.

use super::text::{fields, parse_len, parse_offset, parse_u64, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "vscsi",
    description: "CloudPhysics vSCSI CSV (version,time,op,size,lbn; op = SCSI opcode in hex)",
    time_unit: "µs",
    extensions: &[".vscsi.csv"],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    lines[0].replace(' ', "").eq_ignore_ascii_case("version,time,op,size,lbn")
}

fn make(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Vscsi))
}

struct Vscsi;

impl LineFormat for Vscsi {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        if line.starts_with("version") {
            return Ok(Parsed::Skip);
        }
        let f = fields::<5>(line, ',', "comma-separated vSCSI")?;
        let code = u8::from_str_radix(f[2].trim_start_matches("0x"), 16)
            .map_err(|_| format!("expected a SCSI opcode in hex, found '{}'", f[2]))?;
        let op = match code {
            0x08 | 0x28 | 0xa8 | 0x88 => Op::Read,
            0x0a | 0x2a | 0xaa | 0x8a => Op::Write,
            0x42 => Op::Trim,
            _ => return Err(format!("expected a SCSI read, write or unmap opcode, found '{}'", f[2])),
        };
        let us = parse_u64(f[1], "a time in µs")?;
        Ok(Parsed::Request(HostRequest {
            time_ns: us.checked_mul(1000).ok_or("time overflows 64-bit nanoseconds")?,
            volume: 0,
            offset: parse_offset(f[4], 512, "a logical block number")?,
            len: parse_len(f[3], 1, "a size in bytes")?,
            op,
        }))
    }
}
