//! Offline flash-cache bounds and container caching: Yue Cheng, Fred Douglis, Philip Shilane,
//! Michael Trachtman, Grant Wallace, Peter Desnoyers and Kai Li, "Erasing Belady's Limitations:
//! In Search of Flash Cache Offline Optimality", USENIX ATC '16
//! (`../shared/papers/flash-cache-offline-optimality.txt`).
//!
//! A flash cache in front of disks, with a small DRAM tier in front of it (§5), judged by read
//! hit ratio (RHR, DRAM and flash hits over reads) *and* endurance (erasures, EPBPD), with FUE
//! and WFUE combining the two (§3.1). The algorithms of Table 2, each a registry entry here:
//!
//! | name | what | file |
//! |---|---|---|
//! | `m` | MIN over an FTL (no TRIM by default) | [`m`] |
//! | `m+` | MIN, skipping insertions evicted unread (R_1), TRIM | [`mplus`] |
//! | `m_n` | M+ skipping insertions reread < N times | [`mn`] |
//! | `m_t` | M+ under an erasure quota (R, L) | [`mt`] |
//! | `c`, `c_n`, `c_t` | the same insertions on host-managed containers with CFR and E | [`container`] |
//! | `ripq+` | RIPQ with overwrites on containers, online | [`ripq`] |
//! | `pannier` | Pannier (S2LRU* on containers, survival queue, credit throttling), online | [`pannier`] |
//! | `lru-ftl` | LRU over an FTL, online | [`lru`] |
//!
//! The pipeline of one run: the trace's page accesses ([`stream::Trace`]) → the DRAM tier
//! (MIN for the offline algorithms, LRU for the online ones), which passes on the reads it
//! misses and every write, annotated with next read references (STEP 1) → for the offline
//! ones, the MIN queue's first replay and its log (STEP 2, [`queue`]) → the algorithm's replay,
//! its copies on an FTL ([`unit`]) or on containers ([`container`]) (STEP 3). Every run also
//! replays M+ on the same trace and flash: WFUE is measured against it (§3.1).
//!
//! The flash is the `offline` device preset (2 MiB erase units, OP 7%, §5.2) on one plane,
//! sized so its user capacity is the cache; the container heuristics use the same erase units
//! as containers and the same raw flash. The write buffer is `stack.buffer` containers (4,
//! §5.2), the DRAM tier `stack.dram` of the cache (0.05, §5); the C family's write buffer is
//! taken out of that DRAM tier unless `stack.buffer_in=extra` (see [`container`]).
//!
//! Every algorithm caches the same number of pages, `Setup::cache_pages`: LRU and the MIN queue
//! by their capacity, RIPQ+ and Pannier by evicting before they would hold more (their active
//! containers, write buffer and flash together; issue 41). The flash beyond it, the
//! over-provisioning and GC reserve that `Shape::containers` includes, is for cleaning only:
//! the FTL's GC, or the dead slots and free containers of the container caches.
//!
//! **Why a separate path, not a [`crate::stack::Stack`] driven by [`crate::sim::Run::step`]**
//! (issue 46 left it so on purpose). The offline algorithms decide an insertion by every
//! future access (MIN's queue, M+'s R_1, M_N's reread counts, M_T's quota over the whole run),
//! so they need the whole trace in memory and replay it several times (STEPs 1-3), where the
//! loop sees one request at a time and never looks back. The container caches write whole
//! erase units chosen by the cache itself, not pages through an FTL the stack's backing stores
//! model. And nothing here has time: the bounds count hits, copies and erasures, with no
//! arrivals, queues or response times for the loop to keep. Their admission (Pannier's credits,
//! M_T's quota, the N of M_N and C_N) is part of each replay, not the stack's admission slot
//! ([`crate::stack::admission`]), which decides one page at a time with no future.

pub mod container;
pub mod containers;
pub mod lru;
pub mod m;
pub mod mn;
pub mod mplus;
pub mod mt;
pub mod pannier;
pub mod queue;
pub mod ripq;
pub mod stream;
pub mod unit;

use crate::device::DeviceConfig;
use crate::error::{Error, Result};
use crate::params::Params;
use crate::request::Op;
use container::{ContainerStats, OnContainers, Packing};
use containers::{ContainerCache, FlashCounts, Shape};
use queue::{Bits, Log, QueueCounts};
use stream::{Dram, Trace};
use unit::OnFtl;

/// How an offline heuristic picks the versions it does not write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// None (M).
    None,
    /// R_1: evicted unread (M+, C).
    Unread,
    /// R_N: reread fewer than N times (M_N, C_N).
    Rereads,
    /// R_T: the least reused, down to an erasure quota (M_T, C_T).
    Quota,
}

/// What an algorithm is.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// An offline heuristic: its filter, whether it places copies on containers (else on an
    /// FTL), and whether it trims by default.
    Offline { filter: Filter, containers: bool, trim: bool },
    /// LRU over an FTL.
    LruFtl,
    /// An online cache on host-managed containers, built for the flash's shape.
    Online(fn(Shape, &mut Params) -> Result<Box<dyn ContainerCache>>),
}

/// One row of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Algorithm {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
    pub params: &'static [&'static str],
    pub kind: Kind,
}

const fn offline(
    name: &'static str,
    description: &'static str,
    source: &'static str,
    params: &'static [&'static str],
    filter: Filter,
    containers: bool,
) -> Algorithm {
    Algorithm { name, description, source, params, kind: Kind::Offline { filter, containers, trim: !matches!(filter, Filter::None) } }
}

/// The registry: one line per algorithm.
pub static ALGORITHMS: &[Algorithm] = &[
    offline(
        "m",
        "MIN over an FTL: inserts only blocks read again before the furthest cached one",
        "offline-bounds §3.5 M",
        &["trim"],
        Filter::None,
        false,
    ),
    offline(
        "m+",
        "MIN without insertions evicted unread (R_1), with TRIM, over an FTL",
        "offline-bounds §3.2 H, §3.5 M+",
        &["trim"],
        Filter::Unread,
        false,
    ),
    offline(
        "m_n",
        "M+ without insertions reread fewer than N times (R_N)",
        "offline-bounds §3.2 H_N, §3.5 M_N",
        &["trim", "n"],
        Filter::Rereads,
        false,
    ),
    offline(
        "m_t",
        "M+ under an erasure quota: omits the least reused insertions (R_T)",
        "offline-bounds §3.2 H_T, §3.5 M_T",
        &["trim", "quota"],
        Filter::Quota,
        false,
    ),
    offline(
        "c",
        "M+'s insertions on host-managed containers: TRIM, CFR, eviction-time packing (E)",
        "offline-bounds §3.3, §4, Fig. 3",
        &["trim", "cfr", "packing"],
        Filter::Unread,
        true,
    ),
    offline(
        "c_n",
        "C without insertions reread fewer than N times",
        "offline-bounds §3.5 C_N, §4.2",
        &["trim", "cfr", "packing", "n"],
        Filter::Rereads,
        true,
    ),
    offline("c_t", "C under an erasure quota", "offline-bounds §3.5 C_T, §4.2", &["trim", "cfr", "packing", "quota"], Filter::Quota, true),
    Algorithm {
        name: "ripq+",
        description: "RIPQ with overwrites: segmented LRU with 8 insertion points on containers, virtual containers, copy-forward (online)",
        source: "RIPQ (Tang et al. FAST'15) as offline-bounds §5.3 configures it",
        params: &["points", "overwrite"],
        kind: Kind::Online(|shape, p| Ok(Box::new(ripq::Ripq::new(shape, p)?))),
    },
    Algorithm {
        name: "pannier",
        description: "Pannier: S2LRU over containers, survival queue for divergent containers, copy-forward of hot blocks, credit throttling to an endurance target (online)",
        source: "Pannier (Li et al. Middleware'15) as offline-bounds §5.3 describes it",
        params: &["protected", "hot", "divergent", "budget", "epbpd", "dwpd"],
        kind: Kind::Online(|shape, p| Ok(Box::new(pannier::Pannier::new(shape, p)?))),
    },
    Algorithm {
        name: "lru-ftl",
        description: "LRU over an FTL behind an LRU DRAM tier (online baseline)",
        source: "offline-bounds Table 2 L",
        params: &["trim"],
        kind: Kind::LruFtl,
    },
];

/// The algorithm called `name`, if it is one of these.
pub fn algorithm(name: &str) -> Option<&'static Algorithm> {
    ALGORITHMS.iter().find(|a| a.name.eq_ignore_ascii_case(name))
}

/// The flash cache a run simulates.
#[derive(Debug, Clone)]
pub struct Setup {
    pub cache_pages: u64,
    pub dram_pages: usize,
    /// The SSD (user capacity = the cache, one plane); its erase units are the containers.
    pub device: DeviceConfig,
    pub write_buffer: u32,
}

impl Setup {
    pub fn shape(&self) -> Shape {
        Shape {
            cache_pages: self.cache_pages,
            container_pages: self.device.geometry.pages_per_block,
            containers: self.device.geometry.total_blocks(),
            write_buffer: self.write_buffer,
        }
    }
}

/// M+ on the same trace and flash: what WFUE compares with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reference {
    pub read_hits: u64,
    pub erasures: u64,
}

/// An erasure quota and what it took to meet it (M_T, C_T).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quota {
    /// Erasures allowed.
    pub budget: f64,
    /// Erasures of the unthrottled heuristic (M+ or C).
    pub unthrottled: u64,
    pub threshold: mt::Threshold,
    /// Replays of H it took.
    pub replays: u32,
}

/// What one algorithm did on one trace and cache.
#[derive(Debug, Clone)]
pub struct Bounds {
    pub shape: Shape,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub duration_ns: u64,
    pub dram: Dram,
    /// The MIN queue (offline algorithms).
    pub queue: Option<QueueCounts>,
    pub flash: FlashCounts,
    pub evictions: u64,
    pub containers: Option<ContainerStats>,
    /// Versions not written (R_1, R_N, R_T).
    pub skipped: u64,
    pub quota: Option<Quota>,
    pub reference: Reference,
    /// The parameters used, reported as `param_<name>`.
    pub params: Vec<(String, String)>,
}

impl Bounds {
    /// Read hits: the DRAM tier's and the flash cache's (flash and write buffer).
    pub fn read_hits(&self) -> u64 {
        self.dram.read_hits + self.flash.read_hits + self.flash.buffer_hits
    }
}

/// A quota: an EPBPD, or a share of the unthrottled heuristic's erasures.
#[derive(Debug, Clone, Copy)]
enum QuotaSpec {
    Epbpd(f64),
    Share(f64),
}

fn quota_spec(p: &mut Params, name: &str) -> Result<QuotaSpec> {
    let what = "an EPBPD (5) or a share of the unthrottled heuristic's erasures (50%)";
    let s: String = p.take(name, "quota", String::new(), what)?;
    let bad = || Error::config(format!("{name}.quota={s}: expected {what}"));
    let spec = match s.strip_suffix('%') {
        _ if s.is_empty() => return Err(Error::config(format!("{name} needs {name}.quota: {what}"))),
        Some(pct) => QuotaSpec::Share(pct.trim().parse::<f64>().map_err(|_| bad())? / 100.0),
        None => QuotaSpec::Epbpd(s.parse().map_err(|_| bad())?),
    };
    match spec {
        QuotaSpec::Share(v) | QuotaSpec::Epbpd(v) if v.is_finite() && v >= 0.0 => Ok(spec),
        _ => Err(bad()),
    }
}

/// An algorithm's parameters, parsed and checked against the flash cache before the trace is
/// read (an online cache is built), with the values used for the result row.
pub struct Plan {
    step: Step,
    pub params: Vec<(String, String)>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan").field("params", &self.params).finish_non_exhaustive()
    }
}

enum Step {
    LruFtl { trim: bool },
    Online(Box<dyn ContainerCache>),
    Offline { filter: Pick, trim: bool, layout: Option<(bool, Packing)> },
}

/// What an offline heuristic leaves out, with its parameter.
#[derive(Clone, Copy)]
enum Pick {
    All,
    Unread,
    Rereads(u32),
    Quota(QuotaSpec),
}

/// Takes `alg`'s parameters from `params` (an unknown one is an error) for the flash cache
/// `setup`.
pub fn prepare(alg: &Algorithm, params: &mut Params, setup: &Setup) -> Result<Plan> {
    let step = match alg.kind {
        Kind::LruFtl => Step::LruFtl { trim: params.take(alg.name, "trim", true, "true or false")? },
        Kind::Online(make) => Step::Online(make(setup.shape(), params)?),
        Kind::Offline { filter, containers, trim } => {
            let trim = params.take(alg.name, "trim", trim, "true or false")?;
            let layout = if containers {
                let cfr = params.take(alg.name, "cfr", true, "true or false")?;
                let packing: String = params.take(alg.name, "packing", "evict".to_string(), "evict or arrival")?;
                let packing = match packing.as_str() {
                    "evict" => Packing::Evict,
                    "arrival" => Packing::Arrival,
                    p => return Err(Error::config(format!("{}.packing={p}: expected evict or arrival", alg.name))),
                };
                container::check(&setup.shape())?;
                Some((cfr, packing))
            } else {
                None
            };
            let filter = match filter {
                Filter::Quota => Pick::Quota(quota_spec(params, alg.name)?),
                Filter::Rereads => {
                    let n: u32 = params.take(alg.name, "n", 2, "a number of rereads >= 1")?;
                    if n == 0 {
                        return Err(Error::config(format!("{}.n=0: expected a number of rereads >= 1", alg.name)));
                    }
                    Pick::Rereads(n)
                }
                Filter::Unread => Pick::Unread,
                Filter::None => Pick::All,
            };
            Step::Offline { filter, trim, layout }
        }
    };
    Ok(Plan { step, params: std::mem::take(params).finish(alg.name, alg.params)? })
}

/// Runs `alg` over `trace` on the flash cache `setup` with the algorithm's `params`.
pub fn run(trace: &Trace, alg: &Algorithm, params: &mut Params, setup: &Setup) -> Result<Bounds> {
    let plan = prepare(alg, params, setup)?;
    run_plan(trace, plan, setup)
}

/// Runs a prepared algorithm over `trace` on the flash cache `setup`.
pub fn run_plan(trace: &Trace, plan: Plan, setup: &Setup) -> Result<Bounds> {
    let full = &trace.stream;
    let cap = setup.cache_pages as usize;
    let shape = setup.shape();
    let reads = full.ops.iter().filter(|o| **o == Op::Read).count() as u64;
    let writes = full.ops.iter().filter(|o| **o == Op::Write).count() as u64;
    let (level, dram) = stream::dram_filter(full, setup.dram_pages, true)?;
    let (_, log) = queue::min_pass(&level, cap);
    let on_ftl = |skip: &Bits, trim: bool| -> Result<(QueueCounts, FlashCounts)> {
        let mut p = OnFtl::new(&setup.device, trim);
        let q = queue::replay(&level, cap, Some(skip), trim, &mut p, None);
        Ok((q, p.finish()?))
    };
    let (_, mplus) = on_ftl(&mplus::skip(&log), true)?;
    let reference = Reference { read_hits: dram.read_hits + mplus.read_hits, erasures: mplus.erasures };
    let mut b = Bounds {
        shape,
        requests: trace.requests,
        reads,
        writes,
        duration_ns: trace.duration_ns,
        dram,
        queue: None,
        flash: FlashCounts::default(),
        evictions: 0,
        containers: None,
        skipped: 0,
        quota: None,
        reference,
        params: plan.params,
    };
    match plan.step {
        Step::LruFtl { trim } => {
            let (level, dram) = stream::dram_filter(full, setup.dram_pages, false)?;
            let (flash, evictions) = lru::run(&level, cap, OnFtl::new(&setup.device, trim))?;
            (b.dram, b.flash, b.evictions) = (dram, flash, evictions);
        }
        Step::Online(mut cache) => {
            let (level, dram) = stream::dram_filter(full, setup.dram_pages, false)?;
            let mut flash = FlashCounts::default();
            cache.pace(level.len() as u64, trace.duration_ns)?;
            for i in 0..level.len() {
                match level.ops[i] {
                    Op::Trim => cache.trim(level.keys[i], &mut flash),
                    op => {
                        cache.access(level.keys[i], op == Op::Write, &mut flash);
                    }
                }
            }
            (b.dram, b.flash) = (dram, flash);
        }
        Step::Offline { filter, trim, layout } => {
            let place = |skip: &Bits| -> Result<(QueueCounts, FlashCounts, Option<ContainerStats>)> {
                match layout {
                    None => on_ftl(skip, trim).map(|(q, f)| (q, f, None)),
                    Some((cfr, packing)) => {
                        let mut p = OnContainers::new(shape, &log, trim, cfr, packing)?;
                        let q = queue::replay(&level, cap, Some(skip), trim, &mut p, None);
                        let (f, s) = p.finish()?;
                        Ok((q, f, Some(s)))
                    }
                }
            };
            let (skip, (placed, quota)) = match filter {
                Pick::Quota(spec) => throttle(&log, spec, &b, &place)?,
                _ => {
                    let skip = match filter {
                        Pick::Rereads(n) => mn::skip(&log, n),
                        Pick::Unread => mplus::skip(&log),
                        _ => m::skip(&log),
                    };
                    let placed = place(&skip)?;
                    (skip, (placed, None))
                }
            };
            let (q, flash, stats) = placed;
            b.quota = quota;
            b.skipped = skip.count();
            (b.queue, b.flash, b.containers, b.evictions) = (Some(q), flash, stats, q.evictions);
        }
    }
    Ok(b)
}

type Placed = (QueueCounts, FlashCounts, Option<ContainerStats>);

/// STEP 2-3 of H_T: the unthrottled run, then replays with fewer allowed insertions until the
/// erasures fit the quota.
fn throttle(log: &Log, spec: QuotaSpec, b: &Bounds, place: &dyn Fn(&Bits) -> Result<Placed>) -> Result<(Bits, (Placed, Option<Quota>))> {
    let skip = mplus::skip(log);
    let first = place(&skip)?;
    let unthrottled = first.1.erasures;
    let budget = match spec {
        QuotaSpec::Share(s) => s * unthrottled as f64,
        QuotaSpec::Epbpd(e) => {
            if b.duration_ns == 0 {
                return Err(Error::config(
                    "an EPBPD quota needs the trace's duration, and this trace has no timestamps: give the quota as a share (50%)",
                ));
            }
            e * f64::from(b.shape.containers) * b.duration_ns as f64 / 86_400e9
        }
    };
    let (_, t) = mt::skip(log, u64::MAX);
    let mut quota = Quota { budget, unthrottled, threshold: t, replays: 1 };
    if unthrottled as f64 <= budget {
        return Ok((skip, (first, Some(quota))));
    }
    // The most insertions that meet the quota: a proportional first guess, shrunk in proportion
    // until one fits, then bisection between the largest that fits and the smallest that does
    // not, for at most MAX_REPLAYS replays (or until they are 0.1% of I apart).
    const MAX_REPLAYS: u32 = 8;
    let (mut fits, mut fails): (Option<(u64, Bits, Placed, mt::Threshold)>, u64) = (None, t.insertions);
    let mut allowed = (t.insertions as f64 * budget / unthrottled as f64).floor() as u64;
    loop {
        let (skip, t) = mt::skip(log, allowed);
        let placed = place(&skip)?;
        quota.replays += 1;
        let e = placed.1.erasures;
        if e as f64 <= budget {
            fits = Some((allowed, skip, placed, t));
        } else {
            fails = allowed;
        }
        let lo = fits.as_ref().map(|f| f.0);
        allowed = match lo {
            None => ((allowed as f64 * budget / e.max(1) as f64).floor() as u64).min(allowed.saturating_sub(1)),
            Some(lo) if quota.replays < MAX_REPLAYS && fails - lo > (t.insertions / 1000).max(1) => lo + (fails - lo) / 2,
            Some(_) => break,
        };
    }
    let (_, skip, placed, t) = fits.expect("a quota is met with no insertions at the latest");
    quota.threshold = t;
    Ok((skip, (placed, Some(quota))))
}

/// Reads a trace for the offline engine.
pub fn read_trace(
    reader: &mut dyn crate::trace::TraceReader,
    page_size: u32,
    timed: bool,
    progress: Option<crate::trace::Progress<'_>>,
) -> Result<Trace> {
    let splitter = crate::request::PageSplitter::new(page_size, reader.key_unit());
    Trace::read(reader, &splitter, timed, progress)
}

#[cfg(test)]
mod tests {
    use super::ripq::tests::stream;
    use super::*;

    /// Issue 41: every online container cache holds at most the cache's pages, as LRU over an
    /// FTL (an LRU of `cache_pages`) and the MIN family (a MIN queue of `cache_pages`) do; the
    /// flash beyond it (here 16%: over-provisioning and GC reserve) is for cleaning only. Each
    /// fills the cache: its peak is exactly `cache_pages`, not the flash's 464.
    #[test]
    fn every_online_cache_holds_the_cache_pages_not_the_flash() {
        let shape = Shape { cache_pages: 400, container_pages: 8, containers: 58, write_buffer: 2 };
        let ops = stream(41, 30_000, 3000, 0.2, 0.01);
        let mut online = 0;
        for alg in ALGORITHMS {
            let Kind::Online(make) = alg.kind else { continue };
            online += 1;
            let mut cache = make(shape, &mut Params::default()).unwrap();
            let (mut c, mut peak) = (FlashCounts::default(), 0);
            for &(key, op) in &ops {
                match op {
                    2 => cache.trim(key, &mut c),
                    _ => {
                        cache.access(key, op == 1, &mut c);
                    }
                }
                peak = peak.max(cache.len() as u64);
                assert!(cache.len() as u64 <= shape.cache_pages, "{}: {} cached in a cache of 400", alg.name, cache.len());
            }
            assert_eq!(peak, shape.cache_pages, "{} never fills its cache", alg.name);
            assert!(c.erasures > 0, "{}: {c:?}", alg.name);
        }
        assert_eq!(online, 2, "ripq+ and pannier");
    }
}
