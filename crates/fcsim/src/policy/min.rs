//! Belady's MIN: Belady, "A study of replacement algorithms for a virtual-storage computer",
//! IBM Systems Journal 5(2), 1966. The offline optimum for miss count with demand paging.
//!
//! On a miss with a full cache, MIN evicts the resident page whose next access lies furthest in
//! the future (pages never accessed again first). The next-access index of every access comes
//! from one backward pass over the trace (or from a `.fct` file's next-access column); the
//! resident pages sit in an indexed max-heap keyed by next access, so an access costs O(log n)
//! and allocates nothing.
//!
//! Options the offline-bounds paper needs: `min.bypass=true` does not insert a missed page that
//! is never accessed again, nor, when the cache is full, one whose next access comes no sooner
//! than that of every resident page (the paper's MIN, §3: a page is inserted only if it will be
//! accessed before something in the cache). Such a miss is not admitted; this never adds
//! misses, saves the flash write, and makes MIN the bound for policies that may decline
//! admission (LARC) too. The default inserts every missed page, as Belady's demand-paging MIN
//! and libCacheSim's Belady do. Ties (several pages never accessed again) do
//! not change the miss count; the heap picks any of them.
//!
//! `min.trim=true` drops a page as soon as it has no next access (M+'s TRIM after a block's
//! last read, offline-bounds §3.3): a page whose access has next NEVER leaves at the policy's
//! next access (pushed to `evicted` then, as the tier hands the page it is serving to the device
//! first), and [`Policy::contains`] no longer counts it. The `opt` admission
//! ([`crate::stack::admission`]) runs MIN so, its plan in the next-access column: a page then
//! stays exactly as long as the plan keeps it.

use super::heap::MaxHeap;
use super::list::{touch, Arena};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;
use crate::request::NEVER;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "min",
    description: "Belady's MIN (offline optimum; evicts the page used furthest in the future)",
    source: "Belady 1966; offline-bounds paper §3",
    offline: true,
    needs_view: false,
    params: &["bypass", "trim"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let bypass = p.take("min", "bypass", false, "true or false")?;
        let trim = p.take("min", "trim", false, "true or false")?;
        let mut m = Min::new(cap, bypass);
        m.trim = trim;
        Ok(Box::new(m))
    },
};

#[derive(Debug)]
pub struct Min {
    arena: Arena,
    heap: MaxHeap,
    capacity: usize,
    bypass: bool,
    /// `min.trim`: drop a page once it has no next access.
    trim: bool,
    /// The page (with `trim`) whose last access was the policy's last: it leaves at the next.
    dead: Option<u64>,
}

impl Min {
    pub fn new(capacity: usize, bypass: bool) -> Self {
        Min { arena: Arena::with_capacity(capacity), heap: MaxHeap::with_capacity(capacity), capacity, bypass, trim: false, dead: None }
    }

    /// Drops the page left dead by the previous access (`min.trim`), if still resident.
    #[inline]
    fn drop_dead(&mut self, evicted: &mut Vec<Evicted>) {
        if let Some(k) = self.dead.take() {
            if let Some(i) = self.arena.get(k) {
                self.heap.remove(i);
                let n = self.arena.release(i);
                evicted.push(Evicted { key: n.key, dirty: n.dirty });
            }
        }
    }
}

impl Policy for Min {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        if self.trim {
            self.drop_dead(evicted);
        }
        if let Some(i) = self.arena.get(a.key) {
            self.heap.update(i, a.next);
            let was = touch(&mut self.arena, i, a.write);
            if self.trim && a.next == NEVER {
                self.dead = Some(a.key);
            }
            return Outcome::Hit { dirty: was };
        }
        if self.bypass {
            let full = self.heap.len() == self.capacity;
            let furthest = self.heap.top().map_or(NEVER, |v| self.heap.prio(v));
            if a.next == NEVER || (full && a.next >= furthest) {
                return Outcome::Miss { admitted: false };
            }
        }
        if self.heap.len() == self.capacity {
            if let Some(v) = self.heap.top() {
                self.heap.remove(v);
                let n = self.arena.release(v);
                evicted.push(Evicted { key: n.key, dirty: n.dirty });
            }
        }
        let i = self.arena.alloc(a.key, 0, a.write);
        self.heap.push(i, a.next);
        if self.trim && a.next == NEVER {
            self.dead = Some(a.key);
        }
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        if self.dead == Some(key) {
            self.dead = None;
        }
        let i = self.arena.get(key)?;
        self.heap.remove(i);
        Some(self.arena.release(i).dirty)
    }

    fn len(&self) -> usize {
        self.heap.len()
    }

    fn contains(&self, key: u64) -> Option<bool> {
        Some(self.dead != Some(key) && self.arena.get(key).is_some())
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        for i in self.heap.ids() {
            if self.arena.node(i).dirty {
                f(self.arena.node(i).key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::convert::next_access;

    fn run(keys: &[u64], cap: usize, bypass: bool) -> (Vec<bool>, Vec<Vec<u64>>) {
        run_with(keys, &next_access(keys).unwrap(), Min::new(cap, bypass))
    }

    fn run_with(keys: &[u64], next: &[u64], mut p: Min) -> (Vec<bool>, Vec<Vec<u64>>) {
        let (mut hits, mut evs) = (Vec::new(), Vec::new());
        for (i, &k) in keys.iter().enumerate() {
            let mut ev = Vec::new();
            hits.push(matches!(
                p.access(&Access { key: k, write: false, index: i as u64, next: next[i], time: 0 }, &mut ev),
                Outcome::Hit { .. }
            ));
            evs.push(ev.iter().map(|e| e.key).collect());
        }
        (hits, evs)
    }

    #[test]
    fn hand_traced() {
        // Capacity 2 on 1 2 3 1 2 3 2 1. At 3 (index 2) the cache holds 1 (next at 3) and 2
        // (next at 4): evict 2, used later. At index 4 (2, miss) the cache holds 3 (next 5) and
        // 1 (next 7): evict 1. At index 7 (1, miss): 3 is never used again (and 2 neither):
        // both are candidates.
        let (hits, evs) = run(&[1, 2, 3, 1, 2, 3, 2, 1], 2, false);
        assert_eq!(hits, [false, false, false, true, false, true, true, false]);
        assert_eq!(evs[2], [2]);
        assert_eq!(evs[4], [1]);
        // With bypass a page never used again is not inserted: on 1 2 9 1 2 with capacity 2,
        // 9 is skipped and 1 and 2 both hit; without it, 9 displaces 2 (used after 1).
        let (hits, _) = run(&[1, 2, 9, 1, 2], 2, true);
        assert_eq!(hits, [false, false, false, true, true]);
        let (hits, _) = run(&[1, 2, 9, 1, 2], 2, false);
        assert_eq!(hits.iter().filter(|h| **h).count(), 1);
        // With bypass and a full cache, a page used after every resident page is not inserted:
        // on 1 2 3 1 2 3 with capacity 2, 3 (next at 5) comes after 1 (3) and 2 (4): skipped,
        // and 1 and 2 hit; 3 misses again.
        let (hits, evs) = run(&[1, 2, 3, 1, 2, 3], 2, true);
        assert_eq!(hits, [false, false, false, true, true, false]);
        assert!(evs.iter().all(|e| e.is_empty()));
    }

    #[test]
    fn trim_drops_a_page_after_its_last_access() {
        // Capacity 3, no bypass, on 1 2 1 3 2: 1's access at index 2 has no next, so with trim
        // 1 leaves at the policy's next access (3, index 3), pushed to `evicted` there, and
        // `contains` says no from index 2 on; 2 (next at 4) stays and hits. Without trim, 1
        // stays resident (the cache never fills).
        let keys = [1, 2, 1, 3, 2];
        let next = next_access(&keys).unwrap();
        let mut m = Min::new(3, false);
        m.trim = true;
        let mut ev = Vec::new();
        for (i, &k) in keys.iter().enumerate().take(3) {
            m.access(&Access { key: k, write: false, index: i as u64, next: next[i], time: 0 }, &mut ev);
        }
        assert!(ev.is_empty());
        assert_eq!((m.contains(1), m.contains(2)), (Some(false), Some(true)));
        let mut m = Min::new(3, false);
        m.trim = true;
        let (hits, evs) = run_with(&keys, &next, m);
        assert_eq!(hits, [false, false, true, false, true]);
        assert_eq!(evs[3], [1]);
        let (_, evs) = run_with(&keys, &next, Min::new(3, false));
        assert!(evs.iter().all(|e| e.is_empty()));
    }
}
