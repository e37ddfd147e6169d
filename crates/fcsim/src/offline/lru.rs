//! **LRU** over an FTL, the container-oblivious online baseline of the offline-bounds paper
//! (Table 2 L; §6.1). It sees the flash level's stream (the reads its LRU DRAM tier missed and
//! every write) and inserts every missed read and every write (the online caches keep the cache
//! consistent with the file system, §3.4); each copy takes a logical page of the SSD.
//!
//! Not in the paper, chosen: an evicted block's logical page is trimmed (`lru-ftl.trim`,
//! default true), as a cache that knows its evictions would; the SSD is the same as M's and
//! M+'s (same erase unit, over-provisioning and greedy GC).

use super::containers::FlashCounts;
use super::stream::Stream;
use super::unit::OnFtl;
use crate::error::Result;
use crate::policy::{self, Access, Outcome};
use crate::request::{Op, NEVER};

/// Runs LRU of `capacity` blocks over `ftl`.
pub fn run(s: &Stream, capacity: usize, mut ftl: OnFtl) -> Result<(FlashCounts, u64)> {
    let mut lru = policy::build("lru", capacity, Default::default())?.0;
    let mut evicted = Vec::with_capacity(2);
    let mut evictions = 0;
    for i in 0..s.len() {
        let (key, op) = (s.keys[i], s.ops[i]);
        if op == Op::Trim {
            lru.remove(key);
            ftl.release(key);
            continue;
        }
        evicted.clear();
        let a = Access { key, write: false, index: i as u64, next: NEVER, time: 0 };
        let outcome = lru.access(&a, &mut evicted);
        for e in &evicted {
            evictions += 1;
            ftl.release(e.key);
        }
        match (outcome, op) {
            (Outcome::Hit { .. }, Op::Read) => {
                ftl.serve(key);
            }
            _ => ftl.program(key),
        }
    }
    Ok((ftl.finish()?, evictions))
}
