//! Run configuration, validated once before the first request is simulated.

use crate::device::WriteMode;
use crate::error::{Error, Result};
use crate::policy::{PolicyParams, UsedParams};
use std::collections::BTreeMap;

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

/// One simulation: a policy at a size over a trace.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub policy: String,
    pub size: SizeSpec,
    /// Page size in bytes (default 4096).
    pub page_size: u32,
    /// Policy parameters, without the `policy.` prefix.
    pub params: BTreeMap<String, String>,
    /// Device preset behind the tier (`lcr`, `gasa`, ...), or none.
    pub device: Option<String>,
    /// Device parameters, without the `device.` prefix.
    pub device_params: BTreeMap<String, String>,
    /// Cache-stack parameters, without the `stack.` prefix (see [`StackConfig`]).
    pub stack_params: BTreeMap<String, String>,
    /// Inter-arrival times are multiplied by this (below 1: a heavier load). Default 1.
    pub time_scale: f64,
    /// A closed loop of this many outstanding requests instead of the trace's times (0: off).
    pub queue_depth: u32,
}

/// What the cache tier is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackKind {
    /// A DRAM buffer, over a flash device or nothing (write-back).
    Buffer,
    /// A flash cache over a disk: the tier's medium is the device (`ssd-cache`).
    SsdCache,
}

/// The cache stack: `stack.kind` (`buffer` or `ssd-cache`), and for a flash cache
/// `stack.write` (`around`, `through`, `back`; default `around`, a read cache), `stack.dram`
/// (a DRAM LRU tier in front, as a fraction of the flash cache; default 0) and `stack.disk_ms`
/// (the disk's service time per page; default 5, the dynamic-allocation paper's Table I).
#[derive(Debug, Clone, PartialEq)]
pub struct StackConfig {
    pub kind: StackKind,
    pub write: WriteMode,
    pub dram: f64,
    pub disk_ns: u64,
}

impl StackConfig {
    pub fn build(params: &BTreeMap<String, String>) -> Result<(StackConfig, UsedParams)> {
        let mut p = PolicyParams::new(params.clone());
        let kind: String = p.take("stack", "kind", "buffer".to_string(), "")?;
        let kind = match kind.as_str() {
            "buffer" => StackKind::Buffer,
            "ssd-cache" => StackKind::SsdCache,
            k => return Err(Error::config(format!("stack.kind={k}: expected buffer or ssd-cache"))),
        };
        if kind == StackKind::Buffer {
            let used =
                p.finish_section("stack", &["kind"]).map_err(|e| Error::config(format!("{e} (the others need stack.kind=ssd-cache)")))?;
            return Ok((StackConfig { kind, write: WriteMode::Back, dram: 0.0, disk_ns: 0 }, used));
        }
        let write: String = p.take("stack", "write", "around".to_string(), "")?;
        let write = WriteMode::parse(&write)?;
        let dram: f64 = p.take("stack", "dram", 0.0, "a fraction of the flash cache in [0, 1)")?;
        if !(0.0..1.0).contains(&dram) {
            return Err(Error::config(format!("stack.dram={dram}: expected a fraction of the flash cache in [0, 1)")));
        }
        let disk_ms: f64 = p.take("stack", "disk_ms", 5.0, "a service time in ms (>= 0)")?;
        if !(disk_ms >= 0.0 && disk_ms.is_finite()) {
            return Err(Error::config(format!("stack.disk_ms={disk_ms}: expected a service time in ms (>= 0)")));
        }
        let used = p.finish_section("stack", &["kind", "write", "dram", "disk_ms"])?;
        Ok((StackConfig { kind, write, dram, disk_ns: (disk_ms * 1e6).round() as u64 }, used))
    }
}

impl SimConfig {
    pub fn new(policy: &str, size: SizeSpec) -> Self {
        SimConfig {
            policy: policy.to_string(),
            size,
            page_size: 4096,
            params: BTreeMap::new(),
            device: None,
            device_params: BTreeMap::new(),
            stack_params: BTreeMap::new(),
            time_scale: 1.0,
            queue_depth: 0,
        }
    }

    pub fn validate(&self) -> Result<()> {
        if self.page_size == 0 {
            return Err(Error::config("page size must be positive"));
        }
        if !(self.time_scale > 0.0 && self.time_scale.is_finite()) {
            return Err(Error::config(format!("time scale {}: expected a factor > 0", self.time_scale)));
        }
        if self.queue_depth > 0 && self.time_scale != 1.0 {
            return Err(Error::config("a closed loop (queue depth) ignores the trace's times: do not combine it with a time scale"));
        }
        if self.device.is_none() && !self.device_params.is_empty() {
            let k = self.device_params.keys().next().map_or("", |k| k.as_str());
            return Err(Error::config(format!("device.{k} is set but no device is: give a device preset (--device lcr)")));
        }
        crate::policy::policy_by_name(&self.policy).map(|_| ())
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
