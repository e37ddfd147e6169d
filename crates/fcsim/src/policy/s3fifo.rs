//! S3-FIFO: Yang et al., SOSP'23 (not in the seed papers' reference lists), §4 (Algorithm 1),
//! in the form of libCacheSim's S3FIFO.c.
//!
//! A small FIFO S (`s3fifo.small` = 10% of the cache), a main FIFO M (the rest) with a 2-bit
//! reference count, and a ghost FIFO G of ids (`s3fifo.ghost` = 90% of the cache). A missed
//! page enters M if its id is in G, else S. A hit adds one to the page's count. Eviction: when
//! M is over its share or S is empty, M's oldest page is evicted if its count is 0, else it is
//! reinserted at M's head with count min(count, 3) − 1; otherwise S's oldest page moves to M
//! (count reset to 0) if its count is ≥ `s3fifo.threshold` (2; the paper's "accessed more than
//! once"... see below), else it is evicted and its id enters G.
//!
//! Where the paper and libCacheSim differ or the paper is silent:
//! - Promotion from S needs count ≥ 2 in libCacheSim (the paper's Algorithm 1 promotes on
//!   count > 1 too, i.e. after two hits in S); the threshold is a parameter.
//! - Until the first eviction, a page that finds S full enters M (libCacheSim's S3FIFO.c; the
//!   original S3-FIFO always enters S).
//! - Shares are rounded down, with S at least one page (libCacheSim admits nothing while S is
//!   a single page, i.e. below 20 pages; fcsim admits normally).

use super::list::{each_dirty, take, to_ghost, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "s3fifo",
    description: "S3-FIFO (small FIFO + main FIFO + ghost FIFO)",
    source: "Yang et al., SOSP'23 (not in the seed papers' reference lists); libCacheSim S3FIFO.c",
    offline: false,
    needs_view: false,
    params: &["small", "ghost", "threshold"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let small: f64 = p.take("s3fifo", "small", 0.1, "a share of the cache in (0, 1)")?;
        let ghost: f64 = p.take("s3fifo", "ghost", 0.9, "a share of the cache, ≥ 0")?;
        let threshold: u32 = p.take("s3fifo", "threshold", 2, "a positive count")?;
        if !(small > 0.0 && small < 1.0 && ghost >= 0.0 && ghost.is_finite()) || threshold == 0 {
            return Err(Error::config("s3fifo: small must be in (0, 1), ghost ≥ 0, threshold ≥ 1"));
        }
        Ok(Box::new(S3Fifo::new(cap, small, ghost, threshold)))
    },
};

const SMALL: u8 = 0;
const MAIN: u8 = 1;
const GHOST: u8 = 2;

#[derive(Debug)]
pub struct S3Fifo {
    arena: Arena,
    /// S, M, G, indexed by tag; newest at the front.
    q: [List; 3],
    capacity: usize,
    small_cap: usize,
    main_cap: usize,
    ghost_cap: usize,
    threshold: u32,
    has_evicted: bool,
}

impl S3Fifo {
    pub fn new(capacity: usize, small: f64, ghost: f64, threshold: u32) -> Self {
        let small_cap = ((capacity as f64 * small) as usize).max(1);
        let ghost_cap = (capacity as f64 * ghost) as usize;
        S3Fifo {
            arena: Arena::with_capacity(capacity + ghost_cap),
            q: [List::default(); 3],
            capacity,
            small_cap,
            main_cap: capacity.saturating_sub(small_cap),
            ghost_cap,
            threshold,
            has_evicted: false,
        }
    }

    fn resident(&self) -> usize {
        self.q[SMALL as usize].len() + self.q[MAIN as usize].len()
    }

    fn push(&mut self, i: u32, tag: u8) {
        self.arena.node_mut(i).tag = tag;
        self.q[tag as usize].push_front(&mut self.arena, i);
    }

    fn evict_main(&mut self, evicted: &mut Vec<Evicted>) {
        while let Some(t) = self.q[MAIN as usize].pop_back(&mut self.arena) {
            let n = self.arena.node_mut(t);
            if n.count == 0 {
                let n = self.arena.release(t);
                evicted.push(Evicted { key: n.key, dirty: n.dirty });
                return;
            }
            n.count = n.count.min(3) - 1;
            self.push(t, MAIN);
        }
    }

    fn evict_small(&mut self, evicted: &mut Vec<Evicted>) {
        while let Some(t) = self.q[SMALL as usize].pop_back(&mut self.arena) {
            let n = self.arena.node_mut(t);
            if n.count >= self.threshold {
                n.count = 0;
                self.push(t, MAIN);
                continue;
            }
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
            to_ghost(&mut self.arena, &mut self.q[GHOST as usize], self.ghost_cap, t, GHOST);
            return;
        }
    }
}

impl Policy for S3Fifo {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let ghost = match self.arena.get(a.key) {
            Some(i) if self.arena.node(i).tag != GHOST => {
                let n = self.arena.node_mut(i);
                n.count = n.count.saturating_add(1);
                let was = n.dirty;
                n.dirty |= a.write;
                return Outcome::Hit { dirty: was };
            }
            Some(i) => {
                self.q[GHOST as usize].unlink(&mut self.arena, i);
                self.arena.release(i);
                true
            }
            None => false,
        };
        while self.resident() >= self.capacity {
            self.has_evicted = true;
            if self.q[MAIN as usize].len() > self.main_cap || self.q[SMALL as usize].is_empty() {
                self.evict_main(evicted);
            } else {
                self.evict_small(evicted);
            }
        }
        let tag = if ghost || (!self.has_evicted && self.q[SMALL as usize].len() >= self.small_cap) { MAIN } else { SMALL };
        let i = self.arena.alloc(a.key, tag, a.write);
        self.q[tag as usize].push_front(&mut self.arena, i);
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let n = take(&mut self.arena, &mut self.q, key)?;
        (n.tag != GHOST).then_some(n.dirty)
    }

    fn len(&self) -> usize {
        self.resident()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, &self.q[..2], f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // Capacity 10: S holds 1 page, M 9, G 9. Before any eviction, pages that find S full go
        // to M: 1 → S; 2..=10 → M. 1 hit, 1 hit (count 2).
        // 11 miss, cache full: M (9) is not over its share and S is not empty, so S is
        // evicted from: 1 has count 2 ≥ 2 → moves to M (M now 10 > 9), nothing evicted yet;
        // S empty → evict from M: oldest 2 has count 0 → evicted. 11 → S.
        // 12 miss: M is 9, S has 11 (count 0) → 11 evicted, id to G. 12 → S.
        // 11 again: a ghost hit; room is made by evicting 12 from S (to G); 11 → M.
        let mut p = S3Fifo::new(10, 0.1, 0.9, 2);
        let t = trace(&mut p, "1 2 3 4 5 6 7 8 9 10 1 1 11 12 11");
        assert_eq!(t[12].1, [2]);
        assert_eq!(t[13].1, [11]);
        assert_eq!(t[14].1, [12]);
        assert!(!t[14].0);
        let i = p.arena.get(11).unwrap();
        assert_eq!(p.arena.node(i).tag, MAIN);
        assert_eq!(p.len(), 10);
    }
}
