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
//! | fill (a clean DRAM victim admitted, [`super::admission::dram_reads`]) | program a slot | — |
//! | eviction | trim the slot; a dirty page is read first | write (dirty, write-back) |
//! | write, write-around | trim the slot if cached (invalidation) | write |
//!
//! A request waits for the flash read and disk write of a dirty eviction it causes (the
//! dynamic-allocation paper's eq. 4 charges them to the miss).
//!
//! **Deferred write-back** (a shrink of the dynamic split, [`crate::stack::split`], whose
//! controller drives it: [`SsdCache::defer_writebacks`], [`SsdCache::background`],
//! [`SsdCache::flush_deferred`]): while deferral is on, a dirty victim keeps its slot (still valid on the
//! flash, so GC still copies it) and joins a queue; the queue is written back in the disk's
//! idle time, one page at a time, each started only when the disk has been free before the
//! clock ([`Backing::advance`]): a background flush, not a burst the next requests queue
//! behind. A queued page that is accessed again is written back first, at that access (its
//! newest data is on the flash); a program that finds no free slot writes the oldest queued
//! page back first; the end of the run writes back what is left. The disk gets each page's key,
//! so it can place the page and join a request's consecutive pages into one access
//! ([`crate::device::disk`]).

use super::config::WriteMode;
use crate::device::ftl::FtlStats;
use crate::device::{Backing, DeviceLoads, Disk, Flash};
use crate::error::{Error, Result};
use crate::policy::list::FreeIds;
use crate::view::DeviceView;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

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
    /// Dirty victims waiting for the disk's idle time: their slots, and their order (a page
    /// written back out of order leaves a stale entry in `order`, skipped).
    deferred: FxHashMap<u64, u32>,
    order: VecDeque<u64>,
    defer: bool,
    pub stats: SsdCacheStats,
}

impl SsdCache {
    /// A flash cache on `flash` (whose user pages are its slots) over `disk`.
    pub fn new(flash: Flash, disk: Disk, mode: WriteMode) -> Self {
        let free = FreeIds::new(flash.cfg.user_pages as u32);
        SsdCache {
            flash,
            disk,
            mode,
            slots: FxHashMap::default(),
            free,
            deferred: FxHashMap::default(),
            order: VecDeque::new(),
            defer: false,
            stats: SsdCacheStats::default(),
        }
    }

    /// Pages waiting for a deferred write-back.
    pub fn deferred(&self) -> usize {
        self.deferred.len()
    }

    /// While on, dirty victims are queued for [`SsdCache::background`] instead of written back
    /// at once (a shrink of the dynamic split).
    pub fn defer_writebacks(&mut self, on: bool) {
        self.defer = on;
    }

    /// Writes back the queued pages that can start on an idle disk before `now` (called at
    /// each arrival, before the clocks advance to it).
    #[inline]
    pub fn background(&mut self, now: u64) -> Result<()> {
        if self.order.is_empty() {
            return Ok(());
        }
        self.drain(now)
    }

    /// Writes back every queued page at `t` (end of run); returns how many.
    pub fn flush_deferred(&mut self, t: u64) -> Result<u64> {
        let queued = self.deferred.len() as u64;
        while let Some(page) = self.order.pop_front() {
            self.write_back(page, t)?;
        }
        Ok(queued)
    }

    /// Writes back the deferred `page` (if queued) from its slot starting at `t`: the flash read,
    /// then the disk write; frees the slot. Returns the disk write's completion.
    fn write_back(&mut self, page: u64, t: u64) -> Result<u64> {
        let Some(slot) = self.deferred.remove(&page) else { return Ok(t) };
        let read = self.flash.read(slot, t)?;
        let done = self.disk.write(page, read)?;
        self.flash.trim(slot);
        self.free.push(slot);
        Ok(done)
    }

    /// Writes back queued pages that can start on an idle disk before `now`.
    fn drain(&mut self, now: u64) -> Result<()> {
        while let Some(&page) = self.order.front() {
            if !self.deferred.contains_key(&page) {
                self.order.pop_front();
                continue;
            }
            let idle = self.disk.free_at(page);
            if idle >= now {
                break;
            }
            self.order.pop_front();
            self.write_back(page, idle)?;
        }
        Ok(())
    }

    fn program(&mut self, page: u64, t: u64) -> Result<u64> {
        let slot = match self.slots.get(&page) {
            Some(&s) => s,
            None => {
                while self.free.is_empty() {
                    // Every free slot is held by a deferred page: the oldest goes first.
                    let Some(oldest) = self.order.pop_front() else { break };
                    self.write_back(oldest, t)?;
                }
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
        let t = if self.deferred.contains_key(&page) { self.write_back(page, t)? } else { t };
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

    /// A clean page from the DRAM tier above: programmed into a slot, nothing read from or
    /// written to the disk (which holds the page already).
    fn fill(&mut self, page: u64, t: u64) -> Result<u64> {
        let t = if self.deferred.contains_key(&page) { self.write_back(page, t)? } else { t };
        self.program(page, t)
    }

    fn evict(&mut self, page: u64, dirty: bool, t: u64) -> Result<u64> {
        let Some(slot) = self.slots.remove(&page) else { return Ok(t) };
        let mut done = t;
        if dirty && self.defer {
            self.deferred.insert(page, slot);
            self.order.push_back(page);
            return Ok(t);
        }
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
        if let Some(slot) = self.slots.remove(&page).or_else(|| self.deferred.remove(&page)) {
            self.flash.trim(slot);
            self.free.push(slot);
        }
    }

    fn holds(&self, page: u64) -> Option<bool> {
        Some(self.slots.contains_key(&page))
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

    fn mark_epoch(&mut self) {
        self.flash.timing_mut().mark_epoch();
        self.disk.mark_epoch();
    }

    fn begin_flush(&mut self) {
        self.flash.timing_mut().begin_flush();
        self.disk.begin_flush();
    }

    fn reset_stats(&mut self) {
        self.flash.reset_stats();
        self.disk.reset_stats();
        self.stats = SsdCacheStats::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::disk::{DiskModel, Layout};
    use crate::device::DeviceConfig;
    use crate::request::Op;
    use crate::stack::Tier;
    use std::collections::BTreeMap;

    const MS: u64 = 1_000_000;

    /// A write-back LRU write cache (read misses bypass) of 8 pages on the `dynamic` preset's
    /// flash over a 5 ms flat disk, holding pages 0, 10, …, 70 (apart, so the disk joins no two
    /// write-backs into one access), all dirty (written at time 0).
    fn full() -> (Tier, SsdCache) {
        let m: BTreeMap<String, String> = [("capacity".to_string(), "256".to_string())].into();
        let flash = Flash::new(DeviceConfig::build("dynamic", &m, 4096).unwrap().0, None).unwrap();
        let disk = Disk::new(DiskModel::Flat { access_ns: 5 * MS }, Layout::Single, 4096).unwrap();
        let mut cache = SsdCache::new(flash, disk, WriteMode::Back);
        let mut tier = Tier::new(crate::policy::build("lru", 8, Default::default()).unwrap().0, 8);
        tier.admission = Some(Box::new(crate::stack::admission::writes::Writes));
        for k in 0..8 {
            tier.access(10 * k, Op::Write, k, crate::request::NEVER, 0, &mut cache).unwrap();
        }
        (tier, cache)
    }

    #[test]
    fn a_deferred_shrink_writes_back_in_the_disks_idle_time() {
        // Burst (the earlier behaviour): shrinking to 2 pages writes 6 dirty victims back at
        // once; the shrink completes only after 6 serial 5 ms disk writes.
        let (mut tier, mut cache) = full();
        assert!(tier.resize(2, MS, &mut cache).unwrap() >= MS + 30 * MS);
        assert_eq!(cache.disk.writes, 6);

        // Deferred: the shrink itself waits for nothing and writes nothing; the 6 victims keep
        // their slots (still valid on the flash) in the queue.
        let (mut tier, mut cache) = full();
        cache.defer_writebacks(true);
        assert_eq!(tier.resize(2, MS, &mut cache).unwrap(), MS);
        cache.defer_writebacks(false);
        assert_eq!((cache.disk.writes, cache.deferred()), (0, 6));
        assert_eq!(cache.flash.stats().trims, 0);
        // At 2 ms the disk has been idle since 0: one write-back starts then (the victim's flash
        // read, then 5 ms on the disk) and it stays busy past 2 ms, so no other starts.
        cache.background(2 * MS).unwrap();
        assert_eq!((cache.disk.writes, cache.deferred()), (1, 5));
        let first = cache.disk.free_at(0);
        assert!(first > 5 * MS && first < 6 * MS, "{first}");
        // A read miss at 2 ms (not admitted: a write cache) waits for that one write-back only,
        // not for six.
        let read = tier.access(100, Op::Read, 8, crate::request::NEVER, 2 * MS, &mut cache).unwrap();
        assert_eq!(read, first + 5 * MS);
        assert_eq!((tier.resident(), cache.disk.reads), (2, 1));
        // A write to a queued page (20) enters the cache, evicting the LRU page (60, dirty, at
        // once: no shrink now); the queued copy is written back first (its data is on the
        // flash), so the queue loses it.
        tier.access(20, Op::Write, 9, crate::request::NEVER, 3 * MS, &mut cache).unwrap();
        assert_eq!((cache.disk.writes, cache.deferred()), (3, 4));
        // Much later the disk has been idle long enough for the rest, one after another.
        cache.background(200 * MS).unwrap();
        assert_eq!((cache.disk.writes, cache.deferred()), (7, 0));
        // Nothing left for the end of the run.
        cache.flush_deferred(200 * MS).unwrap();
        assert_eq!(cache.disk.writes, 7);
    }
}
