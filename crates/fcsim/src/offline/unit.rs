//! Unit caching over an FTL (offline-bounds paper §3.3): the cache writes each block to a
//! logical page of an SSD and the SSD's own FTL garbage-collects erase units, copying forward
//! whatever it still believes live. M, M+, M_N, M_T and the LRU baseline place their copies so.
//!
//! The SSD's logical space is the cache (one logical page per cached block); a block takes a
//! free logical page when first written and keeps it for new versions (the FTL invalidates the
//! old physical page). When a copy is dropped its logical page is freed; with TRIM the SSD is
//! told, otherwise the FTL keeps copying the dead page until the logical page is written again
//! (MIN as the paper runs it, §6.1).

use super::containers::FlashCounts;
use super::queue::Placement;
use crate::device::ftl::Ftl;
use crate::device::DeviceConfig;
use crate::policy::list::FreeIds;
use rustc_hash::FxHashMap;

/// Copies on an SSD with a page-mapped FTL.
#[derive(Debug)]
pub struct OnFtl {
    ftl: Ftl,
    slots: FxHashMap<u64, u32>,
    free: FreeIds,
    trim: bool,
    /// Set when the FTL fails (its data fills it); the replay cannot stop, so it is reported after.
    pub error: Option<crate::error::Error>,
    pub counts: FlashCounts,
}

impl OnFtl {
    /// An SSD built from `dc` (its user capacity is the cache); `trim`: dropped copies are
    /// trimmed.
    pub fn new(dc: &DeviceConfig, trim: bool) -> Self {
        let ftl = Ftl::new(dc.geometry, dc.user_pages, dc.gc, dc.gc_reserve_blocks);
        let free = FreeIds::new(dc.user_pages as u32);
        OnFtl { ftl, slots: FxHashMap::default(), free, trim, error: None, counts: FlashCounts::default() }
    }

    /// The counts, with the FTL's copies and erasures.
    pub fn finish(self) -> crate::error::Result<FlashCounts> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let st = self.ftl.stats;
        Ok(FlashCounts { cf_writes: st.gc_copies, erasures: st.erasures, ..self.counts })
    }

    /// Programs `key`'s logical page.
    pub fn program(&mut self, key: u64) {
        let slot = match self.slots.get(&key) {
            Some(&s) => s,
            None => {
                let Some(s) = self.free.pop() else {
                    self.error.get_or_insert(crate::error::Error::config("unit cache: more blocks than logical pages"));
                    return;
                };
                self.slots.insert(key, s);
                s
            }
        };
        self.counts.host_writes += 1;
        self.counts.insertions += 1;
        if let Err(e) = self.ftl.write(slot, 0) {
            self.error.get_or_insert(e);
        }
    }

    /// Frees `key`'s logical page (trimmed if the cache trims).
    pub fn release(&mut self, key: u64) {
        if let Some(slot) = self.slots.remove(&key) {
            if self.trim {
                self.ftl.trim(slot);
            }
            self.free.push(slot);
        }
    }

    /// Serves a read of `key` if it has a copy.
    pub fn serve(&mut self, key: u64) -> bool {
        let hit = self.slots.contains_key(&key);
        if hit {
            self.ftl.read();
            self.counts.read_hits += 1;
        }
        hit
    }
}

impl Placement for OnFtl {
    fn write(&mut self, key: u64, _: u32, _: u64) {
        self.program(key);
    }
    fn drop(&mut self, key: u64, _: bool) {
        self.release(key);
    }
    fn read(&mut self, key: u64, _: u64) -> bool {
        self.serve(key)
    }
}
