//! The one simulation loop: trace → page splitter → cache tier → counters → result row.
//!
//! Time moves forward only here; no stage calls back into an earlier one.

use crate::config::{SimConfig, SizeSpec};
use crate::error::{Error, Result};
use crate::metrics::ResultRow;
use crate::policy;
use crate::request::{Op, PageSplitter, NEVER};
use crate::stack::Tier;
use crate::trace::{self, fct, info, TraceOptions};
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
    let mut reader = trace::open(trace, opts)?;
    let ws = match (cfg.size, working_set) {
        (SizeSpec::Percent(_), None) => Some(self::working_set(trace, opts, cfg.page_size)?),
        (_, ws) => ws,
    };
    let size = cfg.size.pages(cfg.page_size, ws)?;
    let (policy, params) = policy::build(&cfg.policy, size as usize, cfg.params.clone())?;
    let next = if info.offline { next_accesses(trace, opts, cfg.page_size)? } else { Vec::new() };
    let mut tier = Tier::new(policy, size as usize);
    let splitter = PageSplitter::new(cfg.page_size, reader.key_unit());
    let mut progress = progress;

    let start = Instant::now();
    let mut index = 0u64;
    let mut requests = 0u64;
    while let Some(r) = reader.next_request()? {
        let (first, n) = splitter.pages(&r);
        for key in first..first + n {
            tier.access(key, r.op, index, next.get(index as usize).copied().unwrap_or(NEVER));
            if r.op != Op::Trim {
                index += 1;
            }
        }
        requests += 1;
        if requests % PROGRESS_EVERY == 0 {
            if let Some(p) = progress.as_mut() {
                let (done, total) = reader.progress();
                if !p(done, total) {
                    return Err(Error::Interrupted);
                }
            }
        }
    }
    tier.flush();
    let sim_seconds = start.elapsed().as_secs_f64();
    tier.counters.requests = requests;
    debug_assert!(tier.resident() <= tier.capacity());
    Ok(ResultRow {
        trace: trace_name(trace),
        format: reader.format().to_string(),
        policy: info.name.to_string(),
        size_pages: size,
        page_size: cfg.page_size,
        counters: tier.counters,
        sim_seconds,
        bad_lines: reader.bad_lines(),
        params,
    })
}
