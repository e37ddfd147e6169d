//! The cache stack's configuration (`--set stack.KEY=VALUE`): what the tier is, and for a flash
//! cache over a disk, its write mode, the DRAM tier in front of it and the disk(s) below it.

use super::admission::{admission_by_name, AdmissionInfo};
use super::budget::BudgetConfig;
use super::split::{Dynamic, Rule, SplitMode, Training, SPLITS};
use crate::device::disk::{DiskModel, Layout, DISK_PRESETS, DT_WINDOW_NS};
use crate::error::{compact, Error, Result};
use crate::params::{Params, UsedParams};
use crate::size::SizeSpec;
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
/// (a DRAM LRU tier in front, as a fraction of the flash cache; default 0) and the disk below
/// it ([`DiskConfig`]: `stack.disk`, `stack.disk_ms`, `stack.disks`, `stack.stripe`).
///
/// A write-back flash cache may split a fixed SSD between cache and spare (`stack.split`: a
/// spare share in (0, 1), or `dynamic`; see [`super::split`]); `--size` is then the SSD's raw
/// capacity. The dynamic controller takes `stack.initial` (default 0.35), `stack.window` (host
/// page writes to flash, as a multiple of the SSD's raw pages; default 2; at least enough for a
/// training stretch to hold one erase block of writes, see [`super::split`]), `stack.train` (a
/// training stretch as a share of the window; default 1/8), `stack.retrain` (default 0.1),
/// `stack.mrc` (the window's curve: `exact`, or a SHARDS fixed sampling rate),
/// `stack.training` (`live` or `offline`, the latter with `stack.u`: eight U values for OP
/// 15% … 85% separated by `:`), `stack.settle` (live training's turnover before measuring, in
/// target cache pages; default 1), `stack.rule` (`paper`: eq. 5; `request`: fcsim's
/// per-request form) and `stack.shrink` (`background`: shrink victims written back in the
/// disk's idle time; `burst`: at once).
///
/// A flash cache's admission (`stack.admit`, or `--admit`): `all` (default: every miss may
/// enter; the tier's admission slot stays empty) or an admission policy of
/// [`super::admission::ADMISSIONS`] (`writes`: the dynamic-allocation paper's write cache, §III:
/// write-allocate, read misses served by the disk and not admitted; write-back only), with its
/// parameters as `admit.KEY` (the `admit` map of [`StackConfig::build_with`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StackConfig {
    pub kind: StackKind,
    pub write: WriteMode,
    pub dram: f64,
    pub disk: DiskConfig,
    pub split: Option<SplitMode>,
    /// The flash cache's admission policy (`stack.admit`, `--admit`; None: `all`).
    pub admit: Option<&'static AdmissionInfo>,
    /// Its parameters' values (`admit.KEY`), in the order of [`AdmissionInfo::params`].
    pub admit_values: Vec<(&'static str, f64)>,
    /// A write budget its knob is turned to hold (`admit.budget`, `admit.budget_mbps`,
    /// `admit.window`; [`super::budget`]).
    pub budget: Option<BudgetConfig>,
}

/// The disk(s) behind a flash cache ([`crate::device::disk`]): `stack.disk` (the preset: `flat`,
/// `7200` or `15k`; default `flat`), `stack.disk_ms` (the flat preset's time per access; default
/// 5, the dynamic-allocation paper's Table I; refused with another preset), `stack.disks` (`1`,
/// a number N of disks striped RAID-0, or `volume`: one disk per trace volume; default 1) and
/// `stack.stripe` (the stripe unit in bytes, with N ≥ 2 disks; default 64KiB), and
/// `stack.dt_window_s` (the window of the peak disk-head time, `peak_dt`, in seconds of
/// simulated time; default 600, see [`crate::device::disk`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DiskConfig {
    pub model: DiskModel,
    pub disks: Disks,
    /// The window of the peak disk-head time, ns.
    pub dt_window_ns: u64,
}

/// The most disks an array may have: as many as the volumes fcsim keeps apart (each spindle
/// holds about a hundred bytes of state).
pub const MAX_DISKS: u32 = crate::request::MAX_VOLUME + 1;

/// How many disks, and how pages are spread over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disks {
    /// N disks; with N ≥ 2 striped in units of `stripe_bytes`.
    Count { disks: u32, stripe_bytes: u64 },
    /// One disk per trace volume.
    PerVolume,
}

impl DiskConfig {
    /// The flat 5 ms disk (what a stack with no disk keys gets).
    pub fn flat() -> DiskConfig {
        DiskConfig {
            model: DiskModel::Flat { access_ns: 5_000_000 },
            disks: Disks::Count { disks: 1, stripe_bytes: 0 },
            dt_window_ns: DT_WINDOW_NS,
        }
    }

    fn build(p: &mut Params, given: &BTreeMap<String, String>) -> Result<DiskConfig> {
        let preset: String = p.take("stack", "disk", "flat".to_string(), "")?;
        let flat_ns = if preset == "flat" {
            let what = "a time per access in ms (>= 0)";
            let ms: f64 = p.take("stack", "disk_ms", 5.0, what)?;
            time::duration_ns("stack.disk_ms", ms, 1e6, what)?
        } else {
            if given.contains_key("disk_ms") && DISK_PRESETS.contains(&preset.as_str()) {
                return Err(Error::config(format!(
                    "stack.disk_ms is the flat disk's time per access; stack.disk={preset} times each access \
                     by its drive (drop stack.disk_ms, or set stack.disk=flat)"
                )));
            }
            0
        };
        let model = DiskModel::preset(&preset, flat_ns)?;
        let disks: String = p.take("stack", "disks", "1".to_string(), "")?;
        let disks = match disks.as_str() {
            "volume" => Disks::PerVolume,
            n => match n.parse::<u32>() {
                Ok(n) if (1..=MAX_DISKS).contains(&n) => Disks::Count { disks: n, stripe_bytes: 0 },
                _ => return Err(Error::config(format!("stack.disks={n}: expected a number of disks from 1 to {MAX_DISKS}, or volume"))),
            },
        };
        let disks = match disks {
            Disks::Count { disks, .. } if disks >= 2 => {
                let s: String = p.take("stack", "stripe", "64KiB".to_string(), "")?;
                let what = || Error::config(format!("stack.stripe={s}: expected a stripe unit in bytes (65536, 64KiB, 1MiB)"));
                // A bare number is bytes here (a stripe unit is in bytes), not pages as a cache size.
                let stripe_bytes = match s.trim().parse::<u64>().map(SizeSpec::Bytes).or_else(|_| SizeSpec::parse(&s)) {
                    Ok(SizeSpec::Bytes(b)) if b > 0 => b,
                    _ => return Err(what()),
                };
                Disks::Count { disks, stripe_bytes }
            }
            d => {
                if given.contains_key("stripe") {
                    return Err(Error::config(format!(
                        "stack.stripe: the stripe unit of an array needs stack.disks=N with N >= 2 (stack.disks={})",
                        given.get("disks").map_or("1", String::as_str)
                    )));
                }
                d
            }
        };
        let what = "a window of simulated time in seconds (> 0)";
        let s: f64 = p.take("stack", "dt_window_s", DT_WINDOW_NS as f64 / 1e9, what)?;
        let dt_window_ns = time::duration_ns("stack.dt_window_s", s, 1e9, what)?;
        if dt_window_ns == 0 {
            return Err(Error::config(format!("stack.dt_window_s={}: expected {what}", compact(s))));
        }
        Ok(DiskConfig { model, disks, dt_window_ns })
    }

    /// The keys taken, for [`Params::finish`].
    fn keys(&self) -> &'static [&'static str] {
        match (&self.model, self.disks) {
            (DiskModel::Flat { .. }, Disks::Count { disks: 2.., .. }) => &["disk", "disk_ms", "disks", "stripe", "dt_window_s"],
            (DiskModel::Flat { .. }, _) => &["disk", "disk_ms", "disks", "dt_window_s"],
            (_, Disks::Count { disks: 2.., .. }) => &["disk", "disks", "stripe", "dt_window_s"],
            _ => &["disk", "disks", "dt_window_s"],
        }
    }

    /// The placement of pages of `page_size` bytes; `Err` when the stripe unit is not a whole
    /// number of pages.
    pub fn layout(&self, page_size: u32) -> Result<Layout> {
        Ok(match self.disks {
            Disks::PerVolume => Layout::PerVolume,
            Disks::Count { disks: 1, .. } => Layout::Single,
            Disks::Count { disks, stripe_bytes } => {
                let ps = u64::from(page_size);
                if stripe_bytes % ps != 0 {
                    return Err(Error::config(format!(
                        "stack.stripe={stripe_bytes} B: expected a whole number of pages ({page_size} B each)"
                    )));
                }
                Layout::Striped { disks, stripe_pages: stripe_bytes / ps }
            }
        })
    }
}

/// The write budget of `admit` (its keys `budget`, `budget_mbps` and `window` taken out of it),
/// if one is given.
fn budget(admit: &mut BTreeMap<String, String>) -> Result<Option<BudgetConfig>> {
    let mut number = |key: &str, what: &str| -> Result<Option<f64>> {
        match admit.remove(key) {
            None => Ok(None),
            Some(s) => match s.trim().parse::<f64>() {
                Ok(v) if v > 0.0 && v.is_finite() => Ok(Some(v)),
                _ => Err(Error::config(format!("admit.{key}={s}: expected {what}"))),
            },
        }
    };
    let dwpd = number("budget", "drive writes per day of the flash cache's capacity (> 0)")?;
    let mbps = number("budget_mbps", "a write rate into the flash cache in MB/s (> 0)")?;
    let window = number("window", "the budget controller's window in seconds of simulated time (> 0)")?;
    match (dwpd, mbps) {
        (Some(_), Some(_)) => Err(Error::config("admit.budget and admit.budget_mbps both set a write budget: give one")),
        (None, None) if window.is_some() => {
            Err(Error::config("admit.window is the write budget's window: set admit.budget (DWPD) or admit.budget_mbps"))
        }
        (None, None) => Ok(None),
        _ => Ok(Some(BudgetConfig { dwpd, mbps, window_ns: (window.unwrap_or(60.0) * 1e9).round().max(1.0) as u64 })),
    }
}

fn positive(p: &mut Params, key: &str, default: f64, what: &str) -> Result<f64> {
    let v: f64 = p.take("stack", key, default, what)?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(Error::config(format!("stack.{key}={}: expected {what}", compact(v))));
    }
    Ok(v)
}

/// A number in the range `ok` accepts, described by `what`; else one line naming the key, the
/// value given and the range.
fn within(p: &mut Params, key: &str, default: f64, what: &str, ok: impl Fn(f64) -> bool) -> Result<f64> {
    let v: f64 = p.take("stack", key, default, what)?;
    if !ok(v) {
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

/// `stack.u`: one U in [0, 1) per split of [`SPLITS`], separated by `:`.
fn u_table(u: &str) -> Result<[f64; SPLITS.len()]> {
    let bad =
        || Error::config(format!("stack.u={u}: expected {} values in [0, 1) separated by ':' (U at OP 15%, 25%, ..., 85%)", SPLITS.len()));
    let v: Vec<f64> =
        u.split(':').map(|x| x.trim().parse::<f64>().ok().filter(|x| (0.0..1.0).contains(x))).collect::<Option<_>>().ok_or_else(bad)?;
    v.try_into().map_err(|_| bad())
}

impl StackConfig {
    /// The stack of `params` (`stack.KEY`), with no admission parameters.
    pub fn build(params: &BTreeMap<String, String>) -> Result<(StackConfig, UsedParams)> {
        StackConfig::build_with(params, &BTreeMap::new())
    }

    /// The stack of `params` (`stack.KEY`) and `admit` (`admit.KEY`, the admission's
    /// parameters, each range-checked here).
    pub fn build_with(params: &BTreeMap<String, String>, admit: &BTreeMap<String, String>) -> Result<(StackConfig, UsedParams)> {
        let mut p = Params::new(params.clone());
        let kind: String = p.take("stack", "kind", "buffer".to_string(), "")?;
        let kind = match kind.as_str() {
            "buffer" => StackKind::Buffer,
            "ssd-cache" => StackKind::SsdCache,
            k => return Err(Error::config(format!("stack.kind={k}: expected buffer or ssd-cache"))),
        };
        if kind == StackKind::Buffer {
            // `--admit all` is the buffer's own behaviour; any other admission needs a flash cache.
            if let Some(a) = params.get("admit") {
                if admission_by_name(a)?.is_some() {
                    return Err(Error::config(format!("--admit {a}: an admission policy guards a flash cache: set stack.kind=ssd-cache")));
                }
                p.take("stack", "admit", String::new(), "")?;
            }
            if let Some(k) = admit.keys().next() {
                return Err(Error::config(format!("admit.{k}: no admission policy takes it (--admit all); name one with --admit")));
            }
            let used = p.finish("stack", &["kind"]).map_err(|e| Error::config(format!("{e} (the others need stack.kind=ssd-cache)")))?;
            let used = used.into_iter().filter(|(k, _)| k != "admit").collect();
            let config = StackConfig {
                kind,
                write: WriteMode::Back,
                dram: 0.0,
                disk: DiskConfig::flat(),
                split: None,
                admit: None,
                admit_values: Vec::new(),
                budget: None,
            };
            return Ok((config, used));
        }
        let write: String = p.take("stack", "write", "around".to_string(), "")?;
        let write = WriteMode::parse(&write)?;
        let dram: f64 = p.take("stack", "dram", 0.0, "a fraction of the flash cache in [0, 1)")?;
        if !(0.0..1.0).contains(&dram) {
            return Err(Error::config(format!("stack.dram={}: expected a fraction of the flash cache in [0, 1)", compact(dram))));
        }
        let disk = DiskConfig::build(&mut p, params)?;
        let mut admit_params = admit.clone();
        let budget = budget(&mut admit_params)?;
        let admit_params = &admit_params;
        let admit: String = p.take("stack", "admit", "all".to_string(), "")?;
        let admit = admission_by_name(&admit)?;
        if admit.is_some_and(|a| a.name == "writes") && write != WriteMode::Back {
            return Err(Error::config("stack.admit=writes is a write-back write cache: set stack.write=back"));
        }
        let admit_values = match admit {
            Some(a) => a.values(admit_params)?,
            None => match admit_params.keys().next() {
                Some(k) => {
                    return Err(Error::config(format!("admit.{k}: no admission policy takes it (--admit all); name one with --admit")))
                }
                None => Vec::new(),
            },
        };
        let split: String = p.take("stack", "split", String::new(), "")?;
        let split =
            match split.as_str() {
                "" => None,
                "dynamic" => Some(SplitMode::Dynamic(Dynamic {
                    initial: share(&mut p, "initial", 0.35)?,
                    window: positive(&mut p, "window", 2.0, "a multiple of the SSD's raw pages (> 0)")?,
                    train: within(&mut p, "train", 0.125, "a share of the window in (0, 1]", |v| v > 0.0 && v <= 1.0)?,
                    retrain: within(&mut p, "retrain", 0.1, "a miss-ratio distance in [0, 1]", |v| (0.0..=1.0).contains(&v))?,
                    settle: within(&mut p, "settle", 1.0, "a turnover in target cache pages (>= 0)", |v| v >= 0.0 && v.is_finite())?,
                    training: {
                        let t: String = p.take("stack", "training", "live".to_string(), "")?;
                        let u: String = p.take("stack", "u", String::new(), "")?;
                        match (t.as_str(), u.as_str()) {
                            ("live", "") => Training::Live,
                            ("live", _) => return Err(Error::config("stack.u is the offline U table: set stack.training=offline")),
                            ("offline", u) => Training::Offline(u_table(u)?),
                            (t, _) => return Err(Error::config(format!("stack.training={t}: expected live or offline"))),
                        }
                    },
                    rule: {
                        let r: String = p.take("stack", "rule", "paper".to_string(), "")?;
                        match r.as_str() {
                            "paper" => Rule::Paper,
                            "request" => Rule::Request,
                            r => return Err(Error::config(format!("stack.rule={r}: expected paper (eq. 5) or request"))),
                        }
                    },
                    background: {
                        let b: String = p.take("stack", "shrink", "background".to_string(), "")?;
                        match b.as_str() {
                            "background" => true,
                            "burst" => false,
                            b => return Err(Error::config(format!("stack.shrink={b}: expected background or burst"))),
                        }
                    },
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
        if let Some(b) = budget {
            let what = if b.dwpd.is_some() { "admit.budget" } else { "admit.budget_mbps" };
            if !admit.is_some_and(|a| a.knob.is_some()) {
                // Those whose knob a controller can turn during a run.
                let knobbed: Vec<&str> =
                    super::admission::admissions().filter(|a| a.knob.is_some() && a.unbudgeted.is_none()).map(|a| a.name).collect();
                return Err(Error::config(format!(
                    "{what}: a write budget turns an admission's knob; name one with --admit ({})",
                    knobbed.join(", ")
                )));
            }
            if split.is_some() || dram > 0.0 {
                return Err(Error::config(format!(
                    "{what}: a write budget holds a flash cache with no DRAM tier and no split (stack.dram=0, no stack.split)"
                )));
            }
            // A knob no controller can turn during a run (opt's plan is made before it, ml's
            // training is a warm-up): the admission says why.
            if let Some((name, why)) = admit.and_then(|a| a.unbudgeted.map(|w| (a.name, w))) {
                return Err(Error::config(format!("{what}: --admit {name} {why}")));
            }
        }
        let mut keys = vec!["kind", "write", "dram", "admit"];
        keys.extend(disk.keys());
        keys.push("split");
        if matches!(split, Some(SplitMode::Dynamic(_))) {
            keys.extend(["initial", "window", "train", "retrain", "mrc", "settle", "training", "u", "rule", "shrink"]);
        }
        let used = p.finish("stack", &keys).map_err(|e| match split {
            Some(SplitMode::Dynamic(_)) => e,
            _ => Error::config(format!(
                "{e} (initial, window, train, retrain, mrc, settle, training, u, rule and shrink need stack.split=dynamic)"
            )),
        })?;
        Ok((StackConfig { kind, write, dram, disk, split, admit, admit_values, budget }, used))
    }
}
