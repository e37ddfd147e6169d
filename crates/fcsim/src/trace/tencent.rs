//! Tencent CBS block traces (SNIA IOTTA trace 27917).
//!
//! CSV, no header: `Timestamp,Offset,Size,IOType,VolumeID`. Timestamp is Unix seconds
//! (integer), Offset and Size are 512-byte sectors, IOType 0 = read, 1 = write. The volume is
//! VolumeID. Timestamps are whole seconds and not strictly sorted in the published files.

use super::text::{fields, parse_len, parse_offset, parse_u64, parse_volume, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "tencent",
    description: "Tencent CBS CSV (Timestamp,Offset,Size,IOType,VolumeID; sectors, 1 = write)",
    time_unit: "s (Unix)",
    extensions: &[],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    super::text::most(lines, |l| {
        let f: Vec<&str> = l.split(',').collect();
        f.len() == 5 && f.iter().all(|x| x.trim().parse::<u64>().is_ok()) && matches!(f[3].trim(), "0" | "1")
    })
}

fn make(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Tencent))
}

struct Tencent;

impl LineFormat for Tencent {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        let f = fields::<5>(line, ',', "comma-separated Tencent CBS")?;
        let op = match f[3] {
            "0" => Op::Read,
            "1" => Op::Write,
            o => return Err(format!("expected IOType 0 (read) or 1 (write), found '{o}'")),
        };
        let secs = parse_u64(f[0], "a Unix timestamp in seconds")?;
        Ok(Parsed::Request(HostRequest {
            time_ns: secs.checked_mul(1_000_000_000).ok_or("timestamp overflows 64-bit nanoseconds")?,
            volume: parse_volume(f[4], "a volume id")?,
            offset: parse_offset(f[1], 512, "an offset in sectors")?,
            len: parse_len(f[2], 512, "a size in sectors")?,
            op,
        }))
    }
}
