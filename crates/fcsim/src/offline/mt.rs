//! **M_T** (offline-bounds paper §3.2 Algorithm H_T, objective O2, §3.5 M_T, Table 2): M+ under
//! an erasure quota. STEP 1: run H (M+) and count A_i, the insertions that absorbed i read
//! hits (i ≥ 1; H already omits those with none). STEP 2: with I = Σ A_i insertions and I'
//! allowed, find the reuse count R and the leftover L such that the cumulative omitted
//! insertions CI = Σ_{i<R} A_i + L make I − CI = I'. STEP 3: rerun H omitting every insertion
//! with fewer than R hits and the first L (in time) with exactly R.
//!
//! The quota is EPBPD × cache size × trace duration erasures (§3.2 O2), or a share of the
//! unthrottled heuristic's erasures. The paper does not say how I' follows from the quota;
//! fcsim's choice: I' = I × quota / E_H at first, and while the replay's erasures exceed the
//! quota, I' shrinks in proportion (at least by one) and H is rerun; the row reports the
//! replays, R and L.

use super::queue::{Bits, Log};

/// What [`skip`] chose.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Threshold {
    /// Insertions of H (I), and those allowed (I').
    pub insertions: u64,
    pub allowed: u64,
    /// The reuse count R and the leftover L.
    pub reuse: u32,
    pub leftover: u64,
}

/// The versions to omit so that `allowed` of H's insertions remain.
pub fn skip(log: &Log, allowed: u64) -> (Bits, Threshold) {
    let mut counts: Vec<u64> = Vec::new();
    for (_, reads) in log.versions() {
        let r = reads as usize;
        if counts.len() <= r {
            counts.resize(r + 1, 0);
        }
        counts[r] += 1;
    }
    let insertions: u64 = counts.iter().skip(1).sum();
    let allowed = allowed.min(insertions);
    let mut omit = insertions - allowed;
    // R: the reuse count at which the omitted insertions run out; L: how many of those with
    // exactly R hits go too.
    let mut reuse = 1u32;
    while (reuse as usize) < counts.len() && omit >= counts[reuse as usize] && omit > 0 {
        omit -= counts[reuse as usize];
        reuse += 1;
    }
    let leftover = omit;
    let mut s = Bits::new(log.absorbed.len());
    let mut left = leftover;
    for (v, reads) in log.versions() {
        if reads < reuse || (reads == reuse && left > 0) {
            if reads == reuse {
                left -= 1;
            }
            s.set(v as usize);
        }
    }
    (s, Threshold { insertions, allowed, reuse, leftover })
}

#[cfg(test)]
mod tests {
    use super::super::queue::{min_pass, tests::stream};

    #[test]
    fn reuse_count_and_leftover() {
        // Capacity 2: 1 2 1 2 2 3 3 gives versions 0 (1 read), 1 (2 reads), 5 (1 read): A_1 = 2,
        // A_2 = 1, I = 3.
        let s = stream("1 2 1 2 2 3 3");
        let (_, log) = min_pass(&s, 2);
        // I' = 2: omit one: R = 1, L = 1, the first version with one hit (0) goes.
        let (skip, t) = super::skip(&log, 2);
        assert_eq!((t.insertions, t.reuse, t.leftover), (3, 1, 1));
        assert!(skip.get(0) && !skip.get(5) && !skip.get(1));
        // I' = 1: omit both single-hit versions: R = 2, L = 0.
        let (skip, t) = super::skip(&log, 1);
        assert_eq!((t.reuse, t.leftover), (2, 0));
        assert!(skip.get(0) && skip.get(5) && !skip.get(1));
        // I' = 3: nothing beyond H's own omissions; I' = 0: everything.
        assert_eq!(super::skip(&log, 3).0.count(), 0);
        assert_eq!(super::skip(&log, 0).0.count(), 3);
    }
}
