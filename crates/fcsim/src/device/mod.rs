//! Device models behind a cache tier: a flash SSD (geometry, page-mapped FTL, GC, per-chip
//! timing) and none.
//!
//! The simulation loop drives a device through [`Backing`]: it turns trace page keys into the
//! device's logical pages, and submits reads and programs with their arrival times; each returns
//! its completion time. Flash-aware policies see the device only through [`DeviceView`], a
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
/// policy sees (the device's logical pages); `t` is the current request's arrival time.
pub trait DeviceView {
    fn chips(&self) -> u32;
    /// The chip holding `page` (where its next program goes under static placement).
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
    /// The page the tier and device use for a trace page key.
    fn page(&mut self, key: u64) -> Result<u64>;
    /// Reads `page` at `t`; returns the completion time.
    fn read(&mut self, page: u64, t: u64) -> u64;
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
    fn page(&mut self, key: u64) -> Result<u64> {
        Ok(key)
    }
    #[inline]
    fn read(&mut self, _: u64, t: u64) -> u64 {
        t
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
    fn page(&mut self, key: u64) -> Result<u64> {
        self.lpn(key).map(u64::from)
    }
    #[inline]
    fn read(&mut self, page: u64, t: u64) -> u64 {
        Flash::read(self, page as u32, t)
    }
    #[inline]
    fn write(&mut self, page: u64, t: u64) -> Result<u64> {
        Flash::write(self, page as u32, t)
    }
    fn trim(&mut self, page: u64) {
        Flash::trim(self, page as u32);
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
