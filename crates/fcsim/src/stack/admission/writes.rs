//! `--admit writes`: the dynamic-allocation paper's write cache (L. Xu, Q. Xia and W. Xiao,
//! "Locality-Driven Dynamic Flash Cache Allocation", §III): write-allocate; a read miss is served
//! by the disk and not admitted, so the cache holds only pages written. Write-back only (the
//! stack's configuration refuses it otherwise).

use super::{Admission, AdmissionInfo};
use crate::policy::{Access, Policy};

pub const INFO: AdmissionInfo = AdmissionInfo {
    name: "writes",
    description: "a write cache: write misses enter, read misses bypass to the disk",
    source: "dynamic-allocation paper §III",
    params: &[],
    knob: None,
    unbudgeted: None,
    make: |_| Ok(Box::new(Writes)),
};

/// Admits written pages only.
#[derive(Debug)]
pub struct Writes;

impl Admission for Writes {
    #[inline]
    fn admit(&mut self, a: &Access, _policy: &dyn Policy) -> bool {
        a.write
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::no_device;
    use crate::request::{Op, NEVER};
    use crate::stack::Tier;

    #[test]
    fn read_misses_bypass_hits_do_not() {
        // An LRU tier of 2 with the slot: read 1 misses and bypasses (a backing read, nothing
        // inserted); write 1 enters; read 1 now hits; write 2, write 3 evict 1 (dirty).
        let policy = crate::policy::build("lru", 2, Default::default()).unwrap().0;
        let mut tier = Tier::new(policy, 2);
        tier.admission = Some(Box::new(Writes));
        let mut dev = no_device();
        for (k, op) in [(1, Op::Read), (1, Op::Write), (1, Op::Read), (2, Op::Write), (3, Op::Write)] {
            tier.access(k, op, 0, NEVER, 0, &mut dev).unwrap();
        }
        let c = tier.counters;
        assert_eq!((c.reads, c.read_hits, c.backing_reads), (2, 1, 1));
        assert_eq!((c.insertions, c.evictions, c.dirty_evictions), (3, 1, 1));
        assert_eq!(tier.resident(), 2);
    }
}
