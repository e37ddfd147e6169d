//! The cache stack's configuration (`--set stack.KEY=VALUE`): what the tier is, and for a flash
//! cache over a disk, its write mode, the DRAM tier in front of it and the disk's service time.

use crate::error::{Error, Result};
use crate::params::{Params, UsedParams};
use std::collections::BTreeMap;

/// How a flash cache handles writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// A read cache: writes go to the disk and invalidate the cached copy.
    Around,
    /// Writes go to the disk and to the cache (hits update it; misses may be admitted).
    Through,
    /// Every admitted write goes to the SSD only; dirty pages reach the disk when evicted.
    Back,
}

impl WriteMode {
    pub fn parse(s: &str) -> Result<WriteMode> {
        match s.to_ascii_lowercase().as_str() {
            "around" | "write-around" => Ok(WriteMode::Around),
            "through" | "write-through" => Ok(WriteMode::Through),
            "back" | "write-back" => Ok(WriteMode::Back),
            _ => Err(Error::config(format!("stack.write={s}: expected around, through or back"))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            WriteMode::Around => "around",
            WriteMode::Through => "through",
            WriteMode::Back => "back",
        }
    }
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
        let mut p = Params::new(params.clone());
        let kind: String = p.take("stack", "kind", "buffer".to_string(), "")?;
        let kind = match kind.as_str() {
            "buffer" => StackKind::Buffer,
            "ssd-cache" => StackKind::SsdCache,
            k => return Err(Error::config(format!("stack.kind={k}: expected buffer or ssd-cache"))),
        };
        if kind == StackKind::Buffer {
            let used = p.finish("stack", &["kind"]).map_err(|e| Error::config(format!("{e} (the others need stack.kind=ssd-cache)")))?;
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
        let used = p.finish("stack", &["kind", "write", "dram", "disk_ms"])?;
        Ok((StackConfig { kind, write, dram, disk_ns: (disk_ms * 1e6).round() as u64 }, used))
    }
}
