//! The write-budget controller (issue 43): holds the long-term rate at which the host writes
//! pages into a flash cache at a target, `admit.budget` drive writes per day of the flash
//! cache's capacity (or `admit.budget_mbps`), by turning the admission's knob
//! ([`super::admission::Admission::set_knob`]) window by window, as CacheLib's dynamic random
//! admission turns its admission probability (B. Berg et al., "The CacheLib Caching Engine:
//! Design and Experiences at Scale", OSDI 2020, §4.2; fcsim's rule is its own, below).
//!
//! What is measured: the flash cache's host writes, [`SsdCacheStats::cache_writes`] (pages
//! programmed by insertions and write hits; GC's copies are the drive's, not the host's), in
//! windows of `admit.window` seconds of simulated time (default 60 s, the interval at which
//! CacheLib's dynamic random admission updates its probability).
//!
//! The rule, at the end of each window k (its span T_k, its writes w_k, the run's writes so far
//! W and the budget so far B = r·(t − t_0), r the target rate):
//! - the rate to aim at next is the target less the debt spread over the next
//!   [`HORIZON`] windows: r_next = max(0, r − (W − B) / (HORIZON·T)), so that an overrun is paid
//!   back, and an underrun spent, over about ten minutes at the default window;
//! - the knob moves by the ratio q = r_next / (w_k / T_k), held to [1/2, 2] per window (a step
//!   of at most a factor 2, so that one odd window cannot swing it); with no write in the
//!   window, q = 2 while the aim is above 0 and 1 (the knob stays) once the budget is overrun
//!   (on a bursty trace, quiet windows with a small knob admit nothing; doubling it there let
//!   cloudphysics run at 216 DWPD against a budget of 10);
//! - a knob whose range starts at 0 or above (a probability, a ghost queue's length) is scaled:
//!   knob·q (from 0 it restarts at 1/1000 of its range); a knob that may be negative (TinyLFU's
//!   slack) is shifted: knob + log2(q).
//!
//! The row reports the target (`budget_dwpd`), what was achieved over the run
//! (`achieved_dwpd`), the busiest complete window (`peak_window_dwpd`), the writes no admission
//! could decline (`budget_floor_dwpd`: write hits, which update the cached copy, in a
//! write-through or write-back cache) and whether the budget cannot be met
//! (`budget_unmeetable`, with `budget_unmeetable_reason`), which the CLI also says on stderr.
//!
//! **A budget the run cannot meet** ([`BudgetLog::unmeetable`]), for one of two reasons:
//! - *write hits*: their rate alone (the floor) is above the target;
//! - *less than one fill*: the budget over the run's span, B = target × capacity × days, is
//!   fewer pages than the cache holds (B < capacity, i.e. target × days < 1). The cache starts
//!   empty and every page it holds was written into it during the run, so at any time it holds
//!   at most the pages written so far; within the budget that is at most B < capacity: the cache
//!   is never full, the budget caps how much of it is used rather than the rate it is rewritten
//!   at, and the controller, which sees the first fill as an overrun to pay back over
//!   [`HORIZON`] windows, spends the run starving the cache or paying back (cloudphysics at 5%,
//!   13,461 pages, 2 h: at 10 DWPD B = 11,217 pages, and random admission ends at 126 DWPD). The
//!   rule has no constant of its own: it compares the budget with the one fill any cache that is
//!   used at all must write. A longer trace (or a larger budget) meets it.
//!
//! **`achieved_dwpd` and `dwpd`.** Both are host writes into the flash cache per day. The
//! controller's `achieved_dwpd` is its own measure: `cache_writes` per page of the *tier's*
//! capacity (the budget's unit) over the span of the controller's clock, the run's arrivals
//! from the first request to the last, in trace time or, under a closed loop
//! (`sim.queue_depth`), in simulated time. The row's `dwpd` is the drive's: its host page writes
//! per page of the *drive's* user capacity over trace time (first to last arrival), null under a
//! closed loop or without timestamps. So they are equal on a timed trace whenever the drive's
//! user pages are the tier's (a flash cache's drive is sized to it, and a budget refuses
//! `stack.split`, which would make the drive larger), and differ where one of them does not
//! apply: under a closed loop only `achieved_dwpd` has a value.

use super::admission::Admission;
use super::control::{Controller, ControllerLog};
use super::{SsdCache, Tier};
use crate::error::{compact, Result};

/// Windows over which a debt (or credit) against the budget is spread.
pub const HORIZON: f64 = 10.0;
/// Nanoseconds in a day.
const DAY_NS: f64 = 86_400e9;

/// The budget as configured (`admit.budget`, `admit.budget_mbps`, `admit.window`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetConfig {
    /// Drive writes per day (of the flash cache's capacity); or MB/s.
    pub dwpd: Option<f64>,
    pub mbps: Option<f64>,
    pub window_ns: u64,
}

/// What the controller did, for the row.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BudgetLog {
    pub target_dwpd: f64,
    pub window_s: f64,
    /// Host page writes into the flash cache over the run, and the run's span (ns).
    pub writes: u64,
    pub span_ns: u64,
    /// The busiest complete window's rate, in DWPD (None: no window completed).
    pub peak_dwpd: Option<f64>,
    /// The knob at the end, and the windows closed.
    pub knob: f64,
    pub windows: u64,
    pub capacity: u64,
}

impl BudgetLog {
    /// Drive writes per day over the run (None for a run with no span).
    pub fn achieved_dwpd(&self) -> Option<f64> {
        (self.span_ns > 0).then(|| self.writes as f64 / self.capacity as f64 / (self.span_ns as f64 / DAY_NS))
    }

    /// The budget over the run's span, in pages (None for a run with no span).
    pub fn budget_pages(&self) -> Option<f64> {
        (self.span_ns > 0).then(|| self.target_dwpd * self.capacity as f64 * (self.span_ns as f64 / DAY_NS))
    }

    /// Why the budget cannot be met (see the module docs), given the write hits' rate `floor`
    /// in DWPD; None when it can.
    pub fn unmeetable(&self, floor: Option<f64>) -> Option<String> {
        let mut why = Vec::new();
        if let Some(f) = floor.filter(|&f| f > self.target_dwpd) {
            why.push(format!("write hits: they alone write {f:.3} DWPD, above the {} DWPD budget", compact(self.target_dwpd)));
        }
        if let Some(b) = self.budget_pages().filter(|&b| b < self.capacity as f64) {
            why.push(format!(
                "less than one fill: {} DWPD over the run's {:.0} s is {b:.0} pages, fewer than the cache's {} (the cache cannot be filled once within it)",
                compact(self.target_dwpd),
                self.span_ns as f64 / 1e9,
                self.capacity
            ));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }

    /// `pages` over the run's span, in DWPD.
    pub fn dwpd(&self, pages: u64) -> Option<f64> {
        (self.span_ns > 0).then(|| pages as f64 / self.capacity as f64 / (self.span_ns as f64 / DAY_NS))
    }
}

/// The controller of a flash cache's admission knob.
#[derive(Debug)]
pub struct Budget {
    /// The target, pages per ns.
    rate: f64,
    window_ns: u64,
    /// The knob's range.
    lo: f64,
    hi: f64,
    start: Option<u64>,
    window_start: u64,
    /// Host writes at the run's start and at the window's.
    base: u64,
    mark: u64,
    last: u64,
    last_now: u64,
    log: BudgetLog,
}

impl Budget {
    /// A controller holding `cfg` for a flash cache of `capacity` pages of `page_size` bytes,
    /// turning a knob with range [`lo`, `hi`].
    pub fn new(cfg: BudgetConfig, capacity: u64, page_size: u32, lo: f64, hi: f64) -> Budget {
        let pages_per_day = match (cfg.dwpd, cfg.mbps) {
            (Some(d), _) => d * capacity as f64,
            (None, Some(m)) => m * 1e6 / f64::from(page_size) * 86_400.0,
            (None, None) => 0.0,
        };
        let log = BudgetLog {
            target_dwpd: pages_per_day / capacity as f64,
            window_s: cfg.window_ns as f64 / 1e9,
            capacity,
            ..BudgetLog::default()
        };
        Budget {
            rate: pages_per_day / DAY_NS,
            window_ns: cfg.window_ns,
            lo,
            hi,
            start: None,
            window_start: 0,
            base: 0,
            mark: 0,
            last: 0,
            last_now: 0,
            log,
        }
    }

    /// The knob after a window whose writes were `observed` pages per ns, aiming at `aim`.
    pub fn next_knob(&self, knob: f64, observed: f64, aim: f64) -> f64 {
        // A window with no write says nothing of the knob's reach when the aim is 0 (writes
        // are over budget): the knob stays; below budget it doubles.
        let q = if observed > 0.0 {
            (aim / observed).clamp(0.5, 2.0)
        } else if aim > 0.0 {
            2.0
        } else {
            1.0
        };
        let next = if self.lo >= 0.0 {
            if knob <= 0.0 && q > 1.0 {
                self.lo.max(1e-3 * self.hi)
            } else {
                knob * q
            }
        } else {
            knob + q.log2()
        };
        next.clamp(self.lo, self.hi)
    }

    /// Closes the window ending at `now` with the host writes `writes` so far.
    fn close(&mut self, now: u64, writes: u64, adm: &mut dyn Admission) {
        let start = self.start.unwrap_or(now);
        let span = (now - self.window_start) as f64;
        let w = writes - self.mark;
        let observed = w as f64 / span;
        let peak = w as f64 / self.log.capacity as f64 / (span / DAY_NS);
        self.log.peak_dwpd = Some(self.log.peak_dwpd.map_or(peak, |p| p.max(peak)));
        self.log.windows += 1;
        let debt = (writes - self.base) as f64 - self.rate * (now - start) as f64;
        let aim = (self.rate - debt / (HORIZON * self.window_ns as f64)).max(0.0);
        if let Some(k) = adm.knob() {
            adm.set_knob(self.next_knob(k, observed, aim));
            self.log.knob = adm.knob().unwrap_or(k);
        }
        self.window_start = now;
        self.mark = writes;
    }
}

impl Controller<SsdCache> for Budget {
    fn before(&mut self, _now: u64, _below: &mut SsdCache) -> Result<()> {
        Ok(())
    }

    fn access(&mut self, _key: u64) -> Result<()> {
        Ok(())
    }

    fn after(&mut self, _response_ns: u64, now: u64, tier: &mut Tier, cache: &mut SsdCache) -> Result<()> {
        let writes = cache.stats.cache_writes;
        if self.start.is_none() {
            // The request just served is the run's first: its writes count from here.
            self.start = Some(now);
            self.window_start = now;
            self.base = 0;
            self.mark = 0;
            self.log.knob = tier.admission.as_ref().and_then(|a| a.knob()).unwrap_or(f64::NAN);
        }
        self.last = writes;
        self.last_now = now;
        if now >= self.window_start + self.window_ns {
            if let Some(adm) = tier.admission.as_deref_mut() {
                self.close(now, writes, adm);
            }
        }
        Ok(())
    }

    fn end(&mut self, _t: u64, _cache: &mut SsdCache) -> Result<u64> {
        Ok(0)
    }

    fn finish(self: Box<Self>) -> ControllerLog {
        let mut log = self.log;
        log.writes = self.last - self.base;
        log.span_ns = self.start.map_or(0, |s| self.last_now - s);
        ControllerLog::Budget(log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_knob_scales_or_shifts_by_the_rate_ratio() {
        let cfg = BudgetConfig { dwpd: Some(1.0), mbps: None, window_ns: 60_000_000_000 };
        // A probability: half the rate wanted -> half the knob; four times -> at most twice.
        let p = Budget::new(cfg, 1000, 4096, 0.0, 1.0);
        assert_eq!(p.next_knob(0.4, 2.0, 1.0), 0.2);
        assert_eq!(p.next_knob(0.4, 1.0, 4.0), 0.8);
        assert_eq!(p.next_knob(0.8, 1.0, 4.0), 1.0); // held to the range
        assert_eq!(p.next_knob(0.0, 0.0, 1.0), 1e-3); // from 0 it restarts
                                                      // A window with no write: the knob doubles below budget, stays once it is overrun.
        assert_eq!(p.next_knob(0.01, 0.0, 1.0), 0.02);
        assert_eq!(p.next_knob(0.01, 0.0, 0.0), 0.01);
        // A slack: four times the rate wanted -> +1 (a factor of 2 per window at most).
        let s = Budget::new(cfg, 1000, 4096, -16.0, 16.0);
        assert_eq!(s.next_knob(0.0, 1.0, 4.0), 1.0);
        assert_eq!(s.next_knob(0.0, 4.0, 1.0), -1.0);
        // 1 DWPD of 1000 pages is 1000 pages a day; 1 MB/s of 4 KiB pages 21,093,750 a day.
        assert_eq!(p.log.target_dwpd, 1.0);
        let m = Budget::new(BudgetConfig { dwpd: None, mbps: Some(1.0), ..cfg }, 1000, 4096, 0.0, 1.0);
        assert!((m.log.target_dwpd - 21_093.75).abs() < 1e-9);
    }

    #[test]
    fn a_budget_under_one_fill_or_under_the_write_hits_is_unmeetable() {
        // 10 DWPD of 13,461 pages over 2 h (cloudphysics at 5%): 10 × 13,461 / 12 = 11,217.5
        // pages, fewer than the 13,461 the cache holds.
        let log = BudgetLog { target_dwpd: 10.0, capacity: 13_461, span_ns: 7_200_000_000_000, ..BudgetLog::default() };
        assert_eq!(log.budget_pages(), Some(11_217.5));
        let why = log.unmeetable(Some(0.0)).unwrap();
        assert!(why.starts_with("less than one fill: 10 DWPD over the run's 7200 s is 11218 pages, fewer than the cache's 13461"), "{why}");
        // 12 DWPD is exactly one fill over 2 h: met (the rule is strict).
        assert_eq!(BudgetLog { target_dwpd: 12.0, ..log }.unmeetable(None), None);
        // Write hits above the target, over a day: that reason only.
        let day = BudgetLog { span_ns: 86_400_000_000_000, ..log };
        assert_eq!(day.unmeetable(Some(12.5)).unwrap(), "write hits: they alone write 12.500 DWPD, above the 10 DWPD budget");
        assert_eq!(day.unmeetable(Some(9.0)), None);
    }
}
