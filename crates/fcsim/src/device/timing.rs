//! Per-chip timing: each chip is a serial FIFO server, so an op's completion is known when it is
//! submitted and no global event queue is needed.
//!
//! **Why a chip, not a plane, is the server.** The LCR paper ran DiskSim 4.0's SSD extension
//! (§IV.A) with its sample SSD parameters (Table II: 8 planes per package, 25/200/1500 µs,
//! OP 15%) and reasons about chips only ("requests queued in this chip", a chip in GC state). In
//! that simulator an element (a chip) has one queue and one busy flag: `ssd_activate_elem`
//! (ssdmodel/ssd.c) dispatches one page op at a time unless copy-back is on and "Number of
//! parallel units" is 2 or 4 (the sample configurations set 1), and `ssd_invoke_element_cleaning`
//! holds the whole element busy while one of its planes is cleaned. So GC on one plane stalls
//! every plane of its chip here too (`tests/device.rs`, `gc_on_one_plane_holds_the_whole_chip`);
//! planes only place blocks and bound GC. Plane-level parallelism (MQSim-style multi-plane
//! ops) is not modelled.
//!
//! An op arriving at `t` starts at `max(t, chip free)` and holds the chip for its latency. With a
//! channel transfer time `x` > 0 the page also crosses its channel, a second serial server: a
//! program first transfers (start = max(t, chip free, channel free); the channel is held `x`, the
//! chip `x + program`), a read transfers after sensing (the chip is held from its start until
//! its transfer ends). A GC job (valid-page copies by copyback, each a read and a program, then
//! the erases) holds its chip alone and moves no data over the channel.
//!
//! The chips also add up their work (busy time) per epoch of simulated time, split at epoch
//! boundaries, for the per-epoch load balance rate: in each epoch with any work, the busiest
//! chip's work over the mean chip's (LCR §II.A, Fig. 2). An epoch is final once the loop says no
//! op will arrive before its end ([`Timing::advance`]); only the epochs still open are kept, and
//! an op longer than an epoch costs no memory per epoch it covers (see [`Epochs`]).
//!
//! Each chip also keeps its [`Load`]: work, sojourn times (completion − submission, queueing
//! included) and its busiest second and minute of offered work, for the row's saturation columns.
//!
//! Every completion is checked against the time horizon ([`crate::time`]) as it is computed:
//! a queue that would carry a chip past it ends the run with an error, never wraps around.
//!
//! Ops arrive in time order but for two kinds. A buffer's read that waits for its flush
//! (`eviction=sync`) is submitted for the flush's completion, later than the loop's clock.
//! Serving it there must not hold its chip against ops that arrive before it, as a FIFO queue
//! of completion times would: the idle interval it leaves (a hole) takes the later-submitted,
//! earlier-arriving ops that fit in it whole (first fit; not with a channel transfer time). An
//! op that does not fit waits behind the read, where a true FIFO queue would have served it
//! first and delayed the read: the one place this model departs from an event queue, by at most
//! one op per hole. A flash cache programs a page admitted from the disk when the disk read
//! completes, also later than the clock; that program leaves no hole, because a read of the
//! page (a hit) must not overtake the program that puts it there.
//!
//! Each chip keeps the ops still pending (not completed) at the loop's clock ([`Timing::advance`];
//! an op may be submitted later than the clock, as a read that waits for a flush is), with
//! running totals, so the load view answers "how many reads, writes and GC jobs are queued or
//! running on this chip at time t" in O(log queue) (LCR eq. 2).

use crate::error::Result;
use crate::histogram::Histogram;
use crate::load::{Load, Summary, WINDOWS_NS};
use crate::time::after;
use crate::view::ChipLoad;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// What an op does on its chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    /// A GC job of the given duration (copies and erases).
    Gc(u64),
}

/// An op not yet completed (24 bytes: a saturated chip may queue millions).
#[derive(Debug, Clone, Copy)]
struct Pending {
    end: u64,
    /// Reads, writes and GC jobs submitted to the chip before this op (wrapping counters:
    /// differences are exact while fewer than 2^32 ops are pending).
    reads_before: u32,
    writes_before: u32,
    gcs_before: u32,
}

/// Holes a chip keeps at most (the oldest is forgotten beyond).
const MAX_HOLES: usize = 8;

#[derive(Debug, Default)]
struct Chip {
    free_at: u64,
    /// The request ([`Timing::advance`]'s count) the chip last served an op for, and when the
    /// chip was free of the work submitted before that request: an op's wait up to then is
    /// load, after it the request's own ops ([`Load::record`]'s `behind`).
    request: u64,
    base_free: u64,
    /// The chip's work, sojourns and busiest windows (its busy time is `load.busy_ns`).
    load: Load,
    reads: u32,
    writes: u32,
    gcs: u32,
    last_gc: u64,
    pending: VecDeque<Pending>,
    /// Idle intervals before `free_at`, left when an op was submitted for a time later than the
    /// loop's clock and the chip's free time (a read that waits for its flush), oldest first.
    holes: Vec<(u64, u64)>,
    /// Ops placed in a hole, not yet known done at the clock, earliest end first, and how many
    /// of each kind there are.
    early: BinaryHeap<Reverse<(u64, Early)>>,
    early_count: [u32; 3],
}

/// The kind of an op placed in a hole: its slot in `Chip::early_count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Early {
    Read = 0,
    Write = 1,
    Gc = 2,
}

impl Early {
    fn of(kind: OpKind) -> Self {
        match kind {
            OpKind::Read => Early::Read,
            OpKind::Write => Early::Write,
            OpKind::Gc(_) => Early::Gc,
        }
    }
}

impl Chip {
    /// An op of `request` is about to be submitted: the first of that request on this chip
    /// takes the chip's free time as the end of the earlier requests' work.
    #[inline]
    fn begin(&mut self, request: u64) {
        if self.request != request {
            self.request = request;
            self.base_free = self.free_at;
        }
    }

    /// The wait of an op that arrived at `t` and starts at `start` behind the work submitted
    /// for earlier requests (the rest of its wait is its own request's ops before it).
    #[inline]
    fn behind(&self, t: u64, start: u64) -> u64 {
        start.min(self.base_free).saturating_sub(t)
    }

    /// Forgets the ops in holes that ended by `clock`; returns how many are left.
    fn drop_early(&mut self, clock: u64) -> usize {
        while let Some(&Reverse((end, e))) = self.early.peek() {
            if end > clock {
                break;
            }
            self.early.pop();
            self.early_count[e as usize] -= 1;
        }
        self.early.len()
    }

    /// Places an op of `d` ns arriving at `t` in the first hole it fits whole, so that a later
    /// submission does not hold the chip against ops that arrive before it; returns its end
    /// (before the hole's end, so below the horizon; `t + d` cannot overflow, `t` being a time
    /// and `d` a duration).
    fn fill_hole(&mut self, t: u64, d: u64, kind: OpKind) -> Option<u64> {
        let i = self.holes.iter().position(|&(lo, hi)| t.max(lo) + d <= hi)?;
        let (lo, hi) = self.holes[i];
        let start = t.max(lo);
        let end = start + d;
        match (start > lo, end < hi) {
            (true, true) => {
                self.holes[i] = (lo, start);
                if self.holes.len() < MAX_HOLES {
                    self.holes.insert(i + 1, (end, hi));
                }
            }
            (true, false) => self.holes[i] = (lo, start),
            (false, true) => self.holes[i] = (end, hi),
            (false, false) => {
                self.holes.remove(i);
            }
        }
        if let OpKind::Gc(d) = kind {
            self.last_gc = d;
        }
        let e = Early::of(kind);
        self.early.push(Reverse((end, e)));
        self.early_count[e as usize] += 1;
        Some(end)
    }
}

/// The chips and channels of a device.
#[derive(Debug)]
pub struct Timing {
    chips: Vec<Chip>,
    channel_free: Vec<u64>,
    channels: u32,
    pub read_ns: u64,
    pub write_ns: u64,
    pub xfer_ns: u64,
    /// Per-epoch work, for the load balance rate.
    pub epochs: Epochs,
    /// The loop's clock: no op arrives before it any more.
    clock: u64,
    /// The second of simulated time the chips' load windows were last advanced to.
    second: u64,
    /// Requests begun: [`Timing::advance`] calls (one per request from the loop).
    request: u64,
    /// Ops in holes not yet known done, on all chips (0: nothing to drop as the clock moves).
    early: usize,
    /// Whether each chip keeps its pending ops for [`Timing::load`] (see [`Timing::keep_queue`]).
    queue: bool,
    /// Every op as (chip, start, end), when enabled (tests).
    pub log: Option<Vec<(u32, u64, u64)>>,
}

impl Timing {
    pub fn new(chips: u32, channels: u32, read_ns: u64, write_ns: u64, xfer_ns: u64) -> Self {
        Timing {
            chips: (0..chips).map(|_| Chip::default()).collect(),
            channel_free: vec![0; channels as usize],
            channels,
            read_ns,
            write_ns,
            xfer_ns,
            epochs: Epochs::new(chips, 0),
            clock: 0,
            second: 0,
            request: 0,
            early: 0,
            queue: true,
            log: None,
        }
    }

    /// Whether the chips keep the ops pending at the clock, which [`Timing::load`] (the device
    /// view's chip load, LCR eq. 2) reads; on by default. A run whose policy does not declare
    /// the device view ([`crate::policy::PolicyInfo::needs_view`]: all but GCaR-CFLRU and LCR,
    /// whose windowed rules read chip loads) turns it off: on a saturated drive the queue costs a push
    /// per op into a deque that keeps growing (and its reallocations), and no completion time,
    /// busy time, epoch or load figure reads it (`bench/RESULTS.md`, device path: `before`
    /// against `after`). Invariant: while on, each chip's `pending` holds exactly its ops
    /// submitted outside holes and not completed by the clock; while off, it is empty and
    /// [`Timing::load`] must not be called.
    pub fn keep_queue(&mut self, on: bool) {
        self.queue = on;
        if !on {
            for c in &mut self.chips {
                c.pending = VecDeque::new();
            }
        }
    }

    /// Submits an op to `chip` at time `t` (below the horizon); returns its completion time, or
    /// an error if that would reach the horizon (then nothing is submitted).
    #[inline]
    pub fn submit(&mut self, chip: u32, t: u64, kind: OpKind) -> Result<u64> {
        // The common case on its own (see [`Timing::submit_plain`]): no channel transfer, no
        // pending queue, no hole on the chip nor op placed in one anywhere, no log.
        if !self.queue && self.xfer_ns == 0 && self.early == 0 && self.chips[chip as usize].holes.is_empty() && self.log.is_none() {
            return self.submit_plain(chip, t, kind);
        }
        let x = self.xfer_ns;
        let ch = super::geometry::rem(chip, self.channels) as usize;
        let request = self.request;
        let c = &mut self.chips[chip as usize];
        c.begin(request);
        // Only ops done by the loop's clock can go: a load query comes at the clock, and an op
        // submitted for a later time (a read after a flush) must not hide ops ending before it.
        if self.queue {
            while c.pending.front().is_some_and(|p| p.end <= self.clock) {
                c.pending.pop_front();
            }
        }
        let clock = self.clock;
        if !c.holes.is_empty() {
            c.holes.retain(|h| h.1 > clock);
        }
        c.drop_early(clock);
        if x == 0 && !c.holes.is_empty() {
            let d = match kind {
                OpKind::Read => self.read_ns,
                OpKind::Write => self.write_ns,
                OpKind::Gc(d) => d,
            };
            if let Some(end) = c.fill_hole(t, d, kind) {
                self.early += 1;
                c.load.record(t, end - d, end, c.behind(t, end - d));
                self.epochs.add(chip, end - d, end);
                if let Some(log) = self.log.as_mut() {
                    log.push((chip, end - d, end));
                }
                return Ok(end);
            }
        }
        // Each step adds a duration to a time below the horizon and is checked before its sum
        // is used as a time (see `crate::time`).
        let (start, end) = match kind {
            OpKind::Read if x > 0 => {
                let start = t.max(c.free_at);
                let xs = after(start, self.read_ns)?.max(self.channel_free[ch]);
                let end = after(xs, x)?;
                self.channel_free[ch] = end;
                (start, end)
            }
            OpKind::Write if x > 0 => {
                let start = t.max(c.free_at).max(self.channel_free[ch]);
                let sent = after(start, x)?;
                let end = after(sent, self.write_ns)?;
                self.channel_free[ch] = sent;
                (start, end)
            }
            OpKind::Read => {
                let start = t.max(c.free_at);
                (start, after(start, self.read_ns)?)
            }
            OpKind::Write => {
                let start = t.max(c.free_at);
                (start, after(start, self.write_ns)?)
            }
            OpKind::Gc(d) => {
                let start = t.max(c.free_at);
                (start, after(start, d)?)
            }
        };
        if self.queue {
            c.pending.push_back(Pending { end, reads_before: c.reads, writes_before: c.writes, gcs_before: c.gcs });
        }
        match kind {
            OpKind::Read => c.reads = c.reads.wrapping_add(1),
            OpKind::Write => c.writes = c.writes.wrapping_add(1),
            OpKind::Gc(d) => {
                c.gcs = c.gcs.wrapping_add(1);
                c.last_gc = d;
            }
        }
        if x == 0 && kind == OpKind::Read && t > clock && t > c.free_at {
            if c.holes.len() == MAX_HOLES {
                c.holes.remove(0);
            }
            c.holes.push((c.free_at.max(clock), t));
        }
        let behind = c.behind(t, start);
        c.free_at = end;
        c.load.record(t, start, end, behind);
        self.epochs.add(chip, start, end);
        if let Some(log) = self.log.as_mut() {
            log.push((chip, start, end));
        }
        Ok(end)
    }

    /// [`Timing::submit`] with no pending queue and no channel transfer time, when no op sits
    /// in a hole on any chip and `chip` has no hole, with no log: the op starts at
    /// `max(t, chip free)`, as the general path computes it, with nothing to drop or fill. The
    /// per-kind counts are not kept: only the pending queue's entries (none without it) and
    /// [`Timing::load`] (not called without it) read them, and their differences stay exact
    /// when the queue is turned on later. A read submitted ahead of the clock still leaves its
    /// hole. Fewer instructions per op matter on this path beyond their own cost: the FTL's table
    /// misses of successive writes overlap only as far as the CPU's reorder window reaches.
    #[inline]
    fn submit_plain(&mut self, chip: u32, t: u64, kind: OpKind) -> Result<u64> {
        let d = match kind {
            OpKind::Read => self.read_ns,
            OpKind::Write => self.write_ns,
            OpKind::Gc(d) => d,
        };
        let (clock, request) = (self.clock, self.request);
        let c = &mut self.chips[chip as usize];
        c.begin(request);
        let start = t.max(c.free_at);
        let end = after(start, d)?;
        if let OpKind::Gc(d) = kind {
            c.last_gc = d;
        }
        if kind == OpKind::Read && t > clock && t > c.free_at {
            c.holes.push((c.free_at.max(clock), t));
        }
        let behind = c.behind(t, start);
        c.free_at = end;
        c.load.record(t, start, end, behind);
        self.epochs.add(chip, start, end);
        Ok(end)
    }

    /// Reads, writes and GC jobs on `chip` not completed at `t`, for `t` at or after the loop's
    /// clock (the current request's arrival: the loop moves time forward only).
    pub fn load(&self, chip: u32, t: u64) -> ChipLoad {
        debug_assert!(self.queue, "a chip's load asked of a timing that keeps no queue");
        let c = &self.chips[chip as usize];
        let i = c.pending.partition_point(|p| p.end <= t);
        let mut load = match c.pending.get(i) {
            None => ChipLoad::default(),
            Some(p) => {
                let gc = c.gcs != p.gcs_before;
                ChipLoad {
                    reads: u64::from(c.reads.wrapping_sub(p.reads_before)),
                    writes: u64::from(c.writes.wrapping_sub(p.writes_before)),
                    gc,
                    gc_ns: if gc { c.last_gc } else { 0 },
                }
            }
        };
        // Ops placed in holes: their counts, once those that ended by `t` are left out (none, when
        // `t` is the clock: they are dropped as it passes them).
        let mut n = c.early_count;
        if c.early.peek().is_some_and(|Reverse((end, _))| *end <= t) {
            for Reverse((_, e)) in c.early.iter().filter(|Reverse((end, _))| *end <= t) {
                n[*e as usize] -= 1;
            }
        }
        load.reads += u64::from(n[0]);
        load.writes += u64::from(n[1]);
        if n[2] > 0 {
            // T_gc is the chip's latest GC job, as for the queued ones.
            load.gc = true;
            load.gc_ns = c.last_gc;
        }
        load
    }

    /// When `chip` finishes everything submitted to it.
    #[inline]
    pub fn free_at(&self, chip: u32) -> u64 {
        self.chips[chip as usize].free_at
    }

    /// Time each chip spent serving ops, in ns.
    pub fn busy(&self) -> impl Iterator<Item = u64> + '_ {
        self.chips.iter().map(|c| c.load.busy_ns)
    }

    /// The chips' loads seen as one device: their work and sojourns added up, the busiest
    /// chip's peak offered load ([`Load::combine`]).
    pub fn load_summary(&self) -> Summary {
        Load::combine(self.chips.iter().map(|c| &c.load))
    }

    /// No op will arrive before `now` any more: the load-balance epochs that ended by then are
    /// final. The loop calls it once per request, before the request's ops: it also starts a
    /// new request for the chips' waits behind earlier requests ([`Load::record`]).
    #[inline]
    pub fn advance(&mut self, now: u64) {
        self.clock = self.clock.max(now);
        self.request += 1;
        // The chips' load windows before the clock's second are final (once per second).
        let second = now / WINDOWS_NS[0];
        if second > self.second {
            self.second = second;
            for c in &mut self.chips {
                c.load.advance(now);
            }
        }
        self.epochs.advance(now);
        if self.early > 0 {
            let clock = self.clock;
            self.early = self.chips.iter_mut().map(|c| c.drop_early(clock)).sum();
        }
    }

    /// The load balance rates of the epochs so far, and how many epochs counted (see
    /// [`Epochs::rates`]).
    pub fn balance_rates(&self) -> (Histogram, u64) {
        self.epochs.rates()
    }

    /// An epoch of the per-epoch table ends ([`crate::load::Load::mark_epoch`] on every chip).
    pub fn mark_epoch(&mut self) {
        for c in &mut self.chips {
            c.load.mark_epoch();
        }
    }

    /// The end-of-run flush begins: every op from now on is the flush's in the chips' loads
    /// ([`Load::begin_flush`]).
    pub fn begin_flush(&mut self) {
        for c in &mut self.chips {
            c.load.begin_flush();
        }
    }

    /// Zeroes the chips' loads (busy times, sojourns, peaks) and restarts the load-balance epochs at the clock (the end
    /// of a warm-up); the queues stay, so ops in flight still hold their chips. Work already
    /// counted (at submission) is not counted again.
    pub fn reset_stats(&mut self) {
        for c in &mut self.chips {
            c.load.reset();
        }
        self.epochs = Epochs::new(self.chips.len() as u32, self.epochs.epoch_ns);
        self.epochs.advance(self.clock);
    }

    /// Forgets all ops (after preconditioning): every chip idle at time 0.
    pub fn reset(&mut self) {
        for c in &mut self.chips {
            *c = Chip::default();
        }
        self.channel_free.fill(0);
        self.clock = 0;
        self.second = 0;
        self.early = 0;
        self.epochs = Epochs::new(self.chips.len() as u32, self.epochs.epoch_ns);
        if let Some(log) = self.log.as_mut() {
            log.clear();
        }
    }
}

/// Each chip's work per epoch of simulated time, for the load balance rate (LCR §II.A, Fig. 2:
/// the busiest chip's load over the mean chip's). Only the epochs that may still get work are
/// kept.
///
/// The paper does not say over what span a rate is taken. A rate means something only when the
/// epoch holds work: with a request or two in it, the rate is just chips / chips touched. So an
/// epoch counts only if its chips worked, in total, at least one epoch's length (the work of
/// one fully busy chip; the mean utilisation is then at least 1 / chips), and the rates are
/// weighted by that work: the quantiles say how unbalanced the device is while it works.
///
/// **Memory.** An op's busy interval is its work in the epoch it starts in and the epoch it
/// ends in, and, between them, whole epochs of the chip's time, kept as one change of coverage
/// where they start and one where they end: however long the op (a 1000 s read, a program
/// queued behind a 10^6 s disk read), it costs two entries, not one per epoch. Epochs from the
/// oldest open one on are rows of a dense array (at most [`DENSE_WORDS`] counters, the common
/// case: ops within a few epochs of the clock), later ones entries of a sparse map. Closing
/// takes the epochs in order; a stretch with no work of its own, only whole-epoch coverage, is
/// alike epoch after epoch and is recorded at once, with its number of epochs as a factor of
/// its weight.
#[derive(Debug, Clone)]
pub struct Epochs {
    /// Epoch length, ns (0: not accounted).
    pub epoch_ns: u64,
    chips: usize,
    /// The first epoch not closed (each one before it is in `closed`). No op starts before it.
    swept: u64,
    /// Work of each chip in the epochs from `swept` on, epoch-major (empty, or a row per epoch
    /// up to the latest one given work here).
    open: VecDeque<u64>,
    /// Per chip, the start time and number of the dense row's epoch its latest op ended in
    /// (start `u64::MAX`: none). Per chip, not one for the device: on a saturated drive each
    /// chip's queue ends at its own time, epochs apart, so successive ops of different chips
    /// fall in different epochs while a chip's own programs share one until its next GC job.
    last: Vec<(u64, u64)>,
    /// Work of each chip in open epochs past the dense rows, by epoch.
    sparse: BTreeMap<u64, Box<[u64]>>,
    /// Whole epochs of a chip's time: at epoch `e`, the covers of chip `c` that start there
    /// less those that end there, keyed `(e, c)` (one entry, no list to allocate: a GC job
    /// longer than an epoch adds two, once per ~11 host writes on an aged drive).
    edges: BTreeMap<(u64, u32), i64>,
    /// How many covers each chip is under at `swept` (one at most: a chip serves one op at a
    /// time).
    covered: Vec<u64>,
    /// Rates × 1000 of the closed epochs that count, weighted by their work in ns.
    closed: Histogram,
    /// Closed epochs that count.
    counted: u64,
    /// Each chip's work in the epoch being closed.
    work: Vec<u64>,
}

/// Counters of per-chip work the dense rows hold at most (8 MiB).
pub const DENSE_WORDS: usize = 1 << 20;

impl Epochs {
    pub fn new(chips: u32, epoch_ns: u64) -> Self {
        Epochs {
            epoch_ns,
            chips: chips as usize,
            swept: 0,
            open: VecDeque::new(),
            last: vec![(u64::MAX, 0); chips as usize],
            sparse: BTreeMap::new(),
            edges: BTreeMap::new(),
            covered: vec![0; chips as usize],
            closed: Histogram::default(),
            counted: 0,
            work: vec![0; chips as usize],
        }
    }

    /// Adds `chip`'s busy interval [start, end), split at epoch boundaries. An op never starts
    /// before the time last passed to [`Epochs::advance`] (one that did would be counted from
    /// there).
    #[inline]
    fn add(&mut self, chip: u32, start: u64, end: u64) {
        if self.epoch_ns == 0 {
            return;
        }
        // Most ops fall in the epoch of their chip's op before them: no division then. (`lo` is a time
        // below the horizon when `start >= lo` holds, so `lo + epoch_ns` cannot overflow.)
        // An entry of an epoch closed since (`e < swept`) is stale: its row is gone.
        let (lo, e) = self.last[chip as usize];
        if start >= lo && end <= lo + self.epoch_ns && e >= self.swept {
            self.open[(e - self.swept) as usize * self.chips + chip as usize] += end - start;
            return;
        }
        let epoch = self.epoch_ns;
        let start = start.max(self.swept * epoch);
        if start >= end {
            return;
        }
        let (first, last) = (start / epoch, (end - 1) / epoch);
        if first == last {
            self.add_work(first, chip, end - start);
            return;
        }
        self.add_work(first, chip, (first + 1) * epoch - start);
        if last > first + 1 {
            *self.edges.entry((first + 1, chip)).or_insert(0) += 1;
            *self.edges.entry((last, chip)).or_insert(0) -= 1;
        }
        self.add_work(last, chip, end - last * epoch);
    }

    /// Adds `w` ns of `chip`'s work to open epoch `e`: to its dense row if the rows reach it
    /// within [`DENSE_WORDS`], else to its sparse entry.
    fn add_work(&mut self, e: u64, chip: u32, w: u64) {
        let row = (e - self.swept) as usize;
        if row < (DENSE_WORDS / self.chips).max(1) {
            if self.open.len() <= row * self.chips {
                self.open.resize((row + 1) * self.chips, 0);
            }
            self.open[row * self.chips + chip as usize] += w;
            self.last[chip as usize] = (e * self.epoch_ns, e);
        } else {
            self.sparse.entry(e).or_insert_with(|| vec![0; self.chips].into_boxed_slice())[chip as usize] += w;
        }
    }

    /// No op will start before `now`: the epochs that ended by then are closed.
    #[inline]
    fn advance(&mut self, now: u64) {
        // `swept` is at most the clock's epoch, so this product stays below the horizon plus an
        // epoch.
        if self.epoch_ns > 0 && now >= (self.swept + 1) * self.epoch_ns {
            self.close(now / self.epoch_ns);
        }
    }

    /// Closes the open epochs before `until`.
    fn close(&mut self, until: u64) {
        let mut work = std::mem::take(&mut self.work);
        while self.swept < until {
            let s = self.swept;
            if self.open.is_empty() && self.sparse.is_empty() && self.edges.is_empty() {
                // Nothing open (a chip is covered only while the end of its cover is pending):
                // no work before `until`.
                self.swept = until;
                break;
            }
            while let Some(e) = self.edges.first_entry().filter(|e| e.key().0 == s) {
                let ((_, chip), d) = e.remove_entry();
                let c = &mut self.covered[chip as usize];
                *c = c.wrapping_add_signed(d);
            }
            for (w, c) in work.iter_mut().zip(&self.covered) {
                *w = c * self.epoch_ns;
            }
            // The epoch's own work, or the stretch of epochs alike up to the next change.
            let mut n = 1;
            let dense = !self.open.is_empty();
            if dense {
                for (w, x) in work.iter_mut().zip(self.open.drain(..self.chips)) {
                    *w += x;
                }
            }
            let own = self.sparse.first_key_value().is_some_and(|(&e, _)| e == s);
            if own {
                let row = self.sparse.pop_first().map(|(_, row)| row).unwrap_or_default();
                for (w, x) in work.iter_mut().zip(row.iter()) {
                    *w += x;
                }
            }
            if !dense && !own {
                let next = [self.sparse.keys().next(), self.edges.keys().next().map(|k| &k.0)]
                    .into_iter()
                    .flatten()
                    .copied()
                    .fold(until, u64::min);
                n = next - s;
            }
            let (sum, max) = work.iter().fold((0u64, 0u64), |(s, m), &w| (s + w, m.max(w)));
            if sum >= self.epoch_ns && sum > 0 {
                let rate = (max as f64 * self.chips as f64 / sum as f64 * 1000.0).round() as u64;
                self.closed.record_weighted(rate, sum.saturating_mul(n));
                self.counted += n;
            }
            self.swept += n;
        }
        self.work = work;
    }

    /// The rate × 1000 of every epoch that counts (1000: even load; 1000 × chips: one chip did
    /// all the work), weighted by its work, the open epochs included; and how many epochs
    /// counted.
    pub fn rates(&self) -> (Histogram, u64) {
        let mut all = self.clone();
        all.close(u64::MAX);
        (all.closed, all.counted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_completions() {
        // Read 25 us, program 200 us, no channel transfer. Chip 0 gets two reads at t = 0 and
        // t = 10 us and a write at t = 20 us; chip 1 gets one read at t = 5 us.
        //   chip 0 read #1: starts 0, ends 25 us.
        //   chip 0 read #2: arrives 10, waits for the chip until 25, ends 25 + 25 = 50 us.
        //   chip 0 write:   arrives 20, waits until 50, ends 50 + 200 = 250 us.
        //   chip 1 read:    its chip is idle: starts 5, ends 30 us.
        let us = 1000;
        let mut t = Timing::new(2, 1, 25 * us, 200 * us, 0);
        assert_eq!(t.submit(0, 0, OpKind::Read).unwrap(), 25 * us);
        assert_eq!(t.submit(0, 10 * us, OpKind::Read).unwrap(), 50 * us);
        assert_eq!(t.submit(0, 20 * us, OpKind::Write).unwrap(), 250 * us);
        assert_eq!(t.submit(1, 5 * us, OpKind::Read).unwrap(), 30 * us);
        // At t = 30 us chip 0 still has read #2 (running) and the write queued:
        // L_chip = 1 × 25 + 1 × 200 = 225 us.
        assert_eq!(t.load(0, 30 * us), ChipLoad { reads: 1, writes: 1, gc: false, gc_ns: 0 });
        assert_eq!(t.load(1, 30 * us), ChipLoad::default());
        // A GC job of 1.5 ms submitted at 100 us queues behind the write: 250 .. 1750 us, and a
        // read arriving at 200 us waits for both: 1750 + 25 = 1775 us.
        assert_eq!(t.submit(0, 100 * us, OpKind::Gc(1500 * us)).unwrap(), 1750 * us);
        assert_eq!(t.submit(0, 200 * us, OpKind::Read).unwrap(), 1775 * us);
        assert_eq!(t.load(0, 1000 * us), ChipLoad { reads: 1, writes: 0, gc: true, gc_ns: 1500 * us });
        assert_eq!(t.busy().collect::<Vec<_>>(), vec![(25 + 25 + 200 + 1500 + 25) * us, 25 * us]);
    }

    #[test]
    fn waits_behind_earlier_requests_and_the_flush() {
        // Read 25 us, program 200 us, one chip, with and without the pending queue (both paths).
        let us = 1000;
        for queue in [false, true] {
            let mut t = Timing::new(1, 1, 25 * us, 200 * us, 0);
            t.keep_queue(queue);
            // Request 1 at 0: three programs, 0..600 us. The 2nd and 3rd wait 200 and 400 us,
            // behind their own request: none of it is load.
            t.advance(0);
            for _ in 0..3 {
                t.submit(0, 0, OpKind::Write).unwrap();
            }
            assert_eq!(t.load_summary().behind_ns, 0);
            // Request 2 at 100 us (also one at the same instant would be another request): two
            // reads, 600..625 and 625..650 us. Both wait 500 us behind request 1; the second's
            // further 25 us is its own request's.
            t.advance(100 * us);
            t.submit(0, 100 * us, OpKind::Read).unwrap();
            t.submit(0, 100 * us, OpKind::Read).unwrap();
            let s = t.load_summary();
            assert_eq!((s.behind_ns, s.sojourn_ns), (u128::from(1000 * us), u128::from((200 + 400 + 600 + 525 + 550) * us)));
            assert_eq!((s.arrival_busy_ns(), s.last_end), (650 * us, 650 * us));
            // 1000 us behind the load for 650 us of service: mostly queueing.
            assert!(s.queueing_ratio().unwrap() > 1.0 && s.mostly_queueing());
            // The end-of-run flush: work done, not arrival work.
            t.begin_flush();
            assert_eq!(t.submit(0, 100 * us, OpKind::Write).unwrap(), 850 * us);
            let f = t.load_summary();
            assert_eq!((f.ops, f.busy_ns, f.flush.ops, f.flush.end, f.last_end), (6, 850 * us, 1, 850 * us, 650 * us));
            assert_eq!((f.sojourn_ns, f.behind_ns), (s.sojourn_ns, s.behind_ns));
        }
    }

    #[test]
    fn balance_rate_per_epoch() {
        // Epochs of 100 us, two chips. An epoch counts if its chips worked 100 us in all.
        //   Epoch 0: chip 0 reads 0..25 and 25..50, chip 1 reads 5..30: 75 us, too little work.
        //   A write on chip 1 at 150 us runs 150..350: epochs 1 and 3 get 50 us of it (too
        //   little), epoch 2 gets 100 us on chip 1 alone: rate 2, weight 100 us.
        //   Writes on chip 0 at 500 us (500..700) and chip 1 at 510 us (510..710): epoch 5 has
        //   100 and 90 us, rate 100 / 95, weight 190 us; epoch 6 has 100 and 100, rate 1, weight
        //   200 us; epoch 7 has 10 us, too little.
        // Three epochs count; the mean rate × 1000 is weighted by their work.
        let us = 1000;
        let mut t = Timing::new(2, 1, 25 * us, 200 * us, 0);
        t.epochs = Epochs::new(2, 100 * us);
        t.submit(0, 0, OpKind::Read).unwrap();
        t.submit(0, 0, OpKind::Read).unwrap();
        t.submit(1, 5 * us, OpKind::Read).unwrap();
        t.submit(1, 150 * us, OpKind::Write).unwrap();
        t.advance(150 * us);
        t.submit(0, 500 * us, OpKind::Write).unwrap();
        t.advance(510 * us);
        t.submit(1, 510 * us, OpKind::Write).unwrap();
        let (h, counted) = t.balance_rates();
        assert_eq!(counted, 3);
        assert_eq!((h.count(), h.max()), (490 * us, Some(2000)));
        let r5 = (100.0f64 / 95.0 * 1000.0).round();
        assert_eq!(h.mean(), Some((2000.0 * 100.0 + r5 * 190.0 + 1000.0 * 200.0) / 490.0));
    }

    #[test]
    fn long_ops_take_no_memory_per_epoch() {
        // Epochs of 1 us, two chips. Chip 0 is busy 0..10 s, chip 1 from 5 s to 10 s + 500 ns:
        // 10^7 epochs, the first half with chip 0 alone (rate 2, work 1 us each), the second
        // with both (rate 1, work 2 us each); the last 500 ns are too little work to count.
        let us = 1000;
        let s = 1_000_000 * us;
        let mut t = Timing::new(2, 1, 0, 0, 0);
        t.epochs = Epochs::new(2, us);
        t.submit(0, 0, OpKind::Gc(10 * s)).unwrap();
        t.submit(1, 5 * s, OpKind::Gc(5 * s + 500)).unwrap();
        let e = &t.epochs;
        assert!(e.open.len() + e.sparse.len() + e.edges.len() <= 16, "{} {} {}", e.open.len(), e.sparse.len(), e.edges.len());
        let (h, counted) = t.balance_rates();
        assert_eq!((counted, h.count()), (10_000_000, 5_000_000 * us + 5_000_000 * 2 * us));
        assert_eq!(h.mean(), Some((2000.0 + 1000.0 * 2.0) / 3.0));
        // Advancing the clock through them closes them as a few stretches, not epoch by epoch.
        t.advance(7 * s);
        assert_eq!(t.epochs.swept, 7_000_000);
        assert_eq!(t.balance_rates().0.mean(), h.mean());
    }

    #[test]
    fn without_the_queue_every_figure_is_the_same() {
        // A saturated chip (writes every 50 us, 200 us each) with holes (reads submitted late)
        // and GC jobs, on two chips and 1 ms epochs: completions, busy times, loads and epoch
        // rates agree whether the pending queue is kept or not, and only the kept one holds ops.
        let us = 1000;
        let mut a = Timing::new(2, 1, 25 * us, 200 * us, 0);
        let mut b = Timing::new(2, 1, 25 * us, 200 * us, 0);
        b.keep_queue(false);
        for t in [&mut a, &mut b] {
            t.epochs = Epochs::new(2, 1000 * us);
        }
        for i in 0..400u64 {
            let now = i * 50 * us;
            let (chip, kind) = match i % 7 {
                3 => (1, OpKind::Gc(700 * us)),
                5 => (0, OpKind::Read),
                _ => ((i % 2) as u32, OpKind::Write),
            };
            let at = if i % 11 == 0 { now + 3000 * us } else { now };
            a.advance(now);
            b.advance(now);
            assert_eq!(a.submit(chip, at, kind).unwrap(), b.submit(chip, at, kind).unwrap(), "op {i}");
        }
        assert!(a.busy().eq(b.busy()));
        assert_eq!(a.load_summary(), b.load_summary());
        assert_eq!(format!("{:?}", a.balance_rates()), format!("{:?}", b.balance_rates()));
        assert!(a.chips[0].pending.len() > 10 && b.chips.iter().all(|c| c.pending.is_empty()));
    }

    #[test]
    fn a_later_submission_hides_no_pending_op() {
        // The loop's clock is at 10 us. A write on chip 0 at 10 us runs 10..210; a read that
        // waits for a flush is submitted for 300 us (300..325). At the clock, the write is still
        // queued: the load counts both, not only the read.
        let us = 1000;
        let mut t = Timing::new(1, 1, 25 * us, 200 * us, 0);
        t.advance(10 * us);
        assert_eq!(t.submit(0, 10 * us, OpKind::Write).unwrap(), 210 * us);
        assert_eq!(t.submit(0, 300 * us, OpKind::Read).unwrap(), 325 * us);
        assert_eq!(t.load(0, 10 * us), ChipLoad { reads: 1, writes: 1, gc: false, gc_ns: 0 });
        // Once the clock passes the write's end, it goes.
        t.advance(250 * us);
        assert_eq!(t.load(0, 250 * us), ChipLoad { reads: 1, writes: 0, gc: false, gc_ns: 0 });
    }

    #[test]
    fn a_later_submission_leaves_a_hole_for_earlier_arrivals() {
        // Clock 0. A write on chip 0 runs 0..200 us; a read submitted for 1000 us (after a
        // flush elsewhere) runs 1000..1025 and leaves the chip idle 200..1000. Ops that arrive
        // before it and fit that hole run there: a read at 300 (300..325) and a write at 400
        // (400..600). A write at 900 does not fit (900..1100 > 1000): it waits behind the read,
        // 1025..1225. At 350 the chip has the 400 us write and the 1000 us read still to do.
        let us = 1000;
        let mut t = Timing::new(1, 1, 25 * us, 200 * us, 0);
        assert_eq!(t.submit(0, 0, OpKind::Write).unwrap(), 200 * us);
        assert_eq!(t.submit(0, 1000 * us, OpKind::Read).unwrap(), 1025 * us);
        t.advance(300 * us);
        assert_eq!(t.submit(0, 300 * us, OpKind::Read).unwrap(), 325 * us);
        t.advance(350 * us);
        assert_eq!(t.load(0, 350 * us), ChipLoad { reads: 1, writes: 0, gc: false, gc_ns: 0 });
        t.advance(400 * us);
        assert_eq!(t.submit(0, 400 * us, OpKind::Write).unwrap(), 600 * us);
        assert_eq!(t.load(0, 400 * us), ChipLoad { reads: 1, writes: 1, gc: false, gc_ns: 0 });
        t.advance(900 * us);
        assert_eq!(t.submit(0, 900 * us, OpKind::Write).unwrap(), 1225 * us);
        assert_eq!(t.busy().next(), Some((200 + 25 + 25 + 200 + 200) * us));
    }

    #[test]
    fn channel_transfer() {
        // Transfer 10 us, two chips on one channel. A write on chip 0 at 0 holds the channel
        // 0..10 and the chip 0..210. A write on chip 1 at 0 waits for the channel: 10..20, then
        // programs until 220. A read on chip 1 at 0 senses after that write (220..245) and
        // transfers 245..255.
        let us = 1000;
        let mut t = Timing::new(2, 1, 25 * us, 200 * us, 10 * us);
        assert_eq!(t.submit(0, 0, OpKind::Write).unwrap(), 210 * us);
        assert_eq!(t.submit(1, 0, OpKind::Write).unwrap(), 220 * us);
        assert_eq!(t.submit(1, 0, OpKind::Read).unwrap(), 255 * us);
    }
}
