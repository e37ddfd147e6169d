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
//! An invalidation is a decrement and a cleared bit: no list is kept in valid-count order.
//!
//! **Why the victim search stays a scan.** A bucketed structure (blocks listed by valid count)
//! makes the search O(1) but must also reproduce the scan's tie-break, the lowest-numbered
//! block among those with the fewest valid pages, which needs ordered buckets (O(log n) per
//! invalidation, on the hot path). The scan is 2 KiB of counts per plane on the `lcr` drive,
//! run once per erase (once per ~11 host writes at write amplification 5.6): under 3% of the
//! device path in the profile of `bench/flash_speed.py`, against ~75% in random accesses to
//! the mapping tables.
//!
//! **Memory layout.** Where a page is valid is a bitmap per block (`bits`, one bit a page: 8
//! bytes a 64-page block, 2 MiB for the `lcr` drive's 262,144 blocks, so it stays in cache),
//! not the reverse map: an invalidation reads `l2p` and writes one bit and one count, and
//! touches no second table of the drive's size (each such access a cache and TLB miss on a
//! 64 MiB map). `p2l` is read only by GC, for the valid pages of a victim, which sit together.
//! `l2p` holds a physical page + 1, so that 0 is unmapped: it and `p2l` start as zeroed
//! memory, which the OS maps only where it is written, so a drive sized from a huge `--size`
//! costs the pages a trace writes, not its capacity (4 bytes a page where written, plus 12
//! bytes and a bit a page of each block).
//!
//! **Where the time goes** (`perf` on `bench/flash_speed.py`'s device path, the aged `lcr` drive:
//! 58 MiB `l2p`, 64 MiB `p2l`, write amplification 5.6, so ~5.6 `l2p` entries rewritten a host
//! write, at random). Of the samples, ~40% stall on an invalidation (about half on the host
//! page's `l2p` entry, half on its block's bitmap word, which depends on it), ~17% on the `l2p`
//! stores of GC copies, ~5% on the victim's `p2l` entries, ~3% in the victim scan, ~6% in the
//! logical-page lookup ([`super::Flash`]'s bitmaps), ~3% in the chips' timing; the rest is the
//! loop. The device path is bound by the latency of random accesses to tables larger than the
//! cache, each also a TLB miss with 4 KiB pages: with transparent huge pages for malloc's
//! mappings (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, no code change) the same build runs
//! markedly faster (`bench/RESULTS.md`, device path). Advising huge pages from fcsim needs
//! `madvise`, an unsafe call the workspace forbids (`unsafe_code = "forbid"`).

use super::config::GcPolicy;
use super::geometry::Geometry;
use crate::error::{Error, Result};
use std::collections::VecDeque;

/// `l2p` entry of a logical page that is not on flash (else the physical page + 1).
const UNMAPPED: u32 = 0;
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
    /// Physical page + 1 of each logical page, or [`UNMAPPED`]. Invariant: `l2p[l] = p + 1`
    /// exactly when page `p`'s bit is set in `bits` and `p2l[p] = l`.
    l2p: Vec<u32>,
    /// Logical page of each physical page; meaningful only where the page's bit is set in
    /// `bits` (a page invalidated or erased keeps a stale entry, never read).
    p2l: Vec<u32>,
    /// Valid-page bitmap, `words` u64 a block (bit `k % 64` of word `k / 64` is page `k` of the
    /// block). Invariant: a bit is set exactly when its page holds the current copy of a
    /// logical page; free blocks and pages past a frontier have none set.
    bits: Vec<u64>,
    /// Bitmap words a block: `pages_per_block / 64` rounded up.
    words: u32,
    /// Valid pages of each block (the popcount of its bitmap), plus [`NOT_CLOSED`] while it is
    /// free or open.
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
        let words = ppb.div_ceil(64);
        Ftl {
            geo,
            gc,
            reserve,
            l2p: vec![UNMAPPED; user_pages as usize],
            p2l: vec![0; geo.physical_pages() as usize],
            bits: vec![0; blocks * words as usize],
            words,
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

    #[inline]
    fn invalidate(&mut self, lpn: u32) {
        let old = std::mem::replace(&mut self.l2p[lpn as usize], UNMAPPED);
        if old == UNMAPPED {
            return;
        }
        let old = old - 1;
        let b = self.geo.block_of_page(old);
        let (w, m) = self.bit(b, old);
        self.bits[w] &= !m;
        let b = b as usize;
        self.valid[b] -= 1;
        if self.gc == GcPolicy::CostBenefit {
            self.stamp[b] = self.clock;
        }
    }

    /// The word of `bits` holding physical page `ppn` of block `b`, and the page's mask in it.
    #[inline]
    fn bit(&self, b: u32, ppn: u32) -> (usize, u64) {
        let k = ppn - b * self.geo.pages_per_block;
        ((b * self.words + k / 64) as usize, 1 << (k % 64))
    }

    /// Records `lpn` at `ppn` in the maps and the bitmap (not in the valid count).
    #[inline]
    fn place(&mut self, lpn: u32, ppn: u32, b: u32) {
        self.l2p[lpn as usize] = ppn + 1;
        self.p2l[ppn as usize] = lpn;
        let (w, m) = self.bit(b, ppn);
        self.bits[w] |= m;
    }

    #[inline]
    fn map(&mut self, lpn: u32, ppn: u32) {
        let b = self.geo.block_of_page(ppn);
        self.place(lpn, ppn, b);
        self.valid[b as usize] += 1;
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
        // Valid pages go to the frontier in runs, in page order (the victim's set bits, lowest
        // first): a fresh block is opened only when it fills.
        let first = victim * ppb;
        let mut copies = 0;
        let mut run = 0; // pages copied into the current frontier block
        for w in 0..self.words {
            let word = (victim * self.words + w) as usize;
            let mut mask = std::mem::take(&mut self.bits[word]);
            while mask != 0 {
                let ppn = first + w * 64 + mask.trailing_zeros();
                mask &= mask - 1;
                let lpn = self.p2l[ppn as usize];
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
                let open = self.planes[plane as usize].open;
                self.place(lpn, dst, open);
                run += 1;
                copies += 1;
            }
        }
        let open = self.planes[plane as usize].open;
        self.valid[open as usize] += run;
        self.valid[victim as usize] -= copies;
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
                let ppn = entry - 1;
                let (w, m) = self.bit(self.geo.block_of_page(ppn), ppn);
                assert!(self.bits[w] & m != 0, "logical page {lpn} maps to a page not marked valid");
                assert_eq!(self.p2l[ppn as usize], lpn as u32, "l2p and p2l disagree on logical page {lpn}");
            }
        }
        let free_blocks: std::collections::HashSet<u32> = self.planes.iter().flat_map(|p| p.free.iter().copied()).collect();
        let mut set = 0u64;
        for (b, &count) in self.valid.iter().enumerate() {
            let words = &self.bits[b * self.words as usize..(b + 1) * self.words as usize];
            let v: u32 = words.iter().map(|w| w.count_ones()).sum();
            assert_eq!(v, count & !NOT_CLOSED, "block {b} valid count");
            for k in 0..ppb {
                let ppn = b as u32 * ppb + k;
                if words[(k / 64) as usize] >> (k % 64) & 1 == 1 {
                    assert_eq!(self.l2p[self.p2l[ppn as usize] as usize], ppn + 1, "p2l and l2p disagree on block {b}");
                }
            }
            if free_blocks.contains(&(b as u32)) {
                assert!(count >= NOT_CLOSED, "free block {b} is marked closed");
                assert_eq!(v, 0, "free block {b} holds valid pages");
            }
            set += u64::from(v);
        }
        assert_eq!(set, mapped, "valid bits and mapped logical pages differ");
        // Free: the pages of free blocks and those past each open block's frontier.
        let mut free = free_blocks.len() as u64 * u64::from(ppb);
        for pl in &self.planes {
            if pl.open != NIL {
                let (first, wp) = (pl.open * self.words, pl.wp);
                let past = &self.bits[first as usize..(first + self.words) as usize];
                assert!((wp..ppb).all(|k| past[(k / 64) as usize] >> (k % 64) & 1 == 0), "a page past the frontier is marked valid");
                free += u64::from(ppb - wp);
            }
        }
        let valid = mapped;
        let invalid = self.geo.physical_pages() - free - valid;
        for (p, pl) in self.planes.iter().enumerate() {
            assert!(pl.free.len() as u32 >= self.reserve, "plane {p} fell below its GC reserve");
        }
        (free, valid, invalid)
    }
}
