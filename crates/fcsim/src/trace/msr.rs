//! MSR Cambridge block traces (Narayanan et al., "Write off-loading", FAST'08; SNIA IOTTA).
//!
//! CSV, no header: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//! Timestamp is a Windows FILETIME (100 ns ticks since 1601-01-01), converted to ns by × 100.
//! Type is `Read` or `Write`; Offset and Size are bytes. The volume is DiskNumber (a published
//! MSR file holds one host, so the host name is not part of the key).

use super::text::{fields, parse_len, parse_offset, parse_u64, parse_volume, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "msr",
    description: "MSR Cambridge CSV (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)",
    time_unit: "100 ns (Windows FILETIME)",
    extensions: &[],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    super::text::most(lines, |l| {
        let f: Vec<&str> = l.split(',').collect();
        f.len() == 7 && matches!(f[3].to_ascii_lowercase().as_str(), "read" | "write") && f[0].parse::<u64>().is_ok()
    })
}

fn make(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Msr))
}

struct Msr;

impl LineFormat for Msr {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        let f = fields::<7>(line, ',', "comma-separated MSR")?;
        let ticks = parse_u64(f[0], "a FILETIME timestamp (100 ns ticks)")?;
        let op = match f[3] {
            t if t.eq_ignore_ascii_case("read") => Op::Read,
            t if t.eq_ignore_ascii_case("write") => Op::Write,
            t => return Err(format!("expected Type Read or Write, found '{t}'")),
        };
        Ok(Parsed::Request(HostRequest {
            time_ns: ticks.checked_mul(100).ok_or("timestamp overflows 64-bit nanoseconds")?,
            volume: parse_volume(f[2], "a disk number")?,
            offset: parse_offset(f[4], 1, "a byte offset")?,
            len: parse_len(f[5], 1, "a size in bytes")?,
            op,
        }))
    }
}
