//! Miniature simulation of a whole stack (issue 44): the cache, and the flash device under it,
//! both scaled by the sampling rate R, on a spatial sample of the trace's pages.
//!
//! C. A. Waldspurger, T. Saemundson, I. Ahmad, and N. Park, "Cache Modeling and Optimization
//! using Miniature Simulations", USENIX ATC 2017 (as its first page prints it) simulate a cache of
//! R × its size on the pages whose hash falls under R (SHARDS' spatial sample), and read the full
//! cache's miss ratio off the miniature's. [`crate::curves::minisim`] does that for a policy
//! alone. Here the miniature is the whole stack fcsim runs: a DRAM buffer over an SSD, or a flash
//! cache over a disk (with its DRAM tier, if any), so what flash costs (page writes, GC copies,
//! erasures, write amplification) is estimated as the hit ratio is.
//!
//! **The sample.** Requests are split into pages first; a page is sampled when
//! `shards::hash(key, seed)` is at most R's limit (the same test as SHARDS and
//! [`crate::curves::minisim`]), so every access of a sampled page is kept: reads, writes and trims
//! alike. The sampled pages of one request that are consecutive go to the stack as one request
//! (a request whose pages are all sampled goes as it is: at R = 1 the miniature *is* the full
//! run, counter for counter). A seed is a salt in the hash: each seed is another sample.
//!
//! **The scaled device** ([`scale_device`]). The full run's device is configured first (as
//! [`crate::stack::Plan`] would: the preset's drive under a DRAM buffer, a drive sized to the cache
//! under a flash cache). The miniature keeps its page size, pages per block, spare share (`op`),
//! GC threshold, GC policy, placement, preconditioning and timing; its user capacity is
//! round(R × the full drive's), and its blocks follow from it. Parallel units go first, so that a
//! plane keeps as many blocks as the full drive's planes: planes, then dies, chips per channel and
//! channels are halved while the scaled blocks would leave each plane fewer than the full drive's.
//!
//! **When a drive is too small** ([`FIT`]). Greedy GC's write amplification follows the share of
//! the drive it can consolidate into: the spare less the GC reserve (⌈threshold × blocks⌉, at
//! least 2, per plane) and each plane's open block ([`free_share`]). Whole blocks round that share
//! on a small drive (one block is 1/b of a b-block plane, and the reserve's floor of 2 blocks is
//! more than the threshold below 2/threshold blocks). A miniature whose share differs from the full
//! drive's by more than [`FIT`] of it is refused, naming the smallest R (on a grid of R × 1.1^k)
//! whose miniature fits.
//!
//! **Estimates** ([`StackMini::estimate`]): counts (flash page writes, erasures) are the
//! miniature's divided by R; the hit ratio (of the tier the row measures: a flash cache's, under
//! a DRAM tier) is read off the sampled pages, each page's accesses and hits of that tier
//! ([`shards::page_sample_hit_ratio`], which gives its standard error): for a DRAM buffer, which
//! sees all N accesses of the trace, the regression estimate, which picks between the
//! miniature's own ratio and SHARDS' adjustment, and anything between, by what the sample holds;
//! for a flash cache, whose accesses in the full run are not known, the miniature's own ratio; the read hit ratio and write amplification are the
//! miniature's own ratios. Each seed also gives the relative standard error of its sampled write
//! volume ([`total_rse`]), which the flash writes follow. Response
//! time is not estimated: the miniature's chips, queues and disk see R of the load on fewer
//! parallel units, and no scaling rule for them was validated.

use crate::device::ftl::FtlStats;
use crate::device::{DeviceConfig, Flash, Sizing};
use crate::error::{compact, Error, Result};
use crate::mrc::shards::{self, Sampling};
use crate::policy;
use crate::request::{HostRequest, KeyUnit, Op, PageSplitter, PAGE_MASK, VOLUME_SHIFT};
use crate::sim::Run;
use crate::stack::{Counters, Plan, Shape, Spec, StackConfig, StackKind, DEFAULT_SSD_CACHE_DEVICE};
use crate::trace::{self, Progress, TraceOptions};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// The largest relative difference between a miniature drive's GC-usable share
/// ([`free_share`]) and the full drive's that is accepted: 5%. Greedy GC's write amplification
/// varies about inversely with that share, so a drive that keeps it to 5% keeps a write
/// amplification of 2 to within 0.1 (the bound) on that count alone.
pub const FIT: f64 = 0.05;

/// What a stack is, for a miniature: the policy, the stack and device keys (without their
/// `stack.` / `device.` prefixes), the page size.
#[derive(Debug, Clone, Default)]
pub struct StackSpec {
    pub policy: String,
    pub policy_params: BTreeMap<String, String>,
    pub stack_params: BTreeMap<String, String>,
    /// The device preset, if any (a flash cache without one takes [`DEFAULT_SSD_CACHE_DEVICE`]).
    pub device: Option<String>,
    pub device_params: BTreeMap<String, String>,
    pub page_size: u32,
}

/// The share of a drive's physical pages GC can consolidate into: physical pages less the user
/// pages, the GC reserve and each plane's open block, over physical pages.
pub fn free_share(c: &DeviceConfig) -> f64 {
    let g = c.geometry;
    let physical = g.physical_pages() as f64;
    let held = u64::from(g.total_planes()) * (u64::from(c.gc_reserve_blocks) + 1) * u64::from(g.pages_per_block);
    (physical - c.user_pages as f64 - held as f64) / physical
}

/// A drive scaled by R: the full run's configuration, the miniature's, and the `device.` keys
/// that build the miniature's.
#[derive(Debug, Clone)]
pub struct Scaled {
    pub full: DeviceConfig,
    pub mini: DeviceConfig,
    pub params: BTreeMap<String, String>,
}

impl Scaled {
    /// Whether the miniature's GC-usable share is within [`FIT`] of the full drive's, and each of
    /// its planes has at least 1 / [`FIT`] GC-usable blocks (so that one block more or less, all
    /// whole blocks can give, moves the share by at most [`FIT`] of it).
    pub fn fits(&self) -> bool {
        if self.mini == self.full {
            return true;
        }
        let (f, m) = (free_share(&self.full), free_share(&self.mini));
        let per_plane = m * f64::from(self.mini.geometry.blocks);
        m > 0.0 && (m - f).abs() <= FIT * f.abs() && per_plane >= 1.0 / FIT
    }
}

/// The full run's drive of `preset` (sized by `sizing`, as the stack sizes it) and its miniature
/// at `rate` (see the module docs). At R = 1 the miniature is the full drive, keys unchanged.
pub fn scale_device(preset: &str, params: &BTreeMap<String, String>, page_size: u32, sizing: Sizing, rate: f64) -> Result<Scaled> {
    let (full, _) = DeviceConfig::build_sized(preset, params, page_size, sizing)?;
    if rate >= 1.0 {
        return Ok(Scaled { mini: full.clone(), full, params: params.clone() });
    }
    let g = full.geometry;
    let target = f64::from(g.total_blocks()) * rate;
    let mut dims = [g.planes, g.dies, g.chips_per_channel, g.channels];
    let planes = |d: &[u32; 4]| d.iter().map(|&x| f64::from(x)).product::<f64>();
    while planes(&dims) > 1.0 && target / planes(&dims) < f64::from(g.blocks) {
        if let Some(d) = dims.iter_mut().find(|d| **d > 1) {
            *d /= 2;
        }
    }
    let mut keys = params.clone();
    keys.remove("physical");
    let user = ((full.user_pages as f64 * rate).round() as u64).max(1);
    for (k, v) in [
        ("planes", dims[0]),
        ("dies", dims[1]),
        ("chips_per_channel", dims[2]),
        ("channels", dims[3]),
        ("pages_per_block", g.pages_per_block),
    ] {
        keys.insert(k.into(), v.to_string());
    }
    keys.insert("capacity".into(), user.to_string());
    let (mini, _) = DeviceConfig::build_sized(preset, &keys, page_size, Sizing::Keys)?;
    Ok(Scaled { full, mini, params: keys })
}

/// The miniature size of a full size: max(1, round(size × R)).
pub fn mini_size(size: u64, rate: f64) -> u64 {
    ((size as f64 * rate).round() as u64).max(1)
}

/// What one miniature counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MiniCounts {
    /// The measured tier's counters (the row's: a flash cache's, under a DRAM tier).
    pub tier: Counters,
    /// The flash device's, if the stack has one.
    pub flash: Option<FtlStats>,
    /// The miniature drive's blocks and user pages.
    pub blocks: u64,
    pub user_pages: u64,
    /// The miniature drive's blocks per plane.
    pub plane_blocks: u64,
}

impl MiniCounts {
    /// The measured tier's counters over the flash drive `f`.
    fn on(tier: Counters, f: &Flash) -> MiniCounts {
        let g = &f.cfg.geometry;
        MiniCounts {
            tier,
            flash: Some(f.stats()),
            blocks: u64::from(g.total_blocks()),
            user_pages: f.cfg.user_pages,
            plane_blocks: u64::from(g.blocks),
        }
    }
}

/// One size of one seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StackPoint {
    /// The size it stands for, and the miniature's, in pages.
    pub size: u64,
    pub mini_size: u64,
    pub counts: MiniCounts,
    /// The full drive's blocks, and blocks per plane (0 without a device).
    pub full_blocks: u64,
    pub full_plane_blocks: u64,
    /// The hit ratio estimated from this seed's sampled pages, and its standard error
    /// ([`shards::page_sample_hit_ratio`]).
    pub hit_ratio: f64,
    pub hit_ratio_se: f64,
}

/// One seed's sample and its miniatures.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedRun {
    pub seed: u64,
    /// Sampled read and write page accesses, and distinct sampled pages.
    pub samples: u64,
    pub sampled_pages: u64,
    /// Sampled read page accesses.
    pub sample_reads: u64,
    /// The relative standard error of the sampled write volume ([`total_rse`] of each sampled
    /// page's write accesses): how far the flash writes the sample drives may be from R of the
    /// full run's on the sample's draw alone.
    pub write_rse: f64,
    /// One per size, in the order asked.
    pub points: Vec<StackPoint>,
}

/// The result of [`stack_minisim`].
#[derive(Debug, Clone, PartialEq)]
pub struct StackMini {
    /// The rate used (T / 2^64).
    pub rate: f64,
    /// The trace's read and write page accesses, and its read page accesses.
    pub accesses: u64,
    pub reads: u64,
    /// The device preset simulated, if any.
    pub device: Option<String>,
    pub seeds: Vec<SeedRun>,
    /// Malformed lines the reader skipped (with `skip_bad_lines`).
    pub bad_lines: u64,
}

/// The estimates of one point (see the module docs); `None` where the stack has no device or
/// the ratio has no denominator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub hit_ratio: f64,
    pub read_hit_ratio: Option<f64>,
    pub flash_page_writes: Option<f64>,
    pub erasures: Option<f64>,
    pub write_amplification: Option<f64>,
}

impl StackMini {
    /// The estimates of point `p`.
    pub fn estimate(&self, p: &StackPoint) -> Estimate {
        let t = &p.counts.tier;
        let r = self.rate;
        // The hit ratio from the sampled pages ([`shards::page_sample_hit_ratio`]: the
        // regression estimate, between the miniature's own ratio and SHARDS' adjustment as the
        // sample says); the read hit ratio is the miniature's own.
        let ratio = |hits: u64, of: u64| (of > 0).then(|| hits as f64 / of as f64);
        let hit_ratio = p.hit_ratio;
        let read_hit_ratio = ratio(t.read_hits, t.reads);
        let f = p.counts.flash;
        Estimate {
            hit_ratio,
            read_hit_ratio,
            flash_page_writes: f.map(|f| (f.host_writes + f.gc_copies) as f64 / r),
            erasures: f.map(|f| f.erasures as f64 / r),
            write_amplification: f.filter(|f| f.host_writes > 0).map(|f| (f.host_writes + f.gc_copies) as f64 / f.host_writes as f64),
        }
    }
}

/// The relative standard error of a total estimated from a Poisson sample of pages at rate R:
/// sqrt((1 − R) Σ w_p²) / Σ w_p over the sampled pages' values `w_p` (the Horvitz–Thompson
/// variance of Σ w_p / R, over its square).
pub fn total_rse(rate: f64, values: impl Iterator<Item = f64> + Clone) -> f64 {
    let w: f64 = values.clone().sum();
    if w <= 0.0 {
        return 0.0;
    }
    ((1.0 - rate).max(0.0) * values.map(|x| x * x).sum::<f64>()).sqrt() / w
}

/// The measured tier's (accesses, hits) of a miniature so far.
fn tier_counts(shape: &Shape) -> (u64, u64) {
    let c = match shape {
        Shape::Cache(s) => &s.measured().counters,
        Shape::Buffer(s) => &s.measured().counters,
        Shape::Ssd(s) => &s.measured().counters,
        Shape::Layered(s) => &s.measured().counters,
    };
    (c.accesses, c.hits)
}

/// The plan of one miniature: `spec` at `mini` pages over the drive `scaled` (if any).
fn plan(
    spec: &StackSpec,
    stack: &StackConfig,
    info: &'static policy::PolicyInfo,
    mini: u64,
    device: Option<(&str, &Scaled)>,
) -> Result<Plan> {
    let empty = BTreeMap::new();
    let disk_layout = match stack.kind {
        StackKind::SsdCache => Some(stack.disk.layout(spec.page_size)?),
        StackKind::Buffer => None,
    };
    Plan::new(Spec {
        policy: &spec.policy,
        info,
        policy_params: spec.policy_params.clone(),
        stack: stack.clone(),
        size: mini,
        page_size: spec.page_size,
        device: device.map(|(p, _)| p),
        device_params: device.map_or(&empty, |(_, s)| &s.params),
        disk_layout,
    })
}

/// Miniature simulations of the stack `spec` at `sizes` (pages), at rate `rate`, one sample per
/// seed in `seeds`: every (seed, size) miniature is built, then the trace is read once and each
/// request's sampled pages go to the miniatures of each seed ([`Run::step`]). See the module docs.
/// With `device_metrics` (what flash costs is asked for), a drive too small after scaling
/// ([`Scaled::fits`]) is refused; without, it runs (hit ratios do not depend on GC).
#[allow(clippy::too_many_arguments)]
pub fn stack_minisim(
    trace: &str,
    opts: &TraceOptions,
    spec: &StackSpec,
    sizes: &[u64],
    rate: f64,
    seeds: &[u64],
    device_metrics: bool,
    mut progress: Option<Progress<'_>>,
) -> Result<StackMini> {
    Sampling::Rate(rate).validate()?;
    if spec.page_size == 0 {
        return Err(Error::config("page size must be positive"));
    }
    let info = policy::online_by_name(&spec.policy, "minisim")?;
    if info.needs_view {
        return Err(Error::config(format!(
            "minisim does not run '{}': it chooses victims by the chips' loads, which a miniature's scaled chips and queues do not reproduce (use fcsim run --device)",
            info.name
        )));
    }
    if sizes.is_empty() {
        return Err(Error::config("minisim needs at least one cache size"));
    }
    if sizes.contains(&0) {
        return Err(Error::config("cache size must be at least one page"));
    }
    if seeds.is_empty() {
        return Err(Error::config("minisim needs at least one seed"));
    }
    let (stack, _) = StackConfig::build(&spec.stack_params)?;
    if stack.split.is_some() {
        return Err(Error::config(
            "minisim does not run stack.split: its controller re-splits a fixed SSD by windows of the full drive's writes; drop stack.split",
        ));
    }
    let limit = shards::limit_of(rate);
    let rate = shards::rate_of(limit);
    let ssd = stack.kind == StackKind::SsdCache;
    let preset = spec.device.as_deref().or(ssd.then_some(DEFAULT_SSD_CACHE_DEVICE));
    // Each size's drive, scaled; one refused names the smallest rate that fits every size.
    let mut drives = Vec::with_capacity(sizes.len());
    for &size in sizes {
        let Some(p) = preset else {
            drives.push(None);
            continue;
        };
        let sizing = if ssd { Sizing::Capacity(size) } else { Sizing::Keys };
        let s = scale_device(p, &spec.device_params, spec.page_size, sizing, rate)?;
        if device_metrics && !s.fits() {
            // A grid of R × 1.1^k, each rounded up to 3 significant digits (the R printed is
            // the R checked).
            let mut r = rate;
            let least = loop {
                let next = (r * 1.1).min(1.0);
                let scale = 10f64.powi(2 - next.log10().floor() as i32);
                r = ((next * scale).ceil() / scale).min(1.0);
                let ok = sizes.iter().all(|&z| {
                    let sizing = if ssd { Sizing::Capacity(z) } else { Sizing::Keys };
                    scale_device(p, &spec.device_params, spec.page_size, sizing, r).is_ok_and(|s| s.fits())
                });
                if ok || r >= 1.0 {
                    break r;
                }
            };
            return Err(Error::config(format!(
                "minisim at R={}: the {p} drive of the {size}-page point scaled to {} blocks ({} a plane) keeps {:.2}% of its pages for GC to use, \
                 the full drive {:.2}% (a miniature keeps it to within {}% and at least {} blocks a plane): too small to garbage-collect as the full \
                 drive does; the smallest R that fits every size is {} (or ask for hit ratios only)",
                compact(rate),
                s.mini.geometry.total_blocks(),
                s.mini.geometry.blocks,
                100.0 * free_share(&s.mini),
                100.0 * free_share(&s.full),
                FIT * 100.0,
                (1.0 / FIT).round(),
                compact(least)
            )));
        }
        drives.push(Some(s));
    }
    // The miniatures: for each seed, one stack per size, each with its own run.
    let reader_unit = trace::open(trace, opts)?.key_unit();
    let splitter = PageSplitter::new(spec.page_size, reader_unit);
    let mut stacks = Vec::with_capacity(seeds.len());
    for _ in seeds {
        let mut row = Vec::with_capacity(sizes.len());
        for (&size, drive) in sizes.iter().zip(&drives) {
            let mini = mini_size(size, rate);
            let device = preset.zip(drive.as_ref());
            let built = plan(spec, &stack, info, mini, device)?.build(trace::lend(&mut progress))?;
            let run = Run::new(splitter, Vec::new(), 1.0, 0);
            row.push((run, built));
        }
        stacks.push(row);
    }
    // Each seed's sampled pages: a slot per page, its write accesses, and per size the measured
    // tier's accesses and hits it took (for [`shards::page_sample_hit_ratio`] and [`total_rse`]).
    let nsizes = sizes.len();
    let mut slot: Vec<FxHashMap<u64, u32>> = seeds.iter().map(|_| FxHashMap::default()).collect();
    let mut page_writes: Vec<Vec<u32>> = seeds.iter().map(|_| Vec::new()).collect();
    let mut page_tier: Vec<Vec<[f64; 2]>> = seeds.iter().map(|_| Vec::new()).collect();
    let mut slots: Vec<u32> = Vec::with_capacity(64);
    let mut samples = vec![0u64; seeds.len()];
    let mut sample_reads = vec![0u64; seeds.len()];
    let (mut accesses, mut reads) = (0u64, 0u64);
    let page_size = u64::from(spec.page_size);
    let mut reader = trace::open(trace, opts)?;
    trace::read_ahead(reader.as_mut(), splitter, true, |feed| {
        let mut n = 0u64;
        while let Some(mut batch) = feed.next_batch()? {
            for r in batch.requests {
                let Ok((first, count)) = splitter.pages(r) else { return Err(batch.refused()) };
                if r.op != Op::Trim {
                    accesses += count;
                    if r.op == Op::Read {
                        reads += count;
                    }
                }
                for (i, &seed) in seeds.iter().enumerate() {
                    // Runs of consecutive sampled pages, each one request.
                    let mut key = first;
                    let end = first + count;
                    while key < end {
                        if shards::hash(key, seed) > limit {
                            key += 1;
                            continue;
                        }
                        let start = key;
                        while key < end && shards::hash(key, seed) <= limit {
                            key += 1;
                        }
                        let pages = key - start;
                        let sub = if pages == count {
                            *r
                        } else if reader_unit == KeyUnit::Object {
                            HostRequest { offset: start, ..*r }
                        } else {
                            HostRequest {
                                volume: (start >> VOLUME_SHIFT) as u32,
                                offset: (start & PAGE_MASK) * page_size,
                                len: (pages * page_size) as u32,
                                ..*r
                            }
                        };
                        slots.clear();
                        if r.op != Op::Trim {
                            samples[i] += pages;
                            if r.op == Op::Read {
                                sample_reads[i] += pages;
                            }
                            crate::mem::reserve_map(&mut slot[i], "the sampled pages")?;
                            for page in start..key {
                                let next = slot[i].len() as u32;
                                let s = *slot[i].entry(page).or_insert(next);
                                if s == next {
                                    page_writes[i].push(0);
                                    let end = (s as usize + 1) * nsizes;
                                    page_tier[i].resize(end, [0.0; 2]);
                                }
                                if r.op == Op::Write {
                                    page_writes[i][s as usize] += 1;
                                }
                                slots.push(s);
                            }
                        }
                        for (k, (run, built)) in stacks[i].iter_mut().enumerate() {
                            let before = tier_counts(&built.shape);
                            match &mut built.shape {
                                Shape::Cache(s) => run.step(&sub, s),
                                Shape::Buffer(s) => run.step(&sub, s),
                                Shape::Ssd(s) => run.step(&sub, s),
                                Shape::Layered(s) => run.step(&sub, s),
                            }?;
                            // The tier's accesses and hits of this request, shared evenly by its
                            // pages (exact where all or none of them hit).
                            let after = tier_counts(&built.shape);
                            let (da, dh) = (after.0 - before.0, after.1 - before.1);
                            if da > 0 && !slots.is_empty() {
                                let per = slots.len() as f64;
                                for &s in &slots {
                                    let c = &mut page_tier[i][s as usize * nsizes + k];
                                    c[0] += da as f64 / per;
                                    c[1] += dh as f64 / per;
                                }
                            }
                        }
                    }
                }
                n += 1;
                batch.report(n, &mut progress)?;
            }
        }
        Ok(())
    })?;
    let mut out = Vec::with_capacity(seeds.len());
    for (i, row) in stacks.into_iter().enumerate() {
        let mut points = Vec::with_capacity(sizes.len());
        for (((mut run, mut built), &size), drive) in row.into_iter().zip(sizes).zip(&drives) {
            let counts = match &mut built.shape {
                Shape::Cache(s) => {
                    run.close(s)?;
                    MiniCounts { tier: s.measured().counters, ..Default::default() }
                }
                Shape::Buffer(s) => {
                    run.close(s)?;
                    MiniCounts::on(s.measured().counters, &s.below.store)
                }
                Shape::Ssd(s) => {
                    run.close(s)?;
                    MiniCounts::on(s.measured().counters, &s.below.flash)
                }
                Shape::Layered(s) => {
                    run.close(s)?;
                    MiniCounts::on(s.measured().counters, &s.below.store.dev.flash)
                }
            };
            // A DRAM buffer sees every access of the trace, so their number N is known; a flash
            // cache sees what a DRAM tier above it, or its write mode, lets through.
            let whole = matches!(built.shape, Shape::Cache(_) | Shape::Buffer(_));
            let full_blocks = drive.as_ref().map_or(0, |d| u64::from(d.full.geometry.total_blocks()));
            let full_plane_blocks = drive.as_ref().map_or(0, |d| u64::from(d.full.geometry.blocks));
            let k = points.len();
            let tier = page_tier[i].chunks_exact(nsizes).map(|c| (c[k][0], c[k][1]));
            let total = whole.then_some(accesses as f64);
            let (mut hit_ratio, hit_ratio_se) = shards::page_sample_hit_ratio(rate, total, tier);
            if !whole {
                // The own ratio from the tier's counters, which also count what reaches it after
                // the last request (a DRAM tier's dirty pages flushed into it at the end).
                let t = counts.tier;
                hit_ratio = if t.accesses > 0 { t.hits as f64 / t.accesses as f64 } else { 0.0 };
            }
            points.push(StackPoint {
                size,
                mini_size: mini_size(size, rate),
                counts,
                full_blocks,
                full_plane_blocks,
                hit_ratio,
                hit_ratio_se,
            });
        }
        out.push(SeedRun {
            seed: seeds[i],
            samples: samples[i],
            sampled_pages: slot[i].len() as u64,
            sample_reads: sample_reads[i],
            write_rse: total_rse(rate, page_writes[i].iter().map(|&w| f64::from(w))),
            points,
        });
    }
    Ok(StackMini { rate, accesses, reads, device: preset.map(str::to_string), seeds: out, bad_lines: reader.bad_lines() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn the_sampling_error_of_a_write_total_is_read_off_its_pages() {
        // A write total of pages with 3 and 1 writes at R = 0.5: sqrt(0.5 x (9 + 1)) / 4.
        let rse = total_rse(0.5, [3.0, 1.0].into_iter());
        assert!((rse - 5f64.sqrt() / 4.0).abs() < 1e-12, "{rse}");
        assert_eq!(total_rse(0.5, std::iter::empty()), 0.0);
    }

    #[test]
    fn a_scaled_drive_keeps_its_geometry_and_spare() {
        // gasa: 8 chips x 4 planes x 1024 blocks of 64 pages, OP 15%, threshold 5%. At R = 0.01
        // its 32,768 blocks become ~328: planes halve from 32 while a plane would hold fewer
        // than 1,024 blocks, down to one plane of 328 blocks; 64-page blocks, OP and threshold kept.
        let s = scale_device("gasa", &BTreeMap::new(), 4096, Sizing::Keys, 0.01).unwrap();
        let (f, m) = (s.full.geometry, s.mini.geometry);
        assert_eq!((f.total_planes(), f.blocks), (32, 1024));
        assert_eq!((m.total_planes(), m.pages_per_block), (1, 64));
        assert_eq!(s.mini.user_pages, (s.full.user_pages as f64 * 0.01).round() as u64);
        assert!((f64::from(m.total_blocks()) / 327.68 - 1.0).abs() < 0.01, "{m:?}");
        assert!((s.mini.op_actual() - s.full.op_actual()).abs() < 0.01);
        assert_eq!(s.mini.gc_reserve_blocks, 17); // ceil(0.05 x 328)
        assert!(s.fits(), "{} {}", free_share(&s.full), free_share(&s.mini));
        // At R = 1 nothing changes.
        let one = scale_device("gasa", &BTreeMap::new(), 4096, Sizing::Keys, 1.0).unwrap();
        assert_eq!(one.mini, one.full);
    }

    #[test]
    fn a_drive_too_small_to_collect_is_refused_with_the_rate_that_fits() {
        // 4 planes of 64 blocks: at R = 0.01 about 3 blocks, where GC's reserve alone is 2.
        let dev = keys(&[("channels", "1"), ("chips_per_channel", "4"), ("planes", "1"), ("blocks", "64")]);
        let s = scale_device("gasa", &dev, 4096, Sizing::Keys, 0.01).unwrap();
        assert!(!s.fits());
        let spec =
            StackSpec { policy: "lru".into(), device: Some("gasa".into()), device_params: dev, page_size: 4096, ..Default::default() };
        let trace = "synth:zipf,alpha=0.8,requests=2000,pages=500,seed=3,write=0.5";
        let err = stack_minisim(trace, &TraceOptions::default(), &spec, &[50], 0.01, &[0], true, None).unwrap_err().to_string();
        assert!(err.contains("the smallest R that fits every size is"), "{err}");
        let least: f64 = err.split("every size is ").nth(1).and_then(|t| t.split(' ').next()).unwrap().parse().unwrap();
        assert!(least > 0.01 && least <= 1.0, "{err}");
        let s = scale_device("gasa", &spec.device_params, 4096, Sizing::Keys, least).unwrap();
        assert!(s.fits(), "{err} {} {} {:?}", free_share(&s.full), free_share(&s.mini), s.mini.geometry);
    }
}
