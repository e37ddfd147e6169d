//! One run: a [`SimConfig`] assembled into a policy, a cache stack and a device, driven over a
//! trace by the loop ([`crate::sim`]), and reported as one [`ResultRow`]. The top of the crate:
//! it may use every module, and no module uses it.

use crate::config::SimConfig;
use crate::device::{DeviceConfig, Flash, Layout, Sizing};
use crate::error::{compact, Error, Result};
use crate::metrics::{BoundsRow, DeviceRow, ResultRow, SplitRow, SsdRow, Timing};
use crate::offline::{self, Algorithm};
use crate::params::{Params, UsedParams};
use crate::policy;
use crate::request::{KeyUnit, PageSplitter};
use crate::sim::{self, Progress, Run};
use crate::size::SizeSpec;
use crate::stack::admission::{ml, opt, AdmissionInfo};
use crate::stack::{
    Built, ControllerLog, Counters, Plan, Shape, Spec, SplitMode, SplitShape, SsdCache, StackConfig, StackKind, Tier, WriteMode,
    DEFAULT_SSD_CACHE_DEVICE,
};
use crate::trace::{self, TraceOptions};
use std::time::Instant;

/// The device preset a run of `policy` simulates: `device` if named, else for a flash cache
/// (`stack.kind=ssd-cache`) or an offline bound [`DEFAULT_SSD_CACHE_DEVICE`], else none (a
/// cache in memory, or a DRAM buffer over the backing store without a device).
pub fn device_preset<'a>(policy: &str, device: Option<&'a str>, stack: &StackConfig) -> Option<&'a str> {
    let flash_cache = stack.kind == StackKind::SsdCache || offline::algorithm(policy).is_some();
    device.or(flash_cache.then_some(DEFAULT_SSD_CACHE_DEVICE))
}

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
    if let (Some(w), Some(_)) = (cfg.warmup, stack.budget) {
        return Err(Error::config(format!(
            "sim.warmup={w}: a write budget (admit.budget) is held from the run's start and cannot restart after a warm-up; drop sim.warmup"
        )));
    }
    if let (Some(w), Some(SplitMode::Dynamic(_))) = (cfg.warmup, stack.split) {
        return Err(Error::config(format!(
            "sim.warmup={w}: stack.split=dynamic re-splits by windows counted from the run's start and cannot restart them after a warm-up; drop sim.warmup"
        )));
    }
    Ok(())
}

/// A configuration assembled for one trace, before its first request: what [`check`] checks
/// and [`simulate`] runs. The stack's own checks and shape are [`Plan`]'s.
struct Assembly {
    info: &'static policy::PolicyInfo,
    /// The flash cache's admission (None: `all`) and its parameters as the row shows them.
    admission: Option<&'static AdmissionInfo>,
    admit_params: UsedParams,
    /// `--admit opt`: its share, cap and warm-up share (the run plans before its first request,
    /// see [`opt`]).
    opt: Option<(f64, f64, f64)>,
    /// `--admit ml`: its training share of the requests.
    ml: Option<f64>,
    stack_params: UsedParams,
    split_mode: Option<SplitMode>,
    write: WriteMode,
    reader: Box<dyn trace::TraceReader>,
    size: u64,
}

impl Assembly {
    /// `progress` follows (and can stop) the working-set pass a percent size takes.
    fn new(
        trace: &str,
        opts: &TraceOptions,
        cfg: &SimConfig,
        working_set: Option<u64>,
        progress: Option<Progress<'_>>,
    ) -> Result<(Assembly, Plan)> {
        let (stack, stack_params) = StackConfig::build_with(&cfg.stack_params, &cfg.admit_params)?;
        // `--admit opt` runs its own eviction, MIN over its plan, whatever the policy named.
        let opt = stack.admit.filter(|a| a.name == opt::INFO.name).map(|_| {
            let get = |name: &str, default| stack.admit_values.iter().find(|(k, _)| *k == name).map_or(default, |v| v.1);
            (get("share", 1.0), get("writes", 1.0), get("train", 0.0))
        });
        let ml = stack
            .admit
            .filter(|a| a.name == ml::INFO.name)
            .map(|_| stack.admit_values.iter().find(|(k, _)| *k == "train").map_or(0.3, |v| v.1));
        if let Some(a) = stack.admit.filter(|_| (opt.is_some() || ml.is_some()) && stack.dram > 0.0) {
            return Err(Error::config(format!(
                "--admit {}: its plan is of the flash tier's own accesses, which a DRAM tier above it would change: set stack.dram=0",
                a.name
            )));
        }
        let (name, policy_params) = match opt {
            Some(_) => (opt::POLICY, opt::POLICY_PARAMS.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
            None => (cfg.policy.as_str(), cfg.params.clone()),
        };
        let info = policy::policy_by_name(name)?;
        let ssd = stack.kind == StackKind::SsdCache;
        let mut reader = trace::open(trace, opts)?;
        // A percent size resolved against a `.fct` header's count of unique pages (here, or by
        // the caller, as a sweep does once per trace) checks that count against the records; a
        // size resolved against another count (a pass at another page size, or a caller's own)
        // does not depend on the header and is not held up by its check.
        let header = reader.known_unique_pages(cfg.page_size);
        if matches!(cfg.size, SizeSpec::Percent(_)) && header.is_some() && (working_set.is_none() || working_set == header) {
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
        let (split_mode, write, admission) = (stack.split, stack.write, stack.admit);
        let mut admit_params: UsedParams = admission.map_or_else(Vec::new, |a| {
            a.params.iter().zip(&stack.admit_values).map(|(p, (_, v))| (p.name.to_string(), p.show(*v))).collect()
        });
        if let Some(b) = stack.budget {
            if !reader.timed() && cfg.queue_depth == 0 {
                return Err(Error::config(
                    "admit.budget: a write budget is a rate over simulated time, and this trace has no timestamps; time it with sim.queue_depth=N",
                ));
            }
            admit_params.extend(b.dwpd.map(|d| ("budget".to_string(), compact(d))));
            admit_params.extend(b.mbps.map(|m| ("budget_mbps".to_string(), compact(m))));
            admit_params.push(("window".to_string(), compact(b.window_ns as f64 / 1e9)));
        }
        let plan = Plan::new(Spec {
            policy: name,
            info,
            policy_params,
            stack,
            size,
            page_size: cfg.page_size,
            device: cfg.device.as_deref(),
            device_params: &cfg.device_params,
            disk_layout,
        })?;
        Ok((Assembly { info, opt, ml, admission, admit_params, stack_params, split_mode, write, reader, size }, plan))
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
    let (mut a, plan, mut run) = prepare(trace, opts, cfg, working_set, &mut progress)?;
    // The clock starts after the device is built and preconditioned (reported apart as
    // `device_setup_s`, and stopped by `progress` as the loop is), so requests/s measures the
    // loop alone.
    let setup = Instant::now();
    let mut built = plan.build(trace::lend(&mut progress))?;
    let setup_seconds = setup.elapsed().as_secs_f64();
    let start = Instant::now();
    let reader = a.reader.as_mut();
    match &mut built.shape {
        Shape::Cache(s) => run.drive(reader, s, progress)?,
        Shape::Buffer(s) => run.drive(reader, s, progress)?,
        Shape::Ssd(s) => run.drive(reader, s, progress)?,
        Shape::Layered(s) => run.drive(reader, s, progress)?,
    }
    let sim_seconds = start.elapsed().as_secs_f64();
    Ok(row(trace, cfg, &a, &mut run, built, setup_seconds, sim_seconds))
}

/// The warm-up of a run that trains on (ml) or leaves out (opt's span) the first `train` of the
/// requests: its requests, and the index of the first page access after it.
fn split(p: &sim::PageAccesses, train: f64) -> (u64, u64) {
    let split = (train * p.requests.len() as f64).round() as u64;
    (split, p.requests.get(split as usize).copied().unwrap_or(p.keys.len() as u64))
}

/// The assembly of a configuration for one trace, its plan, and a run ready for the loop: the
/// next-access pass of an offline policy done (which `progress` follows).
fn prepare(
    trace: &str,
    opts: &TraceOptions,
    cfg: &SimConfig,
    working_set: Option<u64>,
    progress: &mut Option<Progress<'_>>,
) -> Result<(Assembly, Plan, Run)> {
    let (mut a, mut plan) = Assembly::new(trace, opts, cfg, working_set, trace::lend(progress))?;
    let mut warmup = cfg.warmup;
    // `--admit ml` (its `admit.train`) and `--admit opt` with `admit.train` above 0: the first
    // `train` of the requests are the row's warm-up, and the plan's span starts after them.
    let train = a.ml.or(a.opt.map(|o| o.2).filter(|&t| t > 0.0));
    if let (Some(w), Some(adm)) = (cfg.warmup, a.admission.filter(|_| train.is_some())) {
        return Err(Error::config(format!(
            "sim.warmup={w}: --admit {} makes its admit.train share of the requests the warm-up; drop sim.warmup",
            adm.name
        )));
    }
    if let (Some(w), Some(_), None) = (cfg.warmup, a.opt, train) {
        // Its plan would span the whole trace, the warm-up included: no bound for the rest.
        return Err(Error::config(format!(
            "sim.warmup={w}: --admit opt plans the whole trace, so it bounds nothing over a later span; set admit.train to the warm-up's share of the requests instead"
        )));
    }
    let next = match (a.opt, a.ml) {
        (Some((share, per_access, _)), _) => {
            let p = sim::page_accesses(trace, opts, cfg.page_size, trace::lend(progress))?;
            let next = trace::convert::next_access(&p.keys)?;
            let first = match train {
                Some(t) => {
                    let (split, first) = split(&p, t);
                    warmup = (split > 0).then_some(sim::Warmup::Requests(split));
                    first
                }
                None => 0,
            };
            let limits = opt::Limits { share, per_access, first: first as usize };
            opt::plan(&p.keys, &p.writes, &next, plan.capacity(), a.write != WriteMode::Around, limits).next
        }
        (None, Some(train)) => {
            // A learned admission: opt's plan (share 1) gives its labels on the training part,
            // the first `train` of the requests, which the row's warm-up leaves out.
            let p = sim::page_accesses(trace, opts, cfg.page_size, trace::lend(progress))?;
            let next = trace::convert::next_access(&p.keys)?;
            let (split, first) = split(&p, train);
            if let Some(adm) = plan.admission_mut() {
                adm.set_split(first);
            }
            warmup = (split > 0).then_some(sim::Warmup::Requests(split));
            opt::plan(&p.keys, &p.writes, &next, plan.capacity(), a.write != WriteMode::Around, opt::Limits::NONE).next
        }
        (None, None) if a.info.offline => sim::next_accesses(trace, opts, cfg.page_size, trace::lend(progress))?,
        (None, None) => Vec::new(),
    };
    if !a.info.offline {
        // The run uses none of a `.fct` header's counts; an offline policy's uses the length of
        // the next-access column, which only the counts check.
        a.reader.skip_count_checks();
    }
    let mut run = Run::new(PageSplitter::new(cfg.page_size, a.reader.key_unit()), next, cfg.time_scale, cfg.queue_depth);
    run.read_ahead = cfg.read_ahead;
    run.measure(warmup, cfg.epoch);
    Ok((a, plan, run))
}

/// The result row of `run` over `built`, once the loop has ended.
fn row(trace: &str, cfg: &SimConfig, a: &Assembly, run: &mut Run, built: Built, setup_seconds: f64, sim_seconds: f64) -> ResultRow {
    let Built { shape, device_params, dram_pages, split, params } = built;
    let counts = |t: &Tier| (t.counters, t.resident(), t.capacity());
    let ssd_row = |cache: &SsdCache, cache_pages: usize, log: Option<ControllerLog>, dram: Option<Counters>| {
        let (split_log, budget) = match log {
            Some(ControllerLog::Split(l)) => (Some(l), None),
            Some(ControllerLog::Budget(b)) => (None, Some(b)),
            None => (None, None),
        };
        SsdRow {
            split: split.map(|SplitShape { physical, model }| SplitRow {
                mode: match a.split_mode {
                    Some(SplitMode::Static(s)) => compact(s),
                    _ => "dynamic".into(),
                },
                physical_pages: physical,
                cache_pages: cache_pages as u64,
                model,
                log: split_log,
            }),
            write_mode: a.write.name(),
            stats: cache.stats,
            disk: cache.disk.model().name(),
            disks: cache.disk.spindles() as u64,
            disk_reads: cache.disk.reads,
            disk_writes: cache.disk.writes,
            disk_load: cache.disk.load(),
            dt_peak: cache.disk.dt_peak(),
            dram_pages: dram_pages as u64,
            dram: dram.unwrap_or_default(),
            stack_params: a.stack_params.clone(),
            budget,
            admission: a.admission.map_or("all", |i| i.name),
            admit_params: a.admit_params.clone(),
        }
    };
    let used = device_params.unwrap_or_default();
    let (measured, device) = match shape {
        Shape::Cache(s) => (counts(s.measured()), None),
        Shape::Buffer(s) => (counts(s.measured()), Some(device_row(run, &s.below.store, used, setup_seconds, None))),
        Shape::Ssd(mut s) => {
            let log = s.controller.take().map(|c| c.finish());
            let ssd = ssd_row(&s.below, s.tier.capacity(), log, None);
            (counts(s.measured()), Some(device_row(run, &s.below.flash, used, setup_seconds, Some(ssd))))
        }
        Shape::Layered(s) => {
            let cache = &s.below.store.dev;
            let ssd = ssd_row(cache, s.measured().capacity(), None, Some(s.tier.counters));
            (counts(s.measured()), Some(device_row(run, &cache.flash, used, setup_seconds, Some(ssd))))
        }
    };
    let (mut counters, resident, capacity) = measured;
    counters.requests = run.measured_requests();
    debug_assert!(resident <= capacity);
    ResultRow {
        trace: sim::trace_name(trace),
        format: a.reader.format().to_string(),
        policy: a.info.name.to_string(),
        size_pages: a.size,
        page_size: cfg.page_size,
        counters,
        sim_seconds,
        bad_lines: a.reader.bad_lines(),
        params,
        device,
        time_scale: cfg.time_scale,
        queue_depth: cfg.queue_depth,
        bounds: None,
        timing: Timing::of(a.reader.timed(), cfg.queue_depth),
        warmup: run.excluded(),
        epoch: cfg.epoch,
        epochs: run.take_epochs(),
        misses: Some(run.misses),
    }
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
        misses: None,
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
    // An offline bound makes its own admission choices: only `--admit all` goes with it (and
    // is not echoed, as before the admission layer).
    let mut stack = cfg.stack_params.clone();
    let admit = stack.remove("admit").unwrap_or_else(|| "all".into());
    if crate::stack::admission::admission_by_name(&admit)?.is_some() || !cfg.admit_params.is_empty() {
        return Err(Error::config(format!(
            "--admit {admit}: {} is an offline bound, which admits by its own rule (use --admit all)",
            alg.name
        )));
    }
    let mut sp = Params::new(stack);
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
    // The flash's user capacity is the cache (a `device.capacity` given is overridden).
    dp.remove("capacity");
    // The C family's write buffer needs free containers beyond the cache's, which 7% of a small
    // cache cannot give: the GC reserve and open block come on top of `device.op` (the row shows
    // the spare simulated, `device_op_actual`).
    dp.entry("reserve".into()).or_insert_with(|| "extra".into());
    for k in ["channels", "chips_per_channel", "dies", "planes"] {
        dp.entry(k.into()).or_insert_with(|| "1".into());
    }
    let preset = cfg.device.as_deref().unwrap_or(DEFAULT_SSD_CACHE_DEVICE);
    let (dc, device_params) = DeviceConfig::build_sized(preset, &dp, cfg.page_size, Sizing::Capacity(size))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Every;

    fn set(pairs: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// The cells of a row that do not depend on wall-clock time, as text (a NaN equals a NaN).
    fn cells(r: &ResultRow) -> Vec<(String, String)> {
        let wall = ["sim_seconds", "requests_per_s", "requests_per_wall_s", "device_setup_s"];
        r.columns().into_iter().filter(|(k, _)| !wall.contains(&k.as_str())).map(|(k, v)| (k, format!("{v:?}"))).collect()
    }

    /// One request stream, read once and fed request by request ([`Run::step`]) into three stacks
    /// (a DRAM buffer over an SSD with epochs; a DRAM tier over a flash cache over a disk; a
    /// flash write cache whose controller re-splits it), gives each stack the row its own run
    /// gives: the stacks share nothing but the requests.
    #[test]
    fn one_stream_feeds_several_stacks() {
        let trace = "synth:zipf,alpha=0.9,requests=60000,pages=60000,seed=7,iops=4000,write=0.6";
        let opts = TraceOptions::default();
        let mut buffer = SimConfig::new("lru", SizeSpec::Pages(500));
        buffer.device = Some("lcr".into());
        buffer.epoch = Some(Every::Requests(7000));
        let mut layered = SimConfig::new("arc", SizeSpec::Pages(800));
        layered.stack_params = set(&[("kind", "ssd-cache"), ("write", "back"), ("dram", "0.1")]);
        let mut split = SimConfig::new("lru", SizeSpec::Pages(40000));
        split.device = Some("dynamic".into());
        split.device_params = set(&[("channels", "1"), ("chips_per_channel", "4")]);
        split.stack_params = set(&[
            ("kind", "ssd-cache"),
            ("write", "back"),
            ("split", "dynamic"),
            ("window", "0.1"),
            ("training", "offline"),
            ("u", "0.9:0.8:0.65:0.5:0.4:0.3:0.2:0.1"),
        ]);
        let configs = [buffer, layered, split];
        let alone: Vec<ResultRow> = configs.iter().map(|c| simulate(trace, &opts, c, None, None).unwrap()).collect();

        let mut stacks = Vec::new();
        for c in &configs {
            let (a, plan, run) = prepare(trace, &opts, c, None, &mut None).unwrap();
            stacks.push((a, run, plan.build(None).unwrap()));
        }
        let mut reader = trace::open(trace, &opts).unwrap();
        while let Some(r) = reader.next_request().unwrap() {
            for (_, run, built) in &mut stacks {
                match &mut built.shape {
                    Shape::Cache(s) => run.step(&r, s),
                    Shape::Buffer(s) => run.step(&r, s),
                    Shape::Ssd(s) => run.step(&r, s),
                    Shape::Layered(s) => run.step(&r, s),
                }
                .unwrap();
            }
        }
        let shapes: Vec<&str> = stacks
            .iter()
            .map(|(_, _, b)| match b.shape {
                Shape::Cache(_) => "cache",
                Shape::Buffer(_) => "buffer",
                Shape::Ssd(_) => "ssd",
                Shape::Layered(_) => "layered",
            })
            .collect();
        assert_eq!(shapes, ["buffer", "layered", "ssd"]);
        for ((a, mut run, mut built), (cfg, want)) in stacks.into_iter().zip(configs.iter().zip(&alone)) {
            match &mut built.shape {
                Shape::Cache(s) => run.close(s),
                Shape::Buffer(s) => run.close(s),
                Shape::Ssd(s) => run.close(s),
                Shape::Layered(s) => run.close(s),
            }
            .unwrap();
            let got = row(trace, cfg, &a, &mut run, built, 0.0, 0.0);
            assert_eq!(cells(&got), cells(want), "{}", cfg.policy);
        }
        // The runs did something worth comparing: epochs, a flash cache's flash writes, and
        // the controller's decisions.
        assert_eq!(alone[0].epochs.len(), 9);
        let ssd = |r: &ResultRow| r.device.as_ref().and_then(|d| d.ssd.clone()).unwrap();
        assert!(ssd(&alone[1]).stats.cache_writes > 0 && ssd(&alone[1]).dram.accesses > 0);
        let log = ssd(&alone[2]).split.and_then(|s| s.log).unwrap();
        assert!(log.decisions > 0, "{log:?}");
    }
}
