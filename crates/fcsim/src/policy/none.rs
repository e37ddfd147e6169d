//! No cache: every access misses and nothing is admitted, so every read and write goes to the
//! backing store. Drives a device straight from a trace (`--policy none`); the cache size is
//! ignored and reported as 0.

use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "none",
    description: "no cache: every access goes to the backing store (drive a device from a trace)",
    source: "-",
    offline: false,
    needs_view: false,
    params: &[],
    make: |_, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(NoCache)) },
};

#[derive(Debug)]
pub struct NoCache;

impl Policy for NoCache {
    fn access(&mut self, _: &Access, _: &mut Vec<Evicted>) -> Outcome {
        Outcome::Miss { admitted: false }
    }

    fn remove(&mut self, _: u64) -> Option<bool> {
        None
    }

    fn len(&self) -> usize {
        0
    }

    fn for_each_dirty(&self, _: &mut dyn FnMut(u64)) {}
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn never_hits() {
        assert!(trace(&mut NoCache, "1 1w 1 2").iter().all(|(hit, ev)| !hit && ev.is_empty()));
    }
}
