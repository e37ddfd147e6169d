//! **M_N** (offline-bounds paper §3.2 Algorithm H_N, §3.5 M_N, Table 1 R_N + TRIM, Table 2):
//! M+ that also omits insertions reread fewer than N times. M_1 is M+; a larger N trades read
//! hits (the skipped versions' reads miss) for fewer flash writes (§6.3, Fig. 10).
//!
//! "Reread N times" counts the reads the version absorbed in the MIN run: the read hits it
//! would have served before being evicted or overwritten.

use super::queue::{Bits, Log};

/// The versions that absorbed fewer than `n` reads.
pub fn skip(log: &Log, n: u32) -> Bits {
    let mut s = Bits::new(log.absorbed.len());
    for (v, reads) in log.versions() {
        if reads < n {
            s.set(v as usize);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::queue::{min_pass, tests::stream};

    #[test]
    fn skips_by_rereads() {
        // Capacity 2: 1 2 1 2 2 3 3. Version 0 (1) absorbs one read, 1 (2) two; 3 is inserted
        // at 5 (read at 6) and absorbs one.
        let s = stream("1 2 1 2 2 3 3");
        let (_, log) = min_pass(&s, 2);
        assert_eq!(log.versions().collect::<Vec<_>>(), [(0, 1), (1, 2), (5, 1)]);
        assert_eq!(super::skip(&log, 1).count(), 0);
        let two = super::skip(&log, 2);
        assert!(two.get(0) && two.get(5) && !two.get(1));
        assert_eq!(super::skip(&log, 3).count(), 3);
    }
}
