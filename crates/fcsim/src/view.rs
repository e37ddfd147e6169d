//! The read-only view of a flash device that flash-aware policies (GCaR, LCR) get at eviction
//! time: chip of a page, load of a chip, chip in GC. The device implements it; policies see
//! nothing else of the device. A leaf: it uses nothing of fcsim.

/// The load of one chip at an instant (LCR §III.B.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChipLoad {
    /// Host reads and writes queued or running (N_R, N_W).
    pub reads: u64,
    pub writes: u64,
    /// A GC job is queued or running (P).
    pub gc: bool,
    /// Duration of the chip's latest GC job (T_gc: moving its valid pages and erasing).
    pub gc_ns: u64,
}

/// What a flash-aware policy may ask of the device at eviction time. Pages are the keys the
/// policy sees (trace page keys); `t` is the current request's arrival time.
pub trait DeviceView {
    fn chips(&self) -> u32;
    /// The chip holding `page` (where its next program goes under static placement). Every page
    /// a tier admitted has its place on the device; a page the device never saw reports chip 0.
    /// The chip of a page a tier holds changes only while the tier handles an access to that
    /// page (its admission, a write reaching the device); GC moves a page within its plane.
    /// [`crate::policy`]'s windowed policies keep pages per chip on the strength of this.
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
