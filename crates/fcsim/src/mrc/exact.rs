//! Exact LRU stack distances with a compacted Fenwick tree over access times.
//!
//! Each access takes a time slot; a page's live slot is its most recent access. The stack
//! distance of a re-access is the number of live slots after the page's previous slot, plus
//! one. Live slots are a bitset; a Fenwick tree counts them per 64-slot word, so it is 64 times
//! smaller than the slot range and stays in cache, and a word's own bits are counted with
//! popcount. When the slots run out, live slots are renumbered in order (capacity doubling when
//! they fill half of it), so the structure holds O(M) slots for M distinct pages.
//!
//! Each page's slot is found in a plain array indexed by the page key while keys stay below
//! four times the expected number of pages (page numbers of one volume are dense), else in a
//! hash map: an array entry is 4 bytes and one memory access, a map entry about 20 and a probe.

use super::Mrc;
use crate::error::Result;
use crate::mem;
use rustc_hash::FxHashMap;

/// Stack distances of a stream of page accesses, one at a time.
#[derive(Debug)]
pub struct StackDistances {
    /// Live slots, one bit each.
    bits: Vec<u64>,
    /// Fenwick tree over `bits`' words: live slots per word.
    tree: Vec<u32>,
    /// Each page's slot.
    last: Last,
    /// Pages seen (live slots).
    pages: usize,
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
        Self::with_pages(0)
    }

    /// Sized for about `pages` distinct pages (a hint, taken up to 2^26: it grows past it, so
    /// memory follows the pages seen, whatever the hint).
    pub fn with_pages(pages: usize) -> Self {
        let pages = pages.min(1 << 26);
        let cap = (2 * pages).next_power_of_two().max(1 << 16);
        let last = Last::Dense { slots: Vec::new(), limit: (4 * pages).max(1 << 16) as u64, hint: pages };
        StackDistances { bits: vec![0; cap / 64], tree: vec![0; cap / 64 + 1], last, pages: 0, next: 0, mrc: Mrc::default() }
    }

    #[inline]
    fn add_word(&mut self, word: usize, delta: i32) {
        let mut i = word + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn set(&mut self, slot: usize) {
        self.bits[slot / 64] |= 1 << (slot % 64);
        self.add_word(slot / 64, 1);
    }

    #[inline]
    fn clear(&mut self, slot: usize) {
        self.bits[slot / 64] &= !(1 << (slot % 64));
        self.add_word(slot / 64, -1);
    }

    /// Live slots at positions ≤ `slot`.
    #[inline]
    fn prefix(&self, slot: usize) -> u32 {
        let word = slot / 64;
        let mut i = word;
        let mut s = 0;
        while i > 0 {
            s += self.tree[i];
            i &= i - 1;
        }
        let mask = u64::MAX >> (63 - slot % 64);
        s + (self.bits[word] & mask).count_ones()
    }

    /// Renumbers the live slots 0..M in order (a slot's new number is its rank among live
    /// slots), doubling the capacity if they fill half of it, and rebuilds the bitset and tree
    /// in linear time.
    fn compact(&mut self) -> Result<()> {
        let live = self.pages;
        let mut words = self.bits.len();
        if 2 * live > 64 * words {
            words *= 2;
        }
        let mut before = mem::filled(self.bits.len(), 0u32, "the stack-distance slots")?;
        let mut sum = 0u32;
        for (b, w) in before.iter_mut().zip(&self.bits) {
            *b = sum;
            sum += w.count_ones();
        }
        let bits = &self.bits;
        self.last.for_each(|slot| {
            let s = *slot as usize;
            let mask = (1u64 << (s % 64)) - 1;
            *slot = before[s / 64] + (bits[s / 64] & mask).count_ones();
        });
        self.next = live;
        let (bits, tree) = (mem::filled(words, 0, "the stack-distance slots")?, mem::filled(words + 1, 0, "the stack-distance tree")?);
        self.bits = bits;
        for w in 0..live / 64 {
            self.bits[w] = u64::MAX;
        }
        if live % 64 != 0 {
            self.bits[live / 64] = (1 << (live % 64)) - 1;
        }
        self.tree = tree;
        for i in 1..=words {
            self.tree[i] += self.bits[i - 1].count_ones();
            let parent = i + (i & i.wrapping_neg());
            if parent <= words {
                self.tree[parent] += self.tree[i];
            }
        }
        Ok(())
    }

    /// Records a read or write access to `key`; returns its stack distance (None if cold), or
    /// an error when the structure cannot grow for a new page (out of memory).
    #[inline]
    pub fn access(&mut self, key: u64) -> Result<Option<u64>> {
        if self.next == 64 * self.bits.len() {
            self.compact()?;
        }
        self.mrc.accesses += 1;
        let slot = self.next;
        self.next += 1;
        let d = match self.last.insert(key, slot as u32)? {
            Some(old) => {
                let old = old as usize;
                // Live slots after the old one (the old one is still live).
                let newer = self.pages as u32 - self.prefix(old);
                self.clear(old);
                let d = u64::from(newer) + 1; // the pages used since, and this one
                if self.mrc.hist.len() < d as usize {
                    self.mrc.hist.resize(d as usize, 0);
                }
                self.mrc.hist[d as usize - 1] += 1;
                Some(d)
            }
            None => {
                self.pages += 1;
                self.mrc.cold += 1;
                None
            }
        };
        self.set(slot);
        Ok(d)
    }

    /// Forgets `key`, as if it had never been accessed: its live slot is cleared, so it no longer
    /// counts in later distances, and its next access is cold. SHARDS' fixed-size sampling drops
    /// a page from its sample set this way. Returns whether `key` was seen. The curve so far is
    /// left as it is.
    pub fn remove(&mut self, key: u64) -> bool {
        match self.last.remove(key) {
            Some(slot) => {
                self.clear(slot as usize);
                self.pages -= 1;
                true
            }
            None => false,
        }
    }

    /// Distinct pages held: seen and not removed.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// The curve so far.
    pub fn curve(&self) -> &Mrc {
        &self.mrc
    }

    /// Distinct pages seen (a sizing hint for a fresh instance).
    pub fn pages_hint(&self) -> usize {
        self.pages
    }

    pub fn finish(self) -> Mrc {
        self.mrc
    }
}

/// Where each page's slot is kept (see the module docs).
#[derive(Debug)]
enum Last {
    /// Indexed by key; `ABSENT` for a page not seen. Used while every key is below `limit`.
    Dense {
        slots: Vec<u32>,
        limit: u64,
        hint: usize,
    },
    Sparse(FxHashMap<u64, u32>),
}

const ABSENT: u32 = u32::MAX;

impl Last {
    /// Sets `key`'s slot; returns its previous one.
    #[inline]
    fn insert(&mut self, key: u64, slot: u32) -> Result<Option<u32>> {
        match self {
            Last::Dense { slots, limit, .. } if key < *limit => {
                let k = key as usize;
                if k >= slots.len() {
                    let n = (k + 1).next_power_of_two().min(*limit as usize);
                    mem::reserve(slots, n - slots.len(), "the stack-distance page table")?;
                    slots.resize(n, ABSENT);
                }
                let old = std::mem::replace(&mut slots[k], slot);
                Ok((old != ABSENT).then_some(old))
            }
            Last::Dense { slots, hint, .. } => {
                let mut map = FxHashMap::default();
                let want = (*hint).max(slots.len() / 4);
                if map.try_reserve(want).is_err() {
                    return Err(mem::refused("the stack-distance page table", want, std::mem::size_of::<(u64, u32)>()));
                }
                for (k, &s) in slots.iter().enumerate().filter(|(_, &s)| s != ABSENT) {
                    mem::reserve_map(&mut map, "the stack-distance page table")?;
                    map.insert(k as u64, s);
                }
                *self = Last::Sparse(map);
                self.insert(key, slot)
            }
            Last::Sparse(map) => {
                mem::reserve_map(map, "the stack-distance page table")?;
                Ok(map.insert(key, slot))
            }
        }
    }

    /// Forgets `key`; returns its slot.
    fn remove(&mut self, key: u64) -> Option<u32> {
        match self {
            Last::Dense { slots, .. } => {
                let s = slots.get_mut(usize::try_from(key).ok()?)?;
                let old = std::mem::replace(s, ABSENT);
                (old != ABSENT).then_some(old)
            }
            Last::Sparse(map) => map.remove(&key),
        }
    }

    fn for_each(&mut self, mut f: impl FnMut(&mut u32)) {
        match self {
            Last::Dense { slots, .. } => slots.iter_mut().filter(|s| **s != ABSENT).for_each(f),
            Last::Sparse(map) => map.values_mut().for_each(&mut f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_traced_distances() {
        // 1 2 3 1 2 2 4 1. Stack (top first) before each re-access: 1 at [3 2 1] → 3;
        // 2 at [1 3 2] → 3; 2 at [2 1 3] → 1; 1 at [4 2 1 3] → 3.
        let mut sd = StackDistances::new();
        let got: Vec<Option<u64>> = [1, 2, 3, 1, 2, 2, 4, 1].iter().map(|&k| sd.access(k).unwrap()).collect();
        assert_eq!(got, [None, None, None, Some(3), Some(3), Some(1), None, Some(3)]);
        let mrc = sd.finish();
        assert_eq!((mrc.accesses, mrc.cold), (8, 4));
        assert_eq!(mrc.hist, [1, 0, 3]);
        assert_eq!(mrc.misses(1), 7);
        assert_eq!(mrc.misses(3), 4);
        assert_eq!(mrc.steps(), [(1, 7), (3, 4)]);
    }

    #[test]
    fn sparse_keys_leave_the_array_with_their_slots() {
        // Pages 0..100 go to the array; a key far beyond its limit moves them to a map, and
        // the distances carry on as before: 5 pages used since page 3's last access.
        let mut sd = StackDistances::with_pages(10);
        for k in 0..100 {
            sd.access(k).unwrap();
        }
        assert!(matches!(sd.last, Last::Dense { .. }));
        assert_eq!(sd.access(1 << 40).unwrap(), None);
        assert!(matches!(sd.last, Last::Sparse(_)));
        for k in [96, 97, 98, 99] {
            sd.access(k).unwrap();
        }
        assert_eq!(sd.access(95).unwrap(), Some(6));
        assert_eq!(sd.access(1 << 40).unwrap(), Some(6));
    }

    #[test]
    fn removed_pages_leave_the_stack() {
        // 1 2 3, remove 2: the stack is [3 1]; 1 is at distance 2 (not 3), and 2 is cold again.
        // Removing a page never seen does nothing.
        let mut sd = StackDistances::new();
        for k in [1, 2, 3] {
            sd.access(k).unwrap();
        }
        assert!(sd.remove(2));
        assert!(!sd.remove(2));
        assert!(!sd.remove(7));
        assert_eq!(sd.pages(), 2);
        assert_eq!(sd.access(1).unwrap(), Some(2));
        assert_eq!(sd.access(2).unwrap(), None);
        assert_eq!(sd.access(3).unwrap(), Some(3));
        // The same through a map (a key past the array's limit) and across compactions: keep
        // 100 pages live out of many, removing each page 100 accesses after it came.
        let mut sd = StackDistances::with_pages(10);
        sd.access(1 << 40).unwrap();
        sd.remove(1 << 40);
        for i in 0..300_000u64 {
            if i >= 100 {
                assert!(sd.remove(i - 100));
            }
            assert_eq!(sd.access(i).unwrap(), None);
            assert_eq!(sd.pages(), (i as usize + 1).min(100));
        }
        assert_eq!(sd.access(299_950).unwrap(), Some(50));
        assert!(sd.bits.len() * 64 <= 1 << 16, "slots stay O(live pages)");
    }

    #[test]
    fn compaction_keeps_distances() {
        // More accesses than the initial 2^16 slots, over 1000 pages in a loop: every non-cold
        // access has distance 1000.
        let mut sd = StackDistances::new();
        for i in 0..200_000u64 {
            let d = sd.access(i % 1000).unwrap();
            assert_eq!(d, (i >= 1000).then_some(1000));
        }
    }
}
