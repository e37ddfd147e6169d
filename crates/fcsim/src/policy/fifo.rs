//! FIFO: evict the page admitted longest ago; hits do not change the order.
//!
//! Classic baseline (LARC slides; offline-bounds paper §2). It is [`Lru`] with promotion on
//! hit turned off.

use super::lru::Lru;
use super::{Policy, PolicyInfo, PolicyParams};
use crate::error::Result;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "fifo",
    description: "first in, first out",
    source: "classic; baseline in the LARC slides and the offline-bounds paper",
    offline: false,
    params: &[],
    make: |cap, _: &mut PolicyParams| -> Result<Box<dyn Policy>> { Ok(Box::new(Lru::new(cap, false))) },
};

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // Capacity 3. Queue (newest first): 1:[1] 2:[2 1] 3:[3 2 1] 1 hit, order kept:[3 2 1]
        // 4 miss evicts the oldest, 1 (LRU would have evicted 2):[4 3 2] 1 miss evicts 2:[1 4 3]
        // 3 hit:[1 4 3] 5 miss evicts 3:[5 1 4]
        let mut p = (INFO.make)(3, &mut PolicyParams::default()).unwrap();
        let t = trace(p.as_mut(), "1 2 3 1 4 1 3 5");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, true, false, false, true, false]);
        assert_eq!(t[4].1, [1]);
        assert_eq!(t[5].1, [2]);
        assert_eq!(t[7].1, [3]);
    }
}
