//! FIFO: evict the page admitted longest ago; hits do not change the order.
//!
//! Classic baseline (LARC slides). Pages sit in a ring of node numbers in admission order:
//! eviction takes the oldest entry and the new page reuses its node, so no list is relinked. A
//! trim leaves a hole in the ring (skipped when the hand reaches it); the ring grows to hold 2c
//! entries and is compacted when it fills with holes, so a trim costs O(1) amortized.

use super::list::{touch, up_front, Arena, NIL};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "fifo",
    description: "first in, first out",
    source: "classic; baseline in the LARC slides",
    offline: false,
    needs_view: false,
    params: &[],
    make: |cap, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(Fifo::new(cap))) },
};

#[derive(Debug)]
pub struct Fifo {
    arena: Arena,
    /// Node numbers in admission order from `head`; NIL marks a hole left by a trim. Each
    /// node's `count` holds its position in the ring.
    ring: Vec<u32>,
    head: usize,
    /// Entries (pages and holes) from `head`.
    entries: usize,
    len: usize,
    capacity: usize,
}

impl Fifo {
    pub fn new(capacity: usize) -> Self {
        let ring = vec![NIL; (2 * up_front(capacity)).next_power_of_two()];
        Fifo { arena: Arena::with_capacity(capacity), ring, head: 0, entries: 0, len: 0, capacity }
    }

    #[inline]
    fn slot(&self, k: usize) -> usize {
        (self.head + k) & (self.ring.len() - 1)
    }

    /// Appends node `i` as the newest entry.
    fn push(&mut self, i: u32) {
        if self.entries == self.ring.len() {
            self.compact();
        }
        let p = self.slot(self.entries);
        self.ring[p] = i;
        self.arena.node_mut(i).count = p as u32;
        self.entries += 1;
    }

    /// The oldest page, after dropping the holes before it.
    #[inline]
    fn oldest(&mut self) -> Option<u32> {
        while self.entries > 0 {
            let i = self.ring[self.head];
            if i != NIL {
                return Some(i);
            }
            self.advance();
        }
        None
    }

    /// Drops the oldest entry.
    #[inline]
    fn advance(&mut self) {
        self.ring[self.head] = NIL;
        self.head = self.slot(1);
        self.entries -= 1;
    }

    /// Moves the pages to the front of the ring in order, dropping holes; the ring doubles when
    /// pages fill more than half of it (it grows with the pages cached, to 2c at most).
    fn compact(&mut self) {
        let old: Vec<u32> = (0..self.entries).map(|k| self.ring[self.slot(k)]).filter(|&i| i != NIL).collect();
        let size = (2 * old.len()).next_power_of_two().max(self.ring.len());
        self.ring.resize(size, NIL);
        self.ring.fill(NIL);
        self.head = 0;
        self.entries = 0;
        for i in old {
            self.push(i);
        }
    }
}

impl Policy for Fifo {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let victim = if self.len == self.capacity { self.oldest() } else { None };
        match self.arena.claim(a.key, victim, 0, a.write) {
            Ok(i) => {
                let was = touch(&mut self.arena, i, a.write);
                Outcome::Hit { dirty: was }
            }
            Err(i) => {
                if victim.is_some() {
                    self.advance();
                    let old = self.arena.retarget(i, a.key, 0, a.write);
                    evicted.push(Evicted { key: old.key, dirty: old.dirty });
                } else {
                    self.len += 1;
                }
                self.push(i);
                Outcome::Miss { admitted: true }
            }
        }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let i = self.arena.get(key)?;
        let p = self.arena.node(i).count as usize;
        self.ring[p] = NIL;
        self.len -= 1;
        Some(self.arena.release(i).dirty)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        for k in 0..self.entries {
            let i = self.ring[self.slot(k)];
            if i != NIL && self.arena.node(i).dirty {
                f(self.arena.node(i).key);
            }
        }
    }

    /// The index holds the resident pages only.
    fn contains(&self, key: u64) -> Option<bool> {
        Some(self.arena.get(key).is_some())
    }

    /// The oldest page (the first entry that is not a hole), once full.
    fn victim(&self) -> Option<u64> {
        if self.len < self.capacity {
            return None;
        }
        (0..self.entries).map(|k| self.ring[self.slot(k)]).find(|&i| i != NIL).map(|i| self.arena.node(i).key)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // Capacity 3. Queue (newest first): 1:[1] 2:[2 1] 3:[3 2 1] 1 hit, order kept:[3 2 1]
        // 4 miss evicts the oldest, 1 (LRU would have evicted 2):[4 3 2] 1 miss evicts 2:[1 4 3]
        // 3 hit:[1 4 3] 5 miss evicts 3:[5 1 4]
        let mut p = (INFO.make)(3, &mut Params::default()).unwrap();
        let t = trace(p.as_mut(), "1 2 3 1 4 1 3 5");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, true, false, false, true, false]);
        assert_eq!(t[4].1, [1]);
        assert_eq!(t[5].1, [2]);
        assert_eq!(t[7].1, [3]);
        // [5 1 4]: 4 is the oldest, the victim-to-be; reading it changes nothing.
        assert_eq!((p.victim(), p.contains(4), p.contains(3)), (Some(4), Some(true), Some(false)));
        assert_eq!(trace(p.as_mut(), "6")[0].1, [4]);
    }

    #[test]
    fn victim_skips_holes() {
        // Capacity 2: 1 2 fill, trim 1 leaves a hole, 3 fills the free page: full again with the
        // hole first; the victim is 2, the oldest page, as the next miss finds.
        let mut p = Fifo::new(2);
        trace(&mut p, "1 2");
        assert_eq!(p.remove(1), Some(false));
        assert_eq!(p.victim(), None);
        trace(&mut p, "3");
        assert_eq!(p.victim(), Some(2));
        assert_eq!(trace(&mut p, "4")[0].1, [2]);
    }

    #[test]
    fn trims_leave_holes_that_are_skipped() {
        // Capacity 2. 1 2 fill; trim 1 leaves a hole; 3 fills the free page without eviction;
        // 4 evicts the oldest page, 2 (the hole before it is dropped). Then 10 finds the cache
        // full and evicts 3; 10..99 are each trimmed right after, leaving holes that force
        // compactions; 4 stays the oldest page: 200 takes the free page, 201 evicts 4.
        let mut p = Fifo::new(2);
        let mut ev = Vec::new();
        let acc = |p: &mut Fifo, k: u64, ev: &mut Vec<Evicted>| {
            ev.clear();
            p.access(&Access { key: k, write: false, index: 0, next: 0, time: 0 }, ev)
        };
        acc(&mut p, 1, &mut ev);
        acc(&mut p, 2, &mut ev);
        assert_eq!(p.remove(1), Some(false));
        acc(&mut p, 3, &mut ev);
        assert!(ev.is_empty());
        acc(&mut p, 4, &mut ev);
        assert_eq!(ev, [Evicted { key: 2, dirty: false }]);
        for k in 10..100 {
            acc(&mut p, k, &mut ev);
            p.remove(k);
        }
        acc(&mut p, 200, &mut ev);
        assert!(ev.is_empty());
        acc(&mut p, 201, &mut ev);
        assert_eq!(ev, [Evicted { key: 4, dirty: false }]);
    }
}
