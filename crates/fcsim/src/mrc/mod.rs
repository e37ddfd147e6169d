//! Miss-ratio curves: the LRU miss ratio at every cache size from one pass over a trace.
//!
//! [`exact`] computes the exact LRU stack distance of every access (Mattson et al., "Evaluation
//! techniques for storage hierarchies", IBM Systems Journal 9(2), 1970) in O(N log M) with a
//! Fenwick tree over access times (Bennett & Kruskal 1975; not in the seed papers' reference
//! lists), compacted so that it holds O(M) slots for M distinct pages. The LRU miss count at size
//! c is the number of accesses whose distance exceeds c (cold accesses included), which equals
//! LRU simulated at c exactly.
//!
//! Trims are skipped: LRU with deletions is not a stack algorithm (after a deletion the cache
//! no longer holds the top c pages of the stack), so no one-pass curve is exact for it. On a
//! trace with trims the curve is that of the trace without them.

mod exact;

pub use exact::{exact, StackDistances};

/// An LRU miss-ratio curve as a histogram of stack distances.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mrc {
    /// Read and write page accesses.
    pub accesses: u64,
    /// First accesses: misses at every size.
    pub cold: u64,
    /// `hist[d - 1]`: accesses with stack distance d (hits at every size ≥ d).
    pub hist: Vec<u64>,
}

impl Mrc {
    /// Misses of an LRU cache of `size` pages.
    pub fn misses(&self, size: usize) -> u64 {
        let hits: u64 = self.hist.iter().take(size).sum();
        self.accesses - hits
    }

    /// The curve's steps: (size, misses at that size) for every size where the miss count
    /// drops, in increasing size. Between two steps the count stays that of the smaller size.
    pub fn steps(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut misses = self.accesses;
        for (i, &h) in self.hist.iter().enumerate() {
            if h > 0 {
                misses -= h;
                out.push((i as u64 + 1, misses));
            }
        }
        out
    }
}
