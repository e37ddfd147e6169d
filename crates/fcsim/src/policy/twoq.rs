//! 2Q: Johnson & Shasha, "2Q: A Low Overhead High Performance Buffer Management Replacement
//! Algorithm", VLDB'94, §2 ("full version").
//!
//! A1in: FIFO of pages seen once (Kin = `twoq.kin` × c, default 25%); A1out: FIFO of the ids of
//! pages evicted from A1in (Kout = `twoq.kout` × c, default 50%); Am: LRU of pages seen again
//! (c − Kin). A hit in A1in changes nothing; a hit in Am moves the page to Am's MRU end. A miss
//! whose id is in A1out enters Am; any other miss enters A1in. To make room, A1in's oldest page
//! goes (its id to A1out) if A1in holds more than Kin pages (or Am is empty), else Am's LRU
//! page.
//!
//! As in libCacheSim's TwoQ.c: room is made before the page is placed; a page entering Am when
//! Am already holds c − Kin pages also pushes out Am's LRU page. Shares are rounded down, Kin at
//! least one page (libCacheSim admits nothing when Kin rounds to 0, i.e. below 4 pages).

use super::list::{each_dirty, take, to_ghost, touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "2q",
    description: "2Q (A1in FIFO + A1out ghost FIFO + Am LRU)",
    source: "Johnson & Shasha, VLDB'94, §2",
    offline: false,
    needs_view: false,
    params: &["kin", "kout"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let kin: f64 = p.take("2q", "kin", 0.25, "a share of the cache in (0, 1)")?;
        let kout: f64 = p.take("2q", "kout", 0.5, "a share of the cache, ≥ 0")?;
        if !(kin > 0.0 && kin < 1.0 && kout >= 0.0 && kout.is_finite()) {
            return Err(Error::config("2q: kin must be in (0, 1) and kout ≥ 0"));
        }
        Ok(Box::new(TwoQ::new(cap, kin, kout)))
    },
};

const AIN: u8 = 0;
const AM: u8 = 1;
const AOUT: u8 = 2;

#[derive(Debug)]
pub struct TwoQ {
    arena: Arena,
    q: [List; 3],
    capacity: usize,
    kin: usize,
    kout: usize,
    am_cap: usize,
}

impl TwoQ {
    pub fn new(capacity: usize, kin: f64, kout: f64) -> Self {
        let kin = ((capacity as f64 * kin) as usize).max(1);
        let kout = (capacity as f64 * kout) as usize;
        TwoQ {
            arena: Arena::with_capacity(capacity + kout),
            q: [List::default(); 3],
            capacity,
            kin,
            kout,
            am_cap: capacity.saturating_sub(kin).max(1),
        }
    }

    fn resident(&self) -> usize {
        self.q[AIN as usize].len() + self.q[AM as usize].len()
    }

    fn evict_am(&mut self, evicted: &mut Vec<Evicted>) {
        if let Some(t) = self.q[AM as usize].pop_back(&mut self.arena) {
            let n = self.arena.release(t);
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
        }
    }

    fn make_room(&mut self, evicted: &mut Vec<Evicted>) {
        if self.q[AIN as usize].len() > self.kin || self.q[AM as usize].is_empty() {
            if let Some(t) = self.q[AIN as usize].pop_back(&mut self.arena) {
                let n = self.arena.node_mut(t);
                evicted.push(Evicted { key: n.key, dirty: n.dirty });
                to_ghost(&mut self.arena, &mut self.q[AOUT as usize], self.kout, t, AOUT);
            }
        } else {
            self.evict_am(evicted);
        }
    }
}

impl Policy for TwoQ {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let ghost = match self.arena.get(a.key) {
            Some(i) => match self.arena.node(i).tag {
                AIN => {
                    let was = touch(&mut self.arena, i, a.write);
                    return Outcome::Hit { dirty: was };
                }
                AM => {
                    self.q[AM as usize].move_to_front(&mut self.arena, i);
                    let was = touch(&mut self.arena, i, a.write);
                    return Outcome::Hit { dirty: was };
                }
                _ => {
                    self.q[AOUT as usize].unlink(&mut self.arena, i);
                    self.arena.release(i);
                    true
                }
            },
            None => false,
        };
        while self.resident() >= self.capacity {
            self.make_room(evicted);
        }
        let tag = if ghost {
            if self.q[AM as usize].len() >= self.am_cap {
                self.evict_am(evicted);
            }
            AM
        } else {
            AIN
        };
        let i = self.arena.alloc(a.key, tag, a.write);
        self.q[tag as usize].push_front(&mut self.arena, i);
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let n = take(&mut self.arena, &mut self.q, key)?;
        (n.tag != AOUT).then_some(n.dirty)
    }

    fn len(&self) -> usize {
        self.resident()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, &self.q[..2], f);
    }

    /// A1in and Am hold pages; an A1out id is a ghost, not held.
    fn contains(&self, key: u64) -> Option<bool> {
        Some(self.arena.get(key).is_some_and(|i| self.arena.node(i).tag != AOUT))
    }

    /// `make_room`'s choice, once full: A1in's oldest while A1in is over Kin (or Am is empty),
    /// else Am's LRU page. (A miss on an A1out id with Am full also evicts Am's LRU page; the
    /// victim named is the first.)
    fn victim(&self) -> Option<u64> {
        if self.resident() < self.capacity {
            return None;
        }
        let q = if self.q[AIN as usize].len() > self.kin || self.q[AM as usize].is_empty() { AIN } else { AM };
        self.q[q as usize].back().map(|i| self.arena.node(i).key)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // c = 4: Kin = 1, Kout = 2, Am = 3. 1 2 3 4 enter A1in (4 pages, over Kin).
        // 5 miss: A1in (4) > Kin → its oldest, 1, goes; id 1 to A1out. A1in [5 4 3 2].
        // 1 miss, found in A1out (and taken out of it): A1in's oldest 2 goes, id 2 to A1out;
        // 1 enters Am. 1 hit in Am. 3 hit in A1in (no change).
        // 6 miss: A1in [5 4 3] > Kin → 3 goes, id 3 to A1out: A1out [3 2].
        let mut p = TwoQ::new(4, 0.25, 0.5);
        let t = trace(&mut p, "1 2 3 4 5 1 1 3 6");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, false, false, false, true, true, false]);
        assert_eq!(t[4].1, [1]);
        assert_eq!(t[5].1, [2]);
        assert_eq!(t[8].1, [3]);
        let ids: Vec<u64> = p.q[AOUT as usize].iter(&p.arena).map(|i| p.arena.node(i).key).collect();
        assert_eq!(ids, [3, 2]);
    }

    #[test]
    fn victim_and_contains_say_what_the_next_miss_does() {
        // c = 4, Kin = 1. 1 2 3 4 fill A1in: full, A1in (4) > Kin, so A1in's oldest, 1, is next.
        let mut p = TwoQ::new(4, 0.25, 0.5);
        trace(&mut p, "1 2 3 4");
        assert_eq!(p.victim(), Some(1));
        // 5 evicts 1 (its id to A1out: a ghost, not held); 1 again enters Am after evicting 2.
        trace(&mut p, "5 1");
        assert_eq!((p.contains(1), p.contains(2), p.contains(9)), (Some(true), Some(false), Some(false)));
        // A1in [5 4 3] is still over Kin: its oldest, 3, is next, as the miss on 6 finds.
        assert_eq!(p.victim(), Some(3));
        assert_eq!(trace(&mut p, "6")[0].1, [3]);
    }
}
