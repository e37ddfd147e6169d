//! ARC/LIRS reference strings (`.lis`), as distributed with Megiddo & Modha, "ARC: A Self-Tuning,
//! Low Overhead Replacement Cache", FAST'03.
//!
//! Whitespace-separated `start_block count ignored request_number`: a run of `count` blocks of
//! 512 bytes (`trace.block_size` changes it) starting at `start_block`. A line with one field is
//! a single block (LIRS traces); one with two or three fields is cut short (an error). The traces hold reads only and no time: a request's time is its line index
//! in nanoseconds, so that order is kept and spans read as "number of requests".

use super::text::{parse_len, parse_offset, take_n, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "arc",
    description: "ARC/LIRS .lis (start_block count ignored request_number; 512 B blocks)",
    time_unit: "none (request index)",
    extensions: &[".lis"],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    super::text::most(lines, |l| {
        let f: Vec<&str> = l.split_ascii_whitespace().collect();
        (1..=4).contains(&f.len()) && f.iter().all(|x| x.parse::<u64>().is_ok())
    })
}

fn make(p: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    let block = p.take_u64("block_size", 512)?;
    if block == 0 {
        return Err("trace.block_size must be positive".into());
    }
    Ok(Box::new(Arc { block, index: 0 }))
}

struct Arc {
    block: u64,
    index: u64,
}

impl LineFormat for Arc {
    fn timed(&self) -> bool {
        false
    }

    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        let (f, n) = take_n::<2>(line.split_ascii_whitespace());
        let count = match n {
            1 => "1",
            4 => f[1],
            _ => return Err(format!("expected 4 fields (start_block count ignored request_number) or 1 (a block), found {n}")),
        };
        let len = parse_len(count, self.block, "a block count")?;
        if len == 0 {
            return Err("expected a positive block count, found 0".into());
        }
        let index = self.index;
        self.index += 1;
        Ok(Parsed::Request(HostRequest {
            time_ns: index,
            volume: 0,
            offset: parse_offset(f[0], self.block, "a start block")?,
            len,
            op: Op::Read,
        }))
    }
}
