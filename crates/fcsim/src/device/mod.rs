//! Device models behind a cache tier: a flash SSD (geometry, page-mapped FTL, GC, per-chip
//! timing), a disk, and none.
//!
//! A cache tier drives what is below it through [`Backing`], in trace page keys: it submits
//! reads and programs with their arrival times, and each returns its completion time. Hits do
//! not touch the device. Flash-aware policies see the device only through
//! [`crate::view::DeviceView`], a read-only view (chip of a page, chip load, chip in GC), which
//! [`Flash`] implements. A flash cache over a disk (the SSD as a cache tier's medium) is a cache
//! semantics over two devices, so it lives in [`crate::stack`].

pub mod config;
pub mod disk;
mod flash;
pub mod ftl;
pub mod geometry;
pub mod table;
pub mod timing;

pub use config::{DeviceConfig, Eviction, Sizing, PRESETS};
pub use disk::{Disk, DiskModel, Layout};
pub use flash::Flash;

use crate::error::Result;
use crate::load::Summary;
use crate::time;
use crate::view::DeviceView;

/// What a cache tier's events cost below it; each returns the completion time of the page, in
/// ns. Two semantics implement it: [`Buffer`] (a DRAM buffer over a page [`Store`]: an SSD, the
/// next tier, or nothing) and [`crate::stack::SsdCache`] (a flash cache whose medium is an SSD, over a disk).
pub trait Backing {
    /// Whether requests get response times (false: no device, nothing is timed).
    const TIMED: bool;
    /// A resident page was read (`write` false) or written.
    fn hit(&mut self, page: u64, write: bool, t: u64) -> Result<u64>;
    /// A missed page; `admitted` if the tier now holds it.
    fn miss(&mut self, page: u64, write: bool, admitted: bool, t: u64) -> Result<u64>;
    /// A page the tier took with nothing read below it: a clean page the DRAM tier above
    /// evicted, admitted by a victim-cache admission ([`crate::stack::admission::dram_reads`]).
    /// The default costs it as an admitted write miss (the page is taken whole).
    #[inline]
    fn fill(&mut self, page: u64, t: u64) -> Result<u64> {
        self.miss(page, true, true, t)
    }
    /// A page left the tier: evicted, or invalidated by a write-around write (never dirty).
    fn evict(&mut self, page: u64, dirty: bool, t: u64) -> Result<u64>;
    /// Whether a miss is served only once the evictions it caused complete (flush, then read);
    /// otherwise it is served at the request's arrival, alongside them.
    #[inline]
    fn flush_first(&self) -> bool {
        false
    }
    /// A write that bypasses the tier (write-around).
    fn write_around(&mut self, page: u64, t: u64) -> Result<u64>;
    /// A trim of `page`; `cached` if the tier held it.
    fn trim(&mut self, page: u64, cached: bool);
    /// The device view for flash-aware policies, if the tier sits on a flash device.
    fn view(&self) -> Option<&dyn DeviceView>;
    /// The loop's clock reached `now`: no op will arrive earlier from here on.
    #[inline]
    fn advance(&mut self, _now: u64) {}
    /// Whether the tier's medium holds `page` (None: this backing does not say). A flash cache
    /// answers from its slots, which mirror its tier: a tier with an admission slot asks it
    /// where its policy cannot say ([`crate::stack::admission`]).
    #[inline]
    fn holds(&self, _page: u64) -> Option<bool> {
        None
    }
    /// The end-of-run flush begins: every op from now on is the flush's, not arrival work, in
    /// the loads ([`crate::load::Load::begin_flush`]). No default: a new device with loads
    /// must say so.
    fn begin_flush(&mut self);
    /// The flash's counters since the run started or [`Backing::reset_stats`] (host reads and
    /// programs, GC copies, erasures), when there is flash below the tier: its own medium (a
    /// flash cache; what a controller that resizes the tier reads) or the SSD under a buffer.
    fn flash_stats(&self) -> Option<ftl::FtlStats> {
        None
    }
    /// The load on the flash chips and on the disk(s) since the run started or
    /// [`Backing::reset_stats`], each combined over its servers ([`crate::load::Load::combine`]),
    /// or None where there is no such device or it does not report a load. Cumulative: the
    /// per-epoch table differences it at epoch boundaries (ops, busy time, sojourns), so an
    /// implementation must count an op when it is submitted and never decrease a count.
    #[inline]
    fn loads(&self) -> DeviceLoads {
        DeviceLoads::default()
    }
    /// An epoch of the per-epoch table ends: the loads' epoch peaks start again
    /// ([`crate::load::Load::mark_epoch`]). No default: a new device with loads must mark them.
    fn mark_epoch(&mut self);
    /// The end of a warm-up: forgets every statistic below the tier (flash FTL counters and
    /// erase counts, chip busy times, load-balance epochs, loads, a flash cache's and a disk's
    /// counters, a lower tier's counters) and keeps every state (cached pages, mappings, blocks,
    /// queues: ops in flight still complete when they would have). No default: a new device
    /// must say what it forgets.
    fn reset_stats(&mut self);
}

/// The loads a [`Backing`] reports ([`Backing::loads`]): None where it has no such device or
/// does not report its load.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DeviceLoads {
    /// The flash chips (an SSD below a buffer, or a flash cache's medium).
    pub flash: Option<Summary>,
    /// The disk(s) behind a flash cache.
    pub disk: Option<Summary>,
}

/// Pages below a buffer tier: read, written, trimmed, each returning its completion time.
pub trait Store {
    const TIMED: bool;
    fn read(&mut self, page: u64, t: u64) -> Result<u64>;
    fn write(&mut self, page: u64, t: u64) -> Result<u64>;
    /// Gives `page` its place on the device (its logical page), if it has none, when the buffer
    /// takes it without touching the device (an admitted write miss), so the view can answer
    /// for it. (Not admission: whether a page enters a tier is [`crate::stack::admission`]'s.)
    fn place(&mut self, page: u64) -> Result<()>;
    fn trim(&mut self, page: u64);
    /// The buffer read `page`, which it holds (a read hit). Only a tier below the buffer
    /// ([`crate::stack::Below`]) listens; the default ignores it.
    #[inline]
    fn read_hit(&mut self, page: u64) {
        let _ = page;
    }
    /// The buffer evicted `page` clean at `t`; returns when what it causes below completes.
    /// Only a tier below the buffer listens (a victim cache takes the page); the default
    /// ignores it, as a clean page needs no write-back.
    #[inline]
    fn drop_clean(&mut self, page: u64, t: u64) -> Result<u64> {
        let _ = page;
        Ok(t)
    }
    fn view(&self) -> Option<&dyn DeviceView>;
    /// See [`Backing::advance`].
    #[inline]
    fn advance(&mut self, _now: u64) {}
    /// See [`Backing::flash_stats`].
    fn flash_stats(&self) -> Option<ftl::FtlStats> {
        None
    }
    /// See [`Backing::loads`].
    #[inline]
    fn loads(&self) -> DeviceLoads {
        DeviceLoads::default()
    }
    /// See [`Backing::mark_epoch`].
    fn mark_epoch(&mut self);
    /// See [`Backing::begin_flush`].
    fn begin_flush(&mut self);
    /// See [`Backing::reset_stats`].
    fn reset_stats(&mut self);
}

/// DRAM-buffer semantics over a store: a hit or an admitted write costs `dram_ns`; a read miss
/// reads the store; a declined write and a dirty eviction write it. `eviction` orders a miss's
/// flush and its read (see [`Eviction`]).
#[derive(Debug)]
pub struct Buffer<S> {
    pub store: S,
    pub dram_ns: u64,
    pub eviction: Eviction,
}

impl<S: Store> Buffer<S> {
    /// When a DRAM access that starts at `t` completes. Without a timed store nothing reads the
    /// time, so it is not computed (the hot loop of a cache alone stays free of the check).
    #[inline]
    fn dram(&self, t: u64) -> Result<u64> {
        if S::TIMED {
            time::after(t, self.dram_ns)
        } else {
            Ok(t)
        }
    }
}

impl<S: Store> Backing for Buffer<S> {
    const TIMED: bool = S::TIMED;
    #[inline]
    fn hit(&mut self, page: u64, write: bool, t: u64) -> Result<u64> {
        if !write {
            self.store.read_hit(page);
        }
        self.dram(t)
    }
    #[inline]
    fn miss(&mut self, page: u64, write: bool, admitted: bool, t: u64) -> Result<u64> {
        match (write, admitted) {
            (false, _) => self.store.read(page, t),
            (true, true) => {
                self.store.place(page)?;
                self.dram(t)
            }
            (true, false) => self.store.write(page, t),
        }
    }
    #[inline]
    fn evict(&mut self, page: u64, dirty: bool, t: u64) -> Result<u64> {
        let done = if dirty { self.store.write(page, t)? } else { self.store.drop_clean(page, t)? };
        Ok(if self.eviction == Eviction::Async { t } else { done })
    }
    #[inline]
    fn flush_first(&self) -> bool {
        self.eviction == Eviction::Sync
    }
    fn write_around(&mut self, page: u64, t: u64) -> Result<u64> {
        self.store.write(page, t)
    }
    fn trim(&mut self, page: u64, _: bool) {
        self.store.trim(page);
    }
    fn view(&self) -> Option<&dyn DeviceView> {
        self.store.view()
    }
    #[inline]
    fn advance(&mut self, now: u64) {
        self.store.advance(now);
    }
    fn flash_stats(&self) -> Option<ftl::FtlStats> {
        self.store.flash_stats()
    }
    fn loads(&self) -> DeviceLoads {
        self.store.loads()
    }
    fn mark_epoch(&mut self) {
        self.store.mark_epoch();
    }
    fn begin_flush(&mut self) {
        self.store.begin_flush();
    }
    fn reset_stats(&mut self) {
        self.store.reset_stats();
    }
}

/// No device: the backing store is only counted.
#[derive(Debug, Default)]
pub struct NoDevice;

impl Store for NoDevice {
    const TIMED: bool = false;
    #[inline]
    fn read(&mut self, _: u64, t: u64) -> Result<u64> {
        Ok(t)
    }
    #[inline]
    fn write(&mut self, _: u64, t: u64) -> Result<u64> {
        Ok(t)
    }
    #[inline]
    fn place(&mut self, _: u64) -> Result<()> {
        Ok(())
    }
    #[inline]
    fn trim(&mut self, _: u64) {}
    fn view(&self) -> Option<&dyn DeviceView> {
        None
    }
    fn mark_epoch(&mut self) {}
    fn begin_flush(&mut self) {}
    fn reset_stats(&mut self) {}
}

/// A tier with no device below it.
pub fn no_device() -> Buffer<NoDevice> {
    Buffer { store: NoDevice, dram_ns: 0, eviction: Eviction::Parallel }
}

impl Store for Flash {
    const TIMED: bool = true;
    #[inline]
    fn read(&mut self, page: u64, t: u64) -> Result<u64> {
        let lpn = self.lpn(page)?;
        Flash::read(self, lpn, t)
    }
    #[inline]
    fn write(&mut self, page: u64, t: u64) -> Result<u64> {
        let lpn = self.lpn(page)?;
        Flash::write(self, lpn, t)
    }
    #[inline]
    fn place(&mut self, page: u64) -> Result<()> {
        self.lpn(page).map(|_| ())
    }
    fn trim(&mut self, page: u64) {
        if let Some(lpn) = self.known_lpn(page) {
            Flash::trim(self, lpn);
        }
    }
    fn view(&self) -> Option<&dyn DeviceView> {
        Some(self)
    }
    #[inline]
    fn advance(&mut self, now: u64) {
        self.timing_mut().advance(now);
    }
    fn flash_stats(&self) -> Option<ftl::FtlStats> {
        Some(self.stats())
    }
    fn loads(&self) -> DeviceLoads {
        DeviceLoads { flash: Some(self.timing().load_summary()), disk: None }
    }
    fn mark_epoch(&mut self) {
        self.timing_mut().mark_epoch();
    }
    fn begin_flush(&mut self) {
        self.timing_mut().begin_flush();
    }
    fn reset_stats(&mut self) {
        Flash::reset_stats(self);
    }
}
