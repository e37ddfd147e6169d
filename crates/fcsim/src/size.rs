//! Sizes as a user gives them: pages, bytes, or a percent of the trace's working set. A leaf:
//! it uses nothing of fcsim but its error type.

use crate::error::{Error, Result};

/// A cache size as the user gave it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeSpec {
    Pages(u64),
    Bytes(u64),
    /// Percent of the trace's unique pages (its working set).
    Percent(f64),
}

impl SizeSpec {
    /// Parses `1000` (pages), `1000p`, `64MiB`/`64MB`/`4k` (bytes; KiB = 1024, KB = 1000,
    /// a bare `k`/`m`/`g` is binary) or `5%`.
    pub fn parse(s: &str) -> Result<SizeSpec> {
        let t = s.trim();
        let err = || {
            Error::config(format!("cache size '{s}': expected pages (1000), bytes (64MiB, 4KiB, 1GB) or a percent of the working set (5%)"))
        };
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| err())?;
            if !(v > 0.0 && v.is_finite()) {
                return Err(Error::config(format!("cache size '{s}' must be a positive percent")));
            }
            return Ok(SizeSpec::Percent(v));
        }
        let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let unit = unit.trim();
        if num.is_empty() {
            return Err(err());
        }
        if num.starts_with('-') || t.starts_with('-') {
            return Err(Error::config(format!("cache size '{s}' must be positive")));
        }
        let mult: u64 = match unit.to_ascii_lowercase().as_str() {
            "" | "p" | "pages" => {
                let v: u64 = num.parse().map_err(|_| err())?;
                if v == 0 {
                    return Err(Error::config(format!("cache size '{s}' must be at least one page")));
                }
                return Ok(SizeSpec::Pages(v));
            }
            "b" => 1,
            "k" | "kib" => 1 << 10,
            "m" | "mib" => 1 << 20,
            "g" | "gib" => 1 << 30,
            "t" | "tib" => 1 << 40,
            "kb" => 1_000,
            "mb" => 1_000_000,
            "gb" => 1_000_000_000,
            "tb" => 1_000_000_000_000,
            _ => return Err(err()),
        };
        let v: f64 = num.parse().map_err(|_| err())?;
        let bytes = v * mult as f64;
        if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
            return Err(Error::config(format!("cache size '{s}' must be positive")));
        }
        Ok(SizeSpec::Bytes(bytes as u64))
    }

    /// The size in pages. `working_set` is needed for percentages only.
    pub fn pages(&self, page_size: u32, working_set: Option<u64>) -> Result<u64> {
        let p = match *self {
            SizeSpec::Pages(p) => p,
            SizeSpec::Bytes(b) => b / u64::from(page_size),
            SizeSpec::Percent(x) => {
                let ws = working_set.ok_or_else(|| Error::config("a percent cache size needs the trace's working set"))?;
                (ws as f64 * x / 100.0).round() as u64
            }
        };
        if p == 0 {
            return Err(Error::config(format!("cache size {self} is less than one page ({page_size} B)")));
        }
        if p > u64::from(u32::MAX) - 1 {
            return Err(Error::config(format!("cache size {self} exceeds 2^32 - 2 pages")));
        }
        Ok(p)
    }
}

impl std::fmt::Display for SizeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeSpec::Pages(p) => write!(f, "{p} pages"),
            SizeSpec::Bytes(b) => write!(f, "{b} B"),
            SizeSpec::Percent(x) => write!(f, "{x}%"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(SizeSpec::parse("1000").unwrap(), SizeSpec::Pages(1000));
        assert_eq!(SizeSpec::parse("64MiB").unwrap(), SizeSpec::Bytes(64 << 20));
        assert_eq!(SizeSpec::parse("1GB").unwrap(), SizeSpec::Bytes(1_000_000_000));
        assert_eq!(SizeSpec::parse("4k").unwrap(), SizeSpec::Bytes(4096));
        assert_eq!(SizeSpec::parse("0.5%").unwrap(), SizeSpec::Percent(0.5));
        assert_eq!(SizeSpec::parse("1.5MiB").unwrap().pages(4096, None).unwrap(), 384);
        assert_eq!(SizeSpec::parse("5%").unwrap().pages(4096, Some(23361)).unwrap(), 1168);
        for bad in ["", "0", "-5", "abc", "5 parsecs", "0%", "-1%", "0MiB", "%"] {
            assert!(SizeSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(SizeSpec::parse("100B").unwrap().pages(4096, None).is_err());
        assert!(SizeSpec::parse("0.001%").unwrap().pages(4096, Some(100)).is_err());
    }
}
