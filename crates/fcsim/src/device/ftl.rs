//! Page-mapped flash translation layer with per-plane garbage collection.
//!
//! Every logical page maps to at most one physical page (`l2p`); every physical page is free,
//! valid (holding the logical page `p2l` names) or invalid. A plane writes into one open block
//! (its write frontier) in page order; host writes and GC copies share the frontier, so a copy
//! is rewritten at the head as in the FIFO-cleaning model of Desnoyers (SYSTOR 2012; not in the
//! seed papers' reference lists). When a block is taken from a plane's free list and fewer than
//! `reserve` free blocks remain, GC runs on that plane until the reserve is restored: it picks a
//! closed victim (greedy, FIFO or cost-benefit), copies its valid pages to the frontier (a read
//! and a program each, on the same plane), and erases it. The caller turns the returned
//! [`GcWork`] into chip time.
//!
//! Greedy takes the plane's closed block with the fewest valid pages by a vectorised minimum
//! over the plane's valid counts (4 bytes a block, so the counts of a 64 GiB drive fit in 1 MiB
//! of cache; free and open blocks carry an offset that keeps them out of the minimum); FIFO pops
//! the oldest closed block; cost-benefit scans the plane's closed blocks for the best score.
//! An invalidation is one decrement: no list is kept in valid-count order.
//!
//! **Why the victim search stays a scan.** A bucketed structure (blocks listed by valid count)
//! makes the search O(1) but must also reproduce the scan's tie-break, the lowest-numbered
//! block among those with the fewest valid pages, which needs ordered buckets (O(log n) per
//! invalidation, on the hot path). The scan is 2 KiB of counts per plane on the `lcr` drive,
//! run once per erase (once per ~11 host writes at write amplification 5.6): about 3% of the
//! device path in the profile below.
//!
//! The mapping tables hold a physical page + 1 (`l2p`) and a logical page + 2 (`p2l`), so that
//! 0 is unmapped and free: both start as zeroed memory, which the OS maps only where it is
//! written, so a drive sized from a huge `--size` costs the pages a trace writes, not its
//! capacity (4 bytes a page where written, plus 12 bytes a block).
//!
//! **Where the time goes** (`perf` on `bench/flash_speed.py`'s device path, the aged `lcr` drive:
//! 58 MiB `l2p`, 64 MiB `p2l`, write amplification 5.6, so ~5.6 `l2p` entries rewritten a host
//! write, at random). The path is bound by the latency of random accesses to tables larger than
//! the cache. Three things shorten it: the tables sit in transparent huge pages on a
//! preconditioned drive ([`super::table`], safe `madvise` through memmap2), so they miss the TLB
//! far less; an invalidation writes only `l2p` (a physical page is valid when the `l2p` entry
//! of the page its `p2l` names points back at it), so no second miss depends on the first; and
//! GC tests a victim's pages in one pass of independent loads before it copies. What is left:
//! the `l2p` miss of each invalidation, GC's overlapped loads and stores, and the logical-page
//! lookup ([`super::Flash`]'s bitmaps). `cargo bench -p fcsim-bench --bench flash_limit`, a minimal FTL over the
//! same writes, is the machine's limit for this path (`bench/RESULTS.md`, device path).
//!
//! A valid-page bitmap per block was tried (commit 7cf8ae5, same results) and gave no gain
//! (0.94x): the bitmap word is a second miss dependent on the `l2p` entry.
//!
//! **Against the limit** (`flash_limit` times this FTL alone and the whole [`super::Flash`]
//! device on the limit's in-memory writes, in the same run: `bench/RESULTS.md`, device path).
//! This FTL alone is within about 10% of the minimal one (they touch the same number of random
//! lines a write: the `l2p` entry, ~5.6 GC copies' `l2p` entries; the limit also marks `p2l` on
//! invalidation and scans a plane's counts scalar). The rest of the gap is around it: the
//! chips' timing and accounting, and the simulation loop (trace generation, the key-to-logical-
//! page assignment, the tier, the response-time histogram). The chips' pending queue, which only
//! the view's chip load reads and which grows on a saturated drive, is not kept unless the
//! policy declares the device view ([`super::timing::Timing::keep_queue`]).
//!
//! **The chips' timing costs more than its instructions** (issue 29). In `perf` the timing's
//! own functions (`Timing::submit`, `Load::record`, `Epochs::add`) are under 1% of the device
//! path's samples, yet the device alone was ~+90 ns a host write over this FTL alone, and with
//! the chips' timing skipped (a measurement, not kept) the two ran alike. The time shows up as
//! slower FTL code: the path is bound by how many table misses are in flight at once, and the
//! misses of successive writes overlap only as far as the CPU's reorder window reaches past the
//! current one. Every instruction between two writes narrows that, most of all a branch that
//! mispredicts on a value a miss delivers (a GC job's length is its copies, so its end and the
//! epoch split of it wait for GC's loads; every later op on that chip starts at that end).
//! Changed, each with every output identical (`make golden`), measured together at 1.0x (the
//! device alone against the build before, interleaved; end to end, `bench/RESULTS.md`): the
//! common op takes a plain path ([`super::timing::Timing::submit`]: no queue, no transfer, no
//! hole; the per-kind counts only the queue reads are not kept); the load-balance epochs
//! remember the open epoch per chip, not one for the device (each chip's queue on the saturated
//! aged drive ends at its own time, epochs apart); a load window takes an op with no division
//! ([`crate::load::Load::record`]); a GC job longer than an epoch (most, at ~53 copies a job)
//! adds two map entries, where it allocated two lists. By ablation (outputs wrong, not kept),
//! skipping the epochs altogether saved ~25 ns a host write and skipping the chips' timing
//! altogether ~90 ns: what is left is the per-op work itself (the clock's advance; each op's
//! completion, busy time, sojourn and epoch work), not a slow case in it.
//! Tried and dropped (same results, no gain measured here, each within this shared machine's
//! spread): invalid pages marked in `p2l` as the limit does, with GC reading `p2l` alone (0.9x);
//! the key-assignment bitmap folded into a flag bit of `l2p`, so assigning a key and writing its
//! page share one miss (1.0x: the two misses already overlapped); and a pass over each trace
//! batch loading its pages' `l2p` entries ahead (1.0x: the misses moved into the pass and cost
//! the same there, as if bounded by the machine's random-access throughput, not by latency);
//! the program's chip time submitted before the FTL write rather than after (0.97x-1.0x, within
//! the spread; not kept, as it would change which error a run that fails both reports). A
//! prefetch hint for the next write's `l2p` entry is not possible here: `_mm_prefetch` is a
//! target-feature function, callable only in `unsafe`, which the workspace forbids.

use super::config::GcPolicy;
use super::geometry::Geometry;
use super::table::Table;
use crate::error::{Error, Result};
use std::collections::VecDeque;

/// `l2p` entry of a logical page that is not on flash (else the physical page + 1).
const UNMAPPED: u32 = 0;
/// `p2l` entry of a free physical page (else the logical page + 2 it was last written with).
const FREE: u32 = 0;
/// Below this a `p2l` entry names no logical page (1 is never written; it kept invalid pages
/// apart when the invalidation marked them).
const FIRST_LPN: u32 = 2;
const NIL: u32 = u32::MAX;
/// Added to the valid count of a free or open block, so that only closed blocks can be a
/// greedy victim (a valid count is at most pages per block < 2^31).
const NOT_CLOSED: u32 = 1 << 31;

#[derive(Debug, Clone, PartialEq)]
struct Plane {
    free: Vec<u32>,
    open: u32,
    /// Next page offset to write in the open block.
    wp: u32,
    /// FIFO: closed blocks in closing order.
    closed: VecDeque<u32>,
}

/// Flash operations GC performed on one plane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GcWork {
    /// Valid pages copied (a read and a program each).
    pub copies: u32,
    pub erases: u32,
}

/// Counters of the FTL, in pages and blocks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FtlStats {
    pub host_reads: u64,
    pub host_writes: u64,
    pub gc_copies: u64,
    pub erasures: u64,
    pub trims: u64,
}

/// The FTL of one device.
#[derive(Debug, Clone, PartialEq)]
pub struct Ftl {
    geo: Geometry,
    gc: GcPolicy,
    reserve: u32,
    /// Physical page + 1 of each logical page, or [`UNMAPPED`].
    l2p: Table,
    /// Logical page + 2 that each written physical page was last programmed with, or [`FREE`]
    /// (erased, or never written). A written page is valid exactly when its logical page's
    /// `l2p` entry names it back (`l2p[p2l[ppn] - 2] == ppn + 1`); an invalidation changes only
    /// `l2p`, so an invalid page keeps its stale entry until its block is erased.
    p2l: Table,
    /// Valid pages of each block, plus [`NOT_CLOSED`] while it is free or open.
    valid: Vec<u32>,
    erases: Vec<u32>,
    /// Cost-benefit only: host-write clock at the last invalidation in each block.
    stamp: Vec<u64>,
    planes: Vec<Plane>,
    clock: u64,
    pub stats: FtlStats,
}

impl Ftl {
    /// An empty device with `user_pages` logical pages; GC keeps `reserve` (≥ 2) free blocks in
    /// each plane. Two is the least that always works: GC starts when a block is taken from the
    /// free list and fewer than `reserve` remain, and a victim with no invalid page (possible
    /// for FIFO) needs a whole block of room beyond the frontier it is copied into.
    pub fn new(geo: Geometry, user_pages: u64, gc: GcPolicy, reserve: u32) -> Self {
        Self::with_tables(geo, user_pages, gc, reserve, false)
    }

    /// [`Ftl::new`], with the mapping tables in huge pages (see [`super::table`]) if `whole`:
    /// the caller will write every logical page (it preconditions the drive).
    pub fn with_tables(geo: Geometry, user_pages: u64, gc: GcPolicy, reserve: u32, whole: bool) -> Self {
        assert!(reserve >= 2 && reserve + 1 < geo.blocks, "the GC reserve and the open block must leave blocks for data");
        let ppb = geo.pages_per_block;
        let planes = (0..geo.total_planes())
            .map(|p| Plane {
                // Popped from the back: the plane's lowest block is opened first.
                free: (p * geo.blocks..(p + 1) * geo.blocks).rev().collect(),
                open: NIL,
                wp: ppb,
                closed: VecDeque::with_capacity(if gc == GcPolicy::Fifo { geo.blocks as usize } else { 0 }),
            })
            .collect();
        let blocks = geo.total_blocks() as usize;
        Ftl {
            geo,
            gc,
            reserve,
            l2p: Table::zeroed(user_pages as usize, whole),
            p2l: Table::zeroed(geo.physical_pages() as usize, whole),
            valid: vec![NOT_CLOSED; blocks],
            erases: vec![0; blocks],
            stamp: if gc == GcPolicy::CostBenefit { vec![0; blocks] } else { Vec::new() },
            planes,
            clock: 0,
            stats: FtlStats::default(),
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn user_pages(&self) -> u32 {
        self.l2p.len() as u32
    }

    /// Physical page of `lpn`, if it is on flash.
    #[inline]
    pub fn lookup(&self, lpn: u32) -> Option<u32> {
        self.l2p[lpn as usize].checked_sub(1)
    }

    /// Counts a host page read (the caller knows the chip it goes to).
    #[inline]
    pub fn read(&mut self) {
        self.stats.host_reads += 1;
    }

    /// Writes `lpn` to `plane`, invalidating its old copy, then collects garbage on `plane` if
    /// its free blocks fell below the reserve. Returns the GC work done.
    #[inline]
    pub fn write(&mut self, lpn: u32, plane: u32) -> Result<GcWork> {
        self.stats.host_writes += 1;
        self.clock += 1;
        self.invalidate(lpn);
        let ppn = self.allocate(plane)?;
        self.map(lpn, ppn);
        let mut work = GcWork::default();
        while (self.planes[plane as usize].free.len() as u32) < self.reserve {
            self.collect(plane, &mut work)?;
            if work.erases > self.geo.blocks {
                return Err(Error::config(format!(
                    "flash plane {plane}: GC went through every block without reclaiming space (its data fills it; raise device.op)"
                )));
            }
        }
        Ok(work)
    }

    /// Drops `lpn` (TRIM): its physical page becomes invalid.
    pub fn trim(&mut self, lpn: u32) {
        self.stats.trims += 1;
        self.invalidate(lpn);
    }

    /// Erase count of every block.
    pub fn erase_counts(&self) -> impl Iterator<Item = u32> + '_ {
        self.erases.iter().copied()
    }

    /// Zeroes the counters and erase counts (after preconditioning).
    pub fn reset_stats(&mut self) {
        self.stats = FtlStats::default();
        self.erases.fill(0);
    }

    /// Unmaps `lpn`; its old page, if any, becomes invalid by that alone (see `p2l`): one
    /// random access to `l2p`, and the old block's count, with no second miss that depends on
    /// the first.
    #[inline(always)]
    fn invalidate(&mut self, lpn: u32) {
        let old = std::mem::replace(&mut self.l2p[lpn as usize], UNMAPPED);
        if old == UNMAPPED {
            return;
        }
        let b = self.geo.block_of_page(old - 1) as usize;
        self.valid[b] -= 1;
        if self.gc == GcPolicy::CostBenefit {
            self.stamp[b] = self.clock;
        }
    }

    #[inline]
    fn map(&mut self, lpn: u32, ppn: u32) {
        self.l2p[lpn as usize] = ppn + 1;
        self.p2l[ppn as usize] = lpn + 2;
        self.valid[self.geo.block_of_page(ppn) as usize] += 1;
    }

    /// The next free page of `plane`'s frontier, opening a free block when the frontier is full.
    #[inline]
    fn allocate(&mut self, plane: u32) -> Result<u32> {
        let ppb = self.geo.pages_per_block;
        let pl = &mut self.planes[plane as usize];
        if pl.wp == ppb {
            let Some(b) = pl.free.pop() else {
                return Err(Error::config(format!(
                    "flash plane {plane} has no free block left: its live data outgrew it (with dynamic placement, raise device.op)"
                )));
            };
            let old = std::mem::replace(&mut pl.open, b);
            pl.wp = 0;
            if old != NIL {
                self.valid[old as usize] -= NOT_CLOSED;
                if self.gc == GcPolicy::Fifo {
                    pl.closed.push_back(old);
                }
            }
        }
        let pl = &mut self.planes[plane as usize];
        let ppn = pl.open * ppb + pl.wp;
        pl.wp += 1;
        Ok(ppn)
    }

    fn victim(&mut self, plane: u32) -> Option<u32> {
        let first = plane * self.geo.blocks;
        let counts = &self.valid[first as usize..(first + self.geo.blocks) as usize];
        match self.gc {
            GcPolicy::Greedy => {
                let min = counts.iter().fold(u32::MAX, |m, &v| m.min(v));
                (min < NOT_CLOSED).then(|| first + counts.iter().position(|&v| v == min).unwrap_or(0) as u32)
            }
            GcPolicy::Fifo => self.planes[plane as usize].closed.pop_front(),
            GcPolicy::CostBenefit => {
                let ppb = f64::from(self.geo.pages_per_block);
                let mut best: Option<(f64, u32)> = None;
                for (i, &v) in counts.iter().enumerate() {
                    if v >= NOT_CLOSED {
                        continue;
                    }
                    let b = first + i as u32;
                    let u = f64::from(v) / ppb;
                    let age = (self.clock - self.stamp[b as usize]) as f64 + 1.0;
                    let score = if v == 0 { f64::INFINITY } else { (1.0 - u) / (2.0 * u) * age };
                    if best.map_or(true, |(s, _)| score > s) {
                        best = Some((score, b));
                    }
                }
                best.map(|(_, b)| b)
            }
        }
    }

    /// One GC step on `plane`: copy the victim's valid pages to the frontier and erase it.
    fn collect(&mut self, plane: u32, work: &mut GcWork) -> Result<()> {
        let ppb = self.geo.pages_per_block;
        let Some(victim) = self.victim(plane) else {
            return Err(Error::config(format!("flash plane {plane}: GC found no closed block to reclaim")));
        };
        // Greedy's victim is full only when no closed block has an invalid page. FIFO and
        // cost-benefit may pick a full block: it is copied to the head like any other.
        if self.gc == GcPolicy::Greedy && self.valid[victim as usize] == ppb {
            return Err(Error::config(format!(
                "flash plane {plane}: every block is full of valid data, GC cannot reclaim space (with dynamic placement, raise device.op)"
            )));
        }
        // Valid pages go to the frontier in runs: a fresh block is opened only when it fills.
        // 64 pages at a time: first which are valid (each page's `l2p` entry, loads independent
        // of one another, so their misses overlap), then the copies (their `l2p` stores hit the
        // lines just loaded).
        let first = victim * ppb;
        let mut copies = 0;
        let mut run = 0; // pages copied into the current frontier block
        for lo in (first..first + ppb).step_by(64) {
            let hi = (lo + 64).min(first + ppb);
            let (l2p, p2l) = (&*self.l2p, &*self.p2l);
            let mut live = 0u64;
            for ppn in lo..hi {
                let entry = p2l[ppn as usize];
                let lpn = entry.wrapping_sub(FIRST_LPN) as usize;
                let valid = entry >= FIRST_LPN && l2p.get(lpn).is_some_and(|&e| e == ppn + 1);
                live |= u64::from(valid) << (ppn - lo);
            }
            while live != 0 {
                let ppn = lo + live.trailing_zeros();
                live &= live - 1;
                let entry = self.p2l[ppn as usize];
                let pl = &mut self.planes[plane as usize];
                let dst = if pl.wp < ppb {
                    pl.wp += 1;
                    pl.open * ppb + pl.wp - 1
                } else {
                    let open = pl.open;
                    self.valid[open as usize] += run;
                    run = 0;
                    self.allocate(plane)?
                };
                self.l2p[(entry - FIRST_LPN) as usize] = dst + 1;
                self.p2l[dst as usize] = entry;
                run += 1;
                copies += 1;
            }
        }
        let open = self.planes[plane as usize].open;
        self.valid[open as usize] += run;
        self.valid[victim as usize] -= copies;
        self.p2l[first as usize..(first + ppb) as usize].fill(FREE);
        debug_assert_eq!(self.valid[victim as usize], 0, "erasing a block that holds valid data");
        self.valid[victim as usize] = NOT_CLOSED;
        self.erases[victim as usize] += 1;
        self.planes[plane as usize].free.push(victim);
        self.stats.gc_copies += u64::from(copies);
        self.stats.erasures += 1;
        work.copies += copies;
        work.erases += 1;
        Ok(())
    }

    /// Checks every invariant of the mapping and the block accounting; returns (free, valid,
    /// invalid) physical page counts. For tests: O(physical pages).
    pub fn check(&self) -> (u64, u64, u64) {
        let ppb = self.geo.pages_per_block;
        let mut mapped = 0u64;
        for (lpn, &entry) in self.l2p.iter().enumerate() {
            if entry != UNMAPPED {
                mapped += 1;
                assert_eq!(self.p2l[entry as usize - 1], lpn as u32 + FIRST_LPN, "l2p and p2l disagree on logical page {lpn}");
            }
        }
        let (mut free, mut valid, mut invalid) = (0u64, 0u64, 0u64);
        let free_blocks: std::collections::HashSet<u32> = self.planes.iter().flat_map(|p| p.free.iter().copied()).collect();
        for (b, &count) in self.valid.iter().enumerate() {
            let pages = &self.p2l[b * ppb as usize..(b + 1) * ppb as usize];
            let first = b as u32 * ppb;
            let live = |k: usize, l: u32| l >= FIRST_LPN && self.l2p[(l - FIRST_LPN) as usize] == first + k as u32 + 1;
            let v = pages.iter().enumerate().filter(|&(k, &l)| live(k, l)).count() as u32;
            assert_eq!(v, count & !NOT_CLOSED, "block {b} valid count");
            for (k, &l) in pages.iter().enumerate() {
                assert!(l == FREE || l >= FIRST_LPN, "block {b} page {k}: p2l entry {l} names no logical page");
                match l {
                    FREE => free += 1,
                    l if live(k, l) => {}
                    _ => invalid += 1,
                }
            }
            if free_blocks.contains(&(b as u32)) {
                assert!(count >= NOT_CLOSED, "free block {b} is marked closed");
                assert_eq!(v, 0, "free block {b} holds valid pages");
                assert!(pages.iter().all(|&l| l == FREE), "free block {b} has written pages");
            }
        }
        valid += mapped;
        assert_eq!(free + valid + invalid, self.geo.physical_pages());
        for (p, pl) in self.planes.iter().enumerate() {
            assert!(pl.free.len() as u32 >= self.reserve, "plane {p} fell below its GC reserve");
        }
        (free, valid, invalid)
    }
}
