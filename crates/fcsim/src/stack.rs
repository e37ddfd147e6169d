//! The cache stack: a tier (policy + write policy) over a backing store.
//!
//! The tier is write-back and write-allocate: a write hit dirties the page; a write miss admits
//! the page dirty (the whole page is taken to be overwritten, so nothing is read from the
//! backing store); a read miss reads the page from the backing store and admits it; a dirty
//! page is written to the backing store when it is evicted, and the dirty pages left at the end
//! are flushed and counted (as the GASA paper counts them, §IV.B.2). A trim drops the page
//! without writing it back. A miss the policy declines to admit goes to the backing store
//! directly (a read is served from it, a write is written to it).
//!
//! Over a device (buffer over SSD): a read miss reads flash, a dirty eviction programs flash, a
//! hit and an admitted write cost the device's DRAM latency; a request waits for the evictions
//! it causes unless the device's evictions are asynchronous.

use crate::device::Backing;
use crate::error::Result;
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

    /// Processes one page access of a request that arrived at `time` (ns); returns when the
    /// access completes on `dev` (for [`crate::device::NoDevice`], `time`). Dirty victims are
    /// written back before a missed page is read, so on one chip the read queues behind them.
    #[inline]
    pub fn access<B: Backing>(&mut self, key: u64, op: Op, index: u64, next: u64, time: u64, dev: &mut B) -> Result<u64> {
        let c = &mut self.counters;
        if op == Op::Trim {
            c.trims += 1;
            self.policy.remove(key);
            dev.trim(key);
            return Ok(time);
        }
        let write = op == Op::Write;
        c.accesses += 1;
        if write {
            c.writes += 1;
        } else {
            c.reads += 1;
        }
        self.evicted.clear();
        let a = Access { key, write, index, next, time };
        let outcome = match dev.view() {
            Some(view) => self.policy.access_on(&a, view, &mut self.evicted),
            None => self.policy.access(&a, &mut self.evicted),
        };
        let mut done = time;
        for e in &self.evicted {
            c.evictions += 1;
            if e.dirty {
                c.dirty_evictions += 1;
                c.backing_writes += 1;
                let t = dev.write(e.key, time)?;
                if dev.sync_evictions() {
                    done = done.max(t);
                }
            }
        }
        let t = match outcome {
            Outcome::Hit => {
                c.hits += 1;
                if write {
                    c.write_hits += 1;
                } else {
                    c.read_hits += 1;
                }
                dev.hit(time)
            }
            Outcome::Miss { admitted } => {
                if admitted {
                    c.insertions += 1;
                }
                if !write {
                    c.backing_reads += 1;
                    dev.read(key, time)?
                } else if admitted {
                    dev.admit(key)?;
                    dev.hit(time)
                } else {
                    c.backing_writes += 1;
                    dev.write(key, time)?
                }
            }
        };
        Ok(done.max(t))
    }

    /// Writes back every dirty page left in the tier (end of run) at `time`.
    pub fn flush<B: Backing>(&mut self, time: u64, dev: &mut B) -> Result<()> {
        let mut dirty = Vec::new();
        self.policy.for_each_dirty(&mut |k| dirty.push(k));
        self.counters.flushed += dirty.len() as u64;
        self.counters.backing_writes += dirty.len() as u64;
        for k in dirty {
            dev.write(k, time)?;
        }
        Ok(())
    }
}
