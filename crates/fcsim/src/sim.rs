//! The one simulation loop: trace → page splitter → cache tier → what is below it, with the
//! counters and response times it leaves behind. It is handed a built tier and backing store
//! ([`crate::run`] assembles them from a configuration) and knows nothing of rows.
//!
//! Time moves forward only here; no stage calls back into an earlier one.

use crate::device::Backing;
use crate::error::{compact, Error, Result};
use crate::histogram::Histogram;
use crate::mem;
use crate::policy::list::up_front;
use crate::request::{Op, PageSplitter, NEVER};
use crate::stack::{Split, Tier};
use crate::time::{HORIZON, HORIZON_NS};
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

/// The working-set size of a trace in pages, by one pass over the trace (which `progress`
/// follows and can stop). A `.fct` header's count of unique pages is not taken: nothing checks
/// it short of this pass, and a wrong one sized `--size 50%` to 1 page where the trace has 207.
pub fn working_set(trace: &str, opts: &TraceOptions, page_size: u32, progress: Option<Progress<'_>>) -> Result<u64> {
    let mut reader = trace::open(trace, opts)?;
    Ok(info::trace_info(reader.as_mut(), page_size, progress)?.unique_pages)
}

/// Next-access index of every read or write page access, for offline policies: the `.fct`
/// column when the file has one for this page size, else one pass over the trace (which
/// `progress` follows and can stop).
pub fn next_accesses(trace: &str, opts: &TraceOptions, page_size: u32, mut progress: Option<Progress<'_>>) -> Result<Vec<u64>> {
    let mut reader = trace::open(trace, opts)?;
    if let Some(next) = reader.next_access_column(page_size)? {
        return Ok(next);
    }
    let splitter = PageSplitter::new(page_size, reader.key_unit());
    let mut keys = Vec::new();
    let mut requests = 0u64;
    while let Some(r) = reader.next_request()? {
        requests += 1;
        trace::report(requests, reader.as_ref(), &mut progress)?;
        if r.op != Op::Trim {
            let (first, n) = splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
            mem::reserve(&mut keys, n as usize, "the trace's page keys")?;
            keys.extend(first..first + n);
        }
    }
    trace::convert::next_access(&keys)
}

/// When requests arrive.
#[derive(Debug)]
enum Arrivals {
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
            0 => Arrivals::Trace { scale: time_scale, first: None },
            d => Arrivals::Closed { depth: d as usize, outstanding: BinaryHeap::with_capacity(up_front(d as usize + 1)) },
        }
    }

    /// The arrival time of request number `n` (1-based), stamped `t` in the trace (below the
    /// horizon, as readers check); an error naming `sim.time_scale` if scaling carries it past.
    #[inline]
    fn arrive(&mut self, t: u64, n: u64) -> Result<u64> {
        Ok(match self {
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

/// The state of one run of the loop.
#[derive(Debug)]
pub struct Run {
    arrivals: Arrivals,
    /// The cache tier the trace's pages go through, with its counters.
    pub tier: Tier,
    splitter: PageSplitter,
    next: Vec<u64>,
    /// Host requests simulated.
    pub requests: u64,
    first_ns: Option<u64>,
    last_ns: u64,
    /// Response time of each host request, ns (a timed backing store only).
    pub response: Histogram,
    /// A controller that resizes the tier as it runs (a split SSD write cache), if any.
    pub split: Option<Split>,
}

impl Run {
    /// A run of `tier`, its pages split by `splitter`. `next` holds the next-access index of
    /// every page access for an offline policy (empty otherwise). Requests arrive at the trace's
    /// times with inter-arrival gaps multiplied by `time_scale`, or, with `queue_depth` > 0, in a
    /// closed loop of that many outstanding requests.
    pub fn new(tier: Tier, splitter: PageSplitter, next: Vec<u64>, time_scale: f64, queue_depth: u32) -> Self {
        Run {
            arrivals: Arrivals::new(time_scale, queue_depth),
            tier,
            splitter,
            next,
            requests: 0,
            first_ns: None,
            last_ns: 0,
            response: Histogram::default(),
            split: None,
        }
    }

    /// Time from the first request's arrival to the last one's, ns.
    pub fn duration_ns(&self) -> u64 {
        self.last_ns - self.first_ns.unwrap_or(0)
    }

    /// The loop: each request's pages go through the tier to `dev`; a timed device records the
    /// request's response time (completion of its last page minus its arrival). Time moves
    /// forward only: a request stamped before its predecessor arrives at its predecessor's time.
    /// Arrivals follow the trace (optionally time-scaled) or a closed loop.
    pub fn drive<B: Backing>(&mut self, reader: &mut dyn TraceReader, dev: &mut B, mut progress: Option<Progress<'_>>) -> Result<()> {
        let mut index = 0u64;
        while let Some(r) = reader.next_request()? {
            let now = self.arrivals.arrive(r.time_ns, self.requests + 1)?.max(self.last_ns);
            self.first_ns.get_or_insert(now);
            self.last_ns = now;
            dev.advance(now);
            let (first, n) = self.splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
            let mut done = now;
            for key in first..first + n {
                let next = self.next.get(index as usize).copied().unwrap_or(NEVER);
                done = done.max(self.tier.access(key, r.op, index, next, now, dev)?);
                if r.op != Op::Trim {
                    index += 1;
                    if let Some(s) = self.split.as_mut() {
                        s.access(key)?;
                    }
                }
            }
            if B::TIMED && r.op != Op::Trim {
                self.response.record(done - now);
            }
            // The controller's resize happens after the request: its write-backs occupy the
            // devices, and the requests after it wait for them there.
            if let Some(s) = self.split.as_mut() {
                if let Some(cap) = s.after_request(done - now, dev.flash_stats().unwrap_or_default()) {
                    self.tier.resize(cap, now, dev)?;
                }
            }
            self.arrivals.complete(done);
            self.requests += 1;
            trace::report(self.requests, reader, &mut progress)?;
        }
        self.tier.flush(self.last_ns, dev)
    }
}
