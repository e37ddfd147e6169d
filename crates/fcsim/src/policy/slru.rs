//! SLRU (segmented LRU): Karedla, Love & Wherry, "Caching strategies to improve disk system
//! performance", Computer 27(3), 1994; with n segments as S4LRU (Huang et al., SOSP'13; not in the
//! seed papers' reference lists) and libCacheSim's SLRU.
//!
//! `slru.segments` LRU segments (default 4), each ⌊c / n⌋ pages. A hit in segment i moves the
//! page to the MRU end of segment i + 1 (the top segment keeps it); a segment over its size
//! passes its LRU page down to the MRU end of the segment below, and the bottom segment's LRU
//! page is evicted. A missed page enters the lowest segment with room, else (cache full) the
//! bottom one after an eviction.
//!
//! Where the papers are silent: entering the lowest segment with room (rather than always the
//! bottom) fills the whole cache before the first eviction, as libCacheSim does; with two
//! segments this is Karedla's probationary/protected SLRU with equal halves.

use super::list::{each_dirty, take, touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "slru",
    description: "segmented LRU (n equal LRU segments; S4LRU by default)",
    source: "Karedla, Love & Wherry 1994; S4LRU: Huang et al., SOSP'13 (not in the seed papers' reference lists)",
    offline: false,
    needs_view: false,
    params: &["segments"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let n: usize = p.take("slru", "segments", 4, "a number of segments from 1 to 16")?;
        if !(1..=16).contains(&n) {
            return Err(Error::config("slru.segments must be 1 to 16"));
        }
        Ok(Box::new(Slru::new(cap, n)))
    },
};

#[derive(Debug)]
pub struct Slru {
    arena: Arena,
    segs: Vec<List>,
    seg_cap: usize,
    capacity: usize,
    /// Pages in all segments.
    len: usize,
}

impl Slru {
    pub fn new(capacity: usize, n: usize) -> Self {
        Slru { arena: Arena::with_capacity(capacity), segs: vec![List::default(); n], seg_cap: (capacity / n).max(1), capacity, len: 0 }
    }

    /// Unlinks the LRU page of the lowest non-empty segment (the next to evict) and returns it.
    #[inline]
    fn pop_victim(&mut self) -> Option<u32> {
        let k = self.segs.iter().position(|s| !s.is_empty())?;
        let v = self.segs[k].pop_back(&mut self.arena)?;
        self.len -= 1;
        Some(v)
    }

    /// Evicts the LRU page of the lowest non-empty segment.
    fn evict(&mut self, evicted: &mut Vec<Evicted>) {
        if let Some(v) = self.pop_victim() {
            let n = self.arena.release(v);
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
        }
    }

    /// Passes LRU pages down from segment `k` while it is over its size.
    fn cool(&mut self, k: usize, evicted: &mut Vec<Evicted>) {
        while self.segs[k].len() > self.seg_cap {
            if k == 0 {
                self.evict(evicted);
                continue;
            }
            if let Some(t) = self.segs[k].pop_back(&mut self.arena) {
                self.arena.node_mut(t).tag = (k - 1) as u8;
                self.segs[k - 1].push_front(&mut self.arena, t);
            }
            self.cool(k - 1, evicted);
        }
    }
}

impl Policy for Slru {
    #[inline]
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let v = match self.arena.find(a.key) {
            Ok(i) => {
                let was = touch(&mut self.arena, i, a.write);
                let k = self.arena.node(i).tag as usize;
                if k + 1 == self.segs.len() {
                    self.segs[k].move_to_front(&mut self.arena, i);
                } else {
                    self.segs[k].unlink(&mut self.arena, i);
                    self.arena.node_mut(i).tag = (k + 1) as u8;
                    self.segs[k + 1].push_front(&mut self.arena, i);
                    self.cool(k + 1, evicted);
                }
                return Outcome::Hit { dirty: was };
            }
            Err(v) => v,
        };
        // A full cache evicts one page (the LRU page of the lowest non-empty segment), whose
        // node the new page takes: the index is untouched until then, so the slot found above
        // is still where the new key goes. (The capacity is fixed, so the cache is never over
        // it: a release here would move index entries and stale the slot.)
        debug_assert!(self.len <= self.capacity);
        let victim = if self.len == self.capacity { self.pop_victim() } else { None };
        let k = self.segs.iter().position(|s| s.len() < self.seg_cap).unwrap_or(0);
        let i = self.arena.occupy(v, a.key, victim, k as u8, a.write);
        if victim.is_some() {
            let old = self.arena.retarget(i, a.key, k as u8, a.write);
            evicted.push(Evicted { key: old.key, dirty: old.dirty });
        }
        self.segs[k].push_front(&mut self.arena, i);
        self.len += 1;
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let n = take(&mut self.arena, &mut self.segs, key)?;
        self.len -= 1;
        Some(n.dirty)
    }

    #[inline]
    fn preload(&self, key: u64) {
        self.arena.preload(key);
    }

    fn preloads(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.len
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, &self.segs, f);
    }

    fn contains(&self, key: u64) -> Option<bool> {
        Some(self.arena.get(key).is_some())
    }

    /// Once full, the LRU page of the lowest non-empty segment (what a miss evicts).
    fn victim(&self) -> Option<u64> {
        if self.len < self.capacity {
            return None;
        }
        let k = self.segs.iter().position(|s| !s.is_empty())?;
        self.segs[k].back().map(|i| self.arena.node(i).key)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // c = 4, two segments of 2 (probationary S0, protected S1). 1 2 → S0 [2 1]; 3 4 find S0
        // full and enter S1 [4 3]. 1 hit → S1 [1 4 3], over 2: its LRU 3 drops to S0 [3 2].
        // 5 miss (full): the LRU page of S0, 2, is evicted; 5 enters S0 [5 3].
        // 3 hit → S1 [3 1 4] → 4 drops to S0 [4 5]. 6 miss evicts S0's LRU 5.
        let mut p = Slru::new(4, 2);
        let t = trace(&mut p, "1 2 3 4 1 5 3 6");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, false, true, false, true, false]);
        assert_eq!(t[5].1, [2]);
        assert_eq!(t[7].1, [5]);
    }

    #[test]
    fn victim_is_what_the_next_miss_evicts() {
        // The trace above up to the 3 hit: S0 [4 5], S1 [3 1]; full, so S0's LRU page 5 is next,
        // as the miss on 6 finds; then S0 [6 4], and 4 is next.
        let mut p = Slru::new(4, 2);
        trace(&mut p, "1 2");
        assert_eq!((p.victim(), p.contains(1), p.contains(3)), (None, Some(true), Some(false)));
        trace(&mut p, "3 4 1 5 3");
        assert_eq!(p.victim(), Some(5));
        assert_eq!(trace(&mut p, "6")[0].1, [5]);
        assert_eq!(p.victim(), Some(4));
    }
}
