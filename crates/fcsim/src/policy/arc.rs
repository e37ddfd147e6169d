//! ARC: Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST'03, §III and
//! Fig. 4 (the pseudo-code followed here).
//!
//! Four LRU lists: T1 (seen once recently) and T2 (seen at least twice) hold the c cached pages;
//! B1 and B2 remember the ids of pages recently evicted from T1 and T2. The target size p of T1
//! grows on a hit in B1 and shrinks on a hit in B2:
//! δ1 = 1 if |B1| ≥ |B2| else |B2|/|B1|, p ← min(p + δ1, c); δ2 = 1 if |B2| ≥ |B1| else
//! |B1|/|B2|, p ← max(p − δ2, 0). REPLACE moves the LRU page of T1 to B1 if T1 is non-empty and
//! |T1| > p (or |T1| = p and the missed page was in B2), else the LRU page of T2 to B2.
//!
//! Where the paper is vague or silent:
//! - δ is a real number, so p is fractional and |T1| = p holds only when p is whole (as in
//!   libCacheSim 0.3.5's ARC, whose misses fcsim's equal count-based).
//! - The pseudo-code assumes pages are never deleted. With trims the cache can be below c
//!   while its directory is full; then REPLACE is not run on a miss (no page is pushed out of
//!   a cache that has room), but the directory is still trimmed to keep |L1| ≤ c and
//!   |L1| + |L2| ≤ 2c.
//! - REPLACE with the chosen list empty (possible only at p = c) takes from the other list.

use super::list::{each_dirty, take, touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "arc",
    description: "adaptive replacement cache (T1/T2 + ghosts B1/B2)",
    source: "Megiddo & Modha, FAST'03, Fig. 4",
    offline: false,
    needs_view: false,
    params: &[],
    make: |cap, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(Arc::new(cap))) },
};

const T1: u8 = 0;
const T2: u8 = 1;
const B1: u8 = 2;
const B2: u8 = 3;

#[derive(Debug)]
pub struct Arc {
    arena: Arena,
    /// T1, T2, B1, B2, indexed by tag.
    lists: [List; 4],
    c: usize,
    p: f64,
}

impl Arc {
    pub fn new(c: usize) -> Self {
        Arc { arena: Arena::with_capacity(2 * c), lists: [List::default(); 4], c, p: 0.0 }
    }

    #[inline]
    fn len(&self, tag: u8) -> usize {
        self.lists[tag as usize].len()
    }

    /// δ = 1 if |den| ≥ |num| else |num| / |den|.
    fn delta(num: usize, den: usize) -> f64 {
        if den >= num {
            1.0
        } else {
            num as f64 / den as f64
        }
    }

    /// Moves node `i` (unlinked) to the MRU end of list `tag`.
    #[inline]
    fn push(&mut self, i: u32, tag: u8) {
        self.arena.node_mut(i).tag = tag;
        self.lists[tag as usize].push_front(&mut self.arena, i);
    }

    #[inline]
    fn unlink(&mut self, i: u32) {
        let tag = self.arena.node(i).tag;
        self.lists[tag as usize].unlink(&mut self.arena, i);
    }

    /// REPLACE(x, p) of Fig. 4: demotes one cached page to its ghost list.
    fn replace(&mut self, in_b2: bool, evicted: &mut Vec<Evicted>) {
        let t1 = self.len(T1) as f64;
        let from_t1 = self.len(T1) > 0 && (t1 > self.p || (in_b2 && t1 == self.p));
        let (from, to) = if (from_t1 || self.len(T2) == 0) && self.len(T1) > 0 { (T1, B1) } else { (T2, B2) };
        if let Some(i) = self.lists[from as usize].pop_back(&mut self.arena) {
            let n = self.arena.node_mut(i);
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
            n.dirty = false;
            self.push(i, to);
        }
    }

    fn full(&self) -> bool {
        self.len(T1) + self.len(T2) >= self.c
    }
}

impl Policy for Arc {
    #[inline]
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        match self.arena.find(a.key) {
            Ok(i) if self.arena.node(i).tag <= T2 => {
                // Case I: a hit in T1 or T2 moves the page to the MRU end of T2.
                if self.arena.node(i).tag == T2 {
                    self.lists[T2 as usize].move_to_front(&mut self.arena, i);
                } else {
                    self.lists[T1 as usize].unlink(&mut self.arena, i);
                    self.push(i, T2);
                }
                let was = touch(&mut self.arena, i, a.write);
                Outcome::Hit { dirty: was }
            }
            Ok(i) => {
                // Cases II and III: a hit in B1 or B2 adapts p, then the page enters T2.
                let in_b2 = self.arena.node(i).tag == B2;
                let (b1, b2) = (self.len(B1), self.len(B2));
                if in_b2 {
                    self.p = (self.p - Self::delta(b1, b2)).max(0.0);
                } else {
                    self.p = (self.p + Self::delta(b2, b1)).min(self.c as f64);
                }
                if self.full() {
                    self.replace(in_b2, evicted);
                }
                self.unlink(i);
                self.arena.node_mut(i).dirty = a.write;
                self.push(i, T2);
                Outcome::Miss { admitted: true }
            }
            Err(v) => {
                // Case IV: a page in no list. The node the directory lets go of (B1's or B2's
                // LRU id, or T1's LRU page) is reused for the new page; nothing here changes
                // the index before `occupy`, so the slot found above stays valid.
                let full = self.full();
                let mut reuse = None;
                if self.len(T1) + self.len(B1) >= self.c {
                    if self.len(B1) > 0 {
                        reuse = self.lists[B1 as usize].pop_back(&mut self.arena);
                        if full {
                            self.replace(false, evicted);
                        }
                    } else if let Some(i) = self.lists[T1 as usize].pop_back(&mut self.arena) {
                        let n = self.arena.node(i);
                        evicted.push(Evicted { key: n.key, dirty: n.dirty });
                        reuse = Some(i);
                    }
                } else {
                    if self.len(T1) + self.len(T2) + self.len(B1) + self.len(B2) >= 2 * self.c {
                        reuse = self.lists[B2 as usize].pop_back(&mut self.arena);
                    }
                    if full {
                        self.replace(false, evicted);
                    }
                }
                let i = self.arena.occupy(v, a.key, reuse, T1, a.write);
                if reuse.is_some() {
                    self.arena.retarget(i, a.key, T1, a.write);
                }
                self.lists[T1 as usize].push_front(&mut self.arena, i);
                Outcome::Miss { admitted: true }
            }
        }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let n = take(&mut self.arena, &mut self.lists, key)?;
        (n.tag <= T2).then_some(n.dirty)
    }

    #[inline]
    fn preload(&self, key: u64) {
        self.arena.preload(key);
    }

    fn preloads(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.len(T1) + self.len(T2)
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, &self.lists[..2], f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // c = 2. 1, 2 miss: T1 = [2 1]. 1 hit moves to T2: T1 [2], T2 [1].
        // 3 miss (case IV, |L1| = 1 < 2, total 2 < 4): REPLACE with |T1| = 1 > p = 0 moves 2 to
        // B1; T1 [3], B1 [2]. 2 is a B1 hit: p = min(0 + 1, 2) = 1; REPLACE: |T1| = 1 = p and
        // not in B2, so T2's LRU 1 goes to B2; 2 enters T2: T1 [3], T2 [2], B1 [], B2 [1].
        // 1 is a B2 hit: p = max(1 - 1, 0) = 0; REPLACE: |T1| = 1 > 0, so 3 goes to B1;
        // T2 [1 2], B1 [3]. 2 hits in T2.
        let mut p = Arc::new(2);
        let t = trace(&mut p, "1 2 1 3 2 1 2");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, true, false, false, false, true]);
        assert_eq!(t[3].1, [2]);
        assert_eq!(t[4].1, [1]);
        assert_eq!(t[5].1, [3]);
        assert_eq!(p.p, 0.0);
        assert_eq!((p.len(T1), p.len(T2), p.len(B1), p.len(B2)), (0, 2, 1, 0));
    }

    #[test]
    fn delta_is_a_ratio_of_ghost_lengths() {
        // δ1 on a B1 hit with |B1| = 2, |B2| = 3 is 3/2 (the paper's real-valued δ); with
        // |B1| ≥ |B2| it is 1.
        assert_eq!(Arc::delta(3, 2), 1.5);
        assert_eq!(Arc::delta(2, 3), 1.0);
        assert_eq!(Arc::delta(2, 2), 1.0);
    }
}
