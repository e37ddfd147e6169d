//! SPC / UMass trace repository ASCII format (Financial1/2, WebSearch1-3; the UMass Trace
//! Repository is cited as GASA [22]; SPC's format specification is not in the seed papers'
//! reference lists).
//!
//! CSV: `ASU,LBA,Size,Opcode,Timestamp[,optional fields]`. LBA is in 512-byte blocks, Size in
//! bytes, Opcode `r`/`R` or `w`/`W`, Timestamp in seconds (decimal) since the trace start,
//! converted to ns exactly. The volume is the ASU.

use super::text::{fields, parse_len, parse_offset, parse_scaled, parse_volume, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "spc",
    description: "SPC/UMass ASCII (ASU,LBA,size,opcode,timestamp)",
    time_unit: "s (decimal)",
    extensions: &[".spc"],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    super::text::most(lines, |l| {
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        f.len() >= 5 && matches!(f[3], "r" | "R" | "w" | "W") && f[1].parse::<u64>().is_ok()
    })
}

fn make(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Spc))
}

struct Spc;

impl LineFormat for Spc {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        let f = fields::<5>(line, ',', "comma-separated SPC")?;
        let op = match f[3] {
            "r" | "R" => Op::Read,
            "w" | "W" => Op::Write,
            o => return Err(format!("expected opcode r or w, found '{o}'")),
        };
        Ok(Parsed::Request(HostRequest {
            time_ns: parse_scaled(f[4], 9, "a timestamp in seconds")?,
            volume: parse_volume(f[0], "an ASU number")?,
            offset: parse_offset(f[1], 512, "an LBA (512 B blocks)")?,
            len: parse_len(f[2], 1, "a size in bytes")?,
            op,
        }))
    }
}
