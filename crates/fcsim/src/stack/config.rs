//! The cache stack's configuration (`--set stack.KEY=VALUE`): what the tier is, and for a flash
//! cache over a disk, its write mode, the DRAM tier in front of it and the disk's service time.

use super::split::{Dynamic, SplitMode};
use crate::error::{compact, Error, Result};
use crate::params::{Params, UsedParams};
use crate::time;
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
///
/// A write-back flash cache may split a fixed SSD between cache and spare (`stack.split`: a
/// spare share in (0, 1), or `dynamic`; see [`super::split`]); `--size` is then the SSD's raw
/// capacity. The dynamic controller takes `stack.initial` (default 0.35), `stack.window` (host
/// page writes to flash, as a multiple of the SSD's raw pages; default 2; at least enough for a
/// training stretch to hold one erase block of writes, see [`super::split`]), `stack.train` (a
/// training stretch as a share of the window; default 1/8), `stack.retrain` (default 0.1) and
/// `stack.mrc` (the window's curve: `exact`, or a SHARDS fixed sampling rate).
#[derive(Debug, Clone, PartialEq)]
pub struct StackConfig {
    pub kind: StackKind,
    pub write: WriteMode,
    pub dram: f64,
    pub disk_ns: u64,
    pub split: Option<SplitMode>,
}

fn positive(p: &mut Params, key: &str, default: f64, what: &str) -> Result<f64> {
    let v: f64 = p.take("stack", key, default, what)?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(Error::config(format!("stack.{key}={}: expected {what}", compact(v))));
    }
    Ok(v)
}

fn share(p: &mut Params, key: &str, default: f64) -> Result<f64> {
    let v: f64 = p.take("stack", key, default, "a share of the SSD in (0, 1)")?;
    if !(v > 0.0 && v < 1.0) {
        return Err(Error::config(format!("stack.{key}={}: expected a share of the SSD in (0, 1)", compact(v))));
    }
    Ok(v)
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
            return Ok((StackConfig { kind, write: WriteMode::Back, dram: 0.0, disk_ns: 0, split: None }, used));
        }
        let write: String = p.take("stack", "write", "around".to_string(), "")?;
        let write = WriteMode::parse(&write)?;
        let dram: f64 = p.take("stack", "dram", 0.0, "a fraction of the flash cache in [0, 1)")?;
        if !(0.0..1.0).contains(&dram) {
            return Err(Error::config(format!("stack.dram={}: expected a fraction of the flash cache in [0, 1)", compact(dram))));
        }
        let what = "a service time in ms (>= 0)";
        let disk_ms: f64 = p.take("stack", "disk_ms", 5.0, what)?;
        let disk_ns = time::duration_ns("stack.disk_ms", disk_ms, 1e6, what)?;
        let split: String = p.take("stack", "split", String::new(), "")?;
        let split =
            match split.as_str() {
                "" => None,
                "dynamic" => Some(SplitMode::Dynamic(Dynamic {
                    initial: share(&mut p, "initial", 0.35)?,
                    window: positive(&mut p, "window", 2.0, "a multiple of the SSD's raw pages (> 0)")?,
                    train: positive(&mut p, "train", 0.125, "a share of the window in (0, 1]")
                        .ok()
                        .filter(|v| *v <= 1.0)
                        .ok_or_else(|| Error::config("stack.train: expected a share of the window in (0, 1]"))?,
                    retrain: p
                        .take("stack", "retrain", 0.1, "a miss-ratio distance in [0, 1]")
                        .ok()
                        .filter(|v: &f64| (0.0..=1.0).contains(v))
                        .ok_or_else(|| Error::config("stack.retrain: expected a miss-ratio distance in [0, 1]"))?,
                    shards_rate: {
                        let m: String = p.take("stack", "mrc", "exact".to_string(), "")?;
                        match m.as_str() {
                            "exact" => None,
                            r => Some(r.parse::<f64>().ok().filter(|v| *v > 0.0 && *v <= 1.0).ok_or_else(|| {
                                Error::config(format!("stack.mrc={r}: expected exact or a SHARDS sampling rate in (0, 1]"))
                            })?),
                        }
                    },
                })),
                s => Some(SplitMode::Static(
                    s.parse()
                        .ok()
                        .filter(|v: &f64| *v > 0.0 && *v < 1.0)
                        .ok_or_else(|| Error::config(format!("stack.split={s}: expected a spare share in (0, 1) or dynamic")))?,
                )),
            };
        if split.is_some() && (write != WriteMode::Back || dram > 0.0) {
            return Err(Error::config("stack.split splits a write-back flash cache with no DRAM tier: set stack.write=back, stack.dram=0"));
        }
        let mut keys = vec!["kind", "write", "dram", "disk_ms", "split"];
        if matches!(split, Some(SplitMode::Dynamic(_))) {
            keys.extend(["initial", "window", "train", "retrain", "mrc"]);
        }
        let used = p.finish("stack", &keys).map_err(|e| match split {
            Some(SplitMode::Dynamic(_)) => e,
            _ => Error::config(format!("{e} (initial, window, train, retrain and mrc need stack.split=dynamic)")),
        })?;
        Ok((StackConfig { kind, write, dram, disk_ns, split }, used))
    }
}
