//! A zero-initialised table of `u32` for the FTL's mapping tables, in memory advised for
//! transparent huge pages when it is large and will be written whole.
//!
//! The FTL's `l2p` and `p2l` are indexed at random once or more per page write, and on a
//! 64 GiB drive they are 58 and 64 MiB: with 4 KiB pages nearly every access is also a TLB miss
//! (a page walk before the cache miss). In a 2 MiB huge page the same tables take 61 TLB entries,
//! which the second-level TLB holds. The table is then an anonymous mapping
//! ([`memmap2::MmapMut::map_anon`]) advised `MADV_HUGEPAGE` and viewed as `u32`s by
//! [`bytemuck`]'s checked casts: all safe calls, so the workspace keeps `unsafe_code = "forbid"`.
//!
//! **When.** Only a table of at least [`HUGE_MIN_BYTES`] whose owner will write it whole (a
//! preconditioned drive fills it) is advised: a huge page is zeroed and kept whole on first
//! touch, so a drive sized far beyond a trace's footprint and not filled would cost 2 MiB for
//! each scattered page the trace writes, where 4 KiB pages cost 4 KiB. If the mapping or the
//! advice fails (no `madvise`, transparent huge pages off), the table is a `Vec`, with the same
//! contents and results.
//!
//! Invariant: `len` elements, each as last written or 0; a clone is an equal table advised the
//! same way.

use std::ops::{Deref, DerefMut};

/// The least table size advised for huge pages: one huge page (x86-64, AArch64 with 4 KiB base).
pub const HUGE_MIN_BYTES: usize = 2 << 20;

/// See the module docs.
pub enum Table {
    /// Anonymous memory advised for huge pages, `len` `u32`s long.
    Huge(memmap2::MmapMut),
    Heap(Vec<u32>),
}

impl Table {
    /// `len` zeros; in huge pages if `whole` (the owner will write every element) and the table
    /// is large enough and the system agrees.
    pub fn zeroed(len: usize, whole: bool) -> Self {
        let bytes = len * std::mem::size_of::<u32>();
        if whole && bytes >= HUGE_MIN_BYTES {
            if let Ok(map) = memmap2::MmapMut::map_anon(bytes) {
                if map.advise(memmap2::Advice::HugePage).is_ok() {
                    return Table::Huge(map);
                }
            }
        }
        Table::Heap(vec![0; len])
    }

    /// Whether the table is in memory advised for huge pages.
    pub fn huge(&self) -> bool {
        matches!(self, Table::Huge(_))
    }
}

impl Deref for Table {
    type Target = [u32];
    #[inline]
    fn deref(&self) -> &[u32] {
        match self {
            Table::Huge(m) => bytemuck::cast_slice(m),
            Table::Heap(v) => v,
        }
    }
}

impl DerefMut for Table {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u32] {
        match self {
            Table::Huge(m) => bytemuck::cast_slice_mut(m),
            Table::Heap(v) => v,
        }
    }
}

impl Clone for Table {
    fn clone(&self) -> Self {
        let mut t = Table::zeroed(self.len(), self.huge());
        t.copy_from_slice(self);
        t
    }
}

impl PartialEq for Table {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table {{ len: {}, huge: {} }}", self.len(), self.huge())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_and_heap_tables_agree() {
        let n = HUGE_MIN_BYTES; // 4 bytes each: 4 huge pages
        let mut a = Table::zeroed(n, true);
        let mut b = Table::zeroed(n, false);
        assert!(!b.huge());
        assert!(a.iter().all(|&x| x == 0) && a.len() == n);
        for i in (0..n).step_by(4099) {
            a[i] = i as u32;
            b[i] = i as u32;
        }
        assert_eq!(a, b);
        let c = a.clone();
        assert_eq!((c.huge(), c == a), (a.huge(), true));
        // Small tables stay on the heap.
        assert!(!Table::zeroed(16, true).huge());
        assert_eq!(Table::zeroed(0, true).len(), 0);
    }
}
