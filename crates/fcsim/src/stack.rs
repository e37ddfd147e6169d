//! The cache stack: a tier (policy + write policy) over a backing store.
//!
//! The tier is write-back and write-allocate: a write hit dirties the page; a write miss admits
//! the page dirty (the whole page is taken to be overwritten, so nothing is read from the
//! backing store); a read miss reads the page from the backing store and admits it; a dirty
//! page is written to the backing store when it is evicted, and the dirty pages left at the end
//! are flushed and counted (as the GASA paper counts them, §IV.B.2). A trim drops the page
//! without writing it back. A miss the policy declines to admit goes to the backing store
//! directly (a read is served from it, a write is written to it).

use crate::metrics::Counters;
use crate::policy::{Access, Evicted, Outcome, Policy};
use crate::request::Op;

/// One cache tier.
pub struct Tier {
    policy: Box<dyn Policy>,
    capacity: usize,
    evicted: Vec<Evicted>,
    pub counters: Counters,
}

impl std::fmt::Debug for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tier").field("capacity", &self.capacity).field("counters", &self.counters).finish()
    }
}

impl Tier {
    pub fn new(policy: Box<dyn Policy>, capacity: usize) -> Self {
        Tier { policy, capacity, evicted: Vec::with_capacity(16), counters: Counters::default() }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn resident(&self) -> usize {
        self.policy.len()
    }

    /// Processes one page access.
    #[inline]
    pub fn access(&mut self, key: u64, op: Op, index: u64, next: u64) {
        let c = &mut self.counters;
        if op == Op::Trim {
            c.trims += 1;
            self.policy.remove(key);
            return;
        }
        let write = op == Op::Write;
        c.accesses += 1;
        if write {
            c.writes += 1;
        } else {
            c.reads += 1;
        }
        self.evicted.clear();
        match self.policy.access(&Access { key, write, index, next }, &mut self.evicted) {
            Outcome::Hit => {
                c.hits += 1;
                if write {
                    c.write_hits += 1;
                } else {
                    c.read_hits += 1;
                }
            }
            Outcome::Miss { admitted } => {
                if !write {
                    c.backing_reads += 1;
                }
                if admitted {
                    c.insertions += 1;
                } else if write {
                    c.backing_writes += 1;
                }
            }
        }
        for e in &self.evicted {
            c.evictions += 1;
            if e.dirty {
                c.dirty_evictions += 1;
                c.backing_writes += 1;
            }
        }
    }

    /// Writes back every dirty page left in the tier (end of run).
    pub fn flush(&mut self) {
        let mut n = 0;
        self.policy.for_each_dirty(&mut |_| n += 1);
        self.counters.flushed += n;
        self.counters.backing_writes += n;
    }
}
