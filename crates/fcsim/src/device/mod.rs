//! Device models behind a cache tier: a flash SSD (geometry, page-mapped FTL, GC, per-chip
//! timing) and none.
//!
//! A cache tier drives the device behind it through [`Backing`], in trace page keys: it submits
//! reads and programs with their arrival times, and each returns its completion time. Hits do
//! not touch the device. Flash-aware policies see the device only through [`DeviceView`], a
//! read-only view (chip of a page, chip load, chip in GC).

pub mod config;
mod flash;
pub mod ftl;
pub mod geometry;
pub mod timing;

pub use config::{DeviceConfig, PRESETS};
pub use flash::Flash;
pub use timing::ChipLoad;

use crate::error::Result;

/// What a flash-aware policy may ask of the device at eviction time. Pages are the keys the
/// policy sees (trace page keys); `t` is the current request's arrival time.
pub trait DeviceView {
    fn chips(&self) -> u32;
    /// The chip holding `page` (where its next program goes under static placement). Every page
    /// a tier admitted has its place on the device; a page the device never saw reports chip 0.
    fn chip_of(&self, page: u64) -> u32;
    /// Host reads and writes and GC jobs queued or running on `chip` at `t`.
    fn load(&self, chip: u32, t: u64) -> ChipLoad;
    fn read_ns(&self) -> u64;
    fn write_ns(&self) -> u64;
    /// L_chip = N_R·T_read + N_W·T_write + P·T_gc (LCR eq. 2), in ns.
    fn l_chip(&self, chip: u32, t: u64) -> u64 {
        let l = self.load(chip, t);
        l.reads * self.read_ns() + l.writes * self.write_ns() + if l.gc { l.gc_ns } else { 0 }
    }
    /// A GC job is queued or running on `chip` at `t` (the GCaR notion of a chip in GC).
    fn in_gc(&self, chip: u32, t: u64) -> bool {
        self.load(chip, t).gc
    }
}

/// The store behind a cache tier, as the simulation loop drives it. Times are ns.
pub trait Backing {
    /// Whether requests get response times (false: no device, nothing is timed).
    const TIMED: bool;
    /// Gives `page` its place on the device, if it has none, when a tier admits it without
    /// touching the device (an admitted write miss), so the view can answer for it.
    fn admit(&mut self, page: u64) -> Result<()>;
    /// Reads `page` at `t`; returns the completion time.
    fn read(&mut self, page: u64, t: u64) -> Result<u64>;
    /// Writes `page` at `t`; returns the completion time.
    fn write(&mut self, page: u64, t: u64) -> Result<u64>;
    fn trim(&mut self, page: u64);
    /// Completion of a page served by the cache tier itself.
    fn hit(&self, t: u64) -> u64;
    /// Whether a request waits for the write-backs its evictions cause.
    fn sync_evictions(&self) -> bool;
    fn view(&self) -> Option<&dyn DeviceView>;
}

/// No device: the backing store is only counted.
#[derive(Debug, Default)]
pub struct NoDevice;

impl Backing for NoDevice {
    const TIMED: bool = false;
    #[inline]
    fn admit(&mut self, _: u64) -> Result<()> {
        Ok(())
    }
    #[inline]
    fn read(&mut self, _: u64, t: u64) -> Result<u64> {
        Ok(t)
    }
    #[inline]
    fn write(&mut self, _: u64, t: u64) -> Result<u64> {
        Ok(t)
    }
    #[inline]
    fn trim(&mut self, _: u64) {}
    #[inline]
    fn hit(&self, t: u64) -> u64 {
        t
    }
    fn sync_evictions(&self) -> bool {
        true
    }
    fn view(&self) -> Option<&dyn DeviceView> {
        None
    }
}

impl Backing for Flash {
    const TIMED: bool = true;
    #[inline]
    fn admit(&mut self, page: u64) -> Result<()> {
        self.lpn(page).map(|_| ())
    }
    #[inline]
    fn read(&mut self, page: u64, t: u64) -> Result<u64> {
        let lpn = self.lpn(page)?;
        Ok(Flash::read(self, lpn, t))
    }
    #[inline]
    fn write(&mut self, page: u64, t: u64) -> Result<u64> {
        let lpn = self.lpn(page)?;
        Flash::write(self, lpn, t)
    }
    fn trim(&mut self, page: u64) {
        if let Some(lpn) = self.known_lpn(page) {
            Flash::trim(self, lpn);
        }
    }
    #[inline]
    fn hit(&self, t: u64) -> u64 {
        t + self.cfg.dram_ns
    }
    fn sync_evictions(&self) -> bool {
        self.cfg.eviction == config::Eviction::Sync
    }
    fn view(&self) -> Option<&dyn DeviceView> {
        Some(self)
    }
}
