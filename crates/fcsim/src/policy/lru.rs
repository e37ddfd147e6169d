//! LRU: evict the least recently used page.
//!
//! The baseline of every paper fcsim implements (e.g. GASA §II, LARC slides, LCR §IV). One list,
//! most recently used at the front; a hit moves the page to the front; a miss admits the page at
//! the front after evicting the back if the cache is full. Every miss is admitted.

use super::list::{each_dirty, take, touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "lru",
    description: "least recently used",
    source: "classic; baseline in GASA §II, LCR §IV, LARC slides",
    offline: false,
    needs_view: false,
    params: &[],
    make: |cap, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(Lru::new(cap))) },
};

#[derive(Debug)]
pub struct Lru {
    arena: Arena,
    list: List,
    capacity: usize,
}

impl Lru {
    pub fn new(capacity: usize) -> Self {
        Lru { arena: Arena::with_capacity(capacity), list: List::default(), capacity }
    }

    /// [`Policy::access`] with its victim (at most one) returned rather than pushed, inlined
    /// where it is called on an `Lru`: a tier holds one by value to call it so, and hands the
    /// victim on with no vector between ([`crate::stack::Tier`]).
    #[inline(always)]
    pub fn access_one(&mut self, a: &Access) -> (Outcome, Option<Evicted>) {
        // When full, the victim (the back) is reused for the new page: one map probe finds a
        // hit or maps the new key, one more unmaps the victim.
        let victim = if self.list.len() == self.capacity { self.list.back() } else { None };
        match self.arena.claim(a.key, victim, 0, a.write) {
            Ok(i) => {
                self.list.move_to_front(&mut self.arena, i);
                let was = touch(&mut self.arena, i, a.write);
                (Outcome::Hit { dirty: was }, None)
            }
            Err(i) => {
                let evicted = if victim.is_some() {
                    let old = self.arena.retarget(i, a.key, 0, a.write);
                    self.list.move_to_front(&mut self.arena, i);
                    Some(Evicted { key: old.key, dirty: old.dirty })
                } else {
                    self.list.push_front(&mut self.arena, i);
                    None
                };
                (Outcome::Miss { admitted: true }, evicted)
            }
        }
    }
}

impl Policy for Lru {
    #[inline]
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let (outcome, victim) = self.access_one(a);
        evicted.extend(victim);
        outcome
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        take(&mut self.arena, std::slice::from_mut(&mut self.list), key).map(|n| n.dirty)
    }

    #[inline]
    fn preload(&self, key: u64) {
        self.arena.preload(key);
    }

    fn preloads(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, std::slice::from_ref(&self.list), f);
    }

    /// The index holds the resident pages only.
    fn contains(&self, key: u64) -> Option<bool> {
        Some(self.arena.get(key).is_some())
    }

    /// The back of the list, once full.
    fn victim(&self) -> Option<u64> {
        let back = if self.list.len() >= self.capacity { self.list.back() } else { None };
        back.map(|i| self.arena.node(i).key)
    }

    fn take_lru(&mut self) -> Option<Lru> {
        Some(std::mem::replace(self, Lru::new(1)))
    }

    /// Shrinking evicts from the LRU end (the dynamic-allocation paper, §IV: "evicting the data
    /// from the LRU positions of the cache queue"); growing only raises the limit.
    fn resize(&mut self, capacity: usize, evicted: &mut Vec<Evicted>) -> bool {
        self.capacity = capacity.max(1);
        while self.list.len() > self.capacity {
            let Some(i) = self.list.pop_back(&mut self.arena) else { break };
            let n = self.arena.release(i);
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // Capacity 3. Recency lists (MRU first) after each access:
        // 1:[1] 2:[2 1] 3:[3 2 1] 1 hit:[1 3 2] 4 miss evicts LRU 2:[4 1 3]
        // 3 hit:[3 4 1] 5 miss evicts 1:[5 3 4] 2 miss evicts 4:[2 5 3] 3 hit:[3 2 5]
        let mut p = Lru::new(3);
        let t = trace(&mut p, "1 2 3 1 4 3 5 2 3");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, true, false, true, false, false, true]);
        assert_eq!(t[4].1, [2]);
        assert_eq!(t[6].1, [1]);
        assert_eq!(t[7].1, [4]);
        assert_eq!(p.len(), 3);
        // [3 2 5]: 5 is the victim-to-be, and reading it (or whether 4 is held) changes nothing.
        assert_eq!((p.victim(), p.contains(5), p.contains(4)), (Some(5), Some(true), Some(false)));
        assert_eq!(trace(&mut p, "6")[0].1, [5]);
        // Not full: no victim.
        let mut q = Lru::new(3);
        trace(&mut q, "1 2");
        assert_eq!(q.victim(), None);
    }

    #[test]
    fn dirty_state_follows_writes() {
        // Capacity 2: 1w is admitted dirty, 2 clean, a read hit on 1 keeps it dirty,
        // 3 evicts 2 (clean), 4 evicts 1 (dirty).
        let mut p = Lru::new(2);
        let mut ev = Vec::new();
        for (i, (k, w)) in [(1, true), (2, false), (1, false), (3, false), (4, false)].into_iter().enumerate() {
            p.access(&Access { key: k, write: w, index: i as u64, next: 0, time: 0 }, &mut ev);
        }
        assert_eq!(ev, [Evicted { key: 2, dirty: false }, Evicted { key: 1, dirty: true }]);
        assert_eq!(p.remove(4), Some(false));
        assert_eq!(p.remove(4), None);
    }

    #[test]
    fn preload_changes_no_decision() {
        // The same accesses with and without a preload of the key four ahead (as the loop
        // does), from an empty arena on: the same outcomes and victims.
        let keys: Vec<u64> = (0..3000u64).map(|i| (i * 7919) % 173).collect();
        let (mut plain, mut warm) = (Lru::new(40), Lru::new(40));
        let (mut ev1, mut ev2) = (Vec::new(), Vec::new());
        for (i, &k) in keys.iter().enumerate() {
            warm.preload(keys.get(i + 4).copied().unwrap_or(u64::MAX));
            let a = Access { key: k, write: i % 3 == 0, index: i as u64, next: 0, time: 0 };
            assert_eq!(plain.access(&a, &mut ev1), warm.access(&a, &mut ev2), "access {i}");
        }
        assert_eq!(ev1, ev2);
        assert!(warm.preloads() && !ev1.is_empty());
    }

    #[test]
    fn resize_evicts_from_the_lru_end() {
        // 1w 2 3w 4 at capacity 4: recency [4 3 2 1]. Shrinking to 2 evicts 1 (dirty), then 2;
        // growing to 3 evicts nothing and lets 5 in without a victim.
        let mut p = Lru::new(4);
        let mut ev = Vec::new();
        for (i, (k, w)) in [(1, true), (2, false), (3, true), (4, false)].into_iter().enumerate() {
            p.access(&Access { key: k, write: w, index: i as u64, next: 0, time: 0 }, &mut ev);
        }
        assert!(p.resize(2, &mut ev));
        assert_eq!(ev, [Evicted { key: 1, dirty: true }, Evicted { key: 2, dirty: false }]);
        ev.clear();
        assert!(p.resize(3, &mut ev));
        assert!(ev.is_empty());
        assert_eq!(p.access(&Access { key: 5, write: false, index: 4, next: 0, time: 0 }, &mut ev), Outcome::Miss { admitted: true });
        assert!(ev.is_empty());
        assert_eq!(p.len(), 3);
        p.access(&Access { key: 6, write: false, index: 5, next: 0, time: 0 }, &mut ev);
        assert_eq!(ev, [Evicted { key: 3, dirty: true }]);
    }
}
