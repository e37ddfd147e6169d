//! Miss-ratio curves of a trace: its page accesses fed, in one pass, to a curve builder of
//! [`crate::mrc`] (exact, SHARDS), or to miniature simulations of any policy ([`minisim`]).
//! Trims are skipped by the LRU curves (see [`crate::mrc`] on why no one-pass curve is exact
//! with them).

use crate::error::{Error, Result};
use crate::mrc::shards::{self, Sampling, Shards};
use crate::mrc::{Mrc, StackDistances};
use crate::policy::{self, Access, Evicted, Outcome, Policy};
use crate::request::{Op, PageSplitter};
use crate::trace::{self, fct, TraceOptions, TraceReader};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Opens `trace` for a curve of `page_size`-byte pages.
pub fn open(trace: &str, opts: &TraceOptions, page_size: u32) -> Result<Box<dyn TraceReader>> {
    if page_size == 0 {
        return Err(Error::config("page size must be positive"));
    }
    trace::open(trace, opts)
}

/// Calls `access` with every read or write page access of `reader`, in order. `progress` is
/// called every 2^16 requests with (done, total) in the reader's unit; false stops the pass
/// with [`Error::Interrupted`].
pub fn feed(
    reader: &mut dyn TraceReader,
    page_size: u32,
    progress: &mut dyn FnMut(u64, u64) -> bool,
    access: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<()> {
    let splitter = PageSplitter::new(page_size, reader.key_unit());
    let mut progress = Some(progress);
    trace::read_ahead(reader, splitter, true, |feed| {
        let mut n = 0u64;
        while let Some(mut batch) = feed.next_batch()? {
            for r in batch.requests {
                let Ok((first, count)) = splitter.pages(r) else { return Err(batch.refused()) };
                if r.op != Op::Trim {
                    (first..first + count).try_for_each(&mut *access)?;
                }
                n += 1;
                batch.report(n, &mut progress)?;
            }
        }
        Ok(())
    })
}

/// The exact LRU MRC of a trace, and the malformed lines its reader skipped (with
/// `skip_bad_lines`).
pub fn exact(trace: &str, opts: &TraceOptions, page_size: u32, progress: &mut dyn FnMut(u64, u64) -> bool) -> Result<(Mrc, u64)> {
    let mut reader = open(trace, opts, page_size)?;
    // A .fct header knows the number of distinct pages. It is a hint to size the structures
    // (they grow past it), so it is capped: memory follows the pages seen, whatever a header says.
    let pages = match reader.format() == fct::FORMAT.name && opts.volume.is_none() {
        true => fct::read_header(std::path::Path::new(trace))?.unique_pages.min(1 << 26) as usize,
        false => 0,
    };
    let mut sd = StackDistances::with_pages(pages);
    feed(reader.as_mut(), page_size, progress, &mut |key| sd.access(key).map(|_| ()))?;
    Ok((sd.finish(), reader.bad_lines()))
}

/// The SHARDS curve of a trace (see [`crate::mrc::shards`]), and the malformed lines its
/// reader skipped.
pub fn shards(
    trace: &str,
    opts: &TraceOptions,
    page_size: u32,
    sampling: Sampling,
    seed: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<(Shards, u64)> {
    let mut builder = Shards::new(sampling, seed)?;
    let mut reader = open(trace, opts, page_size)?;
    feed(reader.as_mut(), page_size, progress, &mut |key| builder.access(key))?;
    Ok((builder, reader.bad_lines()))
}

/// One size of a miniature simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MiniPoint {
    /// The cache size it stands for, in pages.
    pub size: u64,
    /// The miniature cache's size: max(1, round(size × R)) pages.
    pub mini_size: u64,
    /// Hits of the miniature cache among the sampled accesses.
    pub hits: u64,
    /// The hit ratio estimated from the sampled pages, and its standard error
    /// ([`shards::page_sample_hit_ratio`]).
    pub hit_ratio: f64,
    pub hit_ratio_se: f64,
}

/// The result of [`minisim`].
#[derive(Debug, Clone, PartialEq)]
pub struct MiniSim {
    /// The sampling rate R actually used (T/2^64, within 2^-53 of the one asked for).
    pub rate: f64,
    /// Read and write page accesses of the trace.
    pub accesses: u64,
    /// Sampled read and write page accesses (a point's own hit ratio is hits / samples).
    pub samples: u64,
    /// Distinct sampled pages (their number / R estimates the working set).
    pub sampled_pages: u64,
    /// One per size asked for, in the order asked.
    pub points: Vec<MiniPoint>,
    /// Malformed lines the reader skipped (with `skip_bad_lines`).
    pub bad_lines: u64,
}

impl MiniSim {
    /// The estimated miss ratio of the full cache of `p`: one minus the hit ratio read off the
    /// sampled pages ([`shards::page_sample_hit_ratio`], as [`crate::minisim`] reads a whole
    /// stack's). Of the two fixed readings it chooses between, the miniature cache's own ratio
    /// ([`MiniSim::own_miss_ratio`]) was the closer on the shipped traces of at least 1M accesses
    /// at R = 0.01, SHARDS' adjustment ([`MiniSim::adjusted_miss_ratio`]) on a Zipf trace whose
    /// hot pages always hit (bench/RESULTS.md); the sample says which.
    pub fn miss_ratio(&self, p: &MiniPoint) -> f64 {
        match self.samples {
            0 => 1.0,
            _ => 1.0 - p.hit_ratio,
        }
    }

    /// The miniature cache's own miss ratio over the sampled accesses (1 with none).
    pub fn own_miss_ratio(&self, p: &MiniPoint) -> f64 {
        match self.samples {
            0 => 1.0,
            s => (s - p.hits) as f64 / s as f64,
        }
    }

    /// SHARDS' first-bucket adjustment carried over to miniature caches, for comparison: the
    /// miniature cache's misses over the expected N·R sampled accesses, at most 1 (sampled accesses
    /// above or below N·R counted as hits).
    pub fn adjusted_miss_ratio(&self, p: &MiniPoint) -> f64 {
        let expected = self.accesses as f64 * self.rate;
        match self.samples {
            0 => 1.0,
            s => ((s - p.hits) as f64 / expected).min(1.0),
        }
    }
}

/// Miniature simulations (C. A. Waldspurger, T. Saemundson, I. Ahmad, and N. Park, "Cache
/// Modeling and Optimization using Miniature Simulations", USENIX ATC 2017, as its first page
/// prints it): `policy` (with `params`) runs on the SHARDS fixed-rate sample of the trace's page
/// accesses, one miniature cache of max(1, round(size × R)) pages per size in `sizes` (pages), all
/// in one pass; each miniature cache's miss ratio estimates the full cache's
/// ([`MiniSim::miss_ratio`]). Writes are writes (a write-back tier, as `fcsim run` without a
/// device); a trim of a sampled page removes it from every cache. Hit ratios only: no device.
///
/// Offline policies (they need each access's next-access time in the sampled stream) and
/// flash-aware ones (they need a device's view) are refused with a config error.
#[allow(clippy::too_many_arguments)]
pub fn minisim(
    trace: &str,
    opts: &TraceOptions,
    page_size: u32,
    policy_name: &str,
    params: &BTreeMap<String, String>,
    sizes: &[u64],
    rate: f64,
    seed: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<MiniSim> {
    let info = policy::online_by_name(policy_name, "minisim")?;
    if info.needs_view {
        return Err(Error::config(format!(
            "minisim runs without a device; '{}' needs a flash device's view (use fcsim run --device)",
            info.name
        )));
    }
    if sizes.is_empty() {
        return Err(Error::config("minisim needs at least one cache size"));
    }
    if sizes.contains(&0) {
        return Err(Error::config("cache size must be at least one page"));
    }
    Sampling::Rate(rate).validate()?;
    // The same threshold as SHARDS' fixed rate, so both see the same pages.
    let limit = shards::limit_of(rate);
    let rate = shards::rate_of(limit);
    let mut caches: Vec<(Box<dyn Policy>, u64)> = Vec::with_capacity(sizes.len());
    let mut points = Vec::with_capacity(sizes.len());
    for &size in sizes {
        let mini = ((size as f64 * rate).round() as u64).max(1);
        let (p, _) = policy::build(info.name, usize::try_from(mini).unwrap_or(usize::MAX), params.clone())?;
        caches.push((p, 0));
        points.push(MiniPoint { size, mini_size: mini, hits: 0, hit_ratio: 0.0, hit_ratio_se: 0.0 });
    }
    let mut reader = open(trace, opts, page_size)?;
    let splitter = PageSplitter::new(page_size, reader.key_unit());
    let mut evicted: Vec<Evicted> = Vec::with_capacity(16);
    // Each sampled page's slot, its accesses, and its hits per size.
    let nsizes = sizes.len();
    let mut slot: FxHashMap<u64, u32> = FxHashMap::default();
    let mut page_hits: Vec<u32> = Vec::new();
    let (mut accesses, mut samples) = (0u64, 0u64);
    let mut progress = Some(progress);
    trace::read_ahead(reader.as_mut(), splitter, true, |feed| {
        let mut n = 0u64;
        while let Some(mut batch) = feed.next_batch()? {
            for r in batch.requests {
                let Ok((first, count)) = splitter.pages(r) else { return Err(batch.refused()) };
                for key in first..first + count {
                    if r.op != Op::Trim {
                        accesses += 1;
                    }
                    if shards::hash(key, seed) > limit {
                        continue;
                    }
                    if r.op == Op::Trim {
                        for (p, _) in &mut caches {
                            p.remove(key);
                        }
                        continue;
                    }
                    let a = Access { key, write: r.op == Op::Write, index: samples, next: crate::request::NEVER, time: r.time_ns };
                    samples += 1;
                    crate::mem::reserve_map(&mut slot, "the sampled pages")?;
                    let next = slot.len() as u32;
                    let at = *slot.entry(key).or_insert(next) as usize * (nsizes + 1);
                    if at == page_hits.len() {
                        page_hits.resize(at + nsizes + 1, 0);
                    }
                    page_hits[at] += 1;
                    for (k, (p, hits)) in caches.iter_mut().enumerate() {
                        evicted.clear();
                        if let Outcome::Hit { .. } = p.access(&a, &mut evicted) {
                            *hits += 1;
                            page_hits[at + 1 + k] += 1;
                        }
                    }
                }
                n += 1;
                batch.report(n, &mut progress)?;
            }
        }
        Ok(())
    })?;
    for (k, (point, (_, hits))) in points.iter_mut().zip(&caches).enumerate() {
        point.hits = *hits;
        let pages = page_hits.chunks_exact(nsizes + 1).map(|c| (f64::from(c[0]), f64::from(c[1 + k])));
        (point.hit_ratio, point.hit_ratio_se) = shards::page_sample_hit_ratio(rate, Some(accesses as f64), pages);
    }
    Ok(MiniSim { rate, accesses, samples, sampled_pages: slot.len() as u64, points, bad_lines: reader.bad_lines() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "synth:zipf,alpha=0.8,requests=40000,pages=5000,seed=3,write=0.3";

    fn none(_: u64, _: u64) -> bool {
        true
    }

    #[test]
    fn shards_at_rate_one_is_the_exact_curve() {
        let opts = TraceOptions::default();
        let exact = exact(TRACE, &opts, 4096, &mut none).unwrap().0;
        let s = shards(TRACE, &opts, 4096, Sampling::Rate(1.0), 0, &mut none).unwrap().0;
        for size in [1, 10, 100, 1000, 4000, 6000] {
            assert_eq!(s.misses(size), exact.misses(size as usize) as f64);
        }
    }

    #[test]
    fn minisim_of_lru_at_rate_one_is_the_exact_curve() {
        // At R = 1 every page is sampled and each miniature cache is the full cache: LRU's
        // misses are the stack-distance curve's, at every size, from one pass.
        let opts = TraceOptions::default();
        let exact = exact(TRACE, &opts, 4096, &mut none).unwrap().0;
        let sizes = [1, 50, 500, 2000, 5000];
        let m = minisim(TRACE, &opts, 4096, "lru", &BTreeMap::new(), &sizes, 1.0, 0, &mut none).unwrap();
        assert_eq!((m.rate, m.samples, m.accesses), (1.0, exact.accesses, exact.accesses));
        assert_eq!(m.sampled_pages, exact.cold);
        for p in &m.points {
            assert_eq!(p.mini_size, p.size);
            assert_eq!(m.accesses - p.hits, exact.misses(p.size as usize), "size {}", p.size);
            // Every page sampled: the estimate is both fixed readings (to rounding) and exact.
            assert!((m.miss_ratio(p) - m.adjusted_miss_ratio(p)).abs() < 1e-12);
            assert!((m.miss_ratio(p) - m.own_miss_ratio(p)).abs() < 1e-12);
            assert_eq!(p.hit_ratio_se, 0.0);
        }
    }

    #[test]
    fn minisim_scales_caches_and_samples_as_shards() {
        let opts = TraceOptions::default();
        let m = minisim(TRACE, &opts, 4096, "arc", &BTreeMap::new(), &[10, 1000, 4000], 0.1, 0, &mut none).unwrap();
        let s = shards(TRACE, &opts, 4096, Sampling::Rate(0.1), 0, &mut none).unwrap().0;
        assert_eq!(m.samples, s.samples());
        assert_eq!(m.sampled_pages, s.sampled_pages() as u64);
        assert_eq!(m.points.iter().map(|p| p.mini_size).collect::<Vec<_>>(), [1, 100, 400]);
    }

    #[test]
    fn minisim_refuses_what_it_cannot_run() {
        let opts = TraceOptions::default();
        let no = BTreeMap::new();
        let err = |policy: &str, sizes: &[u64], rate: f64| match minisim(TRACE, &opts, 4096, policy, &no, sizes, rate, 0, &mut none) {
            Err(Error::Config(m)) => m,
            other => panic!("{policy} {sizes:?} {rate}: {other:?}"),
        };
        assert!(err("min", &[10], 0.1).contains("next access"));
        assert!(err("lcr", &[10], 0.1).contains("device"));
        assert!(err("nosuch", &[10], 0.1).contains("unknown policy"));
        assert!(err("lru", &[], 0.1).contains("at least one"));
        assert!(err("lru", &[0], 0.1).contains("one page"));
        assert!(err("lru", &[10], 0.0).contains("(0, 1]"));
        assert!(err("lru", &[10], 1.5).contains("(0, 1]"));
    }
}
