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
    /// The admission policy's parameters, without the `admit.` prefix
    /// ([`crate::stack::admission`]).
    pub admit_params: BTreeMap<String, String>,
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

/// A run's `--set` map (`SECTION.KEY` to its value as text) split by section: `trace.*` keys
/// go to the reader ([`crate::TraceOptions`]), `device.*`, `stack.*`, `admit.*` and each policy's
/// `POLICY.*` keys to the run, and the `sim.*` keys are parsed here. A new section is a field
/// here, an arm of [`Sets::parse`] and a line of [`SimConfig::from_sets`]: nothing above the
/// core (the Python bindings pass the whole map) changes.
#[derive(Debug, Clone)]
pub struct Sets {
    pub trace: BTreeMap<String, String>,
    pub device: BTreeMap<String, String>,
    pub stack: BTreeMap<String, String>,
    /// The admission policy's keys (`admit.KEY`).
    pub admit: BTreeMap<String, String>,
    /// Per policy (its registered name), its keys without the `POLICY.` prefix.
    pub policy: BTreeMap<String, BTreeMap<String, String>>,
    /// The `sim.*` keys as given (their values are parsed into the fields below).
    pub sim: BTreeMap<String, String>,
    /// `sim.time_scale` (default 1).
    pub time_scale: f64,
    /// `sim.queue_depth` (default 0: the trace's own times).
    pub queue_depth: u32,
    /// `sim.warmup` ([`Warmup::parse`]; default none).
    pub warmup: Option<Warmup>,
    /// `sim.read_ahead` (default true).
    pub read_ahead: bool,
}

impl Default for Sets {
    fn default() -> Self {
        Sets {
            trace: BTreeMap::new(),
            device: BTreeMap::new(),
            stack: BTreeMap::new(),
            admit: BTreeMap::new(),
            policy: BTreeMap::new(),
            sim: BTreeMap::new(),
            time_scale: 1.0,
            queue_depth: 0,
            warmup: None,
            read_ahead: true,
        }
    }
}

impl Sets {
    /// Splits `sets` (in the order given: the first bad key is the one named) by section;
    /// ConfigError for a key without a section, an unknown section or `sim.*` key, or a `sim.*`
    /// value its key does not take. A section is case-blind (`SIM.queue_depth`); the key after
    /// it is kept as given.
    pub fn parse<'a>(sets: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Sets> {
        let mut out = Sets::default();
        for (key, value) in sets {
            let (prefix, rest) = match key.split_once('.') {
                Some((p, r)) if !r.is_empty() => (p.to_ascii_lowercase(), r),
                _ => {
                    return Err(Error::config(format!(
                        "option '{key}': expected SECTION.KEY (trace., device., stack., admit., sim. or POLICY.KEY)"
                    )))
                }
            };
            let (rest, value) = (rest.to_string(), value.to_string());
            match prefix.as_str() {
                "trace" => _ = out.trace.insert(rest, value),
                "device" => _ = out.device.insert(rest, value),
                "stack" => _ = out.stack.insert(rest, value),
                "admit" => _ = out.admit.insert(rest, value),
                "sim" => {
                    out.sim_value(key, &rest, &value)?;
                    out.sim.insert(rest, value);
                }
                p if policy_names().any(|n| n == p) => _ = out.policy.entry(prefix).or_default().insert(rest, value),
                p => {
                    let mut names: Vec<&str> = policy_names().collect();
                    names.sort_unstable();
                    return Err(Error::config(format!(
                        "option '{key}': unknown section '{p}'; expected trace, device, stack, admit, sim or a policy ({})",
                        names.join(", ")
                    )));
                }
            }
        }
        Ok(out)
    }

    fn sim_value(&mut self, key: &str, name: &str, value: &str) -> Result<()> {
        let v = value.trim();
        match name {
            "time_scale" => {
                self.time_scale = v.parse().map_err(|_| Error::config(format!("option '{key}={value}': expected a number")))?;
            }
            "warmup" => self.warmup = Warmup::parse(v)?,
            "queue_depth" => {
                // A whole number: 2.5, inf and nan are refused, not truncated or overflowed.
                let whole = || Error::config(format!("option '{key}={value}': expected a whole number"));
                let depth = match v.parse::<i128>() {
                    Ok(d) => d,
                    Err(_) => match v.parse::<f64>() {
                        Ok(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30 => f as i128,
                        _ => return Err(whole()),
                    },
                };
                self.queue_depth = u32::try_from(depth)
                    .map_err(|_| Error::config(format!("{key}={value}: expected an integer from 0 to {}", u32::MAX)))?;
            }
            "read_ahead" => {
                self.read_ahead = match v.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(Error::config(format!("option '{key}={value}': expected true or false"))),
                };
            }
            "epoch" => {
                return Err(Error::config(format!(
                    "option '{key}': the per-epoch table is asked for with epoch= (the API) or --epoch (fcsim run), not a sim key"
                )))
            }
            _ => return Err(Error::config(format!("option '{key}': unknown; sim takes time_scale, queue_depth, warmup and read_ahead"))),
        }
        Ok(())
    }
}

/// The names a `POLICY.KEY` may start with: every registered policy and offline bound.
fn policy_names() -> impl Iterator<Item = &'static str> {
    crate::policy::POLICIES.iter().map(|p| p.name).chain(crate::offline::ALGORITHMS.iter().map(|a| a.name))
}

impl SimConfig {
    /// A run's configuration from what a caller gives: the policy, the size as text, the page
    /// size, the device preset, the per-epoch table's length (`--epoch`) and the `--set` map
    /// split by [`Sets::parse`] (whose `trace.*` keys are the reader's). Keys of policies other
    /// than `policy` are not this run's (a grid checks them against its policies).
    pub fn from_sets(
        policy: &str,
        size: &str,
        page_size: u32,
        device: Option<&str>,
        epoch: Option<&str>,
        sets: &Sets,
    ) -> Result<SimConfig> {
        Ok(SimConfig {
            policy: policy.to_string(),
            size: SizeSpec::parse(size)?,
            page_size,
            params: sets.policy.get(&policy.to_ascii_lowercase()).cloned().unwrap_or_default(),
            device: device.map(str::to_string),
            device_params: sets.device.clone(),
            stack_params: sets.stack.clone(),
            admit_params: sets.admit.clone(),
            time_scale: sets.time_scale,
            queue_depth: sets.queue_depth,
            warmup: sets.warmup,
            epoch: epoch.map(Every::parse).transpose()?,
            read_ahead: sets.read_ahead,
        })
    }

    pub fn new(policy: &str, size: SizeSpec) -> Self {
        SimConfig {
            policy: policy.to_string(),
            size,
            page_size: 4096,
            params: BTreeMap::new(),
            device: None,
            device_params: BTreeMap::new(),
            stack_params: BTreeMap::new(),
            admit_params: BTreeMap::new(),
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
        // The policy registry's own error names its policies only; a run also takes the bounds.
        crate::policy::policy_by_name(&self.policy).map(|_| ()).map_err(|_| {
            let names: Vec<&str> = policy_names().collect();
            Error::config(format!("unknown policy '{}'; registered: {}", self.policy, names.join(", ")))
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn sets_go_to_their_sections_and_sim_values_are_parsed() {
        let s = Sets::parse([
            ("trace.block_size", "512"),
            ("device.op", "0.07"),
            ("stack.kind", "ssd-cache"),
            ("CFLRU.window", "0.25"),
            ("SIM.queue_depth", "8"),
            ("sim.read_ahead", "False"),
            ("sim.warmup", "60s"),
        ])
        .unwrap();
        assert_eq!(s.trace, map(&[("block_size", "512")]));
        assert_eq!(s.device, map(&[("op", "0.07")]));
        assert_eq!(s.stack, map(&[("kind", "ssd-cache")]));
        assert_eq!(s.policy["cflru"], map(&[("window", "0.25")]));
        assert_eq!((s.queue_depth, s.read_ahead, s.time_scale), (8, false, 1.0));
        assert_eq!(s.warmup, Some(Warmup::Time(60_000_000_000)));
        let cfg = SimConfig::from_sets("cflru", "5%", 4096, Some("lcr"), Some("1000"), &s).unwrap();
        assert_eq!(cfg.params, map(&[("window", "0.25")]));
        assert_eq!((cfg.queue_depth, cfg.read_ahead, cfg.device.as_deref()), (8, false, Some("lcr")));
        assert_eq!(cfg.epoch, Some(Every::Requests(1000)));
        // Another policy's keys are not this run's.
        assert!(SimConfig::from_sets("lru", "5%", 4096, None, None, &s).unwrap().params.is_empty());
    }

    #[test]
    fn a_bad_key_or_sim_value_is_named() {
        let err = |pairs: &[(&str, &str)]| Sets::parse(pairs.iter().copied()).unwrap_err().to_string();
        assert!(err(&[("nodot", "1")]).contains("option 'nodot': expected SECTION.KEY"));
        let section = err(&[("disk.latency_ms", "5")]);
        assert!(section.contains("unknown section 'disk'; expected trace, device, stack, admit, sim or a policy ("), "{section}");
        assert!(section.contains(", lru, ") && section.contains(", min, "), "{section}");
        assert!(err(&[("sim.queue_depth", "2.5")]).contains("option 'sim.queue_depth=2.5': expected a whole number"));
        assert!(err(&[("sim.queue_depth", "inf")]).contains("expected a whole number"));
        assert!(err(&[("sim.queue_depth", "-1")]).contains("sim.queue_depth=-1: expected an integer from 0 to 4294967295"));
        assert_eq!(Sets::parse([("sim.queue_depth", "4.0")]).unwrap().queue_depth, 4);
        // The first bad key in the order given is the one named.
        assert!(err(&[("sim.queue_depth", "-1"), ("disk.x", "1")]).contains("sim.queue_depth=-1"));
        assert!(err(&[("sim.read_ahead", "no")]).contains("option 'sim.read_ahead=no': expected true or false"));
        assert!(err(&[("sim.time_scale", "fast")]).contains("option 'sim.time_scale=fast': expected a number"));
        assert!(err(&[("sim.epoch", "60s")]).contains("not a sim key"));
        assert!(err(&[("sim.speed", "1")]).contains("option 'sim.speed': unknown; sim takes"));
    }
}
