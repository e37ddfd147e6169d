//! The one simulation loop: trace → page splitter → cache tier → counters → result row.
//!
//! Time moves forward only here; no stage calls back into an earlier one.

use crate::config::{SimConfig, SizeSpec, StackConfig, StackKind};
use crate::device::config::Eviction;
use crate::device::{no_device, Backing, Buffer, DeviceConfig, Disk, Flash, SsdCache};
use crate::error::{Error, Result};
use crate::metrics::{DeviceRow, Histogram, ResultRow, SsdRow};
use crate::policy::{self, UsedParams};
use crate::request::{Op, PageSplitter, NEVER};
use crate::stack::{Below, Tier};
use crate::trace::{self, fct, info, TraceOptions, TraceReader};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Called every few tens of thousands of requests with (done, total) in the reader's unit;
/// returning false stops the run with [`Error::Interrupted`].
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64) -> bool;

/// Requests between progress calls.
const PROGRESS_EVERY: u64 = 1 << 16;

/// A short name for a trace in result rows: the file name, or the `synth:` spec.
pub fn trace_name(trace: &str) -> String {
    if trace.starts_with("synth:") {
        return trace.to_string();
    }
    std::path::Path::new(trace).file_name().map_or_else(|| trace.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The working-set size of a trace in pages: from a `.fct` header when it was computed with the
/// same page size and no volume is selected, else by one pass over the trace.
pub fn working_set(trace: &str, opts: &TraceOptions, page_size: u32) -> Result<u64> {
    let mut reader = trace::open(trace, opts)?;
    if reader.format() == fct::FORMAT.name && opts.volume.is_none() {
        let h = fct::read_header(std::path::Path::new(trace))?;
        if h.page_size == page_size || h.object_keys {
            return Ok(h.unique_pages);
        }
    }
    Ok(info::trace_info(reader.as_mut(), page_size)?.unique_pages)
}

/// Next-access index of every read or write page access, for offline policies: the `.fct`
/// column when the file has one for this page size, else one pass over the trace.
pub fn next_accesses(trace: &str, opts: &TraceOptions, page_size: u32) -> Result<Vec<u64>> {
    let mut reader = trace::open(trace, opts)?;
    if let Some(next) = reader.next_access_column(page_size)? {
        return Ok(next);
    }
    let splitter = PageSplitter::new(page_size, reader.key_unit());
    let mut keys = Vec::new();
    while let Some(r) = reader.next_request()? {
        if r.op != Op::Trim {
            let (first, n) = splitter.pages(&r);
            keys.extend(first..first + n);
        }
    }
    Ok(trace::convert::next_access(&keys))
}

/// Simulates one configuration over a trace. `working_set` (pages) avoids a pass over the trace
/// for percent sizes when the caller already knows it.
pub fn simulate(
    trace: &str,
    opts: &TraceOptions,
    cfg: &SimConfig,
    working_set: Option<u64>,
    progress: Option<Progress<'_>>,
) -> Result<ResultRow> {
    cfg.validate()?;
    let info = policy::policy_by_name(&cfg.policy)?;
    let (stack, stack_params) = StackConfig::build(&cfg.stack_params)?;
    let ssd = stack.kind == StackKind::SsdCache;
    let mut reader = trace::open(trace, opts)?;
    // `none` caches nothing: its size is not needed and is reported as 0.
    let cached = info.name != "none";
    let ws = match (cfg.size, working_set) {
        (SizeSpec::Percent(_), None) if cached => Some(self::working_set(trace, opts, cfg.page_size)?),
        (_, ws) => ws,
    };
    let size = if cached { cfg.size.pages(cfg.page_size, ws)? } else { 0 };
    // A flash cache's SSD holds the cache: its user capacity is the cache size.
    let mut device_params = cfg.device_params.clone();
    if ssd {
        device_params.entry("capacity".into()).or_insert_with(|| size.max(1).to_string());
    }
    let preset = cfg.device.as_deref().or(ssd.then_some(DEFAULT_SSD_CACHE_DEVICE));
    let device = preset.map(|p| DeviceConfig::build(p, &device_params, cfg.page_size)).transpose()?;
    let dram_pages = (stack.dram * size as f64).round() as usize;
    if dram_pages > 0 && info.offline {
        return Err(Error::config(format!("{} is offline: it cannot run below a DRAM tier (set stack.dram=0)", info.name)));
    }
    let (policy, params) = policy::build(&cfg.policy, size.max(1) as usize, cfg.params.clone())?;
    let next = if info.offline { next_accesses(trace, opts, cfg.page_size)? } else { Vec::new() };
    let mut run = Run {
        arrivals: Arrivals::new(cfg),
        tier: Tier::with_mode(policy, size.max(1) as usize, stack.write),
        splitter: PageSplitter::new(cfg.page_size, reader.key_unit()),
        next,
        requests: 0,
        first_ns: None,
        last_ns: 0,
        response: Histogram::default(),
    };

    // The clock starts after the device is built and preconditioned (reported apart as
    // `device_setup_s`), so requests/s measures the loop alone.
    let setup = Instant::now();
    let flash = device.as_ref().map(|(dc, _)| Flash::new(dc.clone())).transpose()?;
    let setup_seconds = setup.elapsed().as_secs_f64();
    let start = Instant::now();
    let device = match (flash, device) {
        (Some(flash), Some((dc, used))) if !ssd => {
            let mut b = Buffer { store: flash, dram_ns: dc.dram_ns, sync: dc.eviction == Eviction::Sync };
            run.drive(reader.as_mut(), &mut b, progress)?;
            Some(run.device_row(&b.store, used, setup_seconds, None))
        }
        (Some(flash), Some((dc, used))) => {
            let mut cache = SsdCache::new(flash, Disk::new(stack.disk_ns), stack.write);
            let mut dram = None;
            if dram_pages > 0 {
                let lru = policy::build("lru", dram_pages, Default::default())?.0;
                let flash_tier = std::mem::replace(&mut run.tier, Tier::new(lru, dram_pages));
                let mut b = Buffer { store: Below { tier: flash_tier, dev: cache }, dram_ns: dc.dram_ns, sync: true };
                run.drive(reader.as_mut(), &mut b, progress)?;
                dram = Some(std::mem::replace(&mut run.tier, b.store.tier).counters);
                cache = b.store.dev;
            } else {
                run.drive(reader.as_mut(), &mut cache, progress)?;
            }
            let row = SsdRow {
                write_mode: stack.write.name(),
                stats: cache.stats,
                disk_reads: cache.disk.reads,
                disk_writes: cache.disk.writes,
                disk_busy_ns: cache.disk.busy_ns,
                dram_pages: dram_pages as u64,
                dram: dram.unwrap_or_default(),
                stack_params,
            };
            Some(run.device_row(&cache.flash, used, setup_seconds, Some(row)))
        }
        _ => {
            run.drive(reader.as_mut(), &mut no_device(), progress)?;
            None
        }
    };
    let sim_seconds = start.elapsed().as_secs_f64();
    let mut counters = run.tier.counters;
    counters.requests = run.requests;
    debug_assert!(run.tier.resident() <= run.tier.capacity());
    Ok(ResultRow {
        trace: trace_name(trace),
        format: reader.format().to_string(),
        policy: info.name.to_string(),
        size_pages: size,
        page_size: cfg.page_size,
        counters,
        sim_seconds,
        bad_lines: reader.bad_lines(),
        params,
        device,
        time_scale: cfg.time_scale,
        queue_depth: cfg.queue_depth,
    })
}

/// The device of a flash cache when none is named: the offline-bounds paper's (2 MiB erase
/// units, OP 7%), sized to the cache.
pub const DEFAULT_SSD_CACHE_DEVICE: &str = "offline";

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
    fn new(cfg: &SimConfig) -> Self {
        match cfg.queue_depth {
            0 => Arrivals::Trace { scale: cfg.time_scale, first: None },
            d => Arrivals::Closed { depth: d as usize, outstanding: BinaryHeap::with_capacity(d as usize + 1) },
        }
    }

    #[inline]
    fn arrive(&mut self, t: u64) -> u64 {
        match self {
            Arrivals::Trace { scale, first } => {
                let f = *first.get_or_insert(t);
                if *scale == 1.0 || t <= f {
                    t
                } else {
                    f + ((t - f) as f64 * *scale) as u64
                }
            }
            Arrivals::Closed { depth, outstanding } => {
                if outstanding.len() < *depth {
                    0
                } else {
                    outstanding.pop().map_or(0, |Reverse(t)| t)
                }
            }
        }
    }

    #[inline]
    fn complete(&mut self, done: u64) {
        if let Arrivals::Closed { outstanding, .. } = self {
            outstanding.push(Reverse(done));
        }
    }
}

/// The state of one run of the loop.
struct Run {
    arrivals: Arrivals,
    tier: Tier,
    splitter: PageSplitter,
    next: Vec<u64>,
    requests: u64,
    first_ns: Option<u64>,
    last_ns: u64,
    response: Histogram,
}

impl Run {
    /// The loop: each request's pages go through the tier to `dev`; a timed device records the
    /// request's response time (completion of its last page minus its arrival). Time moves
    /// forward only: a request stamped before its predecessor arrives at its predecessor's time.
    /// Arrivals follow the trace (optionally time-scaled) or a closed loop.
    fn drive<B: Backing>(&mut self, reader: &mut dyn TraceReader, dev: &mut B, mut progress: Option<Progress<'_>>) -> Result<()> {
        let mut index = 0u64;
        while let Some(r) = reader.next_request()? {
            let now = self.arrivals.arrive(r.time_ns).max(self.last_ns);
            self.first_ns.get_or_insert(now);
            self.last_ns = now;
            dev.advance(now);
            let (first, n) = self.splitter.pages(&r);
            let mut done = now;
            for key in first..first + n {
                let next = self.next.get(index as usize).copied().unwrap_or(NEVER);
                done = done.max(self.tier.access(key, r.op, index, next, now, dev)?);
                if r.op != Op::Trim {
                    index += 1;
                }
            }
            if B::TIMED && r.op != Op::Trim {
                self.response.record(done - now);
            }
            self.arrivals.complete(done);
            self.requests += 1;
            if self.requests % PROGRESS_EVERY == 0 {
                if let Some(p) = progress.as_mut() {
                    let (done, total) = reader.progress();
                    if !p(done, total) {
                        return Err(Error::Interrupted);
                    }
                }
            }
        }
        self.tier.flush(self.last_ns, dev)
    }

    /// What `flash` did during the run, for the result row.
    fn device_row(&mut self, flash: &Flash, params: UsedParams, setup_seconds: f64, ssd: Option<SsdRow>) -> DeviceRow {
        let st = flash.stats();
        let (wear_min, wear_max) =
            flash.ftl().erase_counts().fold((u64::MAX, 0), |(lo, hi), e| (lo.min(u64::from(e)), hi.max(u64::from(e))));
        DeviceRow {
            preset: flash.cfg.preset.clone(),
            params,
            host_page_reads: st.host_reads,
            host_page_writes: st.host_writes,
            gc_page_copies: st.gc_copies,
            erasures: st.erasures,
            blocks: u64::from(flash.cfg.geometry.total_blocks()),
            wear_min,
            wear_max,
            chip_busy_ns: flash.timing().busy().collect(),
            balance_rates: flash.timing().balance_rates(),
            response: std::mem::take(&mut self.response),
            duration_ns: self.last_ns - self.first_ns.unwrap_or(0),
            setup_seconds,
            ssd,
        }
    }
}
