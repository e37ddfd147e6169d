//! GCaR-CFLRU: CFLRU made aware of garbage collection. Wu, Lin, Mao, Jiang, "GCaR: Garbage
//! collection aware cache management with improved performance for flash-based SSDs", ICS'16;
//! the baseline of the LCR paper (§II.C, §IV).
//!
//! CFLRU's list and clean-first window (`gcar.window`, default 0.1). The victim is the first
//! clean page of the window from the LRU end; failing that, the first dirty page of the window
//! whose chip is not collecting garbage (the device view's `in_gc` at the request's arrival), so
//! that pages of chips in GC stay cached until their GC is over; failing that, the LRU page.
//!
//! Vague in the papers, chosen here: the search for a dirty page stays within the window (as
//! CFLRU's search for a clean one does); a chip is "in GC" while a GC job is queued or running on
//! it. With no device (no view) GCaR-CFLRU is CFLRU. The victim is found without a scan of the
//! window, asking the device about each chip holding a dirty page of it at most once
//! ([`super::window`], [`Rule::NotInGc`]).

use super::window::{window_param, Rule, WindowLru};
use super::{Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "gcar-cflru",
    description: "CFLRU that keeps dirty pages of chips collecting garbage (needs a device)",
    source: "Wu et al., ICS'16; LCR §II.C",
    offline: false,
    needs_view: true,
    params: &["window"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let w = window_param(p, "gcar-cflru", 0.1)?;
        Ok(Box::new(WindowLru::new(cap, w, Rule::NotInGc)))
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{trace, trace_on, FixedView};
    use super::*;

    #[test]
    fn passes_over_chips_in_gc() {
        // Capacity 4, window 3. Pages 1..4 all dirty, LRU end 1, 2, 3. Page k is on chip k; chip
        // 1 is collecting garbage. No clean page in the window, so the first dirty page whose chip
        // is not in GC goes: 2 (CFLRU would evict 1).
        let view = FixedView { loads_us: vec![0, 0, 0, 0, 0], in_gc: vec![false, true, false, false, false] };
        let mut p = WindowLru::new(4, 0.75, Rule::NotInGc);
        trace(&mut p, "1w 2w 3w 4w");
        assert_eq!(trace_on(&mut p, "5", &view)[0].1, [2]);
        // A clean page in the window still goes first, even before a dirty page of an idle chip.
        let mut q = WindowLru::new(4, 0.75, Rule::NotInGc);
        trace(&mut q, "1w 2 3w 4w");
        assert_eq!(trace_on(&mut q, "5", &view)[0].1, [2]);
        // Without a device it is CFLRU.
        let mut r = WindowLru::new(4, 0.75, Rule::NotInGc);
        trace(&mut r, "1w 2w 3w 4w");
        assert_eq!(trace(&mut r, "5")[0].1, [1]);
    }
}
