//! libCacheSim CSV traces (libCacheSim's `csv` reader with a column spec).
//!
//! Each row is one access to an object id: the key is the id, not a byte address, so a row is
//! exactly one page access. Columns are 1-based as libCacheSim numbers them:
//! `trace.time_col` (default 1), `trace.obj_id_col` (2), `trace.obj_size_col` (3, 0 = none; checked
//! to be a number, not used: an object is one page),
//! `trace.op_col` (0 = none; values read/get/r → read, write/set/w → write, delete/trim → trim;
//! by default the header's column named `op`, if it has one), `trace.has_header` (true),
//! `trace.delimiter` (`,`). Time is in seconds (integer), as libCacheSim's traces use; with
//! `trace.time_col=0` the trace is untimed. These defaults read what `fcsim trace convert --to
//! lcs-csv` writes (`time,obj_id,obj_size,op`).

use super::text::{parse_u64, spans, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, KeyUnit, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "lcs-csv",
    description: "libCacheSim CSV (column spec; object ids)",
    time_unit: "s",
    extensions: &[],
    opener: Opener::Text { sniff, make },
};

fn sniff(lines: &[&str]) -> bool {
    lines[0].replace(' ', "").to_ascii_lowercase().contains("obj_id")
}

/// A 1-based column option as a 0-based index (0: none).
fn col(p: &mut Params, key: &str, default: u64) -> Result<Option<usize>, String> {
    Ok(p.take_u64(key, default)?.checked_sub(1).map(|c| c as usize))
}

fn make(p: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    let id = col(p, "obj_id_col", 2)?.ok_or("trace.obj_id_col must be set (1-based)")?;
    let time = col(p, "time_col", 1)?;
    let header = p.take_bool("has_header", true)?;
    // Without `op_col`, a header's column named `op` gives the operation.
    let op_from_header = header && !p.has("op_col");
    let op = col(p, "op_col", 0)?;
    // Sizes are checked but not used: one object is one page.
    let size = col(p, "obj_size_col", 3)?;
    let delim = p.take("delimiter").unwrap_or_else(|| ",".into());
    let delim = match delim.as_str() {
        "\\t" | "tab" => '\t',
        d if d.chars().count() == 1 => d.chars().next().unwrap_or(','),
        d => return Err(format!("trace.delimiter must be one character, found '{d}'")),
    };
    Ok(Box::new(LcsCsv { id, time, size, op, op_from_header, delim, skip_header: header, spans: Vec::new() }))
}

struct LcsCsv {
    id: usize,
    time: Option<usize>,
    size: Option<usize>,
    op: Option<usize>,
    /// Take `op` from the header's column named `op`.
    op_from_header: bool,
    delim: char,
    skip_header: bool,
    /// Field spans of the current line, reused.
    spans: Vec<(usize, usize)>,
}

impl LineFormat for LcsCsv {
    fn key_unit(&self) -> KeyUnit {
        KeyUnit::Object
    }

    fn timed(&self) -> bool {
        self.time.is_some()
    }

    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        if std::mem::take(&mut self.skip_header) {
            if self.op_from_header {
                self.op = line.split(self.delim).position(|h| h.trim().eq_ignore_ascii_case("op"));
            }
            return Ok(Parsed::Skip);
        }
        spans(line, self.delim, &mut self.spans);
        let f = &self.spans;
        let get = |i: usize| {
            f.get(i).map(|&(a, b)| line[a..b].trim()).ok_or_else(|| format!("expected at least {} fields, found {}", i + 1, f.len()))
        };
        let op = match self.op {
            None => Op::Read,
            Some(i) => match get(i)?.to_ascii_lowercase().as_str() {
                "read" | "get" | "r" | "gets" => Op::Read,
                "write" | "set" | "w" | "add" | "replace" => Op::Write,
                "delete" | "trim" | "del" => Op::Trim,
                o => return Err(format!("expected an op (read/get, write/set, delete), found '{o}'")),
            },
        };
        let time_ns = match self.time {
            None => 0,
            Some(i) => parse_u64(get(i)?, "a time in seconds")?.checked_mul(1_000_000_000).ok_or("time overflows 64-bit nanoseconds")?,
        };
        if let Some(i) = self.size {
            parse_u64(get(i)?, "an object size in bytes")?;
        }
        Ok(Parsed::Request(HostRequest { time_ns, volume: 0, offset: parse_u64(get(self.id)?, "an object id")?, len: 0, op }))
    }
}
