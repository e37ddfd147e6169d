//! Miss-ratio curves: the LRU miss ratio at every cache size from one pass over a stream of page
//! accesses. A leaf: it knows nothing of traces ([`crate::curves`] feeds it a trace), so the
//! cache stack can build curves while it runs (a windowed curve, [`CurveBuilder`]).
//!
//! [`exact`] computes the exact LRU stack distance of every access (Mattson et al., "Evaluation
//! techniques for storage hierarchies", IBM Systems Journal 9(2), 1970) in O(N log M) with a
//! Fenwick tree over access times (Bennett & Kruskal 1975; not in the seed papers' reference
//! lists), compacted so that it holds O(M) slots for M distinct pages. The LRU miss count at size
//! c is the number of accesses whose distance exceeds c (cold accesses included), which equals
//! LRU simulated at c exactly.
//!
//! [`shards`] approximates the same curve from a spatially hashed sample of the pages (SHARDS,
//! fixed rate or fixed size), in memory that grows with the sample, not the trace.
//!
//! Trims are skipped: LRU with deletions is not a stack algorithm (after a deletion the cache
//! no longer holds the top c pages of the stack), so no one-pass curve is exact for it. On a
//! trace with trims the curve is that of the trace without them.

mod exact;
pub mod shards;

use crate::error::Result;
pub use exact::StackDistances;
pub use shards::{Sampling, Shards};

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

    /// Miss ratio of an LRU cache of `size` pages (1 with no accesses).
    pub fn miss_ratio(&self, size: u64) -> f64 {
        match self.accesses {
            0 => 1.0,
            n => self.misses(usize::try_from(size).unwrap_or(usize::MAX)) as f64 / n as f64,
        }
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

/// A curve built from a stream of page accesses that can be read at any point and started
/// afresh: the MRC generator of the dynamic-allocation paper (§IV), which reads the curve of the
/// last window and resets it.
pub trait CurveBuilder: Send + std::fmt::Debug {
    /// Records a read or write access to `key`; `Err` when the structure cannot grow for it
    /// (out of memory).
    fn access(&mut self, key: u64) -> Result<()>;
    /// Miss ratio of an LRU cache of `size` pages over the accesses since the last reset (1
    /// with none).
    fn miss_ratio(&self, size: u64) -> f64;
    /// Page accesses since the last reset.
    fn accesses(&self) -> u64;
    /// Forgets every access.
    fn reset(&mut self);
}

impl CurveBuilder for StackDistances {
    #[inline]
    fn access(&mut self, key: u64) -> Result<()> {
        StackDistances::access(self, key).map(|_| ())
    }
    fn miss_ratio(&self, size: u64) -> f64 {
        self.curve().miss_ratio(size)
    }
    fn accesses(&self) -> u64 {
        self.curve().accesses
    }
    fn reset(&mut self) {
        *self = StackDistances::with_pages(self.pages_hint());
    }
}
