//! Default `blkparse` text output (blktrace, Linux; `man blkparse`, "DEFAULT OUTPUT").
//!
//! `maj,min cpu seq time_s pid action RWBS sector + nsectors [process]`. Only Q (queued) events
//! are requests: they are what the file system asked for, before merging and dispatch. Time is
//! seconds since the trace start (decimal), sector and nsectors are 512-byte units. RWBS with
//! `D` is a discard (trim), with `W` a write, with `R` a read; a Q event with none of them (a
//! bare flush) carries no data and is skipped. The summary blkparse prints after the events
//! (lines starting `CPU` or `Total`) ends the trace. Single volume.

use super::text::{parse_len, parse_offset, parse_scaled, take_n, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "blkparse",
    description: "blkparse default text output, Q events (maj,min cpu seq time pid Q RWBS sector + n)",
    time_unit: "s (decimal)",
    extensions: &[],
    opener: Opener::Text { sniff, make },
};

fn is_event(f: &[&str]) -> bool {
    f.len() >= 7 && f[0].split_once(',').is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok()) && f[3].contains('.')
}

fn sniff(lines: &[&str]) -> bool {
    super::text::most(lines, |l| is_event(&l.split_ascii_whitespace().collect::<Vec<_>>()))
}

fn make(_: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    Ok(Box::new(Blkparse))
}

struct Blkparse;

impl LineFormat for Blkparse {
    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        let (f, n) = take_n::<10>(line.split_ascii_whitespace());
        let f = &f[..n.min(10)];
        if f[0].starts_with("CPU") || f[0] == "Total" {
            return Ok(Parsed::End);
        }
        if !is_event(f) {
            return Err("expected a blkparse event 'maj,min cpu seq time pid action RWBS ...'".into());
        }
        if f[5] != "Q" {
            return Ok(Parsed::Skip);
        }
        let rwbs = f[6];
        let op = if rwbs.contains('D') {
            Op::Trim
        } else if rwbs.contains('W') {
            Op::Write
        } else if rwbs.contains('R') {
            Op::Read
        } else {
            return Ok(Parsed::Skip);
        };
        if f.len() < 10 || f[8] != "+" {
            return Err("expected 'sector + nsectors' after RWBS in a Q event".into());
        }
        Ok(Parsed::Request(HostRequest {
            time_ns: parse_scaled(f[3], 9, "a time in seconds")?,
            volume: 0,
            offset: parse_offset(f[7], 512, "a sector number")?,
            len: parse_len(f[9], 512, "a sector count")?,
            op,
        }))
    }
}
