//! The one simulation loop: trace → page splitter → cache tier → what is below it, with the
//! counters and response times it leaves behind. It is handed a built [`Stack`] (its tiers,
//! backing store and controller; [`crate::stack::build`] assembles one) and knows nothing of
//! rows.
//!
//! [`Run::step`] simulates one host request on a stack; [`Run::drive`] is the reader loop over
//! it, and [`Run::close`] ends a stream (the end-of-run flush, the last epoch). A [`Run`] holds
//! what one stream does to one stack (arrivals, which a closed loop ties to that stack's
//! completions; response times; the warm-up and epochs), so one request stream feeds several
//! stacks through one `Run` each: read a request once, `step` it into each.
//!
//! Time moves forward only here; no stage calls back into an earlier one.

use crate::device::ftl::FtlStats;
use crate::device::{Backing, DeviceLoads};
use crate::error::{compact, Error, Result};
use crate::histogram::Histogram;
use crate::load::{Flush, Summary};
use crate::mem;
use crate::policy::list::up_front;
use crate::request::{HostRequest, Op, PageSplitter, Refused, NEVER};
use crate::stack::{Counters, Lower, Stack};
use crate::time::{self as simtime, HORIZON, HORIZON_NS};
use crate::trace::{self, info, TraceOptions, TraceReader};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use crate::trace::Progress;

/// A short name for a trace in result rows: the file name, or the `synth:` spec.
pub fn trace_name(trace: &str) -> String {
    if trace.starts_with("synth:") {
        return trace.to_string();
    }
    std::path::Path::new(trace).file_name().map_or_else(|| trace.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The working-set size of a trace in pages: a `.fct` header's count when the file is read
/// whole at its page size (no pass: issue 45, `--size 1%` of a 100M-request `.fct` took 23.9 s
/// against 16.3 s in pages), else by one pass over the trace (which `progress` follows and can
/// stop). A run sized by a header's count checks it against its records
/// ([`TraceReader::check_unique_pages`]): a lie (one that sized `--size 50%` to 1 page where
/// the trace has 207) fails the run at its end, before any row.
pub fn working_set(trace: &str, opts: &TraceOptions, page_size: u32, progress: Option<Progress<'_>>) -> Result<u64> {
    let mut reader = trace::open(trace, opts)?;
    // A .fct header read whole knows it: no pass (issue 45: `--size 1%` of a 100M-request .fct
    // read the trace twice).
    if let Some(pages) = reader.known_unique_pages(page_size) {
        return Ok(pages);
    }
    info::unique_pages(reader.as_mut(), page_size, progress)
}

/// Next-access index of every read or write page access, for offline policies: the `.fct`
/// column when the file has one for this page size, else one pass over the trace (which
/// `progress` follows and can stop).
pub fn next_accesses(trace: &str, opts: &TraceOptions, page_size: u32, progress: Option<Progress<'_>>) -> Result<Vec<u64>> {
    let mut reader = trace::open(trace, opts)?;
    if let Some(next) = reader.next_access_column(page_size)? {
        return Ok(next);
    }
    drop(reader);
    trace::convert::next_access(&page_accesses(trace, opts, page_size, progress)?.keys)
}

/// The page accesses of a trace ([`page_accesses`]).
#[derive(Debug, Default)]
pub struct PageAccesses {
    /// Every read or write page access's page, in order.
    pub keys: Vec<u64>,
    /// Whether it is a write.
    pub writes: Vec<bool>,
    /// The index of each host request's first page access (trims included, as the loop counts
    /// requests).
    pub requests: Vec<u64>,
}

/// Every read or write page access of the trace in order: its page, whether it is a write, and
/// where each request starts (for a plan made before the run: the `opt` and `ml` admissions').
/// One pass over the trace, which `progress` follows and can stop.
pub fn page_accesses(trace: &str, opts: &TraceOptions, page_size: u32, mut progress: Option<Progress<'_>>) -> Result<PageAccesses> {
    let mut reader = trace::open(trace, opts)?;
    let splitter = PageSplitter::new(page_size, reader.key_unit());
    let PageAccesses { mut keys, mut writes, requests: mut starts } = PageAccesses::default();
    let mut requests = 0u64;
    while let Some(r) = reader.next_request()? {
        requests += 1;
        trace::report(requests, reader.as_ref(), &mut progress)?;
        mem::reserve(&mut starts, 1, "the trace's request starts")?;
        starts.push(keys.len() as u64);
        if r.op != Op::Trim {
            let (first, n) = splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
            mem::reserve(&mut keys, n as usize, "the trace's page keys")?;
            mem::reserve(&mut writes, n as usize, "the trace's page ops")?;
            keys.extend(first..first + n);
            writes.extend(std::iter::repeat(r.op == Op::Write).take(n as usize));
        }
    }
    Ok(PageAccesses { keys, writes, requests: starts })
}

/// When requests arrive.
#[derive(Debug)]
enum Arrivals {
    /// At the trace's times, unscaled (`sim.time_scale` 1): what `Trace` with `scale` 1 gives,
    /// with no first time to keep and no scale to test per request.
    AsIs,
    /// At the trace's times, inter-arrival gaps multiplied by `scale` (the first request keeps
    /// its time).
    Trace { scale: f64, first: Option<u64> },
    /// A closed loop of `depth` outstanding requests, as a benchmark issues them: a request
    /// arrives when the earliest of the outstanding ones completes (the first `depth` at time 0),
    /// whatever the trace says.
    Closed { depth: usize, outstanding: BinaryHeap<Reverse<u64>> },
}

impl Arrivals {
    fn new(time_scale: f64, queue_depth: u32) -> Self {
        match queue_depth {
            0 if time_scale == 1.0 => Arrivals::AsIs,
            0 => Arrivals::Trace { scale: time_scale, first: None },
            d => Arrivals::Closed { depth: d as usize, outstanding: BinaryHeap::with_capacity(up_front(d as usize + 1)) },
        }
    }

    /// The arrival time of request number `n` (1-based), stamped `t` in the trace (below the
    /// horizon, as readers check); an error naming `sim.time_scale` if scaling carries it past.
    #[inline(always)]
    fn arrive(&mut self, t: u64, n: u64) -> Result<u64> {
        Ok(match self {
            Arrivals::AsIs => t,
            Arrivals::Trace { scale, first } => {
                let f = *first.get_or_insert(t);
                if *scale == 1.0 || t <= f {
                    t
                } else {
                    // `as` saturates: a product past 2^64 fails the check too.
                    let gap = ((t - f) as f64 * *scale) as u64;
                    match f.checked_add(gap) {
                        Some(a) if a < HORIZON_NS => a,
                        _ => return Err(past_horizon(*scale, n, t - f)),
                    }
                }
            }
            Arrivals::Closed { depth, outstanding } => {
                if outstanding.len() < *depth {
                    0
                } else {
                    outstanding.pop().map_or(0, |Reverse(t)| t)
                }
            }
        })
    }

    #[inline]
    fn complete(&mut self, done: u64) {
        if let Arrivals::Closed { outstanding, .. } = self {
            outstanding.push(Reverse(done));
        }
    }
}

/// Request `n`, `after` ns after the first in the trace, scaled by `scale` past the horizon.
#[cold]
fn past_horizon(scale: f64, n: u64, after: u64) -> Error {
    Error::config(format!(
        "sim.time_scale={}: request {n}, {after} ns after the first in the trace, would arrive {} ns after it, past the latest \
         time fcsim simulates ({HORIZON})",
        compact(scale),
        compact(after as f64 * scale)
    ))
}

/// The state of one stream of requests through one stack.
#[derive(Debug)]
pub struct Run {
    arrivals: Arrivals,
    splitter: PageSplitter,
    next: Vec<u64>,
    /// Read and write page accesses simulated (the index of the next one).
    index: u64,
    /// Host requests simulated.
    pub requests: u64,
    first_ns: Option<u64>,
    last_ns: u64,
    /// Response time of each host request, ns (a timed backing store only), once the loop has
    /// ended: the epochs' histograms merged.
    pub response: Histogram,
    /// Response times of the current epoch (the whole run without epochs), merged into
    /// `response` when it closes and cleared for the next, never reallocated.
    window: Histogram,
    /// Warm-up and epochs, if asked for ([`Run::measure`]).
    meter: Option<Box<Meter>>,
    /// Whether the trace may be read on a second thread ([`trace::read_ahead`]).
    pub read_ahead: bool,
    /// The loop calls [`Run::mark`] before a request once this many requests are done or one
    /// arrives at or after `mark_ns` (`u64::MAX`: never): the one branch a warm-up or epochs add
    /// to the loop, which without them is compiled without it.
    mark_requests: u64,
    mark_ns: u64,
    /// Dirty pages the end-of-run flush wrote back (the tier's, and a flash cache's deferred
    /// write-backs), once the loop has ended.
    pub flushed_pages: u64,
    /// Requests and bytes the cache stack missed (after any warm-up).
    pub misses: IoMisses,
}

/// Misses counted per host request and per byte, for the IO and byte miss ratios: a read or
/// write request (trims are not IOs) is an IO miss when one of its pages missed the whole
/// stack ([`Stack::hits`] did not grow at that page's access), and its missed bytes are the
/// bytes of the request in those pages ([`PageSplitter::bytes_in_page`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoMisses {
    pub requests: u64,
    pub miss_requests: u64,
    pub bytes: u64,
    pub miss_bytes: u64,
}

/// When a warm-up ends (`sim.warmup`); what it leaves out of every statistic of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warmup {
    /// After this many host requests.
    Requests(u64),
    /// At this much simulated time after the first request's arrival, ns.
    Time(u64),
    /// Once the cache tier holds as many pages as its capacity (the flash tier of a flash
    /// cache behind a DRAM tier).
    Full,
}

/// The length of the epochs of the per-epoch table (`--epoch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Every {
    /// A number of host requests.
    Requests(u64),
    /// Simulated time, ns.
    Time(u64),
}

/// A count of requests (`100000`, `1e5`) or a time with its unit (`60s`, `5min`, `250ms`), as
/// `sim.warmup` and `--epoch` take it; `Err` names `key`.
fn parse_span(key: &str, text: &str) -> Result<Every> {
    let t = text.trim();
    let bad = || {
        Error::config(format!(
            "{key}={text}: expected a number of requests (100000) or a time with its unit (60s, 5min, 250ms; units ns, us, ms, s, min, h)"
        ))
    };
    let split = t.find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.trim().parse().map_err(|_| bad())?;
    if !(value > 0.0 && value.is_finite()) {
        return Err(Error::config(format!("{key}={text}: expected a positive number of requests or a positive time")));
    }
    let unit_ns = match unit.trim() {
        "" => {
            if value.fract() != 0.0 {
                return Err(Error::config(format!(
                    "{key}={text}: expected a whole number of requests, or a time with its unit (60s, 5min)"
                )));
            }
            if value >= 2f64.powi(64) {
                return Err(Error::config(format!("{key}={text}: more requests than fcsim counts (at most 2^64 - 1)")));
            }
            return Ok(Every::Requests(value as u64));
        }
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "h" => 3600e9,
        _ => return Err(bad()),
    };
    if value * unit_ns >= simtime::MAX_DURATION_NS as f64 {
        return Err(Error::config(format!("{key}={text}: longer than the longest duration fcsim simulates (2^60 ns, about 36.5 years)")));
    }
    let ns = (value * unit_ns).round() as u64;
    if ns == 0 {
        return Err(Error::config(format!("{key}={text}: expected a time of at least 1 ns")));
    }
    Ok(Every::Time(ns))
}

impl Warmup {
    /// `sim.warmup`: a number of requests, a time with its unit, or `full`; `0` and `none` are
    /// no warm-up (None).
    pub fn parse(text: &str) -> Result<Option<Warmup>> {
        let t = text.trim();
        if t == "0" || t.eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        if t.eq_ignore_ascii_case("full") {
            return Ok(Some(Warmup::Full));
        }
        Ok(Some(match parse_span("sim.warmup", t)? {
            Every::Requests(n) => Warmup::Requests(n),
            Every::Time(ns) => Warmup::Time(ns),
        }))
    }

    /// Whether it is a time (which needs arrival times).
    pub fn timed(self) -> bool {
        matches!(self, Warmup::Time(_))
    }
}

impl std::fmt::Display for Warmup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warmup::Requests(n) => write!(f, "{n}"),
            Warmup::Time(ns) => f.write_str(&span(*ns)),
            Warmup::Full => f.write_str("full"),
        }
    }
}

/// A time in the largest of s, ms, us and ns that holds it whole (`300s`, `250ms`, `10us`).
fn span(ns: u64) -> String {
    match ns {
        n if n % 1_000_000_000 == 0 => format!("{}s", n / 1_000_000_000),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}us", n / 1_000),
        n => format!("{n}ns"),
    }
}

impl Every {
    /// `--epoch` (`sim.epoch`): a number of requests or a time with its unit.
    pub fn parse(text: &str) -> Result<Every> {
        parse_span("epoch", text)
    }

    /// Whether it is a time (which needs arrival times).
    pub fn timed(self) -> bool {
        matches!(self, Every::Time(_))
    }
}

impl std::fmt::Display for Every {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Every::Requests(n) => write!(f, "{n}"),
            Every::Time(ns) => f.write_str(&span(*ns)),
        }
    }
}

/// What a warm-up left out of the run's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Excluded {
    pub warmup: Warmup,
    /// Host requests simulated before the statistics were reset.
    pub requests: u64,
    /// Simulated time from the first request's arrival to the start of the measured run, ns.
    pub ns: u64,
}

/// One epoch of the per-epoch table: the differences of the run's cumulative counters between
/// its boundaries. A request belongs wholly to the epoch it arrives in (its page accesses, the
/// device ops it submits, its response time, even if it completes after the boundary); the
/// end-of-run flush belongs to the last epoch, so the epochs' counts add up to the row's.
#[derive(Debug, Clone, PartialEq)]
pub struct Epoch {
    pub index: u64,
    /// Start and end, ns after the first request's arrival (a time epoch spans its full length,
    /// also the last; an epoch of requests ends where the next starts, the last one at the last
    /// request's arrival).
    pub start_ns: u64,
    pub end_ns: u64,
    pub requests: u64,
    /// The row's tier counters over the epoch.
    pub counters: Counters,
    /// The flash's counters over the epoch, with flash below the tier.
    pub flash: Option<FtlStats>,
    /// Loads over the epoch (ops, busy time and sojourns; `epoch_peak` the busiest server's
    /// busiest window of the epoch, a window open across its end counted in both; `peak` is
    /// the run's so far; `last_end` the latest completion of the arrival work submitted by the
    /// epoch's end, its own or earlier epochs').
    pub loads: DeviceLoads,
    /// From the epoch's end to the latest completion of the arrival work submitted by then, ns
    /// (0 if all of it completed by the end): the epoch's queue means are over its length and
    /// this drain.
    pub drain_ns: u64,
    pub resp_mean_ns: Option<f64>,
    pub resp_p99_ns: Option<f64>,
}

/// Cumulative counters at an epoch boundary.
#[derive(Debug, Clone, Copy, Default)]
struct Snap {
    requests: u64,
    counters: Counters,
    flash: Option<FtlStats>,
    loads: DeviceLoads,
}

/// Warm-up and per-epoch state of a run (boxed: the loop touches it only at marks).
#[derive(Debug)]
struct Meter {
    /// The warm-up still running, if any.
    warmup: Option<Warmup>,
    excluded: Option<Excluded>,
    every: Option<Every>,
    started: bool,
    /// The first request's arrival.
    origin: u64,
    /// The current epoch's start (ns) and first request.
    epoch_start: u64,
    epoch_first: u64,
    prev: Snap,
    epochs: Vec<Epoch>,
}

/// How many requests ahead of the one simulated the loop preloads the policy's memory for
/// ([`crate::policy::Policy::preload`]).
const AHEAD: usize = 4;

/// The smallest cache (pages) whose policy the loop preloads. Below it a list policy's index and
/// nodes (under 1.4 MB) stay in a core's L2 cache (2 MiB on the machine measured) and preloading
/// only costs: on the zipf and arc_P12 traces of bench/policy_ratios.py, LRU at 1% (5,720 and
/// 4,016 pages) was 1.00x and 0.93x as fast with it, at 10% (57,204 and 40,160 pages) 1.12x and
/// 1.03x (CPU time, medians of 9 interleaved runs).
const PRELOAD_FROM: usize = 1 << 14;

/// Epochs a run may have at most (a row each, about 400 bytes in memory).
pub const MAX_EPOCHS: u64 = 1_000_000;

#[cold]
fn too_many_epochs(every: Option<Every>) -> Error {
    let every = every.map_or(String::new(), |e| e.to_string());
    Error::config(format!("epoch={every}: the run spans more than {MAX_EPOCHS} epochs (a row each); choose a longer epoch"))
}

fn ftl_since(now: FtlStats, before: FtlStats) -> FtlStats {
    FtlStats {
        host_reads: now.host_reads - before.host_reads,
        host_writes: now.host_writes - before.host_writes,
        gc_copies: now.gc_copies - before.gc_copies,
        erasures: now.erasures - before.erasures,
        trims: now.trims - before.trims,
    }
}

fn load_since(now: Option<Summary>, before: Option<Summary>) -> Option<Summary> {
    let n = now?;
    let b = before.unwrap_or_default();
    Some(Summary {
        servers: n.servers,
        ops: n.ops - b.ops,
        busy_ns: n.busy_ns - b.busy_ns,
        sojourn_ns: n.sojourn_ns - b.sojourn_ns,
        behind_ns: n.behind_ns - b.behind_ns,
        last_end: n.last_end,
        flush: Flush { ops: n.flush.ops - b.flush.ops, busy_ns: n.flush.busy_ns - b.flush.busy_ns, end: n.flush.end },
        peak: n.peak,
        epoch_peak: n.epoch_peak,
    })
}

impl Run {
    /// A run whose requests' pages are split by `splitter`. `next` holds the next-access index of
    /// every page access for an offline policy (empty otherwise). Requests arrive at the trace's
    /// times with inter-arrival gaps multiplied by `time_scale`, or, with `queue_depth` > 0, in a
    /// closed loop of that many outstanding requests.
    pub fn new(splitter: PageSplitter, next: Vec<u64>, time_scale: f64, queue_depth: u32) -> Self {
        Run {
            arrivals: Arrivals::new(time_scale, queue_depth),
            splitter,
            next,
            index: 0,
            requests: 0,
            first_ns: None,
            last_ns: 0,
            response: Histogram::default(),
            window: Histogram::default(),
            meter: None,
            read_ahead: true,
            mark_requests: u64::MAX,
            mark_ns: u64::MAX,
            flushed_pages: 0,
            misses: IoMisses::default(),
        }
    }

    /// Asks for a warm-up (every statistic reset when it ends) and a per-epoch table. Called
    /// before [`Run::drive`]; the caller has refused a time on a trace without times.
    pub fn measure(&mut self, warmup: Option<Warmup>, every: Option<Every>) {
        if warmup.is_none() && every.is_none() {
            return;
        }
        self.meter = Some(Box::new(Meter {
            warmup,
            excluded: None,
            every,
            started: false,
            origin: 0,
            epoch_start: 0,
            epoch_first: 0,
            prev: Snap::default(),
            epochs: Vec::new(),
        }));
        self.mark_requests = 0;
    }

    /// Time from the first measured request's arrival (after any warm-up: the warm-up's end) to
    /// the last one's, ns.
    pub fn duration_ns(&self) -> u64 {
        self.last_ns.saturating_sub(self.first_ns.unwrap_or(0))
    }

    /// The first measured request's arrival (after any warm-up: the warm-up's end) and the last
    /// one's, ns.
    pub fn arrivals_ns(&self) -> (u64, u64) {
        (self.first_ns.unwrap_or(0), self.last_ns)
    }

    /// Host requests measured (after any warm-up).
    pub fn measured_requests(&self) -> u64 {
        self.requests - self.excluded().map_or(0, |e| e.requests)
    }

    /// What the warm-up left out, once it has ended.
    pub fn excluded(&self) -> Option<Excluded> {
        self.meter.as_ref().and_then(|m| m.excluded)
    }

    /// The per-epoch table, once the loop has ended (empty without epochs).
    pub fn take_epochs(&mut self) -> Vec<Epoch> {
        self.meter.as_mut().map(|m| std::mem::take(&mut m.epochs)).unwrap_or_default()
    }

    /// The cumulative counters now: the measured tier's ([`Stack::measured`]) and the device's.
    fn snapshot<B: Backing + Lower>(&self, stack: &Stack<B>) -> Snap {
        Snap { requests: self.requests, counters: stack.measured().counters, flash: stack.below.flash_stats(), loads: stack.below.loads() }
    }

    /// Closes the current epoch at `end` (ns): its counts are the counters' growth since the
    /// previous boundary; its response times are merged into the run's and cleared.
    fn close_epoch<B: Backing + Lower>(&mut self, m: &mut Meter, end: u64, stack: &mut Stack<B>) -> Result<()> {
        let now = self.snapshot(stack);
        stack.below.mark_epoch();
        let p = m.prev;
        let index = m.epochs.len() as u64;
        if index >= MAX_EPOCHS {
            return Err(too_many_epochs(m.every));
        }
        mem::reserve(&mut m.epochs, 1, "the per-epoch table")?;
        let last_end = [now.loads.flash, now.loads.disk].iter().flatten().map(|l| l.last_end).max().unwrap_or(0);
        m.epochs.push(Epoch {
            drain_ns: last_end.saturating_sub(end),
            index,
            start_ns: m.epoch_start - m.origin,
            end_ns: end - m.origin,
            requests: now.requests - p.requests,
            counters: now.counters.since(&p.counters),
            flash: now.flash.map(|f| ftl_since(f, p.flash.unwrap_or_default())),
            loads: DeviceLoads { flash: load_since(now.loads.flash, p.loads.flash), disk: load_since(now.loads.disk, p.loads.disk) },
            resp_mean_ns: self.window.mean(),
            resp_p99_ns: self.window.quantile(0.99),
        });
        self.response.merge(&self.window);
        self.window.clear();
        m.prev = now;
        Ok(())
    }

    /// A mark before the request arriving at `now`: ends the warm-up if it is over, closes the
    /// epochs that ended, and sets the next mark. Off the loop's path (at most once per epoch,
    /// or per request while a `full` warm-up runs).
    #[cold]
    #[inline(never)]
    fn mark<B: Backing + Lower>(&mut self, now: u64, stack: &mut Stack<B>) -> Result<()> {
        let Some(mut m) = self.meter.take() else {
            (self.mark_requests, self.mark_ns) = (u64::MAX, u64::MAX);
            return Ok(());
        };
        let r = self.mark_inner(&mut m, now, stack);
        self.meter = Some(m);
        r
    }

    fn mark_inner<B: Backing + Lower>(&mut self, m: &mut Meter, now: u64, stack: &mut Stack<B>) -> Result<()> {
        if !m.started {
            m.started = true;
            m.origin = now;
            m.epoch_start = now;
            m.prev = self.snapshot(stack);
        }
        if let Some(w) = m.warmup {
            let over = match w {
                Warmup::Requests(n) => self.requests >= n,
                Warmup::Time(d) => now >= m.origin.saturating_add(d),
                Warmup::Full => stack.measured().resident() >= stack.measured().capacity(),
            };
            if !over {
                (self.mark_requests, self.mark_ns) = match w {
                    Warmup::Requests(n) => (n, u64::MAX),
                    Warmup::Time(d) => (u64::MAX, m.origin.saturating_add(d)),
                    Warmup::Full => (self.requests + 1, u64::MAX),
                };
                return Ok(());
            }
            // Every statistic restarts; the cache's contents and the devices' state stay.
            let start = match w {
                Warmup::Time(d) => m.origin + d,
                _ => now,
            };
            stack.tier.counters = Counters::default();
            stack.below.reset_stats();
            self.misses = IoMisses::default();
            self.window.clear();
            self.response.clear();
            self.first_ns = Some(start);
            m.warmup = None;
            m.excluded = Some(Excluded { warmup: w, requests: self.requests, ns: start - m.origin });
            m.epoch_start = start;
            m.epoch_first = self.requests;
            m.prev = self.snapshot(stack);
        }
        (self.mark_requests, self.mark_ns) = (u64::MAX, u64::MAX);
        match m.every {
            None => {}
            Some(Every::Time(len)) => {
                // Refused before the rows of a long idle stretch are pushed, not after.
                let closing = (now - m.epoch_start) / len;
                if m.epochs.len() as u64 + closing > MAX_EPOCHS {
                    return Err(too_many_epochs(m.every));
                }
                while now >= m.epoch_start + len {
                    let end = m.epoch_start + len;
                    self.close_epoch(m, end, stack)?;
                    m.epoch_start = end;
                }
                self.mark_ns = m.epoch_start + len;
            }
            Some(Every::Requests(n)) => {
                if self.requests >= m.epoch_first + n {
                    self.close_epoch(m, now, stack)?;
                    m.epoch_start = now;
                    m.epoch_first = self.requests;
                }
                self.mark_requests = m.epoch_first + n;
            }
        }
        Ok(())
    }

    /// The end of the loop, after the flush: a warm-up still running is an error (nothing was
    /// measured); the last epoch closes (with the flush in it); the response times are merged.
    fn finish<B: Backing + Lower>(&mut self, stack: &mut Stack<B>) -> Result<()> {
        if let Some(mut m) = self.meter.take() {
            if let Some(w) = m.warmup {
                let what = match w {
                    Warmup::Full => {
                        let (held, cap) = (stack.measured().resident(), stack.measured().capacity());
                        format!("the cache never filled: it held {held} of its {cap} pages after the trace's {} requests", self.requests)
                    }
                    Warmup::Requests(_) => format!("the trace has {} requests", self.requests),
                    Warmup::Time(_) => {
                        format!("the trace's {} requests span {} s", self.requests, compact(self.duration_ns() as f64 / 1e9))
                    }
                };
                return Err(Error::config(format!(
                    "sim.warmup={w}: {what}, so the warm-up never ended and nothing would be measured; choose a shorter warm-up"
                )));
            }
            if m.started {
                let end = match m.every {
                    Some(Every::Time(len)) => Some(m.epoch_start + len),
                    Some(Every::Requests(_)) => Some(self.last_ns.max(m.epoch_start)),
                    None => None,
                };
                if let Some(end) = end {
                    self.close_epoch(&mut m, end, stack)?;
                }
            }
            self.meter = Some(m);
        }
        self.response.merge(&self.window);
        self.window.clear();
        Ok(())
    }

    /// The loop: each request of `reader` goes through `stack` ([`Run::step`]), then the stream
    /// ends ([`Run::close`]).
    pub fn drive<B: Backing + Lower>(
        &mut self,
        reader: &mut dyn TraceReader,
        stack: &mut Stack<B>,
        progress: Option<Progress<'_>>,
    ) -> Result<()> {
        // Four copies of the loop: without a warm-up or epochs it has no mark to check at all;
        // a plain run (no controller, no admission, no next-access times, arrivals at the
        // trace's times: what nothing in the loop changes) has no slot to look in.
        let plain =
            stack.controller.is_none() && stack.tier.admission.is_none() && self.next.is_empty() && matches!(self.arrivals, Arrivals::AsIs);
        match (self.meter.is_some(), plain) {
            (true, true) => self.drive_loop::<B, true, true>(reader, stack, progress),
            (true, false) => self.drive_loop::<B, true, false>(reader, stack, progress),
            (false, true) => self.drive_loop::<B, false, true>(reader, stack, progress),
            (false, false) => self.drive_loop::<B, false, false>(reader, stack, progress),
        }
    }

    /// The reader loop over [`Run::step`]; with `MEASURE`, one predictable branch per request for
    /// the marks; with `PLAIN`, none for the controller, admission and next-access slots, which
    /// the caller has found empty ([`Run::step_with`]). The trace is read a batch at a time, on a second thread where that pays
    /// ([`trace::read_ahead`]).
    fn drive_loop<B: Backing + Lower, const MEASURE: bool, const PLAIN: bool>(
        &mut self,
        reader: &mut dyn TraceReader,
        stack: &mut Stack<B>,
        mut progress: Option<Progress<'_>>,
    ) -> Result<()> {
        let preload = stack.tier.capacity() >= PRELOAD_FROM && stack.tier.preloads();
        trace::read_ahead(reader, self.splitter, self.read_ahead, |feed| {
            while let Some(mut batch) = feed.next_batch()? {
                let requests = batch.requests;
                // A batch that ends in no error was split and accepted request by request as
                // it was read: its requests are split again without the check.
                let checked = batch.may_refuse();
                for (j, r) in requests.iter().enumerate() {
                    // The first page of a request a few ahead: its index slot and node are read now,
                    // so those loads overlap this request's (the policy's `preload`, decisions
                    // unchanged).
                    if preload {
                        // A hint: the split's check is left to the request's own turn.
                        if let Some(a) = requests.get(j + AHEAD) {
                            stack.tier.preload(self.splitter.pages_unchecked(a).0);
                        }
                    }
                    // A request the page splitter refuses ends the trace, located by the reader.
                    self.step_with::<B, MEASURE, PLAIN>(r, stack, checked, |_| batch.refused())?;
                    batch.report(self.requests, &mut progress)?;
                }
            }
            Ok(())
        })?;
        self.close(stack)
    }

    /// One host request through `stack`: it arrives (at its trace time, scaled, or when a closed
    /// loop lets it; never before its predecessor), the stack's controller and devices catch up
    /// to it, a warm-up or epoch mark falls due, its pages go through the tier to what is below
    /// it, its response time is recorded (completion of its last page minus its arrival, on a
    /// timed stack), and the controller sees it complete. Time moves forward only. A request the
    /// page splitter refuses is an error naming it (without its place in the trace: the reader
    /// loop of [`Run::drive`] locates it).
    #[inline]
    pub fn step<B: Backing + Lower>(&mut self, r: &HostRequest, stack: &mut Stack<B>) -> Result<()> {
        self.step_with::<B, true, false>(r, stack, true, |m| Error::config(m.to_string()))
    }

    /// [`Run::step`], `refused` making the error of a request the splitter refuses (checked
    /// only if `checked`: false for a request already split and accepted with the same
    /// splitter); without `MEASURE` no mark is checked (the run has no warm-up or epochs); with
    /// `PLAIN` the stack has no controller, its tier no admission, and the run no next-access
    /// times (every access's next is [`NEVER`]) and its arrivals at the trace's times
    /// ([`Arrivals::AsIs`]), which the caller checked and nothing in the loop changes, so they
    /// are not looked for.
    #[inline(always)]
    fn step_with<B: Backing + Lower, const MEASURE: bool, const PLAIN: bool>(
        &mut self,
        r: &HostRequest,
        stack: &mut Stack<B>,
        checked: bool,
        refused: impl FnOnce(Refused) -> Error,
    ) -> Result<()> {
        let arrival = if PLAIN { r.time_ns } else { self.arrivals.arrive(r.time_ns, self.requests + 1)? };
        let now = arrival.max(self.last_ns);
        self.first_ns.get_or_insert(now);
        self.last_ns = now;
        if let Some(c) = stack.controller.as_mut().filter(|_| !PLAIN) {
            c.before(now, &mut stack.below)?;
        }
        stack.below.advance(now);
        if MEASURE && ((self.requests >= self.mark_requests) | (now >= self.mark_ns)) {
            self.mark(now, stack)?;
        }
        let (first, n) = if checked {
            match self.splitter.pages(r) {
                Ok(p) => p,
                Err(m) => return Err(refused(m)),
            }
        } else {
            self.splitter.pages_unchecked(r)
        };
        let mut done = now;
        let mut index = self.index;
        let mut hits = stack.hits();
        let missed_before = self.misses.miss_bytes;
        let mut missed = false;
        if n == 1 {
            // One page (most requests): it holds the whole request, so a miss misses its length
            // (what `bytes_in_page` gives for a one-page request), and the stack's hits are read
            // once more, not once per page.
            let next = if PLAIN { NEVER } else { self.next.get(index as usize).copied().unwrap_or(NEVER) };
            done = done.max(stack.tier.access_with::<B, PLAIN>(first, r.op, index, next, now, &mut stack.below)?);
            if r.op != Op::Trim {
                index += 1;
                if let Some(c) = stack.controller.as_mut().filter(|_| !PLAIN) {
                    c.access(first)?;
                }
                missed = stack.hits() == hits;
                self.misses.miss_bytes += if missed { u64::from(r.len) } else { 0 };
            }
        } else {
            for (i, key) in (first..first + n).enumerate() {
                let next = if PLAIN { NEVER } else { self.next.get(index as usize).copied().unwrap_or(NEVER) };
                done = done.max(stack.tier.access_with::<B, PLAIN>(key, r.op, index, next, now, &mut stack.below)?);
                if r.op != Op::Trim {
                    index += 1;
                    if let Some(c) = stack.controller.as_mut().filter(|_| !PLAIN) {
                        c.access(key)?;
                    }
                    let h = stack.hits();
                    if h == hits {
                        missed = true;
                        self.misses.miss_bytes += self.splitter.bytes_in_page(r, i as u64);
                    }
                    hits = h;
                }
            }
        }
        if r.op != Op::Trim {
            let m = &mut self.misses;
            m.requests += 1;
            m.miss_requests += u64::from(missed);
            // The request's pages cover its bytes once each (the splitter never cuts a request
            // a reader let through), so its bytes are its length.
            m.bytes += u64::from(r.len);
            debug_assert!(m.miss_bytes - missed_before <= u64::from(r.len));
        }
        self.index = index;
        if B::TIMED && r.op != Op::Trim {
            self.window.record(done - now);
        }
        // The controller acts after the request: what it does (a resize's write-backs) occupies
        // the devices, and the requests after it wait for it there.
        if let Some(c) = stack.controller.as_mut().filter(|_| !PLAIN) {
            c.after(done - now, now, &mut stack.tier, &mut stack.below)?;
        }
        if !PLAIN {
            self.arrivals.complete(done);
        }
        self.requests += 1;
        Ok(())
    }

    /// Ends the stream on `stack`: the end-of-run flush (the tier's dirty pages, then what the
    /// controller holds), then a warm-up still running is an error (nothing was measured), the
    /// last epoch closes (with the flush in it) and the response times are merged.
    pub fn close<B: Backing + Lower>(&mut self, stack: &mut Stack<B>) -> Result<()> {
        // The flush is the simulator's, not the workload's: the devices count it apart
        // (`crate::load`, "The end-of-run flush").
        stack.below.begin_flush();
        let before = stack.tier.counters.flushed;
        stack.tier.flush(self.last_ns, &mut stack.below)?;
        let held = match stack.controller.as_mut() {
            Some(c) => c.end(self.last_ns, &mut stack.below)?,
            None => 0,
        };
        self.flushed_pages = stack.tier.counters.flushed - before + held;
        self.finish(stack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::Tier;
    use crate::view::DeviceView;

    /// A device that reports a load: each op is 1 us of work and 3 us in the system.
    #[derive(Default)]
    struct Loaded {
        ops: u64,
    }

    impl Loaded {
        fn op(&mut self, t: u64) -> Result<u64> {
            self.ops += 1;
            Ok(t + 1_000)
        }
    }

    impl Backing for Loaded {
        const TIMED: bool = true;
        fn hit(&mut self, _: u64, _: bool, t: u64) -> Result<u64> {
            self.op(t)
        }
        fn miss(&mut self, _: u64, _: bool, _: bool, t: u64) -> Result<u64> {
            self.op(t)
        }
        fn evict(&mut self, _: u64, _: bool, t: u64) -> Result<u64> {
            Ok(t)
        }
        fn write_around(&mut self, _: u64, t: u64) -> Result<u64> {
            self.op(t)
        }
        fn trim(&mut self, _: u64, _: bool) {}
        fn view(&self) -> Option<&dyn DeviceView> {
            None
        }
        fn loads(&self) -> DeviceLoads {
            let s = Summary {
                servers: 1,
                ops: self.ops,
                busy_ns: self.ops * 1_000,
                sojourn_ns: u128::from(self.ops) * 3_000,
                ..Summary::default()
            };
            DeviceLoads { flash: None, disk: Some(s) }
        }
        fn mark_epoch(&mut self) {}
        fn begin_flush(&mut self) {}
        fn reset_stats(&mut self) {
            self.ops = 0;
        }
    }

    impl Lower for Loaded {}

    #[test]
    fn epochs_difference_the_loads_a_device_reports() {
        let opts = TraceOptions::default();
        let mut reader = trace::open("synth:uniform,requests=1000,pages=50,seed=3,iops=1000", &opts).unwrap();
        let policy = crate::policy::build("lru", 10, Default::default()).unwrap().0;
        let mut run = Run::new(PageSplitter::new(4096, reader.key_unit()), Vec::new(), 1.0, 0);
        run.measure(Some(Warmup::Requests(100)), Some(Every::Requests(300)));
        let mut stack = Stack::new(Tier::new(policy, 10), Loaded::default());
        run.drive(reader.as_mut(), &mut stack, None).unwrap();
        let dev = &stack.below;
        let epochs = run.take_epochs();
        // 900 requests after the warm-up, in epochs of 300; the device's ops after the warm-up
        // are the epochs' ops, their busy time and sojourns with them.
        assert_eq!(epochs.iter().map(|e| e.requests).collect::<Vec<_>>(), [300, 300, 300]);
        let disk: Vec<Summary> = epochs.iter().map(|e| e.loads.disk.unwrap()).collect();
        assert_eq!(disk.iter().map(|s| s.ops).sum::<u64>(), dev.ops);
        assert!(disk.iter().all(|s| s.busy_ns == s.ops * 1_000 && s.sojourn_ns == u128::from(s.ops) * 3_000));
        assert!(epochs.iter().all(|e| e.loads.flash.is_none() && e.flash.is_none()));
        assert_eq!(run.response.count(), 900);
    }

    #[test]
    fn io_and_byte_misses() {
        // LRU of 2 pages, 4 KiB pages. Requests (bytes):
        // 1. read 0..8192: pages 0, 1 miss: an IO miss, 8,192 bytes missed.
        // 2. read 2048..6144: pages 0, 1 hit: no miss.
        // 3. write 6144..14336 (8 KiB): page 1 hits, pages 2 and 3 miss (page 2 evicts 0, page 3
        //    evicts 1): an IO miss; missed 2048..8192 of it in page 2 (4,096) and 12,288..14,335
        //    in page 3 (2,048): 6,144 bytes.
        // 4. a trim of page 0: not an IO.
        // 5. read 0..100: page 0 (evicted) misses: 100 bytes.
        let policy = crate::policy::build("lru", 2, Default::default()).unwrap().0;
        let mut stack = Stack::new(Tier::new(policy, 2), crate::device::no_device());
        let mut run = Run::new(PageSplitter::new(4096, crate::request::KeyUnit::Bytes), Vec::new(), 1.0, 0);
        let rq = |offset: u64, len: u32, op: Op| HostRequest { time_ns: 0, volume: 0, offset, len, op };
        for r in [rq(0, 8192, Op::Read), rq(2048, 4096, Op::Read), rq(6144, 8192, Op::Write), rq(0, 4096, Op::Trim), rq(0, 100, Op::Read)] {
            run.step(&r, &mut stack).unwrap();
        }
        let m = run.misses;
        assert_eq!((m.requests, m.miss_requests), (4, 3));
        assert_eq!((m.bytes, m.miss_bytes), (8192 + 4096 + 8192 + 100, 8192 + 6144 + 100));
    }

    #[test]
    fn preloading_changes_no_result() {
        // An LRU large enough that the loop preloads it, against the same LRU fed the trace's
        // pages directly: the same hits and evictions.
        let (src, cap) = ("synth:zipf,alpha=0.8,requests=40000,pages=60000,seed=5,iops=0", PRELOAD_FROM + 100);
        let opts = TraceOptions::default();
        let mut reader = trace::open(src, &opts).unwrap();
        let policy = crate::policy::build("lru", cap, Default::default()).unwrap().0;
        assert!(policy.preloads());
        let mut run = Run::new(PageSplitter::new(4096, reader.key_unit()), Vec::new(), 1.0, 0);
        let mut stack = Stack::new(Tier::new(policy, cap), crate::device::no_device());
        run.drive(reader.as_mut(), &mut stack, None).unwrap();
        let mut reader = trace::open(src, &opts).unwrap();
        let split = PageSplitter::new(4096, reader.key_unit());
        let mut lru = crate::policy::build("lru", cap, Default::default()).unwrap().0;
        let (mut hits, mut evicted, mut i) = (0, Vec::new(), 0);
        while let Some(r) = reader.next_request().unwrap() {
            let (first, n) = split.pages(&r).unwrap();
            for key in first..first + n {
                let a = crate::policy::Access { key, write: r.op == Op::Write, index: i, next: NEVER, time: 0 };
                hits += u64::from(matches!(lru.access(&a, &mut evicted), crate::policy::Outcome::Hit { .. }));
                i += 1;
            }
        }
        let c = stack.tier.counters;
        assert_eq!((c.hits, c.evictions, c.accesses), (hits, evicted.len() as u64, i));
        assert!(hits > 0 && !evicted.is_empty());
    }
}
