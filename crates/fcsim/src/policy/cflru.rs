//! CFLRU, clean-first LRU: Park, Jung, Kang, Kim, Lee, "CFLRU: a replacement algorithm for flash
//! memory", CASES'06; as the GASA paper describes it (§II.B, Fig. 2).
//!
//! One LRU list split into a working region and a clean-first region: the last `cflru.window` of
//! the cache (default 0.1, as GASA §IV.A uses). The victim is the first clean page of the
//! clean-first region seen from the LRU end; if the region holds no clean page, the LRU page
//! (dirty) goes. Hits move a page to the MRU end; every miss is admitted.
//!
//! Vague in the paper, chosen here: the window is rounded to whole pages, at least one. The
//! victim is found without a scan, in O(1) ([`super::window`] keeps the window's clean pages in
//! order).

use super::window::{window_param, Rule, WindowLru};
use super::{Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "cflru",
    description: "clean-first LRU: evict a clean page from the LRU-end window before a dirty one",
    source: "Park et al., CASES'06; GASA §II.B Fig. 2",
    offline: false,
    needs_view: false,
    params: &["window"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let w = window_param(p, "cflru", 0.1)?;
        Ok(Box::new(WindowLru::new(cap, w, Rule::Lru)))
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn gasa_fig2() {
        // GASA Fig. 2: seven pages, MRU to LRU P1 .. P7, the clean-first region the last three
        // (P5 P6 P7); P7 and P6 dirty, P5 clean. A miss evicts P5, not P7 (the LRU page).
        let mut p = WindowLru::new(7, 3.0 / 7.0, Rule::Lru);
        trace(&mut p, "7w 6w 5 4 3 2 1");
        let t = trace(&mut p, "8");
        assert_eq!(t[0].1, [5]);
        // With no clean page in the region the LRU page goes, dirty: 8 is clean now but at the
        // MRU end; the region is P4 P6 P7 → P4 clean, evicted; then P3, P2 ...
        let t = trace(&mut p, "9w");
        assert_eq!(t[0].1, [4]);
        let mut q = WindowLru::new(3, 1.0 / 3.0, Rule::Lru);
        trace(&mut q, "1w 2w 3w");
        assert_eq!(trace(&mut q, "4")[0].1, [1]);
    }
}
