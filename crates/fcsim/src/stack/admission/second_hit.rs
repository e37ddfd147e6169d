//! `--admit second-hit`: a page enters the flash cache on its second miss within a window, the
//! rule of LARC (S. Huang, Q. Wei, D. Feng, J. Chen, C. Chen, "Improving flash-based disk cache
//! with lazy adaptive replacement", ACM TOS 12(2), 2016; the slides in
//! `larc-lazy-adaptive-replacement.txt`, "LARC": "use a ghost cache as filter", and "Self
//! Tunning") taken out of the policy, so that any eviction policy can run behind it, and the
//! "reject the first access" rule of flash-cache admission studies.
//!
//! The window is a ghost queue: an LRU list of the ids of the last missed pages that were not
//! admitted, at most W of them. A miss on a page whose id is in it removes the id and admits the
//! page; a miss on any other page, with the cache full, records its id at the queue's MRU end
//! (dropping its LRU ids beyond W) and is declined. While the cache has room, every miss is
//! admitted (LARC's rule: a free page costs no eviction).
//!
//! Chosen where the sources leave it open:
//! - The window counts distinct pages, not accesses: it is LARC's ghost queue (so that
//!   `ghost=larc` is LARC exactly), its memory is bounded by W ids whatever the trace, and a page
//!   missed twice in a burst of accesses to other pages is still judged by how many other
//!   pages came between. `admit.length` is W as a multiple of the cache's pages (default 1: the
//!   ghost remembers as many ids as the cache holds pages; at least one id).
//! - `admit.ghost=larc`: W tunes itself as LARC's C_r does (slides, "Self Tunning"): C_r starts
//!   at 0.1·C; after each hit C_r −= C / (C − C_r), after each miss C_r += C / C_r, kept within
//!   [0.1·C, 0.9·C]; the queue is trimmed to ⌊C_r⌋ ids (at least one) only when an id is added.
//!   These are the choices `policy/larc.rs` makes, so LRU with this admission gives LARC's rows
//!   (the test below, and `tests/test_admission.py` on a shipped trace).
//! - A trim, or a write that invalidates the page in a write-around tier, drops its id (as LARC
//!   drops a ghost on removal).
//! - The knob is W (as a multiple of the cache): a longer window admits more. Under
//!   `ghost=larc`, setting the knob sets C_r, which then keeps tuning itself.

use super::{Admission, AdmissionInfo, AdmitParams, ParamInfo};
use crate::error::Result;
use crate::policy::list::{Arena, List};
use crate::policy::{Access, Policy};

pub const INFO: AdmissionInfo = AdmissionInfo {
    name: "second-hit",
    description: "admits a page on its second miss within a ghost queue of recent missed ids (LARC's filter)",
    source: "Huang et al., ACM TOS 12(2) 2016 (LARC); LARC slides, \"Self Tunning\"",
    params: &[
        ParamInfo::num("length", 1.0, 0.001, 100.0, "the ghost queue's length W, as a multiple of the cache's pages"),
        ParamInfo {
            words: &["fixed", "larc"],
            ..ParamInfo::num("ghost", 0.0, 0.0, 1.0, "the ghost queue's length: fixed at W, or LARC's self-tuning C_r")
        },
    ],
    knob: Some("length"),
    unbudgeted: None,
    make: |p| Ok(Box::new(SecondHit::new(p)?)),
};

/// The ghost queue of missed page ids.
#[derive(Debug)]
pub struct SecondHit {
    arena: Arena,
    ghost: List,
    /// The cache's pages (C).
    c: f64,
    /// The queue's length in ids (W, or LARC's C_r).
    len: f64,
    larc: bool,
    capacity: usize,
}

impl SecondHit {
    pub fn new(p: &AdmitParams) -> Result<SecondHit> {
        let c = p.capacity as f64;
        let larc = p.get("ghost") == 1.0;
        let len = if larc { 0.1 * c } else { p.get("length") * c };
        Ok(SecondHit { arena: Arena::with_capacity(p.capacity), ghost: List::default(), c, len, larc, capacity: p.capacity })
    }

    /// LARC's C_r after a hit (`hit`) or a miss.
    #[inline]
    fn adapt(&mut self, hit: bool) {
        if self.larc {
            let (c, cr) = (self.c, self.len);
            let next = if hit { cr - c / (c - cr) } else { cr + c / cr };
            self.len = next.clamp(0.1 * c, 0.9 * c);
        }
    }
}

impl Admission for SecondHit {
    fn admit(&mut self, a: &Access, policy: &dyn Policy) -> bool {
        self.adapt(false);
        if let Some(g) = self.arena.get(a.key) {
            self.ghost.unlink(&mut self.arena, g);
            self.arena.release(g);
            return true;
        }
        if policy.len() < self.capacity {
            return true;
        }
        let i = self.arena.alloc(a.key, 0, false);
        self.ghost.push_front(&mut self.arena, i);
        let keep = (self.len as usize).max(1);
        while self.ghost.len() > keep {
            if let Some(g) = self.ghost.pop_back(&mut self.arena) {
                self.arena.release(g);
            }
        }
        false
    }

    #[inline]
    fn hit(&mut self, _a: &Access) {
        self.adapt(true);
    }

    fn forget(&mut self, key: u64) {
        if let Some(g) = self.arena.get(key) {
            self.ghost.unlink(&mut self.arena, g);
            self.arena.release(g);
        }
    }

    fn knob(&self) -> Option<f64> {
        Some(self.len / self.c)
    }

    fn set_knob(&mut self, v: f64) {
        let (lo, hi) = if self.larc { (0.1, 0.9) } else { (INFO.params[0].lo, INFO.params[0].hi) };
        self.len = v.clamp(lo, hi) * self.c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::no_device;
    use crate::request::{Op, NEVER};
    use crate::stack::Tier;

    fn tier(cap: usize, values: Vec<(&'static str, f64)>) -> Tier {
        let policy = crate::policy::build("lru", cap, Default::default()).unwrap().0;
        let mut t = Tier::new(policy, cap);
        t.admission = Some(Box::new(SecondHit::new(&AdmitParams { values, capacity: cap, dram_pages: 0 }).unwrap()));
        t
    }

    #[test]
    fn a_page_enters_on_its_second_miss_within_the_window() {
        // LRU of 2, window 1 x 2 = 2 ids. 1 2 fill the free pages (admitted: room). 3 misses,
        // full: its id is remembered, declined. 4: remembered [4 3], declined. 3 again: its id is
        // in the queue, admitted (evicts 1, LRU). 5, 6: remembered [6 5] (4 falls out, W = 2).
        // 4 again: not remembered any more, declined ([4 6]). 6: admitted (evicts 2).
        let mut t = tier(2, vec![("length", 1.0), ("ghost", 0.0)]);
        let mut dev = no_device();
        let mut admitted = Vec::new();
        for k in [1, 2, 3, 4, 3, 5, 6, 4, 6] {
            let before = t.counters.insertions;
            t.access(k, Op::Read, 0, NEVER, 0, &mut dev).unwrap();
            admitted.push(t.counters.insertions > before);
        }
        assert_eq!(admitted, [true, true, false, false, true, false, false, false, true]);
        assert_eq!((t.counters.evictions, t.counters.backing_reads), (2, 9));
    }

    #[test]
    fn ghost_larc_is_larcs_filter_on_the_slides_example() {
        // LRU + second-hit(ghost=larc) against the policy `larc` on the LARC slides' table
        // (policy/larc.rs's test: C = 4, Q = [0 1 2 3], then 1 5 3 4 3 1 0 4 0 3 6 1): 5 and 6
        // only leave ids, 4's second miss is admitted and replaces 2; the counters agree after
        // every access (8 hits of the 12, one replacement).
        let mut t = tier(4, vec![("length", 1.0), ("ghost", 1.0)]);
        let mut larc = Tier::new(crate::policy::build("larc", 4, Default::default()).unwrap().0, 4);
        let (mut d1, mut d2) = (no_device(), no_device());
        for k in [3, 2, 1, 0, 1, 5, 3, 4, 3, 1, 0, 4, 0, 3, 6, 1] {
            t.access(k, Op::Read, 0, NEVER, 0, &mut d1).unwrap();
            larc.access(k, Op::Read, 0, NEVER, 0, &mut d2).unwrap();
            assert_eq!(t.counters, larc.counters, "after {k}");
        }
        assert_eq!((t.counters.hits, t.counters.evictions), (8, 1));
    }

    #[test]
    fn the_knob_lengthens_the_window() {
        let mut s = SecondHit::new(&AdmitParams { values: vec![("length", 1.0), ("ghost", 0.0)], capacity: 10, dram_pages: 0 }).unwrap();
        assert_eq!(s.knob(), Some(1.0));
        s.set_knob(1e9);
        assert_eq!(s.knob(), Some(100.0));
    }
}
