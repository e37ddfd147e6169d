//! `--admit dram-reads`: a page enters the flash cache only after proving itself in the DRAM
//! tier above it: when DRAM evicts it, it is admitted iff it was read there at least k times.
//! The idea is Flashield's (A. Eisenman, A. Cidon, E. Pergament, O. Haimovich, R. Stutsman,
//! M. Alizadeh, S. Katti, "Flashield: a Hybrid Key-value Cache that Controls Flash Write
//! Amplification", NSDI '19; authors and title from the USENIX programme page): DRAM is a
//! filter, and only objects likely to be read often without being updated are written to
//! flash. Flashield predicts that with a learned classifier over several features of an
//! object's stay in DRAM; this admission keeps one, the reads in DRAM, as a threshold, and
//! applies it to pages instead of key-value objects. (Only the abstract was read; no section
//! of the paper is followed here.)
//!
//! **The data flow** (a change from the other admissions, which see DRAM's misses): with
//! `dram-reads` the flash tier is a victim cache of the DRAM tier
//! ([`Admission::victim_cache`]):
//! - a DRAM read miss the flash tier holds is a flash hit, and the page goes to DRAM as for
//!   every admission (the flash copy stays: the tiers are inclusive for pages read from flash);
//! - a DRAM read miss the flash tier does not hold is read from the disk and is not offered to
//!   the flash tier: the page enters DRAM only (a backing read of the flash tier);
//! - a page DRAM evicts clean ([`crate::device::Store::drop_clean`]) that the flash tier does not
//!   hold is offered to it ([`crate::stack::Tier::offer_clean`]); admitted, the policy takes it
//!   clean and the flash programs it with no disk read ([`crate::device::Backing::fill`]), which
//!   the row counts as an insertion and a cache write, not an access;
//! - a page DRAM evicts dirty reaches the flash tier as a write, as before: under write-back it
//!   is offered ([`Admission::admit`]) and, declined, written to the disk; under write-around it
//!   goes to the disk and invalidates a flash copy, the admission not asked;
//! - the flash tier's admission hears DRAM's read hits ([`Admission::above_read`], through
//!   [`crate::device::Store::read_hit`]) and DRAM's evictions ([`Admission::above_evicted`]).
//!
//! Chosen where the source leaves it open:
//! - The reads counted are the page's read hits in DRAM during its current stay; the read miss
//!   that brought it into DRAM is not counted (a page proves itself by being read again), and a
//!   write hit counts nothing (Flashield wants pages read without being updated, but a write
//!   does not reset the count here). So `k = 0` makes the flash tier a plain victim cache of
//!   DRAM (every victim admitted) and the default `k = 1` admits a page read at least once more
//!   after it entered DRAM.
//! - The count lives in a map keyed by page, sized for the DRAM tier's pages when built; an
//!   entry is made at a page's first read hit in DRAM and dropped when DRAM evicts the page or a
//!   trim removes it, so the map holds at most the DRAM tier's pages.
//! - No knob: a larger k admits less, and the two users of a knob (the write-budget controller
//!   and the Pareto sweep) run a flash cache with no DRAM tier, which this admission refuses.
//!   Sweep `admit.k` directly.
//!
//! Measured (`data/traces/cloudphysics_vscsi_2h.csv.gz`, lru, ssd-cache of 5% of the trace's
//! pages = 13,461, `stack.dram=0.1`; the row's `hit_ratio`/`read_hit_ratio` are the flash
//! tier's, of DRAM's misses; "stack" adds DRAM's hits, over DRAM's accesses):
//!
//! | write | admit | flash hit / read hit | stack hit / read hit | cache_writes | erasures |
//! |---|---|---|---|---|---|
//! | around | all | 0.0046 / 0.0105 | 0.1043 / 0.0831 | 445,326 | 38,371 |
//! | around | dram-reads k=0 | 0.0048 / 0.0110 | 0.1045 / 0.0835 | 444,281 | 37,835 |
//! | around | dram-reads k=1 | 0.0030 / 0.0069 | 0.1029 / 0.0798 | 29,845 | 287 |
//! | around | dram-reads k=2 | 0.0000 / 0.0001 | 0.1002 / 0.0734 | 281 | 0 |
//! | back | all | 0.0153 / 0.0218 | 0.1139 / 0.0936 | 1,018,438 | 106,029 |
//! | back | dram-reads k=1 | 0.0395 / 0.0365 | 0.1357 / 0.1072 | 51,029 | 4,469 |
//! | back | dram-reads k=2 | 0.0020 / 0.0015 | 0.1020 / 0.0748 | 2,006 | 0 |

use super::{Admission, AdmissionInfo, AdmitParams, ParamInfo};
use crate::error::{Error, Result};
use crate::policy::{Access, Policy};
use rustc_hash::FxHashMap;

pub const INFO: AdmissionInfo = AdmissionInfo {
    name: "dram-reads",
    description: "the flash tier takes DRAM's victims, a page only if it was read in DRAM at least k times (needs stack.dram)",
    source: "Eisenman et al., Flashield, NSDI '19 (DRAM as a filter before flash)",
    params: &[ParamInfo::num("k", 1.0, 0.0, 1_000_000.0, "the read hits in DRAM a page needs to enter flash")],
    knob: None,
    unbudgeted: None,
    make: |p| Ok(Box::new(DramReads::new(p)?)),
};

/// The read hits in DRAM of the pages there.
#[derive(Debug)]
pub struct DramReads {
    k: u32,
    reads: FxHashMap<u64, u32>,
}

impl DramReads {
    pub fn new(p: &AdmitParams) -> Result<DramReads> {
        if p.dram_pages == 0 {
            return Err(Error::config("admission dram-reads admits the pages a DRAM tier evicts: set stack.dram to a fraction above 0"));
        }
        let mut reads = FxHashMap::default();
        reads.reserve(p.dram_pages);
        Ok(DramReads { k: p.get("k") as u32, reads })
    }
}

impl Admission for DramReads {
    #[inline]
    fn admit(&mut self, a: &Access, _policy: &dyn Policy) -> bool {
        self.reads.get(&a.key).copied().unwrap_or(0) >= self.k
    }

    fn victim_cache(&self) -> bool {
        true
    }

    #[inline]
    fn above_read(&mut self, key: u64) {
        let n = self.reads.entry(key).or_insert(0);
        *n = n.saturating_add(1);
    }

    #[inline]
    fn above_evicted(&mut self, key: u64) {
        self.reads.remove(&key);
    }

    fn forget(&mut self, key: u64) {
        self.reads.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{no_device, Buffer, Eviction, NoDevice};
    use crate::request::{Op, NEVER};
    use crate::stack::{Below, Stack, Tier, WriteMode};

    /// A DRAM LRU of 2 pages over a write-back flash LRU of 4 with `dram-reads` (k), nothing timed.
    fn stack(k: f64) -> Stack<Buffer<Below<Buffer<NoDevice>>>> {
        let lru = |n| crate::policy::build("lru", n, Default::default()).unwrap().0;
        let mut flash = Tier::with_mode(lru(4), 4, WriteMode::Back);
        flash.admission = Some((INFO.make)(&AdmitParams { values: vec![("k", k)], capacity: 4, dram_pages: 2 }).unwrap());
        let below = Buffer { store: Below { tier: flash, dev: no_device() }, dram_ns: 0, eviction: Eviction::Parallel };
        Stack::new(Tier::new(lru(2), 2), below)
    }

    fn run(s: &mut Stack<Buffer<Below<Buffer<NoDevice>>>>, ops: &[(u64, Op)]) {
        for &(k, op) in ops {
            s.tier.access(k, op, 0, NEVER, 0, &mut s.below).unwrap();
        }
    }

    #[test]
    fn a_page_reaches_flash_only_after_k_reads_in_dram() {
        use Op::{Read as R, Write as W};
        // k = 1. DRAM [MRU .. LRU]; a miss's victim leaves DRAM before the missed page is read.
        // 1 R: DRAM miss, flash miss: read from the disk, not offered to flash [1];
        // 1 R: DRAM hit, 1's first read in DRAM [1];
        // 2 R: DRAM and flash miss, disk [2 1];
        // 3 R: evicts 1 clean, read once in DRAM: admitted, programmed with no disk read;
        //   then 3 from the disk [3 2];
        // 4 W: DRAM takes it dirty (nothing below); evicts 2 clean, never read in DRAM: declined
        //   [4 3];
        // 3 R: DRAM hit, 3's first read [3 4];
        // 5 R: evicts 4 dirty, a write to flash: never read, declined, written to the disk; then
        //   5 from the disk [5 3];
        // 1 R: evicts 3 clean, read once: admitted; then 1 hits in flash (and stays there) [1 5];
        // 2 R: evicts 5 clean, never read: declined; 2 misses flash (it was declined): disk [2 1].
        let mut s = stack(1.0);
        run(&mut s, &[(1, R), (1, R), (2, R), (3, R), (4, W), (3, R), (5, R), (1, R), (2, R)]);
        let f = s.below.store.tier.counters;
        // The flash tier's accesses are DRAM's 6 read misses and 1 dirty write-back; 1 hit.
        assert_eq!((f.reads, f.writes, f.hits), (6, 1, 1));
        // Flash writes: pages 1 and 3, each a clean victim; disk reads: the 5 DRAM read misses
        // that missed flash; the one disk write is page 4's declined write-back.
        assert_eq!((f.insertions, f.backing_reads, f.backing_writes), (2, 5, 1));
        assert_eq!(s.below.store.tier.resident(), 2);
        // The reads counted were DRAM's 2 read hits (of 1 and of 3).
        assert_eq!(s.tier.counters.read_hits, 2);
    }

    #[test]
    fn k_zero_takes_every_victim_and_a_larger_k_fewer() {
        use Op::{Read as R, Write as W};
        // The same trace. k = 0 admits every victim: 1, 2, 3 and 5 clean, 4 dirty (a write miss
        // in flash, programmed, nothing written to the disk). 1 then hits in flash; 5 entering
        // the full flash evicts its LRU page, 2 (flash order [1 3 4 2] after 1's hit), so the
        // last read of 2 goes to the disk: 5 disk reads of DRAM's 6 misses. k = 2 admits
        // nothing (no page was read twice in DRAM): 6 disk reads and 4's write-back.
        let trace = [(1, R), (1, R), (2, R), (3, R), (4, W), (3, R), (5, R), (1, R), (2, R)];
        let mut s = stack(0.0);
        run(&mut s, &trace);
        let f = s.below.store.tier.counters;
        assert_eq!((f.insertions, f.hits, f.backing_reads, f.backing_writes, f.evictions), (5, 1, 5, 0, 1));
        let mut s = stack(2.0);
        run(&mut s, &trace);
        let f = s.below.store.tier.counters;
        assert_eq!((f.insertions, f.hits, f.backing_reads, f.backing_writes), (0, 0, 6, 1));
    }

    #[test]
    fn refuses_a_stack_without_dram() {
        let e = (INFO.make)(&AdmitParams { values: vec![("k", 1.0)], capacity: 4, dram_pages: 0 }).err().unwrap().to_string();
        assert!(e.contains("set stack.dram"), "{e}");
    }
}
