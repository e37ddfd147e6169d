//! DiskSim and MQSim ASCII traces: `time device block size flags`, whitespace-separated.
//!
//! - DiskSim (Bucy et al., "The DiskSim Simulation Environment Version 4.0 Reference Manual",
//!   §4.3 "ascii" input): arrival time in milliseconds (decimal), device number, starting block
//!   and size in 512-byte blocks, flags with bit 0 set for a read (DISKSIM_READ).
//! - MQSim (`ASCII_Trace_Definition.h`): arrival time in nanoseconds (integer), device, start
//!   LBA and size in 512-byte sectors, type 1 = read, 0 = write.
//!
//! Both keep the device as the volume. Detection picks DiskSim when the time has a decimal point.

use super::text::{parse_len, parse_offset, parse_scaled, parse_u64, parse_volume, words, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const MQSIM: FormatInfo = FormatInfo {
    name: "mqsim",
    description: "MQSim ASCII (time_ns device lba sectors type; 1 = read)",
    time_unit: "ns",
    extensions: &[],
    opener: Opener::Text { sniff: sniff_mqsim, make: make_mqsim },
};

pub const DISKSIM: FormatInfo = FormatInfo {
    name: "disksim",
    description: "DiskSim ASCII (time_ms device block blocks flags; bit 0 = read)",
    time_unit: "ms (decimal)",
    extensions: &[],
    opener: Opener::Text { sniff: sniff_disksim, make: make_disksim },
};

fn numeric5(l: &str) -> Option<Vec<&str>> {
    let f: Vec<&str> = l.split_ascii_whitespace().collect();
    (f.len() == 5 && f[1..].iter().all(|x| x.parse::<u64>().is_ok())).then_some(f)
}

fn sniff_mqsim(lines: &[&str]) -> bool {
    super::text::most(lines, |l| numeric5(l).is_some_and(|f| f[0].parse::<u64>().is_ok() && matches!(f[4], "0" | "1")))
}

fn sniff_disksim(lines: &[&str]) -> bool {
    super::text::most(lines, |l| numeric5(l).is_some_and(|f| parse_scaled(f[0], 6, "").is_ok()))
}

fn make_mqsim(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Ascii { mqsim: true }))
}

fn make_disksim(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Ascii { mqsim: false }))
}

struct Ascii {
    mqsim: bool,
}

impl LineFormat for Ascii {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        let f = words::<5>(line, "whitespace-separated")?;
        let flags = parse_u64(f[4], "a request type/flags number")?;
        let (time_ns, op) = if self.mqsim {
            let op = match flags {
                1 => Op::Read,
                0 => Op::Write,
                _ => return Err(format!("expected type 1 (read) or 0 (write), found '{}'", f[4])),
            };
            (parse_u64(f[0], "an arrival time in ns")?, op)
        } else {
            let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
            (parse_scaled(f[0], 6, "an arrival time in ms")?, op)
        };
        Ok(Parsed::Request(HostRequest {
            time_ns,
            volume: parse_volume(f[1], "a device number")?,
            offset: parse_offset(f[2], 512, "a block number (512 B)")?,
            len: parse_len(f[3], 512, "a size in blocks")?,
            op,
        }))
    }
}
