//! A flash cache over a disk: the cache tier's medium is an SSD (the [`Flash`] model, its user
//! capacity the cache size), its backing store a [`Disk`] (LARC, the dynamic-allocation paper
//! and the offline-bounds paper all cache a disk on flash).
//!
//! A cached page occupies a slot, a logical page of the SSD: a free slot is taken when a page
//! is inserted and trimmed when it leaves, so the SSD sees the cache's own write pattern and
//! its GC and erasures are the cache's. Per page:
//!
//! | event | flash | disk |
//! |---|---|---|
//! | read hit | read the slot | — |
//! | write hit | program the slot (write-back, write-through) | write (write-through) |
//! | read miss | program a slot if admitted, after the disk read (not waited for) | read |
//! | write miss, admitted | program a slot | write (write-through) |
//! | write miss, declined | — | write |
//! | eviction | trim the slot; a dirty page is read first | write (dirty, write-back) |
//! | write, write-around | trim the slot if cached (invalidation) | write |
//!
//! A request waits for the flash read and disk write of a dirty eviction it causes (the
//! dynamic-allocation paper's eq. 4 charges them to the miss). The disk gets each page's key,
//! so it can place the page and join a request's consecutive pages into one access
//! ([`crate::device::disk`]).

use super::config::WriteMode;
use crate::device::ftl::FtlStats;
use crate::device::{Backing, DeviceLoads, Disk, Flash};
use crate::error::{Error, Result};
use crate::policy::list::FreeIds;
use crate::view::DeviceView;
use rustc_hash::FxHashMap;

/// What the flash cache did, in pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SsdCacheStats {
    /// Pages programmed into the SSD by the cache: insertions and write hits.
    pub cache_writes: u64,
    /// Pages read from the SSD to serve read hits.
    pub read_hit_reads: u64,
    /// Cached pages invalidated by write-around writes.
    pub invalidations: u64,
}

#[derive(Debug)]
pub struct SsdCache {
    pub flash: Flash,
    pub disk: Disk,
    pub mode: WriteMode,
    slots: FxHashMap<u64, u32>,
    free: FreeIds,
    pub stats: SsdCacheStats,
}

impl SsdCache {
    /// A flash cache on `flash` (whose user pages are its slots) over `disk`.
    pub fn new(flash: Flash, disk: Disk, mode: WriteMode) -> Self {
        let free = FreeIds::new(flash.cfg.user_pages as u32);
        SsdCache { flash, disk, mode, slots: FxHashMap::default(), free, stats: SsdCacheStats::default() }
    }

    fn program(&mut self, page: u64, t: u64) -> Result<u64> {
        let slot = match self.slots.get(&page) {
            Some(&s) => s,
            None => {
                let s =
                    self.free.pop().ok_or_else(|| Error::config("flash cache: more pages admitted than slots (policy over capacity)"))?;
                self.slots.insert(page, s);
                s
            }
        };
        self.stats.cache_writes += 1;
        self.flash.write(slot, t)
    }
}

impl Backing for SsdCache {
    const TIMED: bool = true;

    fn hit(&mut self, page: u64, write: bool, t: u64) -> Result<u64> {
        if !write {
            let slot = *self.slots.get(&page).ok_or_else(|| Error::config("flash cache: a hit on a page with no slot"))?;
            self.stats.read_hit_reads += 1;
            return self.flash.read(slot, t);
        }
        let done = self.program(page, t)?;
        Ok(if self.mode == WriteMode::Through { done.max(self.disk.write(page, t)?) } else { done })
    }

    fn miss(&mut self, page: u64, write: bool, admitted: bool, t: u64) -> Result<u64> {
        if !write {
            let data = self.disk.read(page, t)?;
            if admitted {
                self.program(page, data)?;
            }
            return Ok(data);
        }
        if !admitted {
            return self.disk.write(page, t);
        }
        let done = self.program(page, t)?;
        Ok(if self.mode == WriteMode::Through { done.max(self.disk.write(page, t)?) } else { done })
    }

    fn evict(&mut self, page: u64, dirty: bool, t: u64) -> Result<u64> {
        let Some(slot) = self.slots.remove(&page) else { return Ok(t) };
        let mut done = t;
        if dirty {
            let read = self.flash.read(slot, t)?;
            done = self.disk.write(page, read)?;
        }
        self.flash.trim(slot);
        self.free.push(slot);
        Ok(done)
    }

    fn write_around(&mut self, page: u64, t: u64) -> Result<u64> {
        self.disk.write(page, t)
    }

    fn trim(&mut self, page: u64, _: bool) {
        if let Some(slot) = self.slots.remove(&page) {
            self.flash.trim(slot);
            self.free.push(slot);
        }
    }

    fn view(&self) -> Option<&dyn DeviceView> {
        None
    }

    #[inline]
    fn advance(&mut self, now: u64) {
        self.flash.timing_mut().advance(now);
        self.disk.advance(now);
    }

    fn flash_stats(&self) -> Option<FtlStats> {
        Some(self.flash.stats())
    }

    fn loads(&self) -> DeviceLoads {
        DeviceLoads { flash: Some(self.flash.timing().load_summary()), disk: Some(self.disk.load()) }
    }

    fn reset_stats(&mut self) {
        self.flash.reset_stats();
        self.disk.reset_stats();
        self.stats = SsdCacheStats::default();
    }
}
