//! CLOCK (second chance): Corbató 1968 (not in the seed papers' reference lists); the
//! FIFO-with-reinsertion form used by libCacheSim.
//!
//! Pages sit in a FIFO queue with a reference counter of `clock.bits` bits (default 1, the
//! classic reference bit). A hit raises the counter by one (up to 2^bits − 1); a page enters
//! with counter 0. To evict, the hand looks at the oldest page: a page with a non-zero counter
//! has it lowered by one and goes back to the head; the first page found at 0 is evicted.

use super::list::{each_dirty, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "clock",
    description: "CLOCK / second chance (n-bit reference counter)",
    source: "Corbató 1968 (not in the seed papers' reference lists); FIFO-reinsertion as in libCacheSim",
    offline: false,
    needs_view: false,
    params: &["bits"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let bits: u32 = p.take("clock", "bits", 1, "a number of bits from 1 to 16")?;
        if !(1..=16).contains(&bits) {
            return Err(Error::config(format!("clock.bits={bits}: expected 1 to 16")));
        }
        Ok(Box::new(Clock::new(cap, (1 << bits) - 1)))
    },
};

#[derive(Debug)]
pub struct Clock {
    arena: Arena,
    queue: List,
    capacity: usize,
    max: u32,
}

impl Clock {
    pub fn new(capacity: usize, max: u32) -> Self {
        Clock { arena: Arena::with_capacity(capacity), queue: List::default(), capacity, max }
    }
}

impl Policy for Clock {
    #[inline]
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let v = match self.arena.find(a.key) {
            Ok(i) => {
                let n = self.arena.node_mut(i);
                n.count = (n.count + 1).min(self.max);
                let was = n.dirty;
                n.dirty |= a.write;
                return Outcome::Hit { dirty: was };
            }
            Err(v) => v,
        };
        // The hand moves pages but not the index, so the slot found above stays valid; the
        // victim's node is reused for the new page (one probe per miss, as in LRU).
        if self.queue.len() == self.capacity {
            while let Some(t) = self.queue.back() {
                let n = self.arena.node_mut(t);
                if n.count == 0 {
                    let i = self.arena.occupy(v, a.key, Some(t), 0, a.write);
                    let old = self.arena.retarget(i, a.key, 0, a.write);
                    evicted.push(Evicted { key: old.key, dirty: old.dirty });
                    self.queue.move_to_front(&mut self.arena, i);
                    return Outcome::Miss { admitted: true };
                }
                n.count -= 1;
                self.queue.move_to_front(&mut self.arena, t);
            }
        }
        let i = self.arena.occupy(v, a.key, None, 0, a.write);
        self.queue.push_front(&mut self.arena, i);
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let i = self.arena.get(key)?;
        self.queue.unlink(&mut self.arena, i);
        Some(self.arena.release(i).dirty)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, std::slice::from_ref(&self.queue), f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // Capacity 3, 1-bit. Queue newest first. 1 2 3 miss [3 2 1]; 1 hit sets 1's bit.
        // 4 miss: the hand finds 1 (bit set): cleared, back to the head [1 3 2]; 2 has bit 0:
        // evicted [4 1 3]. 3 hit sets 3's bit. 5 miss: 3 (set) cleared, reinserted [3 4 1];
        // 1 (clear) evicted [5 3 4].
        let mut p = Clock::new(3, 1);
        let t = trace(&mut p, "1 2 3 1 4 3 5");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, true, false, true, false]);
        assert_eq!(t[4].1, [2]);
        assert_eq!(t[6].1, [1]);
    }
}
