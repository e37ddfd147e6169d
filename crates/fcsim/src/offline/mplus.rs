//! **M+** (offline-bounds paper §3.2 Algorithm H, §3.5 M+, Table 1 R_1 + TRIM, Table 2): run
//! MIN, log the insertions evicted without a read hit, replay skipping them (R_1); and TRIM a
//! block's copy once its last read has happened, so no GC copies it forward.
//!
//! STEP 1 is the annotation ([`super::stream`]), STEP 2 the first replay ([`super::queue::min_pass`])
//! and STEP 3 the replay with [`skip`]. A skipped version stays in the MIN queue without a copy
//! (Fig. 3 lines 11-19), so the queue and every read hit are MIN's: M+'s RHR equals MIN's.
//! Versions are insertions and new versions written by the host (§3.2: "blocks added (via
//! reads or writes) to the cache").

use super::queue::{Bits, Log};

/// The versions that absorbed no read (R_1).
pub fn skip(log: &Log) -> Bits {
    super::mn::skip(log, 1)
}

#[cfg(test)]
mod tests {
    use super::super::queue::{min_pass, tests::stream};

    #[test]
    fn skips_the_wasted_write() {
        // §3.2's example at capacity 1: A B B A. MIN evicts A (inserted at 0) for B before A's
        // read at 3: A's insertion absorbed nothing and is skipped; B's absorbed one hit.
        let s = stream("1 2 2 1");
        let (_, log) = min_pass(&s, 1);
        let skip = super::skip(&log);
        assert!(skip.get(0) && !skip.get(1));
        assert_eq!(skip.count(), 1);
    }
}
