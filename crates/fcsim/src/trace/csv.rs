//! A generic delimited-text trace with named columns, for formats fcsim has no reader for.
//!
//! Options (`--set trace.KEY=VALUE`): `offset`, `size` (required), `time`, `op`, `volume`: the
//! column of each field, by header name or 1-based index; `offset_unit`, `size_unit`: bytes per
//! unit (default 1; 512 for sectors); `time_unit`: `ns`, `us`, `ms` or `s` (default `ns`; decimals
//! are parsed exactly); `read`, `write`, `trim`: the op values (default: values starting with
//! r/w/t or d, case-insensitive, and 0 = read, 1 = write); `header` (default true); `delimiter`
//! (default `,`). Without an `op` column every request is a read; without `time`, time is the
//! request index.

use super::text::{parse_len, parse_offset, parse_scaled, parse_volume, spans, LineFormat, Parsed};
use super::{FormatInfo, Opener, Params};
use crate::request::{HostRequest, Op};

pub const FORMAT: FormatInfo = FormatInfo {
    name: "csv",
    description: "generic CSV with named columns (--set trace.offset=COL trace.size=COL ...)",
    time_unit: "trace.time_unit (default ns)",
    extensions: &[],
    opener: Opener::Text { sniff: |_| false, make },
};

/// A column given by name (resolved from the header) or 1-based index.
#[derive(Debug, Clone)]
enum Col {
    Name(String),
    Index(usize),
}

fn col(p: &mut Params, key: &str) -> Result<Option<Col>, String> {
    Ok(p.take(key).map(|v| match v.parse::<usize>() {
        Ok(0) => Col::Name(v),
        Ok(i) => Col::Index(i - 1),
        Err(_) => Col::Name(v),
    }))
}

fn make(p: &mut Params) -> Result<Box<dyn LineFormat>, String> {
    let need = |c: Option<Col>, k: &str| c.ok_or_else(|| format!("format csv needs --set trace.{k}=COLUMN"));
    let offset = need(col(p, "offset")?, "offset")?;
    let size = need(col(p, "size")?, "size")?;
    let cols = [Some(offset), Some(size), col(p, "time")?, col(p, "op")?, col(p, "volume")?];
    let unit = |p: &mut Params, key: &str| match p.take_u64(key, 1)? {
        0 => Err(format!("trace.{key}: expected a positive number of bytes per unit, found 0")),
        u => Ok(u),
    };
    let offset_unit = unit(p, "offset_unit")?;
    let size_unit = unit(p, "size_unit")?;
    let time_digits = match p.take("time_unit").as_deref() {
        None | Some("ns") => 0,
        Some("us") => 3,
        Some("ms") => 6,
        Some("s") => 9,
        Some(u) => return Err(format!("trace.time_unit: expected ns, us, ms or s, found '{u}'")),
    };
    let values = |v: Option<String>| v.map(|s| s.split('|').map(str::to_ascii_lowercase).collect::<Vec<_>>());
    let ops = [values(p.take("read")), values(p.take("write")), values(p.take("trim"))];
    let header = p.take_bool("header", true)?;
    let delim = match p.take("delimiter").as_deref() {
        None => ',',
        Some("\\t" | "tab") => '\t',
        Some(d) if d.chars().count() == 1 => d.chars().next().unwrap_or(','),
        Some(d) => return Err(format!("trace.delimiter must be one character, found '{d}'")),
    };
    if !header && cols.iter().flatten().any(|c| matches!(c, Col::Name(_))) {
        return Err("columns named by header need trace.header=true; give 1-based indices instead".into());
    }
    Ok(Box::new(Csv {
        cols,
        idx: [usize::MAX; 5],
        offset_unit,
        size_unit,
        time_digits,
        ops,
        header,
        delim,
        index: 0,
        spans: Vec::new(),
        bad_header: None,
    }))
}

struct Csv {
    /// offset, size, time, op, volume
    cols: [Option<Col>; 5],
    idx: [usize; 5],
    offset_unit: u64,
    size_unit: u64,
    time_digits: u32,
    ops: [Option<Vec<String>>; 3],
    header: bool,
    delim: char,
    index: u64,
    /// Field spans of the current line, reused.
    spans: Vec<(usize, usize)>,
    /// Why the header did not name the columns: no later line can be read (each says why,
    /// also when bad lines are skipped).
    bad_header: Option<String>,
}

impl Csv {
    /// Finds every column in `header`; changes nothing unless all are found.
    fn resolve(&mut self, header: &[&str]) -> Result<(), String> {
        let mut idx = [usize::MAX; 5];
        for (i, c) in self.cols.iter().enumerate() {
            idx[i] = match c {
                None => usize::MAX,
                Some(Col::Index(j)) => *j,
                Some(Col::Name(n)) => header
                    .iter()
                    .position(|h| h.eq_ignore_ascii_case(n))
                    .ok_or_else(|| format!("no column named '{n}' in the header ({})", header.join(",")))?,
            };
        }
        self.idx = idx;
        Ok(())
    }

    fn op(&self, v: &str) -> Result<Op, String> {
        let lv = v.to_ascii_lowercase();
        for (i, op) in [Op::Read, Op::Write, Op::Trim].into_iter().enumerate() {
            if let Some(vals) = &self.ops[i] {
                if vals.contains(&lv) {
                    return Ok(op);
                }
            }
        }
        if self.ops.iter().all(Option::is_none) {
            match lv.as_bytes().first() {
                Some(b'r' | b'0') => return Ok(Op::Read),
                Some(b'w' | b'1') => return Ok(Op::Write),
                Some(b't' | b'd') => return Ok(Op::Trim),
                _ => {}
            }
        }
        Err(format!("expected an op value (read, write or trim; set trace.read/write/trim), found '{v}'"))
    }
}

impl LineFormat for Csv {
    fn timed(&self) -> bool {
        self.cols[2].is_some()
    }

    fn parse(&mut self, line: &str) -> Result<Parsed, String> {
        if self.header {
            self.header = false;
            let names: Vec<&str> = line.split(self.delim).map(str::trim).collect();
            if let Err(e) = self.resolve(&names) {
                self.bad_header = Some(e.clone());
                return Err(e);
            }
            return Ok(Parsed::Skip);
        }
        if let Some(e) = &self.bad_header {
            return Err(e.clone());
        }
        if self.idx[0] == usize::MAX {
            let empty: [&str; 0] = [];
            self.resolve(&empty)?;
        }
        spans(line, self.delim, &mut self.spans);
        let f = &self.spans;
        let get = |k: usize| {
            f.get(self.idx[k])
                .map(|&(a, b)| line[a..b].trim())
                .ok_or_else(|| format!("expected at least {} fields, found {}", self.idx[k].saturating_add(1), f.len()))
        };
        let time_ns = if self.idx[2] == usize::MAX { self.index } else { parse_scaled(get(2)?, self.time_digits, "a time")? };
        let op = if self.idx[3] == usize::MAX { Op::Read } else { self.op(get(3)?)? };
        let volume = if self.idx[4] == usize::MAX { 0 } else { parse_volume(get(4)?, "a volume number")? };
        self.index += 1;
        Ok(Parsed::Request(HostRequest {
            time_ns,
            volume,
            offset: parse_offset(get(0)?, self.offset_unit, "an offset")?,
            len: parse_len(get(1)?, self.size_unit, "a size")?,
            op,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn csv(params: &[(&str, &str)]) -> Box<dyn LineFormat> {
        let map: BTreeMap<String, String> = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        make(&mut Params::new(map)).unwrap()
    }

    /// Found by fuzzing (fuzz/regressions/csv/): a header without the size column left the
    /// offset column resolved and the size column unset, so the next line (read when bad lines
    /// are skipped) overflowed computing "expected at least N fields" (a panic with overflow
    /// checks, "at least 0 fields" without). Each later line now gives the header's error.
    #[test]
    fn a_header_without_a_named_column_fails_every_line_with_its_reason() {
        let mut p = csv(&[("offset", "sector"), ("size", "bytes")]);
        let missing = "no column named 'bytes' in the header (sector,lytes)";
        assert_eq!(p.parse("sector,lytes").err().as_deref(), Some(missing));
        assert_eq!(p.parse("2049,4096").err().as_deref(), Some(missing));
        assert_eq!(p.parse("2056,8192").err().as_deref(), Some(missing));
    }
}
