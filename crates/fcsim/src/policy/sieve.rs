//! SIEVE: Zhang et al., NSDI'24 (not in the seed papers' reference lists), §3 (Algorithm 1).
//!
//! One FIFO queue (new pages at the head) with a visited bit per page and a hand that starts at
//! the tail. A hit sets the bit. To evict, the hand moves from the tail towards the head,
//! clearing set bits, and evicts the first page whose bit is clear; the hand then rests at that
//! page's neighbour towards the head (wrapping to the tail past the head). Pages are never
//! moved.

use super::list::{each_dirty, Arena, List, NIL};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "sieve",
    description: "SIEVE (FIFO with a visited bit and a moving hand)",
    source: "Zhang et al., NSDI'24 (not in the seed papers' reference lists)",
    offline: false,
    needs_view: false,
    params: &[],
    make: |cap, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(Sieve::new(cap))) },
};

#[derive(Debug)]
pub struct Sieve {
    arena: Arena,
    queue: List,
    capacity: usize,
    /// The hand: next candidate, or NIL to start from the tail.
    hand: u32,
}

impl Sieve {
    pub fn new(capacity: usize) -> Self {
        Sieve { arena: Arena::with_capacity(capacity), queue: List::default(), capacity, hand: NIL }
    }

    /// Moves the hand to the page to evict (clearing the bits it passes) and returns it; the
    /// hand then rests at its neighbour towards the head, or NIL.
    #[inline]
    fn victim(&mut self) -> Option<u32> {
        let mut cur = if self.hand == NIL { self.queue.back() } else { Some(self.hand) };
        while let Some(i) = cur {
            let n = self.arena.node_mut(i);
            if n.count == 0 {
                self.hand = self.queue.prev(&self.arena, i).unwrap_or(NIL);
                return Some(i);
            }
            n.count = 0;
            cur = self.queue.prev(&self.arena, i).or_else(|| self.queue.back());
        }
        None
    }
}

impl Policy for Sieve {
    #[inline]
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let v = match self.arena.find(a.key) {
            Ok(i) => {
                let n = self.arena.node_mut(i);
                n.count = 1;
                let was = n.dirty;
                n.dirty |= a.write;
                return Outcome::Hit { dirty: was };
            }
            Err(v) => v,
        };
        // The hand clears bits but leaves the index alone, so the slot found above stays valid;
        // the victim's node is reused for the new page, which goes to the head.
        let victim = if self.queue.len() == self.capacity { self.victim() } else { None };
        let i = self.arena.occupy(v, a.key, victim, 0, a.write);
        if victim.is_some() {
            let old = self.arena.retarget(i, a.key, 0, a.write);
            evicted.push(Evicted { key: old.key, dirty: old.dirty });
            self.queue.move_to_front(&mut self.arena, i);
        } else {
            self.queue.push_front(&mut self.arena, i);
        }
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let i = self.arena.get(key)?;
        if self.hand == i {
            self.hand = self.queue.prev(&self.arena, i).unwrap_or(NIL);
        }
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
        // Capacity 3. Queue newest first: [3 2 1]; hits on 1 and 2 set their bits.
        // 4 miss: hand from the tail: 1 set → cleared, 2 set → cleared, 3 clear → evicted;
        // the hand rests at 3's head-side neighbour, none, so it restarts at the tail: [4 2 1].
        // 5 miss: hand at the tail 1 (now clear) → evicted; hand rests at 2: [5 4 2].
        // 4 hit sets 4. 6 miss: hand at 2 (clear) → evicted: [6 5 4].
        let mut p = Sieve::new(3);
        let t = trace(&mut p, "1 2 3 1 2 4 5 4 6");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, true, true, false, false, true, false]);
        assert_eq!(t[5].1, [3]);
        assert_eq!(t[6].1, [1]);
        assert_eq!(t[8].1, [2]);
    }
}
