//! The disk(s) behind a flash cache: one or more spindles, each a FIFO server that times its
//! accesses by a [`DiskModel`] (the papers' flat 5 ms per access, or a mechanical drive), and
//! keeps its [`Load`].
//!
//! **Pages and accesses.** The cache stack hands the disk one page at a time, with the page key
//! (`volume << 48 | page`, see [`crate::request`]) and the arrival time of its request. The disk
//! places the page ([`Layout`]: which spindle, and its address there) and serves it:
//! - A page that starts where the spindle's previous page ended (the next page of the same
//!   volume on that spindle) is **sequential**. If it also has the same arrival time and the same
//!   direction (read or write) as that page, and nothing came between, it **continues** the same
//!   access: consecutive pages of one request are one access, one positioning plus the transfer
//!   of all of them (on `flat`, one 5 ms access however many pages).
//! - Any other page starts a new access. On a mechanical drive a sequential one skips
//!   positioning (transfer only); on `flat` every new access costs the flat time, sequential or
//!   not.
//!
//! So a request's pages stay one access only while nothing else reaches the spindle between
//! them. A write-back cache evicts (and writes back) a dirty victim for each page it admits, in
//! page order, so a multi-page read miss that evicts dirty pages reaches the disk as write,
//! read, write, read, …: each write-back breaks the read's run, and each page of the read is an
//! access of its own, positioned again (on `flat`, 5 ms each). A read cache (write-around) and
//! clean evictions never interleave. Trims never touch the disk.
//!
//! **Service.** An access arriving at `t` starts at `max(t, spindle free)` (FIFO, in the order
//! the stack submits) and holds the spindle for its positioning and transfer; a continuation
//! extends the access it continues. Completions are checked against the time horizon
//! ([`crate::time`]).
//!
//! **Load.** Each spindle records each access in a [`Load`] (arrival, start, end) once the
//! access is complete (the next access on the spindle begins, or the load is read). The array's
//! load is their [`Load::combine`]: work and sojourns add up, the peaks are the busiest
//! spindle's.
//!
//! **Disk-head time.** An access's service, its positioning plus the transfer of its pages, is
//! the disk-head time (DT) it costs: Baleen's measure of backend load (Wong et al., "Baleen: ML
//! Admission & Prefetching for Flash Caches", FAST '24: a backend IO costs a seek plus its bytes
//! over the disk's rate), here taken from the disk model instead of Baleen's fixed constants.
//! The disk sums the DT of the accesses that *arrive* in each aligned window of
//! [`Disk::set_dt_window`] (default [`DT_WINDOW_NS`], 10 min of simulated time) over all its
//! spindles ([`crate::load::WindowPeak`]); [`Disk::dt_peak`] is the most in one window over its
//! length: disk-heads busy on average in the busiest window (with one disk, its utilisation;
//! above the number of disks, more work arrived than the array can do in the window). The
//! end-of-run flush is not counted (it is the simulator's, not the workload's, as in [`Load`]).
//!
//! **Scheduling: FIFO only.** An elevator or SSTF scheduler picks, each time a spindle becomes
//! free, the queued access nearest its head, so an access's start depends on accesses that
//! arrive after it was submitted. fcsim's devices answer an access's completion when it is
//! submitted ([`super::Backing`]): the loop records the request's response at once, and the
//! flash cache programs an admitted page at the disk read's completion. A reordering scheduler
//! needs the completion deferred: the disk returning a pending access, the loop keeping an event
//! queue of outstanding requests ordered by time and finishing each (its response, the flash
//! program after a disk read, the next arrival of a closed loop) when the scheduler dispatches
//! it. That is a global event queue, which the synchronous design avoids; it is not built, and
//! nothing stands in for it.

mod model;

pub use model::{DiskModel, Drive, SeekCurve, SeekFigures, DISK_PRESETS, DRIVE_15K, DRIVE_7200};

use crate::error::{Error, Result};
use crate::load::{Load, Summary, WindowPeak, WINDOWS_NS};
use crate::request::{PAGE_MASK, VOLUME_SHIFT};
use crate::time::after;
use rustc_hash::FxHashMap;

/// The default window of [`Disk::dt_peak`]: 10 minutes.
pub const DT_WINDOW_NS: u64 = 600_000_000_000;

/// How pages are placed on spindles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One spindle; every volume's page p at byte p × page size (volumes overlap in placement;
    /// a page is sequential only after a page of its own volume).
    Single,
    /// RAID-0 over `disks` spindles in stripe units of `stripe_pages` pages: stripe unit
    /// k = p / stripe_pages of a volume's page p goes to spindle k mod disks, at stripe row
    /// k / disks there (address (k / disks) × stripe_pages + p mod stripe_pages pages).
    Striped { disks: u32, stripe_pages: u64 },
    /// One spindle per trace volume, created when the volume is first seen.
    PerVolume,
}

impl Layout {
    /// The name in the row's `stack_disks` sense: `1`, `N` or `volume`.
    pub fn name(&self) -> String {
        match self {
            Layout::Single => "1".into(),
            Layout::Striped { disks, .. } => disks.to_string(),
            Layout::PerVolume => "volume".into(),
        }
    }
}

/// The access a spindle served last, not yet in its load.
#[derive(Debug, Clone, Copy)]
struct Open {
    arrival: u64,
    start: u64,
    end: u64,
    write: bool,
    /// Its wait behind accesses submitted for earlier requests.
    behind: u64,
    /// Opened by the end-of-run flush ([`Disk::begin_flush`]).
    flush: bool,
}

impl Open {
    /// Records the access in `load`: arrival work, or the flush's.
    fn record(&self, load: &mut Load) {
        if self.flush {
            load.record_flush(self.start, self.end);
        } else {
            // A spindle's load never flushes itself: the disk says which accesses are the flush's.
            load.record(self.arrival, self.start, self.end, self.behind);
        }
    }
}

/// One spindle: a FIFO server with a head.
#[derive(Debug, Clone, Default)]
struct Spindle {
    free_at: u64,
    /// The head's cylinder (of the last page served).
    cylinder: u64,
    /// The volume and page address right after the last page served.
    next: Option<(u64, u64)>,
    open: Option<Open>,
    load: Load,
    /// The request ([`Disk::advance`]'s count) the spindle last opened an access for, and when
    /// it was free of the accesses submitted before that request.
    request: u64,
    base_free: u64,
}

impl Spindle {
    /// The load so far, the open access included.
    fn load(&self) -> Load {
        let mut l = self.load.clone();
        if let Some(o) = self.open {
            o.record(&mut l);
        }
        l
    }
}

/// The disk(s) behind a flash cache.
#[derive(Debug, Clone)]
pub struct Disk {
    model: DiskModel,
    layout: Layout,
    page_size: u32,
    page_ns: u64,
    spindles: Vec<Spindle>,
    /// Spindle of each volume seen ([`Layout::PerVolume`]).
    volumes: FxHashMap<u64, u32>,
    /// Pages read and written.
    pub reads: u64,
    pub writes: u64,
    /// The second of simulated time the spindles' load windows were last advanced to.
    second: u64,
    /// Whether the end-of-run flush has begun ([`Disk::begin_flush`]).
    flushing: bool,
    /// Requests begun: [`Disk::advance`] calls (one per request from the loop).
    request: u64,
    /// Disk-head time of the accesses arriving in each window, over all spindles.
    dt: WindowPeak,
}

impl Disk {
    /// Disks of `model` placed by `layout`, for pages of `page_size` bytes.
    pub fn new(model: DiskModel, layout: Layout, page_size: u32) -> Result<Disk> {
        let n = match layout {
            Layout::Single => 1,
            Layout::Striped { disks, stripe_pages } => {
                if disks == 0 || stripe_pages == 0 {
                    return Err(Error::config("stack.disks: expected at least one disk and a stripe unit of at least one page"));
                }
                disks as usize
            }
            Layout::PerVolume => 0,
        };
        let page_ns = model.page_ns(page_size);
        Ok(Disk {
            model,
            layout,
            page_size,
            page_ns,
            spindles: vec![Spindle::default(); n],
            volumes: FxHashMap::default(),
            reads: 0,
            writes: 0,
            second: 0,
            flushing: false,
            request: 0,
            dt: WindowPeak::new(DT_WINDOW_NS),
        })
    }

    /// No request arrives before `now` any more: the spindles' load windows before it are final
    /// ([`crate::load::Load::advance`]; done once per second of simulated time). The loop calls
    /// it once per request, before the request's pages: it also starts a new request for the
    /// spindles' waits behind earlier requests.
    #[inline]
    pub fn advance(&mut self, now: u64) {
        self.request += 1;
        let second = now / WINDOWS_NS[0];
        if second > self.second {
            self.second = second;
            for s in &mut self.spindles {
                s.load.advance(now);
            }
            self.dt.advance(now);
        }
    }

    /// Sums disk-head time over windows of `ns` (see the module's "Disk-head time"); before
    /// the first access.
    pub fn set_dt_window(&mut self, ns: u64) {
        self.dt = WindowPeak::new(ns);
    }

    /// The window of [`Disk::dt_peak`], ns.
    pub fn dt_window_ns(&self) -> u64 {
        self.dt.len_ns()
    }

    /// The peak disk-head time: the most positioning and transfer time of the accesses that
    /// arrived in one window, summed over the spindles, over the window's length.
    pub fn dt_peak(&self) -> f64 {
        self.dt.peak()
    }

    pub fn model(&self) -> &DiskModel {
        &self.model
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Spindles so far (per volume: the volumes seen).
    pub fn spindles(&self) -> usize {
        self.spindles.len()
    }

    /// Where page key `key` lives: its spindle, its volume and its page address there.
    #[inline]
    fn place(&mut self, key: u64) -> (usize, u64, u64) {
        let (volume, page) = (key >> VOLUME_SHIFT, key & PAGE_MASK);
        match self.layout {
            Layout::Single => (0, volume, page),
            Layout::Striped { disks, stripe_pages } => {
                let (unit, within) = (page / stripe_pages, page % stripe_pages);
                let d = u64::from(disks);
                ((unit % d) as usize, volume, (unit / d) * stripe_pages + within)
            }
            Layout::PerVolume => {
                let next = self.spindles.len() as u32;
                let i = *self.volumes.entry(volume).or_insert(next);
                if i == next {
                    self.spindles.push(Spindle::default());
                }
                (i as usize, volume, page)
            }
        }
    }

    #[inline]
    fn submit(&mut self, key: u64, write: bool, t: u64) -> Result<u64> {
        let (i, volume, page) = self.place(key);
        let (page_ns, ps) = (self.page_ns, u128::from(self.page_size));
        let cylinder = self.model.cylinder(u128::from(page) * ps);
        let s = &mut self.spindles[i];
        let sequential = s.next == Some((volume, page));
        s.next = Some((volume, page + 1));
        if let Some(o) = s.open.as_mut().filter(|o| sequential && o.arrival == t && o.write == write) {
            o.end = after(o.end, page_ns)?;
            if !o.flush {
                self.dt.record(t, page_ns);
            }
            s.free_at = o.end;
            s.cylinder = cylinder;
            return Ok(o.end);
        }
        if let Some(o) = s.open.take() {
            o.record(&mut s.load);
        }
        if s.request != self.request {
            s.request = self.request;
            s.base_free = s.free_at;
        }
        let start = t.max(s.free_at);
        let behind = start.min(s.base_free).saturating_sub(t);
        let positioning = match self.model {
            DiskModel::Drive { .. } if sequential => 0,
            _ => self.model.positioning_ns(s.cylinder, cylinder, write),
        };
        let end = after(after(start, positioning)?, page_ns)?;
        if !self.flushing {
            self.dt.record(t, positioning + page_ns);
        }
        s.open = Some(Open { arrival: t, start, end, write, behind, flush: self.flushing });
        s.free_at = end;
        s.cylinder = cylinder;
        Ok(end)
    }

    /// When the spindle holding page `key` is free of the accesses submitted so far.
    #[inline]
    pub fn free_at(&mut self, key: u64) -> u64 {
        let i = self.place(key).0;
        self.spindles[i].free_at
    }

    /// Reads page `key` for a request that arrived at `t`; returns its completion.
    #[inline]
    pub fn read(&mut self, key: u64, t: u64) -> Result<u64> {
        self.reads += 1;
        self.submit(key, false, t)
    }

    /// Writes page `key` for a request that arrived at `t`; returns its completion.
    #[inline]
    pub fn write(&mut self, key: u64, t: u64) -> Result<u64> {
        self.writes += 1;
        self.submit(key, true, t)
    }

    /// Each spindle's load so far (cumulative: an epoch table differences two readings).
    pub fn loads(&self) -> impl Iterator<Item = Load> + '_ {
        self.spindles.iter().map(Spindle::load)
    }

    /// The end-of-run flush begins: accesses opened from now on are the flush's in the spindles'
    /// loads ([`Load::begin_flush`]). An access already open stays arrival work, also if a
    /// flushed page continues it (the same arrival time, the next page, the same direction).
    pub fn begin_flush(&mut self) {
        self.flushing = true;
    }

    /// An epoch of the per-epoch table ends ([`crate::load::Load::mark_epoch`] on every spindle).
    pub fn mark_epoch(&mut self) {
        for s in &mut self.spindles {
            s.load.mark_epoch();
        }
    }

    /// Forgets the pages read and written and every spindle's load (the end of a warm-up); the
    /// heads, queues and an access still open stay, so the timing is as without the reset. An
    /// access open at the reset (its next pages may still continue it) counts wholly after it.
    pub fn reset_stats(&mut self) {
        self.reads = 0;
        self.writes = 0;
        for s in &mut self.spindles {
            s.load.reset();
        }
        self.dt.reset();
    }

    /// The array's load so far.
    pub fn load(&self) -> Summary {
        let loads: Vec<Load> = self.loads().collect();
        Load::combine(&loads)
    }

    /// Time the spindles spent serving, ns (summed over spindles).
    pub fn busy_ns(&self) -> u64 {
        self.loads().map(|l| l.busy_ns).sum()
    }

    /// Accesses served (a continued access counts once).
    pub fn accesses(&self) -> u64 {
        self.loads().map(|l| l.ops).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::VOLUME_SHIFT;

    const MS: u64 = 1_000_000;

    fn flat() -> DiskModel {
        DiskModel::preset("flat", 5 * MS).unwrap()
    }

    fn k15() -> DiskModel {
        DiskModel::preset("15k", 0).unwrap()
    }

    /// Reads the `n` pages from `first` as the stack does, one page at a time, at arrival `t`;
    /// returns the last page's completion.
    fn read_run(d: &mut Disk, first: u64, n: u64, t: u64) -> u64 {
        (first..first + n).map(|k| d.read(k, t).unwrap()).max().unwrap()
    }

    // 15k, 4 KiB pages: a page's transfer is 4096 B / 163 MB/s = 25,128.8 -> 25,129 ns; half a
    // revolution at 15,000 rpm is 60 s / 15,000 / 2 = 2 ms. Read seek curve (model.rs):
    // t = 0.2 ms, A = 3.2/3 ms, B = 16/3 ms over C = 107,500 cylinders; a cylinder holds
    // 450e9 / 107,500 B. Page 27,465,821 is at byte 112,500,002,816, cylinder
    // ⌊112,500,002,816 × 107,500 / 450e9⌋ = 26,875 = C/4 (u = 0.25).
    const QUARTER: u64 = 27_465_821;

    #[test]
    fn a_random_4k_read() {
        // From cylinder 0 to C/4: seek = 0.2 + A/4 + B/2 = 0.2 + 0.266667 + 2.666667
        // = 3.133333 ms -> 3,133,333 ns; + 2,000,000 rotation + 25,129 transfer = 5,158,462 ns.
        let mut d = Disk::new(k15(), Layout::Single, 4096).unwrap();
        assert_eq!(d.read(QUARTER, 0).unwrap(), 5_158_462);
        assert_eq!((d.reads, d.accesses(), d.busy_ns()), (1, 1, 5_158_462));
    }

    #[test]
    fn a_sequential_64k_read() {
        let mut d = Disk::new(k15(), Layout::Single, 4096).unwrap();
        let first = d.read(QUARTER, 0).unwrap();
        // The next 16 pages at 10 ms start where the last read ended: no positioning, 16
        // transfers = 16 × 25,129 = 402,064 ns; one access.
        assert_eq!(read_run(&mut d, QUARTER + 1, 16, 10 * MS), 10 * MS + 402_064);
        assert_eq!((d.reads, d.accesses(), d.busy_ns()), (17, 2, first + 402_064));
        // The same 64 KiB at a random place (back to cylinder 0 from C/4, the same distance):
        // 3,133,333 + 2,000,000 + 402,064 = 5,535,397 ns, one access.
        assert_eq!(read_run(&mut d, 0, 16, 20 * MS), 20 * MS + 5_535_397);
        assert_eq!(d.accesses(), 3);
    }

    #[test]
    fn two_queued_requests() {
        // A read at C/4 arrives at 0 (done 5,158,462, as above); a read at cylinder 0 arrives at
        // 1 ms and waits for it: it starts at 5,158,462 and seeks C/4 back (5,158,462 − 25,129
        // positioning + transfer again): ends at 2 × 5,158,462 = 10,316,924.
        let mut d = Disk::new(k15(), Layout::Single, 4096).unwrap();
        assert_eq!(d.read(QUARTER, 0).unwrap(), 5_158_462);
        assert_eq!(d.read(0, MS).unwrap(), 10_316_924);
        // Sojourns 5,158,462 + 9,316,924 over 2 accesses; busy 10,316,924.
        let l = d.load();
        assert_eq!((l.ops, l.busy_ns, l.sojourn_ns), (2, 10_316_924, 14_475_386));
        // On flat: 5 ms each, the second from 5 to 10 ms.
        let mut d = Disk::new(flat(), Layout::Single, 4096).unwrap();
        assert_eq!((d.read(QUARTER, 0).unwrap(), d.write(0, MS).unwrap()), (5 * MS, 10 * MS));
    }

    #[test]
    fn waits_behind_earlier_requests_and_the_flush() {
        // Flat 5 ms. Request 1 at 0: pages 0 and 10 (apart: two accesses, 0-5 and 5-10 ms);
        // the second waits 5 ms behind its own request, not behind the load.
        let mut d = Disk::new(flat(), Layout::Single, 4096).unwrap();
        d.advance(0);
        d.write(0, 0).unwrap();
        d.write(10, 0).unwrap();
        // Request 2 at 1 ms: page 100, 10-15 ms, 9 ms behind request 1. Sojourns 5 + 10 + 14 ms.
        d.advance(MS);
        assert_eq!(d.read(100, MS).unwrap(), 15 * MS);
        let l = d.load();
        assert_eq!((l.behind_ns, l.sojourn_ns, l.last_end), (u128::from(9 * MS), u128::from(29 * MS), 15 * MS));
        // The end-of-run flush: page 101 follows the read but is a write (a new access); it is the
        // flush's, 15-20 ms. The read, still open when the flush began, stays arrival work.
        d.begin_flush();
        assert_eq!(d.write(101, MS).unwrap(), 20 * MS);
        let f = d.load();
        assert_eq!((f.ops, f.busy_ns, f.flush.ops, f.flush.busy_ns, f.flush.end), (4, 20 * MS, 1, 5 * MS, 20 * MS));
        assert_eq!((f.sojourn_ns, f.behind_ns, f.last_end, f.peak[0]), (l.sojourn_ns, l.behind_ns, 15 * MS, 0.015));
    }

    #[test]
    fn disk_head_time_per_window() {
        // 15k, 1 s windows. Second 0: a random 4 KiB read (5,158,462 ns, as above) and the 16
        // pages after it, sequential, a new request (16 × 25,129 = 402,064 ns, no positioning).
        let mut d = Disk::new(k15(), Layout::Single, 4096).unwrap();
        d.set_dt_window(1_000 * MS);
        d.advance(0);
        d.read(QUARTER, 0).unwrap();
        d.advance(10 * MS);
        read_run(&mut d, QUARTER + 1, 16, 10 * MS);
        assert_eq!(d.dt_peak(), (5_158_462 + 402_064) as f64 / 1e9);
        // Second 3: one access back to cylinder 0 (5,158,462 ns); second 0 stays the peak. The
        // flush's write (5,158,462 ns back to C/4) is not counted.
        d.advance(3_000 * MS);
        d.read(0, 3_000 * MS).unwrap();
        d.begin_flush();
        d.write(QUARTER, 3_000 * MS).unwrap();
        assert_eq!((d.dt_peak(), d.dt_window_ns()), ((5_158_462 + 402_064) as f64 / 1e9, 1_000 * MS));
        // The mean per access of arrival work: (2 × 5,158,462 + 402,064) / 3.
        let l = d.load();
        assert_eq!((l.arrival_busy_ns(), l.ops - l.flush.ops), (2 * 5_158_462 + 402_064, 3));
    }

    #[test]
    fn a_striped_request_spanning_two_disks() {
        // Two 15k spindles, 64 KiB stripe units (16 pages). Placement: page 16 is unit 1, on
        // spindle 1 at page 0; page 32 is unit 2, spindle 0, stripe row 1: page 16 there.
        let layout = Layout::Striped { disks: 2, stripe_pages: 16 };
        let mut d = Disk::new(k15(), layout, 4096).unwrap();
        assert_eq!((d.place(16), d.place(32), d.place(33)), ((1, 0, 0), (0, 0, 16), (0, 0, 17)));
        // A 128 KiB read from byte 0: pages 0-15 on spindle 0, 16-31 on spindle 1, in parallel.
        // Each: head at cylinder 0 already (seek 0), 2 ms rotation + 16 × 25,129 = 2,402,064 ns.
        assert_eq!(read_run(&mut d, 0, 32, 0), 2_402_064);
        assert_eq!((d.spindles(), d.accesses(), d.busy_ns()), (2, 2, 2 * 2_402_064));
        // One spindle: 2 ms + 32 × 25,129 = 2,804,128 ns.
        let mut one = Disk::new(k15(), Layout::Single, 4096).unwrap();
        assert_eq!(read_run(&mut one, 0, 32, 0), 2_804_128);
    }

    #[test]
    fn flat_is_five_ms_per_access() {
        let mut d = Disk::new(flat(), Layout::Single, 4096).unwrap();
        // A 64 KiB request (16 pages at one arrival): one 5 ms access, not 16 × 5 = 80 ms.
        assert_eq!(read_run(&mut d, 100, 16, 0), 5 * MS);
        // The next 64 KiB, sequential but a new request at 10 ms: another 5 ms access.
        assert_eq!(read_run(&mut d, 116, 16, 10 * MS), 15 * MS);
        // A write of the page right after, at the same arrival as a read run: a new access.
        assert_eq!(read_run(&mut d, 200, 2, 20 * MS), 25 * MS);
        assert_eq!(d.write(202, 20 * MS).unwrap(), 30 * MS);
        assert_eq!((d.reads, d.writes, d.accesses(), d.busy_ns()), (34, 1, 4, 20 * MS));
        // A write-back between the pages of a read breaks it: read 300, write 900, read 301 are
        // three accesses (15 ms).
        let t = 40 * MS;
        assert_eq!((d.read(300, t).unwrap(), d.write(900, t).unwrap(), d.read(301, t).unwrap()), (45 * MS, 50 * MS, 55 * MS));
        assert_eq!(d.accesses(), 7);
        // Peak offered load: second 0 held 7 accesses × 5 ms = 35 ms of work.
        assert_eq!(d.load().peak, [0.035, 35.0 / 60_000.0]);
        // The same 35 ms of disk-head time over the default 10 min window.
        assert_eq!(d.dt_peak(), 35e6 / 600e9);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Any stream of page accesses: a one-disk array and one volume's own disk are the
        /// single disk; completions follow arrivals; the spindle is never busy longer than it
        /// had work to do.
        #[test]
        fn layouts_agree_and_time_adds_up(
            ops in proptest::collection::vec((0u64..64, proptest::bool::ANY, 0u64..3_000_000), 1..200),
            drive in 0usize..3,
        ) {
            let model = || DiskModel::preset(DISK_PRESETS[drive], 5 * MS).unwrap();
            let mut single = Disk::new(model(), Layout::Single, 4096).unwrap();
            let mut striped = Disk::new(model(), Layout::Striped { disks: 1, stripe_pages: 16 }, 4096).unwrap();
            let mut per_volume = Disk::new(model(), Layout::PerVolume, 4096).unwrap();
            let (mut t, mut last) = (0, 0);
            for (page, write, gap) in ops {
                t += gap / 1_000_000 * 1_000_000; // arrivals often equal, so accesses merge
                let key = 7 << VOLUME_SHIFT | page;
                let done = if write { single.write(key, t) } else { single.read(key, t) }.unwrap();
                let s = if write { striped.write(key, t) } else { striped.read(key, t) }.unwrap();
                let v = if write { per_volume.write(key, t) } else { per_volume.read(key, t) }.unwrap();
                proptest::prop_assert_eq!((s, v), (done, done));
                proptest::prop_assert!(done > t);
                last = last.max(done);
            }
            let l = single.load();
            proptest::prop_assert_eq!(l, striped.load());
            proptest::prop_assert_eq!(l, per_volume.load());
            proptest::prop_assert!(l.ops <= single.reads + single.writes && l.busy_ns <= last);
        }
    }

    #[test]
    fn one_disk_per_volume() {
        let v = |vol: u64, page: u64| vol << VOLUME_SHIFT | page;
        // Two volumes read at 0 on flat disks: each on its own spindle, both done at 5 ms (one
        // spindle would finish the second at 10 ms).
        let mut d = Disk::new(flat(), Layout::PerVolume, 4096).unwrap();
        assert_eq!(d.spindles(), 0);
        assert_eq!((d.read(v(3, 7), 0).unwrap(), d.read(v(9, 7), 0).unwrap()), (5 * MS, 5 * MS));
        assert_eq!(d.read(v(3, 50), 0).unwrap(), 10 * MS);
        assert_eq!((d.spindles(), d.accesses()), (2, 3));
        let mut one = Disk::new(flat(), Layout::Single, 4096).unwrap();
        assert_eq!((one.read(v(3, 7), 0).unwrap(), one.read(v(9, 7), 0).unwrap()), (5 * MS, 10 * MS));
        // On one spindle, page 8 of volume 9 after page 7 of volume 3 is not sequential.
        assert_eq!(one.read(v(9, 8), 0).unwrap(), 10 * MS); // continues volume 9's page 7
        assert_eq!(one.read(v(3, 9), 0).unwrap(), 15 * MS);
    }
}
