//! Windows Sysinternals DiskMon logs, saved as text.
//!
//! Tab-separated (a trailing tab is common): `seq time_s duration_s disk Read|Write sector
//! length`. time is seconds since the start of the capture (decimal), sector and length in
//! 512-byte sectors. The volume is the disk number.

use super::text::{fields, parse_len, parse_offset, parse_scaled, parse_volume, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "diskmon",
    description: "Sysinternals DiskMon text (seq time duration disk Read|Write sector length)",
    time_unit: "s (decimal)",
    extensions: &[],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    super::text::most(lines, |l| {
        let f: Vec<&str> = l.split('\t').collect();
        f.len() >= 7 && matches!(f[4], "Read" | "Write")
    })
}

fn make(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(DiskMon))
}

struct DiskMon;

impl LineFormat for DiskMon {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        let f = fields::<7>(line, '\t', "tab-separated DiskMon")?;
        let op = match f[4] {
            "Read" => Op::Read,
            "Write" => Op::Write,
            o => return Err(format!("expected Read or Write, found '{o}'")),
        };
        Ok(Parsed::Request(HostRequest {
            time_ns: parse_scaled(f[1], 9, "a time in seconds")?,
            volume: parse_volume(f[3], "a disk number")?,
            offset: parse_offset(f[5], 512, "a start sector")?,
            len: parse_len(f[6], 512, "a length in sectors")?,
            op,
        }))
    }
}
