//! Run configuration, validated once before the first request is simulated.

use crate::error::{compact, Error, Result};
use crate::sim::{Every, Warmup};
use crate::size::SizeSpec;
use std::collections::BTreeMap;

/// One simulation: a policy at a size over a trace.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub policy: String,
    pub size: SizeSpec,
    /// Page size in bytes (default 4096).
    pub page_size: u32,
    /// Policy parameters, without the `policy.` prefix.
    pub params: BTreeMap<String, String>,
    /// Device preset behind the tier (`lcr`, `gasa`, ...), or none.
    pub device: Option<String>,
    /// Device parameters, without the `device.` prefix.
    pub device_params: BTreeMap<String, String>,
    /// Cache-stack parameters, without the `stack.` prefix (see [`crate::stack::StackConfig`]).
    pub stack_params: BTreeMap<String, String>,
    /// Inter-arrival times are multiplied by this (below 1: a heavier load). Default 1.
    pub time_scale: f64,
    /// A closed loop of this many outstanding requests instead of the trace's times (0: off).
    pub queue_depth: u32,
    /// A warm-up after which every statistic is reset (`sim.warmup`; [`Warmup::parse`]).
    pub warmup: Option<Warmup>,
    /// The length of the per-epoch table's epochs (`--epoch`; [`Every::parse`]), or none.
    pub epoch: Option<Every>,
    /// Read the trace on a second thread where that pays (`sim.read_ahead`, default true;
    /// [`crate::trace::read_ahead`]). The results are the same either way; false keeps a run
    /// on one core (sweeps that already occupy every core).
    pub read_ahead: bool,
}

impl SimConfig {
    pub fn new(policy: &str, size: SizeSpec) -> Self {
        SimConfig {
            policy: policy.to_string(),
            size,
            page_size: 4096,
            params: BTreeMap::new(),
            device: None,
            device_params: BTreeMap::new(),
            stack_params: BTreeMap::new(),
            time_scale: 1.0,
            queue_depth: 0,
            warmup: None,
            epoch: None,
            read_ahead: true,
        }
    }

    pub fn validate(&self) -> Result<()> {
        if self.page_size == 0 {
            return Err(Error::config("page size must be positive"));
        }
        if !(self.time_scale > 0.0 && self.time_scale.is_finite()) {
            return Err(Error::config(format!("time scale {}: expected a factor > 0", compact(self.time_scale))));
        }
        if self.queue_depth > 0 && self.time_scale != 1.0 {
            return Err(Error::config("a closed loop (queue depth) ignores the trace's times: do not combine it with a time scale"));
        }
        // The offline bounds' flash is the `offline` preset unless a device is named.
        let bounds = crate::offline::algorithm(&self.policy).is_some();
        if self.device.is_none() && !self.device_params.is_empty() && !bounds {
            let k = self.device_params.keys().next().map_or("", |k| k.as_str());
            return Err(Error::config(format!("device.{k} is set but no device is: give a device preset (--device lcr)")));
        }
        if bounds {
            return Ok(());
        }
        crate::policy::policy_by_name(&self.policy).map(|_| ())
    }

    /// Refuses a warm-up or an epoch given as a time when the run has no arrival times (a
    /// trace without timestamps, not run as a closed loop).
    pub fn check_measure(&self, trace_timed: bool) -> Result<()> {
        if trace_timed || self.queue_depth > 0 {
            return Ok(());
        }
        let why = "the trace has no timestamps, so the run has no simulated time";
        if let Some(w) = self.warmup.filter(|w| w.timed()) {
            return Err(Error::config(format!(
                "sim.warmup={w}: {why}; give a number of requests (sim.warmup=100000), full, or time the run as a closed loop (sim.queue_depth=N)"
            )));
        }
        if let Some(e) = self.epoch.filter(|e| e.timed()) {
            return Err(Error::config(format!(
                "epoch={e}: {why}; give a number of requests (--epoch 100000), or time the run as a closed loop (sim.queue_depth=N)"
            )));
        }
        Ok(())
    }
}
