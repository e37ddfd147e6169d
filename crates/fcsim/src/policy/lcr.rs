//! LCR, load-aware cache replacement: Liu et al., "LCR: Load-aware Cache Replacement
//! Algorithm for Flash-based SSDs" (`lcr-load-aware-cache-replacement.txt`), §III, Alg. 1-3.
//!
//! One LRU list; its last `lcr.window` of the cache is the destaging region, the rest the working
//! region. Alg. 1: scanning the destaging region from the LRU end, the first clean page is the
//! victim; if there is none, the dirty page on the chip with the smallest load
//! L_chip = N_R·T_read + N_W·T_write + P·T_gc (eq. 2; the device view, at the request's
//! arrival) goes, the page nearest the LRU end winning a tie (Alg. 1 keeps the first strict
//! minimum). Hits move the page to the MRU end; every miss is admitted (Alg. 2-3).
//!
//! Vague in the paper, chosen here: the window's default is 0.1 of the cache (the paper varies
//! it from 1/64 to 100%, Fig. 8, without naming the one of Fig. 5-7), the same as CFLRU's so the
//! two differ only in the dirty victim. With no device (no view) every chip's load is 0, so the
//! dirty victim is the LRU page: LCR is CFLRU.
//!
//! Alg. 1 scans the region; here the region's dirty pages are kept per chip in LRU order
//! ([`super::window`], [`Rule::LeastLoaded`]), so a victim costs one L_chip per chip holding a
//! dirty page of the region and no scan: the same victim (the least L_chip, the page nearest
//! the LRU end among the chips of that load).

use super::window::{window_param, Rule, WindowLru};
use super::{Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "lcr",
    description: "load-aware LRU: in the destaging window, evict a clean page, else the dirty page on the least-loaded chip",
    source: "LCR §III, Alg. 1-3",
    offline: false,
    needs_view: true,
    params: &["window"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let w = window_param(p, "lcr", 0.1)?;
        Ok(Box::new(WindowLru::new(cap, w, Rule::LeastLoaded)))
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{trace, trace_on, FixedView};
    use super::*;

    #[test]
    fn lcr_fig4() {
        // LCR Fig. 4: the destaging region holds only dirty pages; the LRU page D4 is on chip 2
        // with L_chip = 20 ms, the largest; LCR keeps it and evicts D6, on the chip with the
        // smallest load. Here: capacity 6, window 3 (D4 D5 D6 from the LRU end); page k on chip
        // k mod 3: D4 → chip 1 (20 ms), D5 → chip 2 (10 ms), D6 → chip 0 (5 ms).
        let view = FixedView { loads_us: vec![5_000, 20_000, 10_000], in_gc: vec![false; 3] };
        let mut p = WindowLru::new(6, 0.5, Rule::LeastLoaded);
        trace(&mut p, "4w 5w 6w 7w 8w 9w");
        assert_eq!(trace_on(&mut p, "10", &view)[0].1, [6]);
        // Equal loads: the page nearest the LRU end (Alg. 1 keeps the first strict minimum).
        let flat = FixedView { loads_us: vec![7, 7, 7], in_gc: vec![false; 3] };
        assert_eq!(trace_on(&mut p, "11", &flat)[0].1, [4]);
        // 10 and 11 are clean but at the MRU end: the region is 5 7 8, all dirty, all on chips
        // of equal load, so 5 goes.
        assert_eq!(trace_on(&mut p, "12", &flat)[0].1, [5]);
        // With no view the dirty victim is the LRU page and clean ones go first: 13w evicts 7,
        // 14w evicts 10 (clean), 15w evicts 11 (clean). The region is then 8 (chip 2, 10 ms),
        // 9 (chip 0, 5 ms) and 12 (clean): the clean page goes, not the least-loaded dirty one.
        trace(&mut p, "13w 14w 15w");
        assert_eq!(trace_on(&mut p, "16", &view)[0].1, [12]);
        // Without a device it is CFLRU: the LRU page.
        let mut q = WindowLru::new(3, 1.0, Rule::LeastLoaded);
        trace(&mut q, "1w 2w 3w");
        assert_eq!(trace(&mut q, "4")[0].1, [1]);
    }
}
