//! One run: a [`SimConfig`] assembled into a policy, a cache stack and a device, driven over a
//! trace by the loop ([`crate::sim`]), and reported as one [`ResultRow`]. The top of the crate:
//! it may use every module, and no module uses it.

use crate::config::SimConfig;
use crate::device::{no_device, Buffer, DeviceConfig, Disk, Eviction, Flash, Layout};
use crate::error::{compact, Error, Result};
use crate::metrics::{BoundsRow, DeviceRow, ResultRow, SplitRow, SsdRow, Timing};
use crate::offline::{self, Algorithm};
use crate::params::{Params, UsedParams};
use crate::policy;
use crate::request::{KeyUnit, PageSplitter};
use crate::sim::{self, Progress, Run};
use crate::size::SizeSpec;
use crate::stack::split::SPLITS;
use crate::stack::{Below, CostModel, Split, SplitMode, SsdCache, StackConfig, StackKind, Tier};
use crate::trace::{self, TraceOptions};
use std::time::Instant;

/// Checks a configuration against a trace without simulating it: everything [`simulate`] checks
/// before its first request (the policy, size, device, stack and trace keys and values, the
/// trace's format and header), nothing of the run. A percent size needs the trace's working set:
/// `working_set` (pages), or one pass over the trace.
pub fn check(trace: &str, opts: &TraceOptions, cfg: &SimConfig, working_set: Option<u64>) -> Result<()> {
    cfg.validate()?;
    match offline::algorithm(&cfg.policy) {
        Some(alg) => {
            bounds_timing(cfg, alg)?;
            trace::open(trace, opts)?;
            let ws = match (cfg.size, working_set) {
                (SizeSpec::Percent(_), None) => Some(sim::working_set(trace, opts, cfg.page_size, None)?),
                (_, ws) => ws,
            };
            bounds_setup(cfg, alg, cfg.size.pages(cfg.page_size, ws)?).map(|_| ())
        }
        None => Assembly::new(trace, opts, cfg, working_set, None).map(|_| ()),
    }
}

/// Refuses what a warm-up or epochs cannot do in this run: a time without arrival times, a
/// warm-up under the dynamic split's controller (its windows count from the run's start).
fn check_measure(cfg: &SimConfig, timed: bool, stack: &StackConfig) -> Result<()> {
    cfg.check_measure(timed)?;
    if let (Some(w), Some(SplitMode::Dynamic(_))) = (cfg.warmup, stack.split) {
        return Err(Error::config(format!(
            "sim.warmup={w}: stack.split=dynamic re-splits by windows counted from the run's start and cannot restart them after a warm-up; drop sim.warmup"
        )));
    }
    Ok(())
}

/// A configuration assembled for one trace, before its first request: what [`check`] checks
/// and [`simulate`] runs.
struct Assembly {
    info: &'static policy::PolicyInfo,
    stack: StackConfig,
    stack_params: UsedParams,
    ssd: bool,
    /// A flash cache's disks: how pages are placed on them.
    disk_layout: Option<Layout>,
    reader: Box<dyn trace::TraceReader>,
    size: u64,
    device: Option<(DeviceConfig, UsedParams)>,
    dram_pages: usize,
    /// A split SSD: its physical pages, cost model, cache pages and dynamic controller.
    split: Option<(u64, CostModel, usize, Option<Split>)>,
    capacity: usize,
    policy: Box<dyn policy::Policy>,
    params: UsedParams,
}

impl Assembly {
    /// `progress` follows (and can stop) the working-set pass a percent size takes.
    fn new(
        trace: &str,
        opts: &TraceOptions,
        cfg: &SimConfig,
        working_set: Option<u64>,
        progress: Option<Progress<'_>>,
    ) -> Result<Assembly> {
        let info = policy::policy_by_name(&cfg.policy)?;
        let (stack, stack_params) = StackConfig::build(&cfg.stack_params)?;
        let ssd = stack.kind == StackKind::SsdCache;
        let mut reader = trace::open(trace, opts)?;
        if matches!(cfg.size, SizeSpec::Percent(_)) {
            reader.check_unique_pages();
        }
        let disk_layout = if ssd { Some(stack.disk.layout(cfg.page_size)?) } else { None };
        if disk_layout == Some(Layout::PerVolume) && reader.key_unit() == KeyUnit::Object {
            return Err(Error::config("stack.disks=volume: the trace's keys are object ids, which carry no volume; use a number of disks"));
        }
        check_measure(cfg, reader.timed(), &stack)?;
        // `none` caches nothing: its size is not needed and is reported as 0.
        let cached = info.name != "none";
        let ws = match (cfg.size, working_set) {
            (SizeSpec::Percent(_), None) if cached => Some(sim::working_set(trace, opts, cfg.page_size, progress)?),
            (_, ws) => ws,
        };
        let size = if cached { cfg.size.pages(cfg.page_size, ws)? } else { 0 };
        // A flash cache's SSD holds the cache: its user capacity is the cache size. A split SSD's
        // raw capacity is the size; its logical space holds the largest cache a split allows.
        let mut device_params = cfg.device_params.clone();
        if let Some(mode) = stack.split {
            if let Some(k) = ["capacity", "physical", "op"].into_iter().find(|k| device_params.contains_key(*k)) {
                return Err(Error::config(format!(
                    "device.{k}: with stack.split the SSD's raw capacity is --size and its spare share the split; drop device.{k}"
                )));
            }
            let least = match mode {
                SplitMode::Static(s) => s.min(SPLITS[0]),
                SplitMode::Dynamic(_) => SPLITS[0],
            };
            device_params.insert("physical".into(), size.max(1).to_string());
            device_params.insert("op".into(), compact(least / (1.0 - least)));
        } else if ssd {
            device_params.entry("capacity".into()).or_insert_with(|| size.max(1).to_string());
        }
        let preset = cfg.device.as_deref().or(ssd.then_some(DEFAULT_SSD_CACHE_DEVICE));
        let device = preset.map(|p| DeviceConfig::build(p, &device_params, cfg.page_size)).transpose()?;
        if info.needs_view && (device.is_none() || ssd) {
            return Err(Error::config(format!(
                "{} chooses victims by the flash device's chip loads: run it as the DRAM buffer over a flash device (--device lcr); without that view it would be CFLRU",
                info.name
            )));
        }
        let dram_pages = (stack.dram * size as f64).round() as usize;
        if dram_pages > 0 && info.offline {
            return Err(Error::config(format!("{} is offline: it cannot run below a DRAM tier (set stack.dram=0)", info.name)));
        }
        // A split SSD: the cache's size follows from the drive's raw pages (whole blocks).
        let split = match (stack.split, &device) {
            (Some(mode), Some((dc, _))) => {
                let physical = dc.geometry.physical_pages();
                let model = CostModel {
                    read_ns: dc.read_ns as f64,
                    write_ns: dc.write_ns as f64,
                    erase_ns: dc.erase_ns as f64,
                    // Eq. 5's disk access latency: the disk's expected random single-page read.
                    disk_ns: stack.disk.model.random_page_ns(cfg.page_size),
                    pages_per_block: f64::from(dc.geometry.pages_per_block),
                    // The per-request rule's parallelism: the chips, which program at once.
                    parallel: f64::from(dc.geometry.chips()),
                };
                Some(match mode {
                    SplitMode::Static(s) => (physical, model, Split::cache_pages(physical, s), None),
                    SplitMode::Dynamic(d) => {
                        d.check(physical, dc.geometry.pages_per_block)?;
                        let ctl = Split::new(physical, model, d);
                        (physical, model, ctl.capacity(), Some(ctl))
                    }
                })
            }
            _ => None,
        };
        let capacity = split.as_ref().map_or(size.max(1) as usize, |s| s.2);
        let (mut policy, params) = policy::build(&cfg.policy, capacity, cfg.params.clone())?;
        if matches!(split, Some((.., Some(_)))) && !policy.resize(capacity, &mut Vec::new()) {
            return Err(Error::config(format!(
                "{} cannot change its size; stack.split=dynamic resizes the cache (use lru, as the paper)",
                info.name
            )));
        }
        Ok(Assembly { info, stack, stack_params, ssd, disk_layout, reader, size, device, dram_pages, split, capacity, policy, params })
    }
}

/// Simulates one configuration over a trace. `working_set` (pages) avoids a pass over the trace
/// for percent sizes when the caller already knows it.
pub fn simulate(
    trace: &str,
    opts: &TraceOptions,
    cfg: &SimConfig,
    working_set: Option<u64>,
    mut progress: Option<Progress<'_>>,
) -> Result<ResultRow> {
    cfg.validate()?;
    if let Some(alg) = offline::algorithm(&cfg.policy) {
        return simulate_bounds(trace, opts, cfg, alg, progress);
    }
    // Every pass over the trace (working set, next accesses, the run) reports to `progress`.
    let Assembly { info, stack, stack_params, ssd, disk_layout, mut reader, size, device, dram_pages, split, capacity, policy, params } =
        Assembly::new(trace, opts, cfg, working_set, trace::lend(&mut progress))?;
    let next = if info.offline { sim::next_accesses(trace, opts, cfg.page_size, trace::lend(&mut progress))? } else { Vec::new() };
    if !info.offline {
        // The run uses none of a `.fct` header's counts; an offline policy's uses the length of
        // the next-access column, which only the counts check.
        reader.skip_count_checks();
    }
    let mut tier = Tier::with_mode(policy, capacity, stack.write);
    tier.read_bypass = stack.read_bypass;
    let mut run = Run::new(tier, PageSplitter::new(cfg.page_size, reader.key_unit()), next, cfg.time_scale, cfg.queue_depth);
    run.read_ahead = cfg.read_ahead;
    run.measure(cfg.warmup, cfg.epoch);
    let split = split.map(|(physical, model, _, ctl)| {
        run.split = ctl;
        (physical, model)
    });

    // The clock starts after the device is built and preconditioned (reported apart as
    // `device_setup_s`, and stopped by `progress` as the loop is), so requests/s measures the
    // loop alone.
    let setup = Instant::now();
    let flash = match &device {
        Some((dc, _)) => Some(Flash::new(dc.clone(), trace::lend(&mut progress))?),
        None => None,
    };
    let setup_seconds = setup.elapsed().as_secs_f64();
    let start = Instant::now();
    let device = match (flash, device) {
        (Some(mut flash), Some((dc, used))) if !ssd => {
            // Only a policy that declares the device view reads a chip's load (the windowed rules
            // of GCaR and LCR); for every other the chips keep no queue.
            flash.keep_queue(info.needs_view);
            let mut b = Buffer { store: flash, dram_ns: dc.dram_ns, eviction: dc.eviction };
            run.drive(reader.as_mut(), &mut b, progress)?;
            Some(device_row(&mut run, &b.store, used, setup_seconds, None))
        }
        (Some(flash), Some((dc, used))) => {
            let disk = Disk::new(stack.disk.model.clone(), disk_layout.unwrap_or(Layout::Single), cfg.page_size)?;
            let mut cache = SsdCache::new(flash, disk, stack.write);
            let mut dram = None;
            if dram_pages > 0 {
                let lru = policy::build("lru", dram_pages, Default::default())?.0;
                let flash_tier = std::mem::replace(&mut run.tier, Tier::new(lru, dram_pages));
                let mut b = Buffer { store: Below { tier: flash_tier, dev: cache }, dram_ns: dc.dram_ns, eviction: Eviction::Parallel };
                run.drive_over(reader.as_mut(), &mut b, progress, |b| Some(&b.store.tier))?;
                dram = Some(std::mem::replace(&mut run.tier, b.store.tier).counters);
                cache = b.store.dev;
            } else {
                run.drive(reader.as_mut(), &mut cache, progress)?;
            }
            let split = split.map(|(physical_pages, model)| SplitRow {
                mode: match stack.split {
                    Some(SplitMode::Static(s)) => compact(s),
                    _ => "dynamic".into(),
                },
                physical_pages,
                cache_pages: run.tier.capacity() as u64,
                model,
                log: run.split.take().map(Split::finish),
            });
            let row = SsdRow {
                split,
                write_mode: stack.write.name(),
                stats: cache.stats,
                disk: cache.disk.model().name(),
                disks: cache.disk.spindles() as u64,
                disk_reads: cache.disk.reads,
                disk_writes: cache.disk.writes,
                disk_load: cache.disk.load(),
                dram_pages: dram_pages as u64,
                dram: dram.unwrap_or_default(),
                stack_params,
            };
            Some(device_row(&mut run, &cache.flash, used, setup_seconds, Some(row)))
        }
        _ => {
            run.drive(reader.as_mut(), &mut no_device(), progress)?;
            None
        }
    };
    let sim_seconds = start.elapsed().as_secs_f64();
    let mut counters = run.tier.counters;
    counters.requests = run.measured_requests();
    debug_assert!(run.tier.resident() <= run.tier.capacity());
    let timing = Timing::of(reader.timed(), cfg.queue_depth);
    Ok(ResultRow {
        trace: sim::trace_name(trace),
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
        bounds: None,
        timing,
        warmup: run.excluded(),
        epoch: cfg.epoch,
        epochs: run.take_epochs(),
    })
}

/// An offline-bounds algorithm ([`offline`]): the trace read once into memory, a DRAM tier
/// (`stack.dram` of the cache, 0.05) over a flash cache on the `offline` preset's flash (one
/// plane, user capacity the cache; `stack.buffer` write-buffer containers, 4).
fn simulate_bounds(
    trace: &str,
    opts: &TraceOptions,
    cfg: &SimConfig,
    alg: &Algorithm,
    progress: Option<Progress<'_>>,
) -> Result<ResultRow> {
    bounds_timing(cfg, alg)?;
    let mut reader = trace::open(trace, opts)?;
    let timed = reader.timed();
    let start = Instant::now();
    let t = offline::read_trace(reader.as_mut(), cfg.page_size, timed, progress)?;
    let size = cfg.size.pages(cfg.page_size, Some(t.stream.unique))?;
    let (setup, plan, preset, device_params, stack_params) = bounds_setup(cfg, alg, size)?;
    let b = offline::run_plan(&t, plan, &setup)?;
    let counters = crate::stack::Counters {
        requests: b.requests,
        accesses: b.reads + b.writes,
        reads: b.reads,
        writes: b.writes,
        hits: b.read_hits() + b.dram.write_hits,
        read_hits: b.read_hits(),
        write_hits: b.dram.write_hits,
        insertions: b.flash.insertions,
        evictions: b.evictions,
        backing_reads: b.reads - b.read_hits(),
        backing_writes: b.writes,
        ..Default::default()
    };
    Ok(ResultRow {
        trace: sim::trace_name(trace),
        format: reader.format().to_string(),
        policy: alg.name.to_string(),
        size_pages: size,
        page_size: cfg.page_size,
        counters,
        sim_seconds: start.elapsed().as_secs_f64(),
        bad_lines: reader.bad_lines(),
        params: b.params.clone(),
        device: None,
        time_scale: 1.0,
        queue_depth: 0,
        bounds: Some(BoundsRow {
            preset,
            device_params,
            stack_params,
            physical_pages: setup.device.geometry.physical_pages(),
            user_pages: setup.device.user_pages,
            bounds: b,
        }),
        timing: Timing::of(timed, 0),
        warmup: None,
        epoch: None,
        epochs: Vec::new(),
    })
}

/// An offline bound models no time, and runs whole (no warm-up, no epochs).
fn bounds_timing(cfg: &SimConfig, alg: &Algorithm) -> Result<()> {
    if let Some(w) = cfg.warmup {
        return Err(Error::config(format!(
            "sim.warmup={w}: {} is an offline bound, computed over the whole trace at once (its decisions use every future access), so a warm-up does not apply; drop sim.warmup",
            alg.name
        )));
    }
    if let Some(e) = cfg.epoch {
        return Err(Error::config(format!(
            "epoch={e}: {} is an offline bound, computed over the whole trace at once, so it has no per-epoch table; drop the epoch",
            alg.name
        )));
    }
    if cfg.queue_depth > 0 || cfg.time_scale != 1.0 {
        return Err(Error::config(format!(
            "{} is an offline bound: it models no time, so sim.queue_depth and sim.time_scale do not apply",
            alg.name
        )));
    }
    Ok(())
}

/// An offline bound's flash cache of `size` pages and its parameters, from the configuration.
fn bounds_setup(cfg: &SimConfig, alg: &Algorithm, size: u64) -> Result<(offline::Setup, offline::Plan, String, UsedParams, UsedParams)> {
    if size == 0 {
        return Err(Error::config("cache size must be at least one page"));
    }
    let mut sp = Params::new(cfg.stack_params.clone());
    let dram: f64 = sp.take("stack", "dram", 0.05, "a fraction of the flash cache in [0, 1)")?;
    if !(0.0..1.0).contains(&dram) {
        return Err(Error::config(format!("stack.dram={}: expected a fraction of the flash cache in [0, 1)", compact(dram))));
    }
    let write_buffer: u32 = sp.take("stack", "buffer", 4, "a number of containers >= 1")?;
    if write_buffer == 0 {
        // Refused for every bound, also those that keep no buffer (M): never taken and ignored.
        return Err(Error::config("stack.buffer=0: expected a number of containers >= 1"));
    }
    // Where the C family's write buffer (W containers of blocks held in RAM) is paid for
    // (offline-bounds §5: the 5% DRAM "to hold the maximum number of in-memory containers"):
    // `dram` (default) takes it out of the DRAM tier, which then caches 5% of the flash cache
    // minus W containers; `extra` is fcsim's accounting before issue 28, RAM beside the DRAM
    // tier and the flash (so the buffer's blocks are cached without taking flash, extra spare).
    let buffer_in: String = sp.take("stack", "buffer_in", "dram".to_string(), "dram or extra")?;
    if !matches!(buffer_in.as_str(), "dram" | "extra") {
        return Err(Error::config(format!("stack.buffer_in={buffer_in}: expected dram or extra")));
    }
    let stack_params =
        sp.finish("stack", &["dram", "buffer", "buffer_in"]).map_err(|e| Error::config(format!("{e} (with {})", alg.name)))?;
    let mut dp = cfg.device_params.clone();
    for k in ["fill", "steady"] {
        if dp.contains_key(k) {
            return Err(Error::config(format!("device.{k}: {} starts from an empty flash cache", alg.name)));
        }
    }
    dp.insert("capacity".into(), size.to_string());
    // The C family's write buffer needs free containers beyond the cache's, which 7% of a small
    // cache cannot give: the GC reserve and open block come on top of `device.op` (the row shows
    // the spare simulated, `device_op_actual`).
    dp.entry("reserve".into()).or_insert_with(|| "extra".into());
    for k in ["channels", "chips_per_channel", "dies", "planes"] {
        dp.entry(k.into()).or_insert_with(|| "1".into());
    }
    let preset = cfg.device.as_deref().unwrap_or(DEFAULT_SSD_CACHE_DEVICE);
    let (dc, device_params) = DeviceConfig::build(preset, &dp, cfg.page_size)?;
    if dc.geometry.total_planes() != 1 {
        return Err(Error::config(format!(
            "{}: the flash cache is one plane (one FTL write frontier); drop device.channels/chips/dies/planes",
            alg.name
        )));
    }
    let dram_pages = (dram * size as f64).round() as usize;
    let mut setup = offline::Setup { cache_pages: size, dram_pages, device: dc, write_buffer };
    let plan = offline::prepare(alg, &mut Params::new(cfg.params.clone()), &setup)?;
    // After the algorithm's own parameters and shape are checked (their errors come first).
    if buffer_in == "dram" && matches!(alg.kind, offline::Kind::Offline { containers: true, .. }) {
        let ppb = setup.device.geometry.pages_per_block;
        let buffer = write_buffer as usize * ppb as usize;
        if buffer > dram_pages {
            return Err(Error::config(format!(
                "{}: the write buffer ({write_buffer} containers of {ppb} pages, {buffer} pages) does not fit in the DRAM tier ({dram_pages} pages, \
                 stack.dram={} of the cache) that holds it (stack.buffer_in=dram, offline-bounds §5): use a larger cache or DRAM tier, smaller \
                 containers (device.pages_per_block), a smaller buffer (stack.buffer), or stack.buffer_in=extra",
                alg.name,
                compact(dram)
            )));
        }
        setup.dram_pages -= buffer;
    }
    Ok((setup, plan, preset.to_string(), device_params, stack_params))
}

/// The device of a flash cache when none is named: the offline-bounds paper's (2 MiB erase
/// units, OP 7%), sized to the cache.
pub const DEFAULT_SSD_CACHE_DEVICE: &str = "offline";

/// What `flash` did during the run, for the result row.
fn device_row(run: &mut Run, flash: &Flash, params: UsedParams, setup_seconds: f64, ssd: Option<SsdRow>) -> DeviceRow {
    let st = flash.stats();
    let load = flash.timing().load_summary();
    let loads = [Some(load), ssd.as_ref().map(|s| s.disk_load)];
    let (_, last) = run.arrivals_ns();
    let last_end = loads.iter().flatten().map(|l| l.last_end).max().unwrap_or(0);
    let flush_end = loads.iter().flatten().map(|l| l.flush.end).max().unwrap_or(0);
    let (balance_rates, balance_epochs) = flash.timing().balance_rates();
    let (wear_min, wear_max) = flash.ftl().erase_counts().fold((u64::MAX, 0), |(lo, hi), e| (lo.min(u64::from(e)), hi.max(u64::from(e))));
    DeviceRow {
        preset: flash.cfg.preset.clone(),
        state: flash.cfg.state(),
        params,
        host_page_reads: st.host_reads,
        host_page_writes: st.host_writes,
        gc_page_copies: st.gc_copies,
        erasures: st.erasures,
        blocks: u64::from(flash.cfg.geometry.total_blocks()),
        physical_pages: flash.cfg.geometry.physical_pages(),
        user_pages: flash.cfg.user_pages,
        op_actual: flash.cfg.op_actual(),
        load,
        wear_min,
        wear_max,
        chip_busy_ns: flash.timing().busy().collect(),
        balance_rates,
        balance_epochs,
        response: std::mem::take(&mut run.response),
        duration_ns: run.duration_ns(),
        drain_ns: last_end.saturating_sub(last),
        flush_pages: run.flushed_pages,
        flush_ns: flush_end.saturating_sub(last),
        setup_seconds,
        ssd,
    }
}
