//! LFU: evict the cached page with the fewest hits since it was admitted.
//!
//! Classic (e.g. the LARC slides' baseline; Megiddo & Modha FAST'03 §II). Frequencies are
//! counted while a page is cached and forgotten when it is evicted ("in-cache LFU"); a page
//! enters with count 1. Tie-break: among pages with the lowest count, the one that reached that
//! count longest ago is evicted (equivalently the least recently accessed of them), as
//! libCacheSim's LFU does. O(1) per access: one LRU-ordered list per count.

use super::list::{touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;
use rustc_hash::FxHashMap;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "lfu",
    description: "least frequently used (in-cache counts; ties: least recent)",
    source: "classic; baseline in the LARC slides",
    offline: false,
    needs_view: false,
    params: &[],
    make: |cap, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(Lfu::new(cap))) },
};

#[derive(Debug)]
pub struct Lfu {
    arena: Arena,
    /// Pages by count; the front of each list is the most recent arrival at that count.
    by_count: FxHashMap<u32, List>,
    min: u32,
    len: usize,
    capacity: usize,
}

impl Lfu {
    pub fn new(capacity: usize) -> Self {
        Lfu { arena: Arena::with_capacity(capacity), by_count: FxHashMap::default(), min: 1, len: 0, capacity }
    }

    fn unlink(&mut self, i: u32) {
        let c = self.arena.node(i).count;
        if let Some(l) = self.by_count.get_mut(&c) {
            l.unlink(&mut self.arena, i);
            if l.is_empty() && c != 1 {
                self.by_count.remove(&c);
            }
        }
    }

    fn link(&mut self, i: u32, count: u32) {
        self.arena.node_mut(i).count = count;
        self.by_count.entry(count).or_default().push_front(&mut self.arena, i);
    }

    /// Recomputes the lowest count after the list at `self.min` became empty.
    fn fix_min(&mut self) {
        if self.by_count.get(&self.min).is_some_and(|l| !l.is_empty()) {
            return;
        }
        self.min = self.by_count.iter().filter(|(_, l)| !l.is_empty()).map(|(c, _)| *c).min().unwrap_or(1);
    }
}

impl Policy for Lfu {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        if let Some(i) = self.arena.get(a.key) {
            let c = self.arena.node(i).count;
            self.unlink(i);
            self.link(i, c.saturating_add(1));
            let was = touch(&mut self.arena, i, a.write);
            if c == self.min && !self.by_count.get(&c).is_some_and(|l| !l.is_empty()) {
                self.min = c + 1;
            }
            return Outcome::Hit { dirty: was };
        }
        if self.len == self.capacity {
            let victim = self.by_count.get(&self.min).and_then(|l| l.back());
            if let Some(v) = victim {
                self.unlink(v);
                let n = self.arena.release(v);
                self.len -= 1;
                evicted.push(Evicted { key: n.key, dirty: n.dirty });
            }
        }
        let i = self.arena.alloc(a.key, 0, a.write);
        self.link(i, 1);
        self.min = 1;
        self.len += 1;
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let i = self.arena.get(key)?;
        self.unlink(i);
        self.len -= 1;
        let dirty = self.arena.release(i).dirty;
        self.fix_min();
        Some(dirty)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        for l in self.by_count.values() {
            for i in l.iter(&self.arena) {
                if self.arena.node(i).dirty {
                    f(self.arena.node(i).key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // Capacity 3. 1 2 3 miss (counts 1 1 1). 1 hit (1:2), 2 hit (2:2).
        // 4 miss: only 3 has count 1, evicted. 4 hit (4:2): all three have count 2;
        // 5 miss: the least recent to reach count 2 is 1, evicted.
        // 5 hit (5:2), 6 miss: counts 2:2, 4:2, 5:2; 2 reached 2 first, evicted.
        let mut p = Lfu::new(3);
        let t = trace(&mut p, "1 2 3 1 2 4 4 5 5 6");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, true, true, false, true, false, true, false]);
        assert_eq!(t[5].1, [3]);
        assert_eq!(t[7].1, [1]);
        assert_eq!(t[9].1, [2]);
    }
}
