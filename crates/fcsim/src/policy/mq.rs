//! MQ (Multi-Queue): Zhou, Philbin & Li, "The Multi-Queue Replacement Algorithm for Second Level
//! Buffer Caches", USENIX ATC'01, §4 (Fig. 5).
//!
//! m LRU queues Q0..Q(m−1) (`mq.queues`, default 8). A page with access count f lives in
//! Q(min(⌊log2 f⌋, m − 1)). Every access sets the page's expiry to now + `mq.lifetime` (default
//! 10000 accesses) and runs Adjust: the clock ticks and, for each k ≥ 1, the LRU page of Qk is
//! moved down to Q(k−1) if it has expired. The victim is the LRU page of the lowest non-empty
//! queue; its id and count go to the history FIFO Qout (`mq.qout` × c entries, default 4, as the
//! paper suggests); a missed page found in Qout gets its remembered count plus one.
//!
//! Where the paper is silent: the clock counts hits and insertions (one tick per access); a
//! missed page is looked up in Qout before the victim is added to it (as libCacheSim's MQ does);
//! lifeTime is a fixed parameter (the paper sets it from the trace's peak temporal distance).

use super::list::{each_dirty, to_ghost, up_front, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "mq",
    description: "Multi-Queue (m LRU queues by log2 frequency + history Qout)",
    source: "Zhou, Philbin & Li, USENIX ATC'01, Fig. 5",
    offline: false,
    needs_view: false,
    params: &["queues", "lifetime", "qout"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let queues: usize = p.take("mq", "queues", 8, "a number of queues from 1 to 32")?;
        let lifetime: u64 = p.take("mq", "lifetime", 10_000, "a number of accesses")?;
        let qout: f64 = p.take("mq", "qout", 4.0, "a multiple of the cache size, ≥ 0")?;
        if !((1..=32).contains(&queues) && qout >= 0.0 && qout.is_finite()) {
            return Err(Error::config("mq: queues must be 1 to 32 and qout ≥ 0"));
        }
        Ok(Box::new(Mq::new(cap, queues, lifetime, (cap as f64 * qout) as usize)))
    },
};

const GHOST: u8 = u8::MAX;

#[derive(Debug)]
pub struct Mq {
    arena: Arena,
    queues: Vec<List>,
    qout: List,
    /// Expiry time of each arena node.
    expire: Vec<u64>,
    capacity: usize,
    qout_cap: usize,
    lifetime: u64,
    now: u64,
    len: usize,
}

impl Mq {
    pub fn new(capacity: usize, queues: usize, lifetime: u64, qout_cap: usize) -> Self {
        Mq {
            arena: Arena::with_capacity(capacity + qout_cap),
            queues: vec![List::default(); queues],
            qout: List::default(),
            expire: Vec::with_capacity(up_front(capacity + qout_cap)),
            capacity,
            qout_cap,
            lifetime,
            now: 0,
            len: 0,
        }
    }

    fn queue_of(&self, count: u32) -> u8 {
        let k = 31 - count.max(1).leading_zeros();
        (k as usize).min(self.queues.len() - 1) as u8
    }

    /// Puts node `i` at the MRU end of the queue its count calls for, with a fresh expiry.
    fn place(&mut self, i: u32) {
        let q = self.queue_of(self.arena.node(i).count);
        self.arena.node_mut(i).tag = q;
        self.queues[q as usize].push_front(&mut self.arena, i);
        if self.expire.len() <= i as usize {
            self.expire.resize(i as usize + 1, 0);
        }
        self.expire[i as usize] = self.now + self.lifetime;
    }

    fn adjust(&mut self) {
        self.now += 1;
        for k in 1..self.queues.len() {
            if let Some(t) = self.queues[k].back() {
                if self.expire[t as usize] < self.now {
                    self.queues[k].unlink(&mut self.arena, t);
                    self.arena.node_mut(t).tag = (k - 1) as u8;
                    self.queues[k - 1].push_front(&mut self.arena, t);
                    self.expire[t as usize] = self.now + self.lifetime;
                }
            }
        }
    }

    fn evict(&mut self, evicted: &mut Vec<Evicted>) {
        let Some(k) = self.queues.iter().position(|q| !q.is_empty()) else { return };
        let Some(v) = self.queues[k].pop_back(&mut self.arena) else { return };
        self.len -= 1;
        let n = self.arena.node_mut(v);
        evicted.push(Evicted { key: n.key, dirty: n.dirty });
        to_ghost(&mut self.arena, &mut self.qout, self.qout_cap, v, GHOST);
    }
}

impl Policy for Mq {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let remembered = match self.arena.get(a.key) {
            Some(i) if self.arena.node(i).tag != GHOST => {
                let q = self.arena.node(i).tag;
                self.queues[q as usize].unlink(&mut self.arena, i);
                let n = self.arena.node_mut(i);
                n.count = n.count.saturating_add(1);
                let was = n.dirty;
                n.dirty |= a.write;
                self.place(i);
                self.adjust();
                return Outcome::Hit { dirty: was };
            }
            Some(i) => {
                self.qout.unlink(&mut self.arena, i);
                Some(self.arena.release(i).count)
            }
            None => None,
        };
        while self.len >= self.capacity {
            self.evict(evicted);
        }
        let i = self.arena.alloc(a.key, 0, a.write);
        self.arena.node_mut(i).count = remembered.map_or(1, |c| c.saturating_add(1));
        self.place(i);
        self.len += 1;
        self.adjust();
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let i = self.arena.get(key)?;
        let tag = self.arena.node(i).tag;
        if tag == GHOST {
            self.qout.unlink(&mut self.arena, i);
            self.arena.release(i);
            return None;
        }
        self.queues[tag as usize].unlink(&mut self.arena, i);
        self.len -= 1;
        Some(self.arena.release(i).dirty)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, &self.queues, f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // c = 2, 2 queues, lifetime 100, Qout 2. 1 miss (f 1, Q0); 1 hit (f 2, Q1); 2 miss (Q0).
        // 3 miss: the victim is Q0's LRU page, 2 (1 is in Q1); Qout [2:1]. 2 miss, found in
        // Qout: f = 1 + 1 = 2, Q1; the victim is Q0's 3. Both 1 and 2 are now in Q1.
        // With lifetime 1: 1 miss (clock 1); 1 hit moves it to Q1, expiring at 2 (clock 2);
        // 2 miss: the clock reaches 3 > 2, so Adjust moves 1 down to Q0's MRU end, above 2.
        // 3 evicts Q0's LRU page 2, then 4 evicts 1.
        let mut p = Mq::new(2, 2, 100, 2);
        let t = trace(&mut p, "1 1 2 3 2 1");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, true, false, false, false, true]);
        assert_eq!(t[3].1, [2]);
        assert_eq!(t[4].1, [3]);
        let i = p.arena.get(2).unwrap();
        assert_eq!((p.arena.node(i).count, p.arena.node(i).tag), (2, 1));
        let mut p = Mq::new(2, 2, 1, 2);
        let t = trace(&mut p, "1 1 2 3 4");
        assert_eq!(t[3].1, [2]);
        assert_eq!(t[4].1, [1]);
    }
}
