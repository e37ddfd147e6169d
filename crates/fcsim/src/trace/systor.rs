//! SYSTOR'17 VDI traces (SNIA IOTTA).
//!
//! CSV with header `Timestamp,Response,IOType,LUN,Offset,Size`. Timestamp is Unix seconds with
//! nanosecond precision (decimal, parsed exactly), IOType `R` or `W`, Offset and Size in bytes.
//! The volume is the LUN.

use super::text::{fields, parse_len, parse_offset, parse_scaled, parse_volume, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "systor",
    description: "SYSTOR'17 CSV (Timestamp,Response,IOType,LUN,Offset,Size)",
    time_unit: "s (decimal, Unix)",
    extensions: &[],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    lines[0].to_ascii_lowercase().replace(' ', "").starts_with("timestamp,response,iotype,lun,offset,size")
        || super::text::most(lines, |l| {
            let f: Vec<&str> = l.split(',').collect();
            f.len() == 6 && matches!(f[2], "R" | "W") && f[0].contains('.')
        })
}

fn make(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Systor))
}

struct Systor;

impl LineFormat for Systor {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        if line.starts_with(|c: char| c.is_ascii_alphabetic()) && line.to_ascii_lowercase().starts_with("timestamp") {
            return Ok(Parsed::Skip);
        }
        let f = fields::<6>(line, ',', "comma-separated SYSTOR")?;
        let op = match f[2] {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            o => return Err(format!("expected IOType R or W, found '{o}'")),
        };
        Ok(Parsed::Request(HostRequest {
            time_ns: parse_scaled(f[0], 9, "a Unix timestamp in seconds")?,
            volume: parse_volume(f[3], "a LUN number")?,
            offset: parse_offset(f[4], 1, "a byte offset")?,
            len: parse_len(f[5], 1, "a size in bytes")?,
            op,
        }))
    }
}
