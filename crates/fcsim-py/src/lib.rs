//! Python bindings of fcsim: argument conversion and error mapping only. Simulation runs with
//! the GIL released; a progress callback, if given, re-acquires it briefly every few tens of
//! thousands of requests and also lets Ctrl-C stop the run.

use fcsim::config::Sets;
use fcsim::fidelity::{self, Fidelity, Get};
use fcsim::metrics::Value;
use fcsim::mrc::Sampling;
use fcsim::trace::{self, convert, info::TraceInfo, TraceOptions};
use fcsim::{Error, SimConfig, SizeSpec};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

create_exception!(fcsim._core, TraceError, PyValueError, "A trace file is missing, unreadable or malformed.");
create_exception!(fcsim._core, ConfigError, PyValueError, "An unknown option or an impossible configuration.");

/// Maps a core error; `pending` is a Python exception raised by the progress callback.
fn to_py(e: Error, pending: Option<PyErr>) -> PyErr {
    match e {
        Error::Interrupted => pending.unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")),
        e if e.is_trace() => TraceError::new_err(e.to_string()),
        e => ConfigError::new_err(e.to_string()),
    }
}

thread_local! {
    /// The last panic on this thread, with its place, recorded by the hook set in `_core`.
    static PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// A panic in the core is a bug, never the input's fault; it reaches Python as a ConfigError
/// (an Exception, which PyO3's PanicException is not) that says so, in one line.
fn internal() -> PyErr {
    let what = PANIC.with(|p| std::mem::take(&mut *p.borrow_mut()));
    ConfigError::new_err(format!("internal error, a bug in fcsim (please report it with the command): {what}"))
}

fn options(
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    trace_params: Option<BTreeMap<String, String>>,
) -> TraceOptions {
    TraceOptions { format, volume, skip_bad_lines, params: trace_params.unwrap_or_default() }
}

/// Runs `f` without the GIL, giving it a progress closure that calls `callback(done, total)`.
fn run<T: Send>(
    py: Python<'_>,
    callback: Option<PyObject>,
    f: impl FnOnce(&mut dyn FnMut(u64, u64) -> bool) -> fcsim::Result<T> + Send,
) -> PyResult<T> {
    let mut pending: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let mut progress = |done: u64, total: u64| {
            Python::with_gil(|py| {
                let r = py.check_signals().and_then(|_| match &callback {
                    Some(cb) => cb.call1(py, (done, total)).map(|_| ()),
                    None => Ok(()),
                });
                r.map_err(|e| pending = Some(e)).is_ok()
            })
        };
        catch_unwind(AssertUnwindSafe(|| f(&mut progress)))
    });
    match result {
        Ok(r) => r.map_err(|e| to_py(e, pending)),
        Err(_) => Err(internal()),
    }
}

fn value(py: Python<'_>, v: &Value) -> PyObject {
    match v {
        Value::Null => py.None(),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(i) => i.into_pyobject(py).map(|o| o.into_any().unbind()).unwrap_or_else(|_| py.None()),
        Value::Float(f) => f.into_pyobject(py).map(|o| o.into_any().unbind()).unwrap_or_else(|_| py.None()),
        Value::Str(s) => s.into_pyobject(py).map(|o| o.into_any().unbind()).unwrap_or_else(|_| py.None()),
        Value::List(l) => l.into_pyobject(py).map(|o| o.into_any().unbind()).unwrap_or_else(|_| py.None()),
    }
}

fn info_dict<'py>(py: Python<'py>, i: &TraceInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("format", &i.format)?;
    d.set_item("page_size", i.page_size)?;
    d.set_item("requests", i.requests)?;
    d.set_item("reads", i.reads)?;
    d.set_item("writes", i.writes)?;
    d.set_item("trims", i.trims)?;
    d.set_item("page_accesses", i.page_accesses)?;
    d.set_item("read_pages", i.read_pages)?;
    d.set_item("write_pages", i.write_pages)?;
    d.set_item("unique_pages", i.unique_pages)?;
    d.set_item("bytes", i.bytes)?;
    d.set_item("time_first_ns", i.time_first_ns)?;
    d.set_item("time_last_ns", i.time_last_ns)?;
    d.set_item("span_ns", i.span_ns())?;
    d.set_item("out_of_order", i.out_of_order)?;
    for (key, l) in [("read_locality", i.read_locality), ("write_locality", i.write_locality)] {
        d.set_item(key, l.map(|l| (l.pages, l.accesses)))?;
    }
    d.set_item("read_rereads", i.read_rereads)?;
    d.set_item("read_second_refs", i.read_second_refs)?;
    d.set_item("once_pages", i.once_pages)?;
    d.set_item("size_histogram", i.size_histogram.clone())?;
    let vols = PyList::empty(py);
    for (v, s) in &i.volumes {
        vols.append((v, s.requests, s.reads, s.writes))?;
    }
    d.set_item("volumes", vols)?;
    d.set_item("bad_lines", i.bad_lines)?;
    d.set_item("object_keys", i.object_keys)?;
    d.set_item("timed", i.timed)?;
    Ok(d)
}

/// A `--set` map as (key, value) pairs in the order given (a Python dict's items).
type Pairs = Vec<(String, String)>;

fn parse_sets(sets: &Pairs) -> PyResult<Sets> {
    Sets::parse(sets.iter().map(|(k, v)| (k.as_str(), v.as_str()))).map_err(|e| to_py(e, None))
}

/// A run's configuration and its reader's options, from the `--set` map whole (the core splits
/// it: [`Sets::parse`], [`SimConfig::from_sets`]).
#[allow(clippy::too_many_arguments)]
fn run_config(
    policy: &str,
    size: &str,
    page_size: u32,
    device: Option<&str>,
    epoch: Option<&str>,
    sets: Option<Pairs>,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
) -> PyResult<(SimConfig, TraceOptions)> {
    let sets = parse_sets(&sets.unwrap_or_default())?;
    let cfg = SimConfig::from_sets(policy, size, page_size, device, epoch, &sets).map_err(|e| to_py(e, None))?;
    Ok((cfg, options(format, volume, skip_bad_lines, Some(sets.trace))))
}

/// Simulates one policy at one size over a trace; returns the result row as a dict and the
/// per-epoch table as a list of dicts (empty without `epoch`).
#[pyfunction]
#[pyo3(signature = (trace, policy, size, *, format=None, volume=None, skip_bad_lines=false, page_size=4096, sets=None, device=None, epoch=None, working_set=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    trace: String,
    policy: String,
    size: &str,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    sets: Option<Pairs>,
    device: Option<String>,
    epoch: Option<String>,
    working_set: Option<u64>,
    progress: Option<PyObject>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyList>)> {
    let (cfg, opts) = run_config(&policy, size, page_size, device.as_deref(), epoch.as_deref(), sets, format, volume, skip_bad_lines)?;
    let row = run(py, progress, |p| fcsim::simulate(&trace, &opts, &cfg, working_set, Some(p)))?;
    let d = PyDict::new(py);
    for (k, v) in row.columns() {
        d.set_item(k, value(py, &v))?;
    }
    let epochs = PyList::empty(py);
    for cols in row.epoch_columns() {
        let e = PyDict::new(py);
        for (k, v) in cols {
            e.set_item(k, value(py, &v))?;
        }
        epochs.append(e)?;
    }
    Ok((d, epochs))
}

/// Checks what `simulate` with the same arguments checks before its first request, without
/// simulating; raises the error it would raise.
#[pyfunction]
#[pyo3(signature = (trace, policy, size, *, format=None, volume=None, skip_bad_lines=false, page_size=4096, sets=None, device=None, epoch=None, working_set=None))]
#[allow(clippy::too_many_arguments)]
fn check(
    py: Python<'_>,
    trace: String,
    policy: String,
    size: &str,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    sets: Option<Pairs>,
    device: Option<String>,
    epoch: Option<String>,
    working_set: Option<u64>,
) -> PyResult<()> {
    let (cfg, opts) = run_config(&policy, size, page_size, device.as_deref(), epoch.as_deref(), sets, format, volume, skip_bad_lines)?;
    run(py, None, |_| fcsim::check(&trace, &opts, &cfg, working_set))
}

/// The `--set` map split by the core ([`Sets::parse`], which refuses a bad key or `sim.*`
/// value): `{"trace": {..}, "device": {..}, "stack": {..}, "sim": {..}, "policy": {NAME: {..}}}`,
/// each section's keys without its prefix.
#[pyfunction]
fn split_sets(py: Python<'_>, sets: Pairs) -> PyResult<Bound<'_, PyDict>> {
    let s = parse_sets(&sets)?;
    let d = PyDict::new(py);
    d.set_item("trace", s.trace)?;
    d.set_item("device", s.device)?;
    d.set_item("stack", s.stack)?;
    d.set_item("admit", s.admit)?;
    d.set_item("sim", s.sim)?;
    d.set_item("policy", s.policy)?;
    Ok(d)
}

/// The device preset a run of `policy` simulates ([`fcsim::run::device_preset`]).
#[pyfunction]
#[pyo3(signature = (policy, device, sets))]
fn device_preset(policy: &str, device: Option<String>, sets: Pairs) -> PyResult<Option<String>> {
    let s = parse_sets(&sets)?;
    let (stack, _) = fcsim::stack::StackConfig::build_with(&s.stack, &s.admit).map_err(|e| to_py(e, None))?;
    Ok(fcsim::run::device_preset(policy, device.as_deref(), &stack).map(str::to_string))
}

/// Statistics of a trace.
#[pyfunction]
#[pyo3(signature = (trace, *, format=None, volume=None, skip_bad_lines=false, page_size=4096, trace_params=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn trace_info<'py>(
    py: Python<'py>,
    trace: String,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    trace_params: Option<BTreeMap<String, String>>,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    if page_size == 0 {
        return Err(ConfigError::new_err("page size must be positive"));
    }
    let opts = options(format, volume, skip_bad_lines, trace_params);
    let info = run(py, progress, |p| {
        let mut r = trace::open(&trace, &opts)?;
        trace::info::trace_info(r.as_mut(), page_size, Some(p))
    })?;
    info_dict(py, &info)
}

/// The working-set size of a trace in pages.
#[pyfunction]
#[pyo3(signature = (trace, *, format=None, volume=None, skip_bad_lines=false, page_size=4096, trace_params=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn working_set(
    py: Python<'_>,
    trace: String,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    trace_params: Option<BTreeMap<String, String>>,
    progress: Option<PyObject>,
) -> PyResult<u64> {
    if page_size == 0 {
        return Err(ConfigError::new_err("page size must be positive"));
    }
    let opts = options(format, volume, skip_bad_lines, trace_params);
    run(py, progress, |p| fcsim::sim::working_set(&trace, &opts, page_size, Some(p)))
}

/// Converts a trace to fct, lcs-csv or oracle-general; returns its statistics.
#[pyfunction]
#[pyo3(signature = (trace, out, *, to=None, format=None, volume=None, skip_bad_lines=false, page_size=4096, trace_params=None, annotate_next=false, progress=None))]
#[allow(clippy::too_many_arguments)]
fn convert_trace<'py>(
    py: Python<'py>,
    trace: String,
    out: String,
    to: Option<String>,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    trace_params: Option<BTreeMap<String, String>>,
    annotate_next: bool,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    let target = match to {
        Some(t) => convert::Target::parse(&t).map_err(|e| to_py(e, None))?,
        None => convert::Target::from_path(Path::new(&out)).map_err(|e| to_py(e, None))?,
    };
    let opts = options(format, volume, skip_bad_lines, trace_params);
    let info = run(py, progress, |p| convert::convert(&trace, &opts, Path::new(&out), target, page_size, annotate_next, p))?;
    let d = info_dict(py, &info)?;
    d.set_item("dropped", target.dropped(&info))?;
    Ok(d)
}

/// Fits a clone model to a trace and saves it to `out`; returns what the model holds and the
/// notes on what it leaves out.
#[pyfunction]
#[pyo3(signature = (trace, out, *, format=None, volume=None, skip_bad_lines=false, trace_params=None))]
fn clone_model<'py>(
    py: Python<'py>,
    trace: String,
    out: String,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    trace_params: Option<BTreeMap<String, String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let opts = options(format, volume, skip_bad_lines, trace_params);
    let m = run(py, None, |p| trace::clone::save_model(&trace, &opts, Path::new(&out), Some(p)))?;
    let d = PyDict::new(py);
    d.set_item("source", &m.source)?;
    d.set_item("requests", m.requests)?;
    d.set_item("pages", m.pages)?;
    d.set_item("accesses", m.accesses)?;
    d.set_item("bad_lines", m.skipped)?;
    d.set_item("timed", m.arrivals.is_some())?;
    d.set_item("notes", trace::clone::notes(&m))?;
    Ok(d)
}

/// Fits the model of a `synth:clone=` trace ahead of its first open, Ctrl-C stopping the fit
/// (opening a trace takes no progress); nothing for any other trace.
#[pyfunction]
#[pyo3(signature = (trace, *, skip_bad_lines=false))]
fn prefit_clone(py: Python<'_>, trace: String, skip_bad_lines: bool) -> PyResult<()> {
    run(py, None, |p| trace::clone::prefit(&trace, skip_bad_lines, Some(p)))
}

/// The exact LRU miss-ratio curve: (accesses, cold misses, step sizes, misses at each step,
/// malformed lines skipped).
#[pyfunction]
#[pyo3(signature = (trace, *, format=None, volume=None, skip_bad_lines=false, page_size=4096, trace_params=None, progress=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn mrc_exact(
    py: Python<'_>,
    trace: String,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    trace_params: Option<BTreeMap<String, String>>,
    progress: Option<PyObject>,
) -> PyResult<(u64, u64, Vec<u64>, Vec<u64>, u64)> {
    let opts = options(format, volume, skip_bad_lines, trace_params);
    let (mrc, bad) = run(py, progress, |p| fcsim::curves::exact(&trace, &opts, page_size, p))?;
    let (sizes, misses) = mrc.steps().into_iter().unzip();
    Ok((mrc.accesses, mrc.cold, sizes, misses, bad))
}

/// The SHARDS miss-ratio curve, with `rate` (fixed rate) or `max_samples` (fixed size), exactly
/// one: (accesses, estimated unique pages, step sizes, estimated misses at each step, final rate,
/// sampled accesses, sampled pages held, first-bucket adjustment, bucket width in pages,
/// malformed lines skipped).
#[pyfunction]
#[pyo3(signature = (trace, *, rate=None, max_samples=None, seed=0, format=None, volume=None, skip_bad_lines=false, page_size=4096, trace_params=None, progress=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn mrc_shards(
    py: Python<'_>,
    trace: String,
    rate: Option<f64>,
    max_samples: Option<u64>,
    seed: u64,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    trace_params: Option<BTreeMap<String, String>>,
    progress: Option<PyObject>,
) -> PyResult<(u64, f64, Vec<u64>, Vec<f64>, f64, u64, u64, f64, u64, u64)> {
    let sampling = match (rate, max_samples) {
        (Some(r), None) => Sampling::Rate(r),
        (None, Some(s)) => Sampling::MaxSamples(usize::try_from(s).unwrap_or(usize::MAX)),
        _ => return Err(ConfigError::new_err("SHARDS takes a sampling rate or a maximum number of samples (one of them)")),
    };
    let opts = options(format, volume, skip_bad_lines, trace_params);
    let (s, bad) = run(py, progress, |p| fcsim::curves::shards(&trace, &opts, page_size, sampling, seed, p))?;
    let (sizes, misses) = s.steps().into_iter().unzip();
    Ok((
        s.accesses(),
        s.unique_pages(),
        sizes,
        misses,
        s.rate(),
        s.samples(),
        s.sampled_pages() as u64,
        s.adjustment(),
        s.bucket_width(),
        bad,
    ))
}

/// Miniature simulations of `policy` at `sizes` (pages) on the SHARDS sample at `rate`: (rate
/// used, accesses, sampled accesses, distinct sampled pages, [(size, miniature size, hits,
/// estimated miss ratio, its standard error, the miniature's own miss ratio, SHARDS-adjusted miss
/// ratio)], malformed lines skipped).
#[pyfunction]
#[pyo3(signature = (trace, policy, sizes, *, rate, seed=0, policy_params=None, format=None, volume=None, skip_bad_lines=false, page_size=4096, trace_params=None, progress=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn mrc_minisim(
    py: Python<'_>,
    trace: String,
    policy: String,
    sizes: Vec<u64>,
    rate: f64,
    seed: u64,
    policy_params: Option<BTreeMap<String, String>>,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    trace_params: Option<BTreeMap<String, String>>,
    progress: Option<PyObject>,
) -> PyResult<(f64, u64, u64, u64, Vec<(u64, u64, u64, f64, f64, f64, f64)>, u64)> {
    let opts = options(format, volume, skip_bad_lines, trace_params);
    let params = policy_params.unwrap_or_default();
    let m = run(py, progress, |p| fcsim::curves::minisim(&trace, &opts, page_size, &policy, &params, &sizes, rate, seed, p))?;
    let points = m
        .points
        .iter()
        .map(|p| (p.size, p.mini_size, p.hits, m.miss_ratio(p), p.hit_ratio_se, m.own_miss_ratio(p), m.adjusted_miss_ratio(p)))
        .collect();
    Ok((m.rate, m.accesses, m.samples, m.sampled_pages, points, m.bad_lines))
}

/// Miniature simulations of a whole stack (see `fcsim::minisim`): `policy` at `sizes` (pages),
/// over `device` (a preset) and the `stack.`/`device.` keys given, on the sample at `rate`, one
/// sample per seed, in one pass. Returns (rate used, accesses, reads, device, [one dict per
/// (seed, size)], malformed lines skipped).
#[pyfunction]
#[pyo3(signature = (trace, policy, sizes, *, rate, seeds, device_metrics=true, device=None, policy_params=None, stack_params=None, device_params=None, format=None, volume=None, skip_bad_lines=false, page_size=4096, trace_params=None, progress=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn minisim_stack<'py>(
    py: Python<'py>,
    trace: String,
    policy: String,
    sizes: Vec<u64>,
    rate: f64,
    seeds: Vec<u64>,
    device_metrics: bool,
    device: Option<String>,
    policy_params: Option<BTreeMap<String, String>>,
    stack_params: Option<BTreeMap<String, String>>,
    device_params: Option<BTreeMap<String, String>>,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    trace_params: Option<BTreeMap<String, String>>,
    progress: Option<PyObject>,
) -> PyResult<(f64, u64, u64, Option<String>, Vec<Bound<'py, PyDict>>, u64)> {
    let opts = options(format, volume, skip_bad_lines, trace_params);
    let spec = fcsim::minisim::StackSpec {
        policy,
        policy_params: policy_params.unwrap_or_default(),
        stack_params: stack_params.unwrap_or_default(),
        device,
        device_params: device_params.unwrap_or_default(),
        page_size,
    };
    let m = run(py, progress, |p| fcsim::minisim::stack_minisim(&trace, &opts, &spec, &sizes, rate, &seeds, device_metrics, Some(p)))?;
    let mut rows = Vec::new();
    for s in &m.seeds {
        for p in &s.points {
            let e = m.estimate(p);
            let d = PyDict::new(py);
            let t = &p.counts.tier;
            d.set_item("seed", s.seed)?;
            d.set_item("size_pages", p.size)?;
            d.set_item("mini_size_pages", p.mini_size)?;
            d.set_item("samples", s.samples)?;
            d.set_item("sampled_pages", s.sampled_pages)?;
            d.set_item("hit_ratio", e.hit_ratio)?;
            d.set_item("hit_ratio_se", p.hit_ratio_se)?;
            d.set_item("write_rse", s.write_rse)?;
            d.set_item("read_hit_ratio", e.read_hit_ratio)?;
            d.set_item("flash_page_writes", e.flash_page_writes)?;
            d.set_item("erasures", e.erasures)?;
            d.set_item("write_amplification", e.write_amplification)?;
            d.set_item("mini_accesses", t.accesses)?;
            d.set_item("mini_hits", t.hits)?;
            d.set_item("mini_flash_page_writes", p.counts.flash.map(|f| f.host_writes + f.gc_copies))?;
            d.set_item("mini_erasures", p.counts.flash.map(|f| f.erasures))?;
            d.set_item("mini_blocks", p.counts.flash.map(|_| p.counts.blocks))?;
            d.set_item("mini_user_pages", p.counts.flash.map(|_| p.counts.user_pages))?;
            d.set_item("full_blocks", p.counts.flash.map(|_| p.full_blocks))?;
            d.set_item("mini_plane_blocks", p.counts.flash.map(|_| p.counts.plane_blocks))?;
            d.set_item("full_plane_blocks", p.counts.flash.map(|_| p.full_plane_blocks))?;
            rows.push(d);
        }
    }
    Ok((m.rate, m.accesses, m.reads, m.device, rows, m.bad_lines))
}

fn fidelity_dict<'py>(py: Python<'py>, f: &Fidelity) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let notes = PyDict::new(py);
    d.set_item("trace", &f.trace)?;
    d.set_item("format", &f.stats.format)?;
    d.set_item("page_size", f.stats.page_size)?;
    d.set_item("timed", f.stats.timed)?;
    d.set_item("bad_lines", f.stats.bad_lines)?;
    d.set_item("time_resolution_ns", (f.stats.resolution_ns > 0).then_some(f.stats.resolution_ns))?;
    let mut names = Vec::new();
    for m in fidelity::MEASURES {
        if let Get::One(get) = m.get {
            names.push(m.name);
            match get(f) {
                Ok(v) => d.set_item(m.name, v)?,
                Err(why) => {
                    d.set_item(m.name, py.None())?;
                    notes.set_item(m.name, why)?;
                }
            }
        }
    }
    d.set_item("measures", names)?;
    d.set_item("bursty", f.bursty())?;
    d.set_item("lru_pages", f.lru.iter().map(|r| r.pages).collect::<Vec<_>>())?;
    let shares: Vec<f64> = fidelity::mrc_shares().collect();
    let curve: Vec<Option<f64>> = shares.iter().map(|&s| f.stats.miss_ratio_at(s).ok()).collect();
    d.set_item("mrc_shares", shares)?;
    d.set_item("mrc_miss_ratio", curve)?;
    d.set_item("panel", f.panel.clone())?;
    d.set_item("panel_shares", f.panel_runs.iter().map(|r| r.share).collect::<Vec<_>>())?;
    d.set_item("panel_pages", f.panel_runs.iter().map(|r| r.pages).collect::<Vec<_>>())?;
    d.set_item("panel_hit_ratio", f.panel_runs.iter().map(|r| r.hit_ratios.clone()).collect::<Vec<_>>())?;
    d.set_item("notes", notes)?;
    Ok(d)
}

/// The fidelity measures of one trace (see `fcsim::fidelity`): a dict of measure -> value
/// (None where not applicable, with the reason in `notes`), and the hit ratios of `panel`'s
/// policies (none by default).
#[pyfunction]
#[pyo3(signature = (trace, *, format=None, volume=None, skip_bad_lines=false, page_size=4096, trace_params=None, panel=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn trace_fidelity<'py>(
    py: Python<'py>,
    trace: String,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    page_size: u32,
    trace_params: Option<BTreeMap<String, String>>,
    panel: Option<Vec<String>>,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    let opts = options(format, volume, skip_bad_lines, trace_params);
    let panel = panel.unwrap_or_default();
    let f = run(py, progress, |p| fidelity::measure(&trace, &opts, page_size, &panel, Some(p)))?;
    fidelity_dict(py, &f)
}

/// The fidelity report of each trace of `b` against trace `a` (`fcsim::fidelity::compare`),
/// with the tolerances from `a`'s halves (measured once) and, if given, the `baseline` trace
/// scored beside each: (a's measures, each b's, the baseline's or None, [H1's, H2's], each b's
/// rows). A row is a dict: measure,
/// description, a, b (for a measure of the pair, B's value against A), difference (b - a),
/// ratio (b / a), tolerance (as text), bound, tolerance_from (the half that set it), h1 and h2
/// (the halves' scores), score (B's), status, note, and baseline, baseline_score and
/// baseline_status (None without a baseline).
#[pyfunction]
#[pyo3(signature = (a, b, *, panel, baseline=None, format=None, volume=None, skip_bad_lines=false, trace_params=None, format_b=None, volume_b=None, trace_params_b=None, page_size=4096, progress=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn trace_compare<'py>(
    py: Python<'py>,
    a: String,
    b: Vec<String>,
    panel: Vec<String>,
    baseline: Option<String>,
    format: Option<String>,
    volume: Option<u32>,
    skip_bad_lines: bool,
    trace_params: Option<BTreeMap<String, String>>,
    format_b: Option<String>,
    volume_b: Option<u32>,
    trace_params_b: Option<BTreeMap<String, String>>,
    page_size: u32,
    progress: Option<PyObject>,
) -> PyResult<(
    Bound<'py, PyDict>,
    Vec<Bound<'py, PyDict>>,
    Option<Bound<'py, PyDict>>,
    Vec<Bound<'py, PyDict>>,
    Vec<Vec<Bound<'py, PyDict>>>,
)> {
    let opts_a = options(format, volume, skip_bad_lines, trace_params);
    let opts_b = options(format_b, volume_b, skip_bad_lines, trace_params_b);
    fidelity::check_panel(&panel).map_err(|e| to_py(e, None))?;
    let (r, fb, fnaive) = run(py, progress, |p| {
        let r = fidelity::reference(&a, &opts_a, page_size, &panel, Some(&mut *p))?;
        let fb = b.iter().map(|b| fidelity::measure(b, &opts_b, page_size, &panel, Some(&mut *p))).collect::<Result<Vec<_>, _>>()?;
        let fnaive = match &baseline {
            Some(n) => Some(fidelity::measure(n, &TraceOptions::default(), page_size, &panel, Some(p))?),
            None => None,
        };
        Ok((r, fb, fnaive))
    })?;
    let mut reports = Vec::new();
    for fb in &fb {
        reports.push(compare_rows(py, &r, fb, fnaive.as_ref())?);
    }
    let halves = r.halves.iter().map(|h| fidelity_dict(py, h)).collect::<PyResult<Vec<_>>>()?;
    let naive = fnaive.as_ref().map(|n| fidelity_dict(py, n)).transpose()?;
    let fb = fb.iter().map(|f| fidelity_dict(py, f)).collect::<PyResult<Vec<_>>>()?;
    Ok((fidelity_dict(py, &r.a)?, fb, naive, halves, reports))
}

/// The rows of `b`'s report against the reference `r` ([`trace_compare`]).
fn compare_rows<'py>(
    py: Python<'py>,
    r: &fidelity::Reference,
    b: &fidelity::Fidelity,
    naive: Option<&fidelity::Fidelity>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let mut rows = Vec::new();
    for row in fidelity::compare(r, b, naive) {
        let d = PyDict::new(py);
        let t = row.tolerance.clone().ok().flatten();
        d.set_item("measure", row.measure.name)?;
        d.set_item("description", row.measure.what)?;
        d.set_item("a", row.a.clone().ok())?;
        d.set_item("b", row.b.value.clone().ok())?;
        d.set_item("difference", row.difference)?;
        d.set_item("ratio", row.ratio)?;
        d.set_item("tolerance", t.map(|t| t.to_string()).unwrap_or_default())?;
        d.set_item("bound", t.map(|t| t.bound))?;
        d.set_item("tolerance_from", t.map(|t| t.from.name()))?;
        d.set_item("h1", t.map(|t| t.halves[0]))?;
        d.set_item("h2", t.map(|t| t.halves[1]))?;
        d.set_item("score", row.b.score)?;
        d.set_item("status", row.b.status.name())?;
        d.set_item("note", row.note())?;
        let n = row.baseline.as_ref();
        d.set_item("baseline", n.and_then(|n| n.value.clone().ok()))?;
        d.set_item("baseline_score", n.and_then(|n| n.score))?;
        d.set_item("baseline_status", n.map(|n| n.status.name()))?;
        rows.push(d);
    }
    Ok(rows)
}

/// Validates a cache size string; raises ConfigError if it cannot be parsed.
#[pyfunction]
fn check_size(size: &str) -> PyResult<()> {
    SizeSpec::parse(size).map(|_| ()).map_err(|e| to_py(e, None))
}

/// A cache size string in pages (`working_set` is needed for percentages); raises ConfigError.
#[pyfunction]
#[pyo3(signature = (size, page_size=4096, working_set=None))]
fn size_pages(size: &str, page_size: u32, working_set: Option<u64>) -> PyResult<u64> {
    if page_size == 0 {
        return Err(ConfigError::new_err("page size must be positive"));
    }
    SizeSpec::parse(size).and_then(|s| s.pages(page_size, working_set)).map_err(|e| to_py(e, None))
}

/// Registered policies: (name, description, source, parameters).
#[pyfunction]
fn policies() -> Vec<(&'static str, &'static str, &'static str, Vec<&'static str>, bool)> {
    let policies = fcsim::policy::POLICIES.iter().map(|p| (p.name, p.description, p.source, p.params.to_vec(), p.needs_view));
    let bounds = fcsim::offline::ALGORITHMS.iter().map(|a| (a.name, a.description, a.source, a.params.to_vec(), false));
    policies.chain(bounds).collect()
}

type KeyValues = Vec<(&'static str, &'static str)>;

/// One admission parameter: (name, default, lo, hi, meaning, words).
type AdmitParam = (&'static str, f64, f64, f64, &'static str, Vec<&'static str>);

/// One admission policy: (name, description, source, knob, parameters).
type AdmitRow = (&'static str, &'static str, &'static str, Option<&'static str>, Vec<AdmitParam>);

/// Admission policies, `all` first.
#[pyfunction]
fn admissions() -> Vec<AdmitRow> {
    fcsim::stack::admission::admissions()
        .map(|a| {
            let params = a.params.iter().map(|p| (p.name, p.default, p.lo, p.hi, p.meaning, p.words.to_vec())).collect();
            (a.name, a.description, a.source, a.knob, params)
        })
        .collect()
}

/// Device presets: (name, source, overrides), and fcsim's device defaults.
#[pyfunction]
fn devices() -> (Vec<(&'static str, &'static str, KeyValues)>, KeyValues) {
    let presets = fcsim::device::PRESETS.iter().map(|p| (p.name, p.source, p.values.to_vec())).collect();
    (presets, fcsim::device::config::DEFAULTS.to_vec())
}

/// Trace formats: (name, description, time unit).
#[pyfunction]
fn formats() -> Vec<(&'static str, &'static str, &'static str)> {
    trace::FORMATS.iter().map(|f| (f.name, f.description, f.time_unit)).collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A panic is recorded for `internal` instead of printed: the CLI's error is one line.
    std::panic::set_hook(Box::new(|info| PANIC.with(|p| *p.borrow_mut() = info.to_string().replace('\n', " "))));
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    // Provenance of every result row: the package version and the source revision built from.
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add("REVISION", env!("FCSIM_REVISION"))?;
    // What caches of the core's output are keyed by (`fcsim::SOURCE_DIGEST`).
    m.add("SOURCE_DIGEST", fcsim::SOURCE_DIGEST)?;
    // The fidelity report's policy panel by default.
    m.add("PANEL", fcsim::fidelity::PANEL.to_vec())?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(split_sets, m)?)?;
    m.add_function(wrap_pyfunction!(device_preset, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(working_set, m)?)?;
    m.add_function(wrap_pyfunction!(convert_trace, m)?)?;
    m.add_function(wrap_pyfunction!(trace_fidelity, m)?)?;
    m.add_function(wrap_pyfunction!(trace_compare, m)?)?;
    m.add_function(wrap_pyfunction!(clone_model, m)?)?;
    m.add_function(wrap_pyfunction!(prefit_clone, m)?)?;
    m.add_function(wrap_pyfunction!(mrc_exact, m)?)?;
    m.add_function(wrap_pyfunction!(mrc_shards, m)?)?;
    m.add_function(wrap_pyfunction!(mrc_minisim, m)?)?;
    m.add_function(wrap_pyfunction!(minisim_stack, m)?)?;
    m.add_function(wrap_pyfunction!(check_size, m)?)?;
    m.add_function(wrap_pyfunction!(size_pages, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(admissions, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(devices, m)?)?;
    Ok(())
}
