//! Exact LRU stack distances with a compacted Fenwick tree over access times.

use super::Mrc;
use rustc_hash::FxHashMap;

/// Slot value of a time that holds no live page.
const DEAD: u64 = u64::MAX;

/// Stack distances of a stream of page accesses, one at a time.
#[derive(Debug)]
pub struct StackDistances {
    /// Fenwick tree over slots: 1 where the slot is some page's most recent access.
    tree: Vec<u32>,
    /// The page whose most recent access is each slot, or DEAD.
    slot_key: Vec<u64>,
    /// Each page's slot.
    last: FxHashMap<u64, u32>,
    next: usize,
    mrc: Mrc,
}

impl Default for StackDistances {
    fn default() -> Self {
        Self::new()
    }
}

impl StackDistances {
    pub fn new() -> Self {
        let cap = 1 << 16;
        StackDistances { tree: vec![0; cap + 1], slot_key: vec![DEAD; cap], last: FxHashMap::default(), next: 0, mrc: Mrc::default() }
    }

    #[inline]
    fn add(&mut self, slot: usize, delta: i32) {
        let mut i = slot + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Live slots at positions ≤ `slot`.
    #[inline]
    fn prefix(&self, slot: usize) -> u32 {
        let mut i = slot + 1;
        let mut s = 0;
        while i > 0 {
            s += self.tree[i];
            i &= i - 1;
        }
        s
    }

    /// Renumbers the live slots 0..M in order (doubling the capacity if they fill half of it)
    /// and rebuilds the tree in linear time.
    fn compact(&mut self) {
        let live = self.last.len();
        let mut cap = self.slot_key.len();
        if 2 * live > cap {
            cap *= 2;
        }
        let mut keys = Vec::with_capacity(cap);
        keys.extend(self.slot_key[..self.next].iter().copied().filter(|&k| k != DEAD));
        for (i, &k) in keys.iter().enumerate() {
            self.last.insert(k, i as u32);
        }
        self.next = keys.len();
        keys.resize(cap, DEAD);
        self.slot_key = keys;
        self.tree = vec![0; cap + 1];
        for i in 1..=cap {
            if i <= self.next {
                self.tree[i] += 1;
            }
            let parent = i + (i & i.wrapping_neg());
            if parent <= cap {
                self.tree[parent] += self.tree[i];
            }
        }
    }

    /// Records a read or write access to `key`; returns its stack distance (None if cold).
    #[inline]
    pub fn access(&mut self, key: u64) -> Option<u64> {
        if self.next == self.slot_key.len() {
            self.compact();
        }
        self.mrc.accesses += 1;
        let slot = self.next;
        self.next += 1;
        self.slot_key[slot] = key;
        let d = match self.last.insert(key, slot as u32) {
            Some(old) => {
                let old = old as usize;
                let newer = self.last.len() as u32 - self.prefix(old);
                self.add(old, -1);
                self.slot_key[old] = DEAD;
                let d = u64::from(newer) + 1; // the pages used since, and this one
                if self.mrc.hist.len() < d as usize {
                    self.mrc.hist.resize(d as usize, 0);
                }
                self.mrc.hist[d as usize - 1] += 1;
                Some(d)
            }
            None => {
                self.mrc.cold += 1;
                None
            }
        };
        self.add(slot, 1);
        d
    }

    pub fn finish(self) -> Mrc {
        self.mrc
    }
}

/// The exact LRU MRC of a trace.
pub fn exact(
    trace: &str,
    opts: &crate::trace::TraceOptions,
    page_size: u32,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> crate::Result<Mrc> {
    use crate::request::{Op, PageSplitter};
    if page_size == 0 {
        return Err(crate::Error::config("page size must be positive"));
    }
    let mut reader = crate::trace::open(trace, opts)?;
    let splitter = PageSplitter::new(page_size, reader.key_unit());
    let mut sd = StackDistances::new();
    let mut n = 0u64;
    while let Some(r) = reader.next_request()? {
        let (first, count) = splitter.pages(&r);
        if r.op != Op::Trim {
            for key in first..first + count {
                sd.access(key);
            }
        }
        n += 1;
        if n % (1 << 16) == 0 {
            let (done, total) = reader.progress();
            if !progress(done, total) {
                return Err(crate::Error::Interrupted);
            }
        }
    }
    Ok(sd.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_traced_distances() {
        // 1 2 3 1 2 2 4 1. Stack (top first) before each re-access: 1 at [3 2 1] → 3;
        // 2 at [1 3 2] → 3; 2 at [2 1 3] → 1; 1 at [4 2 1 3] → 3.
        let mut sd = StackDistances::new();
        let got: Vec<Option<u64>> = [1, 2, 3, 1, 2, 2, 4, 1].iter().map(|&k| sd.access(k)).collect();
        assert_eq!(got, [None, None, None, Some(3), Some(3), Some(1), None, Some(3)]);
        let mrc = sd.finish();
        assert_eq!((mrc.accesses, mrc.cold), (8, 4));
        assert_eq!(mrc.hist, [1, 0, 3]);
        assert_eq!(mrc.misses(1), 7);
        assert_eq!(mrc.misses(3), 4);
        assert_eq!(mrc.steps(), [(1, 7), (3, 4)]);
    }

    #[test]
    fn compaction_keeps_distances() {
        // More accesses than the initial 2^16 slots, over 1000 pages in a loop: every non-cold
        // access has distance 1000.
        let mut sd = StackDistances::new();
        for i in 0..200_000u64 {
            let d = sd.access(i % 1000);
            assert_eq!(d, (i >= 1000).then_some(1000));
        }
    }
}
