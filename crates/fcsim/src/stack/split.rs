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
//! **Training (§IV): what the paper says, and fcsim's reading.** §IV: "At the beginning, we
//! will configure our SSD cache with different OP values and get the corresponding U … our
//! training only performs on several discrete OP values (15%, …, 85%) … a mapping table
//! between the OP and the U will be built", retrained "only when we detect a big shift of the
//! workload properties like the reuse distance distributions". It does not say how long each
//! OP runs, whether U is read once the drive has settled at that OP, in which order the OPs are
//! visited, nor whether the training runs on the live cache or apart from it. U is a
//! steady-state property of an OP (the valid share of greedy GC's victims once the drive's
//! blocks reflect that cache size), so fcsim reads "get the corresponding U" as U at steady
//! state, and offers two ways to get it (`stack.training`):
//!
//! - **`live`** (default): the running cache visits each OP in turn. A stretch (a) resizes and
//!   waits until the cache holds its target size (a shrink is at once; a growth waits for new
//!   pages, at most one window of host writes, else the stretch is logged as not reached);
//!   (b) lets the flash turn over `stack.settle` × the target cache's pages in host writes
//!   (default 1: every cached page rewritten once on average, so the blocks' valid shares are
//!   those of the new size); (c) measures U over the next `stack.train` × T host writes
//!   (default T / 8): U = GC copies / (erasures × N) there. OPs are visited from the current
//!   one upwards to 85% (each shrink evicts one tenth of the SSD), then downwards from the one
//!   below the current (growths, which write nothing back): no shrink of more than one step.
//!   Shrink victims are written back in the disk's idle time (`stack.shrink=background`,
//!   [`crate::stack::SsdCache`]'s deferred write-back), not as one burst (`stack.shrink=burst`,
//!   the earlier behaviour, a labelled variant). The training's requests, host writes,
//!   write-backs and simulated time are logged apart ([`TrainingCost`]).
//! - **`offline`**: U per OP is given (`stack.u=U15:U25:…:U85`), taken from a preceding static
//!   run at each OP (the static runs the paper performs anyway) or a profile; no training runs
//!   and nothing retrains. The reproduction labels it so.
//!
//! **Decision rules (`stack.rule`).** `paper`: eq. 5 per page access, as printed. `request`
//! (fcsim's variant, labelled): the simulated response is per request, where a request's k
//! pages are programmed on `parallel` chips at once while its misses' write-backs queue on one
//! disk: Latency_req = max(1, k / parallel) × Cost'_fw + k × MR × (Cost_fr + Cost_hd), k the
//! window's mean pages per request, Cost_hd the disk model's per-access cost. Both rules are
//! evaluated at every decision and both picks are logged; the configured one acts.
//!
//! Choices where the paper is silent, stated:
//! - Training starts at the end of the first window, not at time 0: a fresh drive does no GC
//!   until it has been written once, so a stretch then would measure nothing.
//! - A measuring stretch must hold at least one erase block of host page writes: GC frees a
//!   block at a time, so a shorter stretch could not measure U. So T is at least
//!   `pages_per_block` / `train` host page writes; [`Dynamic::check`] refuses a smaller
//!   `window`, naming the least it accepts.
//! - The decision after a training uses the curve of the window that triggered it (the last
//!   full window); the accesses during training build no curve.
//! - A stretch with no GC leaves U unmeasured; eq. 5 then takes U = 1 − s, the paper's
//!   "valid pages evenly distributed" case (§III, read with s as the spare share).
//! - The window's curve is exact LRU by default; `stack.mrc=R` builds it with SHARDS at fixed
//!   rate R (the paper's MRC generator, §II.B, §IV, with R = 0.0001 for its 4 GB SSD).
//! - MR counts every page access the curve sees, reads too. With `stack.admit=writes` (the
//!   paper's write cache: read misses bypass) a read of an uncached page does not enter the
//!   cache, so the curve over-counts the cache's contents by the reads' pages; the paper's
//!   workloads are all writes, where the two agree.
//! - A decision counts when a trained or given U table exists at a window's end (a run with
//!   fewer than 4 is "no decision" in the report, never scored).

use super::control::{Controller, ControllerLog};
use super::{SsdCache, Tier};
use crate::device::ftl::FtlStats;
use crate::error::{compact, Error, Result};
use crate::mrc::{CurveBuilder, Sampling, Shards, StackDistances};

/// The paper's cost model (§III), in ns; `parallel` (chips that program at once) is used only by
/// the per-request rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostModel {
    pub read_ns: f64,
    pub write_ns: f64,
    pub erase_ns: f64,
    pub disk_ns: f64,
    pub pages_per_block: f64,
    pub parallel: f64,
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

    /// fcsim's per-request form (module docs): a request of `pages` pages, its programs spread
    /// over the chips, its misses' write-backs serial on the disk.
    pub fn request_latency(&self, miss_ratio: f64, u: f64, pages: f64) -> f64 {
        let pages = pages.max(1.0);
        (pages / self.parallel.max(1.0)).max(1.0) * self.write_cost(u) + pages * miss_ratio * (self.read_ns + self.disk_ns)
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

/// Where the U table comes from (`stack.training`; module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Training {
    /// Measured on the running cache, each OP at steady state.
    Live,
    /// Given per OP (from a preceding static run or a profile).
    Offline([f64; SPLITS.len()]),
}

/// Which latency the controller minimises (`stack.rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Eq. 5, per page access.
    Paper,
    /// fcsim's per-request form.
    Request,
}

/// The dynamic controller's settings: `stack.initial`, `stack.window` (host page writes to
/// flash per window, as a multiple of the SSD's raw pages), `stack.train` (a measuring stretch
/// as a share of the window), `stack.settle` (turnover before measuring, in target cache
/// pages), `stack.retrain`, `stack.training`, `stack.rule`, `stack.shrink`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dynamic {
    pub initial: f64,
    pub window: f64,
    pub train: f64,
    pub settle: f64,
    pub retrain: f64,
    /// The window's curve: exact, or SHARDS at this fixed rate (`stack.mrc`).
    pub shards_rate: Option<f64>,
    pub training: Training,
    pub rule: Rule,
    /// Shrink victims written back in the disk's idle time (true) or at once.
    pub background: bool,
}

impl Dynamic {
    /// The window and a measuring stretch on an SSD of `physical` pages, in host page writes.
    fn writes(&self, physical: u64) -> (u64, u64) {
        let window = ((self.window * physical as f64).round() as u64).max(1);
        (window, ((self.train * window as f64).round() as u64).max(1))
    }

    /// Fails unless a measuring stretch on an SSD of `physical` pages holds at least one erase
    /// block of `pages_per_block` host page writes (see the module docs); the error names
    /// `stack.window` and the least value accepted.
    pub fn check(&self, physical: u64, pages_per_block: u32) -> Result<()> {
        if matches!(self.training, Training::Offline(_)) || self.writes(physical).1 >= u64::from(pages_per_block) {
            return Ok(());
        }
        // Either key can be the one too small: name both, and each remedy that is in range (a
        // share of the window is at most 1; a window past 1000 SSDs of writes is not one).
        let least_window = f64::from(pages_per_block) / (self.train * physical as f64);
        let least_train = f64::from(pages_per_block) / (self.window * physical as f64);
        let mut fixes = Vec::new();
        if least_train <= 1.0 {
            fixes.push(format!("stack.train must be at least {}", compact(least_train)));
        }
        if least_window <= 1000.0 {
            fixes.push(format!("stack.window at least {}", compact(least_window)));
        }
        let fix = if fixes.is_empty() { "neither key can make it hold one: use a larger SSD".to_string() } else { fixes.join(", or ") };
        Err(Error::config(format!(
            "stack.window={}, stack.train={}: a training stretch (stack.train of the window) must hold at least one erase block \
             ({pages_per_block} host page writes) to measure GC; on this SSD of {physical} pages, {fix}",
            compact(self.window),
            compact(self.train),
        )))
    }
}

/// One stretch of a dynamic run: a window, or one split's training stretch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    pub spare: f64,
    pub training: bool,
    /// The acting rule's latency for this split, predicted at the end of the previous window
    /// (NaN for the first window and training stretches).
    pub predicted_ns: f64,
    /// Mean response time of the requests that completed the stretch, and how many.
    pub resp_mean_ns: f64,
    pub requests: f64,
    /// Training: the U measured (NaN without GC). Window: NaN.
    pub u: f64,
    /// Training: whether the cache reached its target size before U was taken (1 or 0).
    pub reached: f64,
    /// Window: the splits eq. 5 and the per-request rule pick at its end (NaN without a table).
    pub pick_paper: f64,
    pub pick_request: f64,
}

/// What the training cost, apart from the adapted run: the requests that completed during
/// training, the host page writes to flash, the pages written back to the disk because of it
/// (shrink victims and the misses of the smaller caches), and the simulated time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TrainingCost {
    pub requests: u64,
    pub host_writes: u64,
    pub writebacks: u64,
    pub time_ns: u64,
}

/// What the controller did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SplitLog {
    pub stretches: Vec<Stretch>,
    /// Changes of split by a decision (training steps not counted).
    pub resizes: u64,
    pub trainings: u64,
    /// Windows that ended with a U table, so the rule chose a split.
    pub decisions: u64,
    /// The U of each split in [`SPLITS`] the controller used last (NaN where never measured).
    pub u: Vec<f64>,
    pub cost: TrainingCost,
}

/// What the loop tells the controller after each request.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Probe {
    /// The flash medium's counters now.
    pub flash: FtlStats,
    /// Pages the cache holds.
    pub resident: usize,
    /// Pages the tier has written (or queued) back to the disk so far.
    pub writebacks: u64,
    /// The request's arrival (ns).
    pub now: u64,
}

/// A live training stretch's stage.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    /// Waiting for the cache to hold its target size, since this many host writes.
    Reach(u64),
    /// Letting the flash turn over, since this many host writes; whether the target was reached.
    Settle(u64, bool),
    /// Measuring U from the mark.
    Measure(bool),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Window,
    /// The `i`-th split of the training order, at `stage`.
    Training(usize, Stage),
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
    /// The training's visiting order (indices into [`SPLITS`]).
    order: [usize; SPLITS.len()],
    /// Pages and requests of the current window (the per-request rule's k).
    pages: (u64, u64),
    pending_pages: f64,
    phase: Phase,
    mark: FtlStats,
    /// The training's start: requests, host writes, write-backs, time.
    train_mark: (u64, u64, u64, u64),
    requests: u64,
    resp: (f64, u64),
    predicted: f64,
    pub log: SplitLog,
}

impl Split {
    /// A controller of an SSD of `physical` pages, starting at `cfg.initial` (its window
    /// checked by [`Dynamic::check`] when it runs a whole SSD).
    pub fn new(physical: u64, model: CostModel, cfg: Dynamic) -> Self {
        let (window, train_writes) = cfg.writes(physical);
        let u = match cfg.training {
            Training::Offline(t) => t.map(|v| v.is_finite().then_some(v)),
            Training::Live => [None; SPLITS.len()],
        };
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
            u,
            reference: None,
            pending: [1.0; SPLITS.len()],
            order: std::array::from_fn(|i| i),
            pages: (0, 0),
            pending_pages: 1.0,
            phase: Phase::Window,
            mark: FtlStats::default(),
            train_mark: (0, 0, 0, 0),
            requests: 0,
            resp: (0.0, 0),
            predicted: f64::NAN,
            log: SplitLog::default(),
        }
    }

    /// Cache pages at spare share `spare` of an SSD of `physical` pages.
    pub fn cache_pages(physical: u64, spare: f64) -> usize {
        (((1.0 - spare) * physical as f64).floor() as usize).max(1)
    }

    /// The window length and measuring stretch, in host page writes to flash.
    pub fn window(&self) -> (u64, u64) {
        (self.window, self.train_writes)
    }

    /// The current cache size.
    pub fn capacity(&self) -> usize {
        Self::cache_pages(self.physical, self.spare)
    }

    /// Whether shrink victims go back in the disk's idle time.
    pub fn background(&self) -> bool {
        self.cfg.background
    }

    /// A read or write page access; `Err` when the window's curve cannot grow for it.
    #[inline]
    pub fn access(&mut self, key: u64) -> crate::error::Result<()> {
        self.pages.0 += 1;
        self.curve.access(key)
    }

    /// The training's visiting order from split index `current`: upwards to 85%, then
    /// downwards from the one below `current` (module docs).
    fn training_order(current: usize) -> [usize; SPLITS.len()] {
        let mut order = [0; SPLITS.len()];
        let up = current..SPLITS.len();
        let down = (0..current).rev();
        for (o, i) in order.iter_mut().zip(up.chain(down)) {
            *o = i;
        }
        order
    }

    /// A request completed after `response_ns`; `p` is the state below the tier now. Returns the
    /// new cache size when the controller changes it.
    pub fn after_request(&mut self, response_ns: u64, p: Probe) -> Option<usize> {
        self.resp.0 += response_ns as f64;
        self.resp.1 += 1;
        self.requests += 1;
        self.pages.1 += 1;
        let flash = p.flash;
        let written = flash.host_writes - self.mark.host_writes;
        match self.phase {
            Phase::Window if written >= self.window => {
                let mr = SPLITS.map(|s| self.curve.miss_ratio(Self::cache_pages(self.physical, s) as u64));
                let k = if self.pages.1 > 0 { self.pages.0 as f64 / self.pages.1 as f64 } else { 1.0 };
                let (picks, choice) = self.decide(&mr, k);
                self.close(false, flash, f64::NAN, f64::NAN, picks);
                let live = self.cfg.training == Training::Live;
                let shifted =
                    !self.reference.is_some_and(|r| r.iter().zip(&mr).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) <= self.cfg.retrain);
                if live && shifted {
                    self.log.trainings += 1;
                    self.reference = Some(mr);
                    self.pending = mr;
                    self.pending_pages = k;
                    let current = SPLITS.iter().position(|&s| s == self.spare).unwrap_or_else(|| {
                        // The initial share need not be a trained split: start from the nearest.
                        (0..SPLITS.len())
                            .fold(0, |b, i| if (SPLITS[i] - self.spare).abs() < (SPLITS[b] - self.spare).abs() { i } else { b })
                    });
                    self.order = Self::training_order(current);
                    self.train_mark = (self.requests, flash.host_writes, p.writebacks, p.now);
                    return self.start_stretch(0, flash);
                }
                let choice = choice?;
                self.log.decisions += 1;
                self.set(SPLITS[choice.0], true, choice.1)
            }
            Phase::Training(i, stage) => {
                let cap = self.capacity();
                let next = match stage {
                    Stage::Reach(_) if p.resident >= cap => Some(Stage::Settle(flash.host_writes, true)),
                    Stage::Reach(since) if flash.host_writes - since >= self.window => Some(Stage::Settle(flash.host_writes, false)),
                    Stage::Settle(since, reached) if (flash.host_writes - since) as f64 >= self.cfg.settle * cap as f64 => {
                        self.close_quiet(flash);
                        Some(Stage::Measure(reached))
                    }
                    Stage::Measure(reached) if written >= self.train_writes => {
                        let erased = flash.erasures - self.mark.erasures;
                        let copied = flash.gc_copies - self.mark.gc_copies;
                        let u = (erased > 0).then(|| copied as f64 / (erased as f64 * self.model.pages_per_block));
                        let s = self.order[i];
                        self.u[s] = u;
                        self.close(true, flash, u.unwrap_or(f64::NAN), f64::from(u8::from(reached)), (f64::NAN, f64::NAN));
                        // The cost of each finished stretch (a training cut off by the end of the
                        // run counts its finished stretches).
                        let c = &mut self.log.cost;
                        c.requests += self.requests - self.train_mark.0;
                        c.host_writes += flash.host_writes - self.train_mark.1;
                        c.writebacks += p.writebacks - self.train_mark.2;
                        c.time_ns += p.now.saturating_sub(self.train_mark.3);
                        self.train_mark = (self.requests, flash.host_writes, p.writebacks, p.now);
                        if i + 1 < SPLITS.len() {
                            return self.start_stretch(i + 1, flash);
                        }
                        self.phase = Phase::Window;
                        self.pages = (0, 0);
                        let pending = self.pending;
                        let (picks, choice) = self.decide(&pending, self.pending_pages);
                        if let Some(w) = self.log.stretches.iter_mut().rev().find(|t| !t.training) {
                            (w.pick_paper, w.pick_request) = picks;
                        }
                        let choice = choice?;
                        self.log.decisions += 1;
                        return self.set(SPLITS[choice.0], true, choice.1);
                    }
                    _ => None,
                };
                if let Some(stage) = next {
                    self.phase = Phase::Training(i, stage);
                }
                None
            }
            _ => None,
        }
    }

    /// Starts the `i`-th stretch of the training order; returns the new size if it changes.
    fn start_stretch(&mut self, i: usize, flash: FtlStats) -> Option<usize> {
        self.phase = Phase::Training(i, Stage::Reach(flash.host_writes));
        self.set(SPLITS[self.order[i]], false, f64::NAN)
    }

    /// Restarts the flash counters (a stretch's measurement begins) without logging a stretch:
    /// the stretch's responses run on from its start.
    fn close_quiet(&mut self, flash: FtlStats) {
        self.mark = flash;
    }

    /// Ends the current stretch at `flash` and starts the next with an empty curve.
    fn close(&mut self, training: bool, flash: FtlStats, u: f64, reached: f64, picks: (f64, f64)) {
        let resp = if self.resp.1 > 0 { self.resp.0 / self.resp.1 as f64 } else { f64::NAN };
        let predicted = if training { f64::NAN } else { self.predicted };
        self.log.stretches.push(Stretch {
            spare: self.spare,
            training,
            predicted_ns: predicted,
            resp_mean_ns: resp,
            requests: self.resp.1 as f64,
            u,
            reached,
            pick_paper: picks.0,
            pick_request: picks.1,
        });
        self.resp = (0.0, 0);
        self.pages = (0, 0);
        self.mark = flash;
        self.curve.reset();
    }

    /// Eq. 5's latency of each split for miss ratios `mr` (one per split).
    pub fn predict(&self, mr: &[f64; SPLITS.len()]) -> [f64; SPLITS.len()] {
        std::array::from_fn(|i| self.model.latency(mr[i], self.u_of(i)))
    }

    /// The per-request rule's latency of each split, requests of `pages` pages.
    pub fn predict_request(&self, mr: &[f64; SPLITS.len()], pages: f64) -> [f64; SPLITS.len()] {
        std::array::from_fn(|i| self.model.request_latency(mr[i], self.u_of(i), pages))
    }

    fn u_of(&self, i: usize) -> f64 {
        self.u[i].unwrap_or(1.0 - SPLITS[i])
    }

    fn argmin(lat: &[f64; SPLITS.len()]) -> usize {
        (0..SPLITS.len()).fold(0, |b, i| if lat[i] < lat[b] { i } else { b })
    }

    /// Both rules' picks (spare shares) and the acting rule's choice (index, predicted
    /// latency); none without a U table (before the first training).
    fn decide(&self, mr: &[f64; SPLITS.len()], pages: f64) -> ((f64, f64), Option<(usize, f64)>) {
        if self.u.iter().all(Option::is_none) {
            return ((f64::NAN, f64::NAN), None);
        }
        let (paper, request) = (self.predict(mr), self.predict_request(mr, pages));
        let (a, b) = (Self::argmin(&paper), Self::argmin(&request));
        let choice = match self.cfg.rule {
            Rule::Paper => (a, paper[a]),
            Rule::Request => (b, request[b]),
        };
        ((SPLITS[a], SPLITS[b]), Some(choice))
    }

    fn set(&mut self, spare: f64, decision: bool, predicted: f64) -> Option<usize> {
        if decision {
            self.predicted = predicted;
        }
        if spare == self.spare {
            return None;
        }
        self.log.resizes += u64::from(decision);
        self.spare = spare;
        Some(self.capacity())
    }

    /// The log, with the U table.
    pub fn finish(mut self) -> SplitLog {
        self.log.u = self.u.iter().map(|u| u.unwrap_or(f64::NAN)).collect();
        self.log
    }
}

/// The split as the controller of a flash cache's stack ([`super::control`]): it sees every
/// page access and every request's response, reads the flash's counters, and applies the cache
/// sizes it decides after the request that ended a window or stretch; a shrink's dirty victims
/// are written back in the disk's idle time (deferred, `stack.shrink=background`) or at once.
impl Controller<SsdCache> for Split {
    #[inline]
    fn before(&mut self, now: u64, cache: &mut SsdCache) -> Result<()> {
        cache.background(now)
    }

    #[inline]
    fn access(&mut self, key: u64) -> Result<()> {
        Split::access(self, key)
    }

    fn after(&mut self, response_ns: u64, now: u64, tier: &mut Tier, cache: &mut SsdCache) -> Result<()> {
        let probe = Probe { flash: cache.flash.stats(), resident: tier.resident(), writebacks: tier.counters.backing_writes, now };
        if let Some(cap) = self.after_request(response_ns, probe) {
            cache.defer_writebacks(self.background());
            tier.resize(cap, now, cache)?;
            cache.defer_writebacks(false);
        }
        Ok(())
    }

    fn end(&mut self, t: u64, cache: &mut SsdCache) -> Result<u64> {
        cache.flush_deferred(t)
    }

    fn finish(self: Box<Self>) -> ControllerLog {
        ControllerLog::Split(Split::finish(*self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: CostModel =
        CostModel { read_ns: 25e3, write_ns: 200e3, erase_ns: 1500e3, disk_ns: 5e6, pages_per_block: 64.0, parallel: 4.0 };

    fn dynamic(initial: f64, window: f64, train: f64, settle: f64) -> Dynamic {
        Dynamic {
            initial,
            window,
            train,
            settle,
            retrain: 0.1,
            shards_rate: None,
            training: Training::Live,
            rule: Rule::Paper,
            background: true,
        }
    }

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
        // Per request of 8 pages on 4 chips: 2 × 471.875 + 8 × 0.1 × 5025 = 4963.75 us; a
        // one-page request is eq. 5.
        assert!((MODEL.request_latency(0.1, 0.5, 8.0) - 4_963_750.0).abs() < 1e-6);
        assert!((MODEL.request_latency(0.1, 0.5, 1.0) - MODEL.latency(0.1, 0.5)).abs() < 1e-6);
    }

    #[test]
    fn one_resize_decision_by_hand() {
        // A small MRC (misses fall as the cache grows) and a U table; eq. 5 per split, by hand
        // (us): s = 15%: MR 0.10, U 0.90: 200 + (0.9·64·225 + 1500)/(0.1·64) = 2459.375,
        // + 0.10 × 5025 = 2961.875. s = 25%: MR 0.12, U 0.80: 200 + (0.8·64·225 + 1500)/(0.2·64)
        // = 1217.1875, + 603 = 1820.1875. s = 35%: MR 0.15, U 0.65: 200 + (9360+1500)/22.4
        // = 684.82, + 753.75 = 1438.57. s = 45%: MR 0.25, U 0.50: 471.875 + 1256.25 = 1728.125.
        // The rest have MR ≥ 0.4, so ≥ 2010 us. Best: 35%.
        let mut s = Split::new(1000, MODEL, dynamic(0.55, 0.01, 0.1, 1.0));
        s.u = [Some(0.9), Some(0.8), Some(0.65), Some(0.5), Some(0.4), Some(0.3), Some(0.2), Some(0.1)];
        let mr = [0.10, 0.12, 0.15, 0.25, 0.40, 0.55, 0.70, 0.85];
        let lat = s.predict(&mr);
        let want = [2_961_875.0, 1_820_187.5, 684_821.43 + 753_750.0, 1_728_125.0];
        for (l, w) in lat.iter().zip(want) {
            assert!((l - w).abs() < 1.0, "{lat:?}");
        }
        // Per request of 8 pages on 4 chips (2 × Cost'_fw + 8 × MR × 5025): 15%: 4918.75 +
        // 4020 = 8938.75; 25%: 2434.375 + 4824 = 7258.375; 35%: 1369.64 + 6030 = 7399.64;
        // 45%: 943.75 + 10050; the rest ≥ 8 × 0.4 × 5025 = 16080. Best: 25%, a larger cache
        // than eq. 5's: the disk's weight grows with the pages a request misses.
        let req = s.predict_request(&mr, 8.0);
        for (l, w) in req.iter().zip([8_938_750.0, 7_258_375.0, 7_399_642.86]) {
            assert!((l - w).abs() < 1.0, "{req:?}");
        }
        let (picks, choice) = s.decide(&mr, 8.0);
        assert_eq!(picks, (0.35, 0.25));
        assert_eq!(choice.map(|c| c.0), Some(2));
        assert_eq!(s.set(0.35, true, lat[2]), Some(650));
        assert_eq!(s.log.resizes, 1);
        assert!((s.predicted - lat[2]).abs() < 1e-9);
        // The same choice again: no change.
        assert_eq!(s.set(0.35, true, lat[2]), None);
        // The per-request rule acts on its own pick.
        s.cfg.rule = Rule::Request;
        assert_eq!(s.decide(&mr, 8.0).1.map(|c| c.0), Some(1));
    }

    fn probe(host_writes: u64, gc_copies: u64, erasures: u64, resident: usize) -> Probe {
        Probe {
            flash: FtlStats { host_writes, gc_copies, erasures, ..FtlStats::default() },
            resident,
            writebacks: host_writes / 2,
            now: host_writes * 1000,
        }
    }

    #[test]
    fn live_training_by_hand() {
        // P = 100 pages, windows of 10 host writes, measuring stretches of 2, a turnover of 0.1
        // × the target cache before measuring; the run starts at 35% (65 pages).
        let mut s = Split::new(100, MODEL, dynamic(0.35, 0.1, 0.2, 0.1));
        assert_eq!((s.window(), s.capacity()), ((10, 2), 65));
        for k in 0..20 {
            s.access(k % 5).unwrap();
        }
        assert_eq!(s.after_request(1000, probe(9, 0, 0, 65)), None);
        // The first window ends with no table: training starts at the current split (35%,
        // nothing to resize), then climbs to 85%, then 25% and 15%.
        assert_eq!(s.after_request(1000, probe(10, 0, 0, 65)), None);
        assert_eq!(s.log.trainings, 1);
        assert_eq!(s.order, [2, 3, 4, 5, 6, 7, 1, 0]);
        // 35%: the cache holds its 65 pages; it must turn over 6.5 host writes before U is
        // taken: the GC of that settling (99 copies, 9 erasures) is not U's.
        assert_eq!(s.after_request(1000, probe(10, 0, 0, 65)), None);
        assert_eq!(s.after_request(1000, probe(16, 99, 9, 65)), None);
        assert_eq!(s.after_request(1000, probe(17, 99, 9, 65)), None);
        // Measuring from 17: one erasure copying 32 pages: U = 32 / 64 = 0.5. Next: 45%, a
        // shrink of one step (55 pages).
        assert_eq!(s.after_request(1000, probe(19, 131, 10, 65)), Some(55));
        assert_eq!(s.u[2], Some(0.5));
        // 45% … 85%: each shrink is at once (the victims leave the cache; their write-back is
        // the device's, in the background); turnover ⌈0.1 × cache⌉ writes, then 2 measured,
        // U = copies / 64 of one erasure.
        let mut w = 19;
        let (mut copies, mut erasures) = (131, 10);
        for (i, u) in [(3, 16), (4, 12), (5, 8), (6, 4), (7, 2)] {
            let cap = Split::cache_pages(100, SPLITS[i]);
            assert_eq!(s.capacity(), cap);
            assert_eq!(s.after_request(1000, probe(w, copies, erasures, cap)), None);
            w += (cap as u64).div_ceil(10);
            assert_eq!(s.after_request(1000, probe(w, copies + 50, erasures + 3, cap)), None);
            (copies, erasures) = (copies + 50, erasures + 3);
            w += 2;
            let next = s.after_request(1000, probe(w, copies + u, erasures + 1, cap));
            (copies, erasures) = (copies + u, erasures + 1);
            assert_eq!(s.u[i], Some(u as f64 / 64.0));
            let want = if i < 7 { Split::cache_pages(100, SPLITS[i + 1]) } else { 75 };
            assert_eq!(next, Some(want));
        }
        // 25% (75 pages) is a growth: the cache holds 15 pages and fills only as new pages
        // arrive; no U is taken while it fills, whatever GC runs meanwhile.
        assert_eq!(s.after_request(1000, probe(w + 5, copies + 64, erasures + 1, 40)), None);
        assert_eq!(s.u[1], None);
        assert_eq!(s.after_request(1000, probe(w + 8, copies + 64, erasures + 1, 75)), None);
        w += 8;
        (copies, erasures) = (copies + 64, erasures + 1);
        assert_eq!(s.after_request(1000, probe(w + 8, copies, erasures, 75)), None);
        w += 8;
        assert_eq!(s.after_request(1000, probe(w + 2, copies + 48, erasures + 1, 75)), Some(85));
        w += 2;
        (copies, erasures) = (copies + 48, erasures + 1);
        assert_eq!(s.u[1], Some(0.75));
        // 15% (85 pages) never fills: after a window of host writes (10) the stretch goes on,
        // logged as not reached.
        assert_eq!(s.after_request(1000, probe(w + 9, copies, erasures, 80)), None);
        assert_eq!(s.after_request(1000, probe(w + 10, copies, erasures, 80)), None);
        w += 10;
        assert_eq!(s.after_request(1000, probe(w + 9, copies, erasures, 80)), None);
        w += 9;
        // Measured: 56 of 64 valid. The training ends and decides with the first window's
        // curve (5 pages looping: MR 0.25 at every size): eq. 5 then prefers the lowest write
        // cost, U 2/64 at 85% (15 pages).
        assert_eq!(s.after_request(1000, probe(w + 2, copies + 56, erasures + 1, 80)), Some(15));
        w += 2;
        assert_eq!(s.u[0], Some(0.875));
        assert_eq!(s.log.decisions, 1);
        let flags: Vec<f64> = s.log.stretches.iter().map(|t| t.reached).collect();
        assert_eq!(flags[1..], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]);
        let spares: Vec<f64> = s.log.stretches[1..].iter().map(|t| t.spare).collect();
        assert_eq!(spares, [0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.25, 0.15]);
        assert_eq!((s.log.stretches[0].pick_paper, s.log.stretches[0].pick_request), (0.85, 0.85));
        // The training's cost: from the request that ended the first window to the last
        // stretch's end (the probes' write-backs are half the host writes, time 1 us a write).
        let c = s.log.cost;
        assert_eq!((c.host_writes, c.writebacks, c.time_ns), (w - 10, w / 2 - 5, (w - 10) * 1000));
        assert_eq!(c.requests, s.requests - 2);
        // A window with the same curve decides without retraining.
        for k in 0..20 {
            s.access(k % 5).unwrap();
        }
        assert_eq!(s.after_request(1000, probe(w + 10, copies, erasures, 15)), None);
        assert_eq!((s.log.trainings, s.log.decisions), (1, 2));
    }

    #[test]
    fn offline_table_decides_at_the_first_window() {
        let mut d = dynamic(0.35, 0.1, 0.2, 1.0);
        d.training = Training::Offline([0.9, 0.8, 0.65, 0.5, 0.4, 0.3, 0.2, 0.1]);
        let mut s = Split::new(100, MODEL, d);
        for k in 0..20 {
            s.access(k).unwrap();
        }
        // All-distinct pages miss at every size (MR 1): the lowest write cost, U 0.1 at 85%.
        assert_eq!(s.after_request(1000, probe(10, 0, 0, 65)), Some(15));
        assert_eq!((s.log.trainings, s.log.decisions, s.log.cost), (0, 1, TrainingCost::default()));
        assert!(d.check(100, 64).is_ok());
    }
}
