//! Key=value parameters with used-value tracking: the one way a policy, the device model and
//! the cache stack take their options. A leaf: it uses nothing of fcsim but its error type.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// Parameters given by the user as `SECTION.KEY=VALUE` (`--set lru.window=0.2`,
/// `--set device.op=0.07`), without the section prefix. Whoever owns the section (a policy, the
/// device, the stack) takes the keys it knows, parsed or defaulted, and
/// [`Params::finish`] rejects the rest. The values taken are reported in the result
/// row (`param_<name>`, `device_<name>`, `stack_<name>`).
#[derive(Debug, Default)]
pub struct Params {
    given: BTreeMap<String, String>,
    used: Vec<(String, String)>,
}

impl Params {
    pub fn new(given: BTreeMap<String, String>) -> Self {
        Params { given, used: Vec::new() }
    }

    /// Takes a parameter, parsed, or its default. Both are recorded for the result row.
    pub fn take<T: std::str::FromStr + std::fmt::Display>(&mut self, section: &str, key: &str, default: T, what: &str) -> Result<T> {
        let v = match self.given.remove(key) {
            None => default,
            Some(s) => s.parse::<T>().map_err(|_| Error::config(format!("{section}.{key}={s}: expected {what}")))?,
        };
        self.used.push((key.to_string(), v.to_string()));
        Ok(v)
    }

    /// A value the caller fixes, typed (a split SSD's spare share): any given value of `key` is
    /// dropped, and `value` is recorded for the result row as [`Params::take`] would record it.
    pub fn put<T: std::fmt::Display>(&mut self, key: &str, value: T) -> T {
        self.given.remove(key);
        self.used.push((key.to_string(), value.to_string()));
        value
    }

    /// Fails on a parameter of `section` (a policy, `device`) that was not taken; returns the
    /// parameters used.
    pub fn finish(self, section: &str, known: &[&str]) -> Result<UsedParams> {
        if let Some(k) = self.given.keys().next() {
            let known = if known.is_empty() { "it takes none".to_string() } else { format!("it takes {}", known.join(", ")) };
            return Err(Error::config(format!("unknown parameter {section}.{k}: {known}")));
        }
        Ok(self.used)
    }
}

/// Parameters as (name, value) pairs, in the order they were taken.
pub type UsedParams = Vec<(String, String)>;
