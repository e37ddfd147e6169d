//! FIU SRCMap / IODedup traces (Koller & Rangaswami, "I/O deduplication: Utilizing content
//! similarity to improve I/O performance", ACM TOS 6(3), 2010; SNIA IOTTA).
//!
//! Space-separated: `ts pid process lba size op major minor md5`. ts is in nanoseconds, lba and
//! size in 512-byte sectors, op `R` or `W`. The process name may contain spaces, so the fields
//! after it are taken from the end of the line. Single volume.

use super::text::{parse_len, parse_offset, parse_u64, take_n, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "fiu",
    description: "FIU SRCMap/IODedup text (ts pid process lba size op major minor md5)",
    time_unit: "ns",
    extensions: &[".blkparse"],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    super::text::most(lines, |l| {
        let f: Vec<&str> = l.split_ascii_whitespace().collect();
        f.len() >= 9 && matches!(f[f.len() - 4], "R" | "W") && f[0].parse::<u64>().is_ok()
    })
}

fn make(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Fiu))
}

struct Fiu;

impl LineFormat for Fiu {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        // The process name may hold spaces: up to 16 fields, the last six read from the end.
        let (f, n) = take_n::<16>(line.split_ascii_whitespace());
        if !(9..=16).contains(&n) {
            return Err(format!("expected 9 space-separated FIU fields, found {n}"));
        }
        let op = match f[n - 4] {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            o => return Err(format!("expected op R or W, found '{o}'")),
        };
        Ok(Parsed::Request(HostRequest {
            time_ns: parse_u64(f[0], "a timestamp in ns")?,
            volume: 0,
            offset: parse_offset(f[n - 6], 512, "an LBA (512 B sectors)")?,
            len: parse_len(f[n - 5], 512, "a size in sectors")?,
            op,
        }))
    }
}
