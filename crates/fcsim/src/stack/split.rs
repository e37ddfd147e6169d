//! A split SSD write cache and the controller that re-splits it by the last window's miss-ratio
//! curve: L. Xu, Q. Xia and W. Xiao, "Locality-Driven Dynamic Flash Cache Allocation" (the
//! dynamic-allocation paper), §III (cost model) and §IV (design).
//!
//! **The split.** The SSD's raw capacity P pages is fixed. The cache may hold
//! C_cache = ⌊(1 − s) × P⌋ pages; the spare share s is over-provisioning. The drive's logical
//! space beyond the cache is never written (evicted pages are trimmed, §IV), so the FTL's GC
//! sees exactly the cache's valid pages. fcsim's s is what the paper's text and figures call OP
//! ("over-provisioning … 15% to 85%"; more OP, less cache, lower hit ratio); its eq. 1 prints
//! OP = C_cache / C_total, the complement of that, which contradicts them.
//!
//! **Cost model (§III).** With N pages per block and U the mean share of valid pages in a GC
//! victim: eq. 2, Cost_gc = U·N·(Cost_fr + Cost_fw) + Cost_erase; a GC frees (1 − U)·N pages,
//! so eq. 3, Cost'_fw = Cost_fw + Cost_gc / ((1 − U)·N); and eq. 5, the latency of an access,
//! Latency = Cost'_fw + MR·(Cost_fr + Cost_hd), MR the miss ratio at C_cache.
//!
//! **Dynamic mode (§IV).** The run starts at s = 35%. Windows are counted in flash page writes
//! by the host (T, default 2 × P: the paper's 8 GB for its 4 GB SSD; it gives 40 GB, 2.5 × P,
//! for its 16 GB SSD, and this default does not follow that); every page access
//! updates the window's LRU curve. At the end of a window the controller evaluates eq. 5 for
//! each trained split s ∈ {15, 25, …, 85}% with MR from that window's curve at (1 − s) × P and
//! U from its table, moves to the split with the lowest predicted latency (shrinking evicts
//! from the LRU end, dirty pages written to the disk, slots trimmed; growing raises the
//! limit), and starts a new window with an empty curve.
//!
//! **Training (§IV).** U per split comes from running each trained split for a stretch and
//! measuring its GC victims: U = pages copied by GC / (erasures × N) over the stretch. The
//! controller trains when it has no table, and retrains when the window's curve has moved away
//! from the one it last trained on: when the largest difference of miss ratio over the trained
//! cache sizes (a Kolmogorov–Smirnov distance of the reuse-distance distributions there)
//! exceeds `retrain` (default 0.1).
//!
//! Choices where the paper is silent, stated:
//! - Training starts at the end of the first window, not at time 0: a fresh drive does no GC
//!   until it has been written once, so a stretch then would measure nothing.
//! - Stretches run in increasing s (15% first): after the first, each step only shrinks the
//!   cache, which takes effect at once, where growing waits for new pages to arrive. A stretch
//!   lasts `train` × T host page writes to flash (default T / 8: the training spans one
//!   window).
//! - A training stretch must hold at least one erase block of host page writes: GC frees a
//!   block at a time, so a shorter stretch could not measure U, and windows that short would
//!   log a stretch every few writes (a window of one write, a stretch per write). So T is at
//!   least `pages_per_block` / `train` host page writes; [`Dynamic::check`] refuses a smaller
//!   `window`, naming the least it accepts.
//! - The decision after a training uses the curve of the window that triggered it (the last
//!   full window); the accesses during training build no curve.
//! - A stretch with no GC leaves U unmeasured; eq. 5 then takes U = 1 − s, the paper's
//!   "valid pages evenly distributed" case (§III, read with s as the spare share).
//! - The window's curve is exact LRU by default; `stack.mrc=R` builds it with SHARDS at fixed
//!   rate R (the paper's MRC generator, §II.B, §IV, with R = 0.0001 for its 4 GB SSD).
//! - MR counts every page access, reads too (the paper's model treats every access as a
//!   write; fcsim's write-back cache also admits read misses, clean).

use crate::device::ftl::FtlStats;
use crate::error::{compact, Error, Result};
use crate::mrc::{CurveBuilder, Sampling, Shards, StackDistances};

/// The paper's cost model (§III), in ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostModel {
    pub read_ns: f64,
    pub write_ns: f64,
    pub erase_ns: f64,
    pub disk_ns: f64,
    pub pages_per_block: f64,
}

impl CostModel {
    /// Eqs. 2–3: the cost of one page write when GC victims are `u` valid (infinite at u ≥ 1,
    /// where GC frees nothing).
    pub fn write_cost(&self, u: f64) -> f64 {
        if u >= 1.0 {
            return f64::INFINITY;
        }
        let n = self.pages_per_block;
        let gc = u * n * (self.read_ns + self.write_ns) + self.erase_ns;
        self.write_ns + gc / ((1.0 - u) * n)
    }

    /// Eq. 5: the latency of an access at miss ratio `miss_ratio` and victim utilisation `u`.
    pub fn latency(&self, miss_ratio: f64, u: f64) -> f64 {
        self.write_cost(u) + miss_ratio * (self.read_ns + self.disk_ns)
    }
}

/// The splits the controller trains and chooses from (§IV, §V.A): spare shares 15% … 85%.
pub const SPLITS: [f64; 8] = [0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85];

/// How the SSD is split between cache and spare.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SplitMode {
    /// A fixed spare share.
    Static(f64),
    /// Re-split every window by the last window's curve.
    Dynamic(Dynamic),
}

/// The dynamic controller's settings: `stack.initial`, `stack.window` (host page writes to
/// flash per window, as a multiple of the SSD's raw pages), `stack.train` (a training stretch as
/// a share of the window), `stack.retrain`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dynamic {
    pub initial: f64,
    pub window: f64,
    pub train: f64,
    pub retrain: f64,
    /// The window's curve: exact, or SHARDS at this fixed rate (`stack.mrc`).
    pub shards_rate: Option<f64>,
}

impl Dynamic {
    /// The window and a training stretch on an SSD of `physical` pages, in host page writes.
    fn writes(&self, physical: u64) -> (u64, u64) {
        let window = ((self.window * physical as f64).round() as u64).max(1);
        (window, ((self.train * window as f64).round() as u64).max(1))
    }

    /// Fails unless a training stretch on an SSD of `physical` pages holds at least one erase
    /// block of `pages_per_block` host page writes (see the module docs); the error names
    /// `stack.window` and the least value accepted.
    pub fn check(&self, physical: u64, pages_per_block: u32) -> Result<()> {
        if self.writes(physical).1 >= u64::from(pages_per_block) {
            return Ok(());
        }
        let least = f64::from(pages_per_block) / (self.train * physical as f64);
        Err(Error::config(format!(
            "stack.window={}: a training stretch (stack.train={} of the window) must hold at least one erase block \
             ({pages_per_block} host page writes) to measure GC; on this SSD of {physical} pages, stack.window must be at least {}",
            compact(self.window),
            compact(self.train),
            compact(least)
        )))
    }
}

/// One stretch of a dynamic run: a window, or one split's training stretch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    pub spare: f64,
    pub training: bool,
    /// Eq. 5's latency for this split, predicted at the end of the previous window (NaN for the
    /// first window and training stretches).
    pub predicted_ns: f64,
    /// Mean response time of the requests that completed the stretch.
    pub resp_mean_ns: f64,
}

/// What the controller did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SplitLog {
    pub stretches: Vec<Stretch>,
    /// Changes of split by a decision (training steps not counted).
    pub resizes: u64,
    pub trainings: u64,
    /// The trained U of each split in [`SPLITS`] (NaN where never measured).
    pub u: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Window,
    Training(usize),
}

/// The dynamic controller: it sees every page access and every request's response, and reads
/// the flash's counters; the loop applies the cache sizes it returns.
#[derive(Debug)]
pub struct Split {
    physical: u64,
    model: CostModel,
    cfg: Dynamic,
    window: u64,
    train_writes: u64,
    spare: f64,
    curve: Box<dyn CurveBuilder>,
    u: [Option<f64>; SPLITS.len()],
    reference: Option<[f64; SPLITS.len()]>,
    pending: [f64; SPLITS.len()],
    phase: Phase,
    mark: FtlStats,
    resp: (f64, u64),
    predicted: f64,
    pub log: SplitLog,
}

impl Split {
    /// A controller of an SSD of `physical` pages, starting at `cfg.initial` (its window
    /// checked by [`Dynamic::check`] when it runs a whole SSD).
    pub fn new(physical: u64, model: CostModel, cfg: Dynamic) -> Self {
        let (window, train_writes) = cfg.writes(physical);
        Split {
            physical,
            model,
            cfg,
            window,
            train_writes,
            spare: cfg.initial,
            curve: match cfg.shards_rate {
                Some(r) => Box::new(Shards::new(Sampling::Rate(r), 0).expect("rate checked by the stack config")),
                None => Box::new(StackDistances::new()),
            },
            u: [None; SPLITS.len()],
            reference: None,
            pending: [1.0; SPLITS.len()],
            phase: Phase::Window,
            mark: FtlStats::default(),
            resp: (0.0, 0),
            predicted: f64::NAN,
            log: SplitLog::default(),
        }
    }

    /// Cache pages at spare share `spare` of an SSD of `physical` pages.
    pub fn cache_pages(physical: u64, spare: f64) -> usize {
        (((1.0 - spare) * physical as f64).floor() as usize).max(1)
    }

    /// The window length and training stretch, in host page writes to flash.
    pub fn window(&self) -> (u64, u64) {
        (self.window, self.train_writes)
    }

    /// The current cache size.
    pub fn capacity(&self) -> usize {
        Self::cache_pages(self.physical, self.spare)
    }

    /// A read or write page access; `Err` when the window's curve cannot grow for it.
    #[inline]
    pub fn access(&mut self, key: u64) -> crate::error::Result<()> {
        self.curve.access(key)
    }

    /// A request completed after `response_ns`; `flash` is the medium's counters now. Returns
    /// the new cache size when the controller changes it.
    pub fn after_request(&mut self, response_ns: u64, flash: FtlStats) -> Option<usize> {
        self.resp.0 += response_ns as f64;
        self.resp.1 += 1;
        let written = flash.host_writes - self.mark.host_writes;
        match self.phase {
            Phase::Window if written >= self.window => {
                let mr = SPLITS.map(|s| self.curve.miss_ratio(Self::cache_pages(self.physical, s) as u64));
                self.close(false, flash);
                let shifted =
                    !self.reference.is_some_and(|r| r.iter().zip(&mr).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) <= self.cfg.retrain);
                if shifted {
                    self.log.trainings += 1;
                    self.reference = Some(mr);
                    self.pending = mr;
                    self.phase = Phase::Training(0);
                    return self.set(SPLITS[0], false);
                }
                self.choose(mr)
            }
            Phase::Training(i) if written >= self.train_writes => {
                let erased = flash.erasures - self.mark.erasures;
                let copied = flash.gc_copies - self.mark.gc_copies;
                self.u[i] = (erased > 0).then(|| copied as f64 / (erased as f64 * self.model.pages_per_block));
                self.close(true, flash);
                if i + 1 < SPLITS.len() {
                    self.phase = Phase::Training(i + 1);
                    return self.set(SPLITS[i + 1], false);
                }
                self.phase = Phase::Window;
                self.choose(self.pending)
            }
            _ => None,
        }
    }

    /// Ends the current stretch at `flash` and starts the next with an empty curve.
    fn close(&mut self, training: bool, flash: FtlStats) {
        let resp = if self.resp.1 > 0 { self.resp.0 / self.resp.1 as f64 } else { f64::NAN };
        let predicted = if training { f64::NAN } else { self.predicted };
        self.log.stretches.push(Stretch { spare: self.spare, training, predicted_ns: predicted, resp_mean_ns: resp });
        self.resp = (0.0, 0);
        self.mark = flash;
        self.curve.reset();
    }

    /// Eq. 5's latency of each split for miss ratios `mr` (one per split).
    pub fn predict(&self, mr: &[f64; SPLITS.len()]) -> [f64; SPLITS.len()] {
        std::array::from_fn(|i| self.model.latency(mr[i], self.u[i].unwrap_or(1.0 - SPLITS[i])))
    }

    /// Moves to the split with the lowest predicted latency.
    fn choose(&mut self, mr: [f64; SPLITS.len()]) -> Option<usize> {
        let lat = self.predict(&mr);
        let best = (0..SPLITS.len()).fold(0, |b, i| if lat[i] < lat[b] { i } else { b });
        self.predicted = lat[best];
        self.set(SPLITS[best], true)
    }

    fn set(&mut self, spare: f64, decision: bool) -> Option<usize> {
        if spare == self.spare {
            return None;
        }
        self.log.resizes += u64::from(decision);
        self.spare = spare;
        Some(self.capacity())
    }

    /// The log, with the trained U table.
    pub fn finish(mut self) -> SplitLog {
        self.log.u = self.u.iter().map(|u| u.unwrap_or(f64::NAN)).collect();
        self.log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: CostModel = CostModel { read_ns: 25e3, write_ns: 200e3, erase_ns: 1500e3, disk_ns: 5e6, pages_per_block: 64.0 };

    #[test]
    fn cost_model_by_hand() {
        // U = 0.5, N = 64: GC copies 32 pages (32 × 225 us = 7.2 ms) and erases (1.5 ms), 8.7 ms
        // for 32 freed pages: 271.875 us a page; Cost'_fw = 200 + 271.875 = 471.875 us.
        assert!((MODEL.write_cost(0.5) - 471_875.0).abs() < 1e-6);
        // No valid pages: only the erase, spread over 64 pages.
        assert!((MODEL.write_cost(0.0) - (200e3 + 1500e3 / 64.0)).abs() < 1e-6);
        assert_eq!(MODEL.write_cost(1.0), f64::INFINITY);
        // Eq. 5 at MR 0.1: 471.875 + 0.1 × (25 + 5000) = 974.375 us.
        assert!((MODEL.latency(0.1, 0.5) - 974_375.0).abs() < 1e-6);
    }

    #[test]
    fn one_resize_decision_by_hand() {
        // A small MRC (misses fall as the cache grows) and a U table; eq. 5 per split, by hand
        // (us): s = 15%: MR 0.10, U 0.90: 200 + (0.9·64·225 + 1500)/(0.1·64) = 2459.375,
        // + 0.10 × 5025 = 2961.875. s = 25%: MR 0.12, U 0.80: 200 + (0.8·64·225 + 1500)/(0.2·64)
        // = 1217.1875, + 603 = 1820.1875. s = 35%: MR 0.15, U 0.65: 200 + (9360+1500)/22.4
        // = 684.82, + 753.75 = 1438.57. s = 45%: MR 0.25, U 0.50: 471.875 + 1256.25 = 1728.125.
        // The rest have MR ≥ 0.4, so ≥ 2010 us. Best: 35%.
        let mut s = Split::new(1000, MODEL, Dynamic { initial: 0.55, window: 0.01, train: 0.1, retrain: 0.1, shards_rate: None });
        s.u = [Some(0.9), Some(0.8), Some(0.65), Some(0.5), Some(0.4), Some(0.3), Some(0.2), Some(0.1)];
        let mr = [0.10, 0.12, 0.15, 0.25, 0.40, 0.55, 0.70, 0.85];
        let lat = s.predict(&mr);
        let want = [2_961_875.0, 1_820_187.5, 684_821.43 + 753_750.0, 1_728_125.0];
        for (l, w) in lat.iter().zip(want) {
            assert!((l - w).abs() < 1.0, "{lat:?}");
        }
        assert_eq!(s.choose(mr), Some(650));
        assert_eq!(s.log.resizes, 1);
        assert!((s.predicted - lat[2]).abs() < 1e-9);
        // The same curve again: no change.
        assert_eq!(s.choose(mr), None);
    }

    fn stats(host_writes: u64, gc_copies: u64, erasures: u64) -> FtlStats {
        FtlStats { host_writes, gc_copies, erasures, ..FtlStats::default() }
    }

    #[test]
    fn windows_training_and_retraining() {
        // P = 100 pages, windows of 10 host writes, stretches of 2.
        let mut s = Split::new(100, MODEL, Dynamic { initial: 0.35, window: 0.1, train: 0.2, retrain: 0.1, shards_rate: None });
        assert_eq!(s.window(), (10, 2));
        assert_eq!(s.capacity(), 65);
        for k in 0..20 {
            s.access(k % 5).unwrap();
        }
        assert_eq!(s.after_request(1000, stats(9, 0, 0)), None);
        // The first window ends: no table, so training starts at 15% (85 pages).
        assert_eq!(s.after_request(1000, stats(10, 0, 0)), Some(85));
        assert_eq!(s.log.trainings, 1);
        // Each stretch measures U from its own GC: 32 copies over 1 erasure of 64 pages = 0.5.
        let mut w = 10;
        for (i, next) in SPLITS.iter().enumerate().skip(1) {
            w += 2;
            assert_eq!(s.after_request(1000, stats(w, 32 * i as u64, i as u64)), Some(Split::cache_pages(100, *next)));
        }
        w += 2;
        // Every stretch had U = 0.5 and the first window's curve (5 pages looping) misses only
        // its cold accesses at every trained size: eq. 5 ties, and the first split (the
        // largest cache) is kept from the tie.
        assert_eq!(s.after_request(1000, stats(w, 8 * 32, 8)), Some(85));
        assert!(s.u.iter().all(|&u| u == Some(0.5)));
        assert_eq!(s.log.stretches.len(), 1 + SPLITS.len());
        assert!(s.log.stretches[1..].iter().all(|t| t.training));
        // A window with the same curve keeps the split and does not retrain.
        for k in 0..20 {
            s.access(k % 5).unwrap();
        }
        assert_eq!(s.after_request(1000, stats(w + 10, 8 * 32, 8)), None);
        assert_eq!(s.log.trainings, 1);
        // A window of all-distinct pages (every access misses at every size) retrains; its
        // first stretch is the split already in use.
        for k in 100..120 {
            s.access(k).unwrap();
        }
        assert_eq!(s.after_request(1000, stats(w + 20, 8 * 32, 8)), None);
        assert_eq!(s.log.trainings, 2);
        let log = s.finish();
        assert_eq!(log.resizes, 1);
        assert_eq!(log.u.len(), SPLITS.len());
    }
}
