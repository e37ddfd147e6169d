//! The cache stack: tiers (policy + write mode) over a backing store.
//!
//! A write-back tier (the default; DRAM buffers, write caches) is write-allocate: a write hit
//! dirties the page; a write miss admits the page dirty (the whole page is taken to be
//! overwritten, so nothing is read from the backing store); a read miss reads the page from
//! the backing store and admits it; a dirty page is written to the backing store when it is
//! evicted, and the dirty pages left at the end are flushed and counted (as the GASA paper
//! counts them, §IV.B.2). A trim drops the page without writing it back. A miss the policy
//! declines to admit goes to the backing store directly (a read is served from it, a write is
//! written to it).
//!
//! A write-through tier also writes every write to the backing store, so its pages are never
//! dirty (the policy sees writes as clean accesses). A write-around tier (a read cache) never
//! shows the policy a write: the write goes to the backing store and invalidates the cached
//! copy.
//!
//! What each event costs below the tier (DRAM latency, flash reads and programs, disk I/O) is
//! the [`Backing`]'s business. Dirty victims are written back before a missed page is read: on
//! one chip the read queues behind them, and when the backing store says so
//! ([`Backing::flush_first`]) the read is issued only once they complete.

pub mod admission;
pub mod budget;
pub mod build;
pub mod config;
pub mod control;
pub mod split;
mod ssdcache;
mod value;

pub use build::{Built, Plan, Shape, Spec, SplitShape, DEFAULT_SSD_CACHE_DEVICE};
pub use config::{DiskConfig, Disks, StackConfig, StackKind, WriteMode};
pub use control::{Controller, ControllerLog};
pub use split::{CostModel, Probe, Split, SplitLog, SplitMode};
pub use ssdcache::{SsdCache, SsdCacheStats};
pub use value::{Lower, Stack};

use crate::device::{ftl::FtlStats, Backing, DeviceLoads, Store};
use crate::error::{Error, Result};
use crate::policy::{Access, Evicted, Lru, Outcome, Policy};
use crate::request::{Op, NEVER};
use crate::view::DeviceView;
use admission::Admission;

/// Counters of one cache tier, in page accesses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub requests: u64,
    /// Read and write page accesses (trims are not accesses).
    pub accesses: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub hits: u64,
    pub read_hits: u64,
    pub write_hits: u64,
    /// Hits on a page that was dirty (the rest hit clean pages; GASA Fig. 11).
    pub read_hits_dirty: u64,
    pub write_hits_dirty: u64,
    pub insertions: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
    /// Pages read from the backing store (read misses).
    pub backing_reads: u64,
    /// Pages written to the backing store: dirty evictions, writes not admitted, and the dirty
    /// pages flushed at the end.
    pub backing_writes: u64,
    /// Dirty pages flushed at the end of the run (included in `backing_writes`).
    pub flushed: u64,
    /// Cached pages invalidated by write-around writes.
    pub invalidations: u64,
}

impl Counters {
    /// What was counted since `before` (a snapshot of the same counters), field by field.
    pub fn since(&self, before: &Counters) -> Counters {
        Counters {
            requests: self.requests - before.requests,
            accesses: self.accesses - before.accesses,
            reads: self.reads - before.reads,
            writes: self.writes - before.writes,
            trims: self.trims - before.trims,
            hits: self.hits - before.hits,
            read_hits: self.read_hits - before.read_hits,
            write_hits: self.write_hits - before.write_hits,
            read_hits_dirty: self.read_hits_dirty - before.read_hits_dirty,
            write_hits_dirty: self.write_hits_dirty - before.write_hits_dirty,
            insertions: self.insertions - before.insertions,
            evictions: self.evictions - before.evictions,
            dirty_evictions: self.dirty_evictions - before.dirty_evictions,
            backing_reads: self.backing_reads - before.backing_reads,
            backing_writes: self.backing_writes - before.backing_writes,
            flushed: self.flushed - before.flushed,
            invalidations: self.invalidations - before.invalidations,
        }
    }
}

/// A tier's policy. LRU (the baseline of every comparison, and the policy of the machine's-limit
/// benchmark, `crates/fcsim-bench/benches/limit.rs`) is held by value, so that its `access` and
/// `preload` are direct calls the loop inlines (no virtual call, no [`Access`] handed through
/// memory: about 30 instructions a page access); every other policy is boxed behind the trait.
/// The same code runs either way: [`Lru`]'s [`Policy`] methods.
enum Held {
    Lru(Lru),
    Dyn(Box<dyn Policy>),
}

impl Held {
    /// `policy`, taken out of its box if it is an LRU ([`Policy::take_lru`]).
    fn new(mut policy: Box<dyn Policy>) -> Self {
        match policy.take_lru() {
            Some(lru) => Held::Lru(lru),
            None => Held::Dyn(policy),
        }
    }

    #[inline]
    fn get(&self) -> &dyn Policy {
        match self {
            Held::Lru(p) => p,
            Held::Dyn(p) => &**p,
        }
    }

    #[inline]
    fn get_mut(&mut self) -> &mut dyn Policy {
        match self {
            Held::Lru(p) => p,
            Held::Dyn(p) => &mut **p,
        }
    }
}

/// One cache tier.
pub struct Tier {
    policy: Held,
    capacity: usize,
    mode: WriteMode,
    evicted: Vec<Evicted>,
    /// The admission slot ([`admission`]): when filled, a page the tier does not hold enters
    /// only if it admits it (`stack.admit`); empty, the policy alone decides.
    pub admission: Option<Box<dyn Admission>>,
    pub counters: Counters,
}

impl std::fmt::Debug for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tier")
            .field("capacity", &self.capacity)
            .field("admission", &self.admission.is_some())
            .field("counters", &self.counters)
            .finish()
    }
}

impl Tier {
    /// A write-back tier.
    pub fn new(policy: Box<dyn Policy>, capacity: usize) -> Self {
        Tier::with_mode(policy, capacity, WriteMode::Back)
    }

    pub fn with_mode(policy: Box<dyn Policy>, capacity: usize, mode: WriteMode) -> Self {
        Tier { policy: Held::new(policy), capacity, mode, evicted: Vec::with_capacity(16), admission: None, counters: Counters::default() }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn resident(&self) -> usize {
        self.policy.get().len()
    }

    /// [`Policy::preload`]: `key` is accessed soon.
    #[inline(always)]
    pub fn preload(&self, key: u64) {
        match &self.policy {
            Held::Lru(p) => p.preload(key),
            Held::Dyn(p) => p.preload(key),
        }
    }

    /// [`Policy::preloads`].
    pub fn preloads(&self) -> bool {
        self.policy.get().preloads()
    }

    /// Processes one page access of a request that arrived at `time` (ns); returns when the
    /// access completes on `dev` (with no device, `time`).
    #[inline(always)]
    pub fn access<B: Backing>(&mut self, key: u64, op: Op, index: u64, next: u64, time: u64, dev: &mut B) -> Result<u64> {
        self.access_with::<B, false>(key, op, index, next, time, dev)
    }

    /// [`Tier::access`]; with `UNADMITTED` the caller has checked that the admission slot is
    /// empty (and nothing fills it meanwhile), so it is not looked in.
    #[inline(always)]
    pub fn access_with<B: Backing, const UNADMITTED: bool>(
        &mut self,
        key: u64,
        op: Op,
        index: u64,
        next: u64,
        time: u64,
        dev: &mut B,
    ) -> Result<u64> {
        debug_assert!(!UNADMITTED || self.admission.is_none());
        let c = &mut self.counters;
        if op == Op::Trim {
            c.trims += 1;
            if let Some(adm) = self.admission.as_mut().filter(|_| !UNADMITTED) {
                adm.forget(key);
            }
            let cached = self.policy.get_mut().remove(key).is_some();
            dev.trim(key, cached);
            return Ok(time);
        }
        let write = op == Op::Write;
        c.accesses += 1;
        if write {
            c.writes += 1;
        } else {
            c.reads += 1;
        }
        if let Some(adm) = self.admission.as_mut().filter(|_| !UNADMITTED) {
            adm.observe(&Access { key, write, index, next, time });
        }
        if write && self.mode == WriteMode::Around {
            if let Some(adm) = self.admission.as_mut().filter(|_| !UNADMITTED) {
                adm.forget(key);
            }
            let mut done = time;
            if self.policy.get_mut().remove(key).is_some() {
                c.invalidations += 1;
                done = dev.evict(key, false, time)?;
            }
            c.backing_writes += 1;
            return Ok(done.max(dev.write_around(key, time)?));
        }
        if let Some(adm) = self.admission.as_mut().filter(|_| !UNADMITTED) {
            // A page the tier does not hold (the policy says, else the backing; where neither
            // does, the policy decides alone) is offered to the admission policy first; declined,
            // the access bypasses the tier and the policy never sees it.
            let held = self.policy.get().contains(key).or_else(|| dev.holds(key));
            let a = Access { key, write, index, next, time };
            if held == Some(true) {
                adm.hit(&a);
            } else if held == Some(false) && ((!write && adm.victim_cache()) || !adm.admit(&a, self.policy.get())) {
                if write {
                    c.backing_writes += 1;
                } else {
                    c.backing_reads += 1;
                }
                return dev.miss(key, write, false, time);
            }
        }
        let a = Access { key, write: write && self.mode == WriteMode::Back, index, next, time };
        let (outcome, done) = match &mut self.policy {
            // LRU reads no device view (its `access_on` is the trait's default, `access`), and
            // evicts at most one page, handed on as `evict_victims` would.
            Held::Lru(p) => match p.access_one(&a) {
                (o, Some(e)) => (o, time.max(evict_one(&mut self.counters, e, time, dev)?)),
                (o, None) => (o, time),
            },
            Held::Dyn(p) => {
                self.evicted.clear();
                let o = match dev.view() {
                    Some(view) => p.access_on(&a, view, &mut self.evicted),
                    None => p.access(&a, &mut self.evicted),
                };
                (o, self.evict_victims(time, dev)?)
            }
        };
        let c = &mut self.counters;
        let t = match outcome {
            Outcome::Hit { dirty } => {
                c.hits += 1;
                if write {
                    c.write_hits += 1;
                    c.write_hits_dirty += u64::from(dirty);
                    c.backing_writes += u64::from(self.mode == WriteMode::Through);
                } else {
                    c.read_hits += 1;
                    c.read_hits_dirty += u64::from(dirty);
                }
                dev.hit(key, write, time)?
            }
            Outcome::Miss { admitted } => {
                if admitted {
                    c.insertions += 1;
                }
                if !write {
                    c.backing_reads += 1;
                } else if !admitted || self.mode == WriteMode::Through {
                    c.backing_writes += 1;
                }
                dev.miss(key, write, admitted, if dev.flush_first() { done } else { time })?
            }
        };
        Ok(done.max(t))
    }

    /// A clean page the DRAM tier above evicted at `time`, offered to this tier where its
    /// admission makes it a victim cache of DRAM ([`Admission::victim_cache`]): if the tier does
    /// not hold the page and the admission admits it, the policy takes it clean and the medium
    /// stores it with nothing read below ([`Backing::fill`]). Not an access: only the insertion
    /// and the evictions it causes are counted. Returns when the last completes.
    pub fn offer_clean<B: Backing>(&mut self, key: u64, time: u64, dev: &mut B) -> Result<u64> {
        let Some(adm) = self.admission.as_mut() else { return Ok(time) };
        if !adm.victim_cache() || self.policy.get().contains(key).or_else(|| dev.holds(key)) != Some(false) {
            return Ok(time);
        }
        let a = Access { key, write: false, index: 0, next: NEVER, time };
        if !adm.admit(&a, self.policy.get()) {
            return Ok(time);
        }
        self.evicted.clear();
        let outcome = match dev.view() {
            Some(view) => self.policy.get_mut().access_on(&a, view, &mut self.evicted),
            None => self.policy.get_mut().access(&a, &mut self.evicted),
        };
        let done = self.evict_victims(time, dev)?;
        if outcome == (Outcome::Miss { admitted: true }) {
            self.counters.insertions += 1;
            return Ok(done.max(dev.fill(key, time)?));
        }
        Ok(done)
    }

    /// Changes the capacity to `capacity` pages at `time`: shrinking evicts the policy's victims
    /// to `dev` (dirty ones written back, as any eviction); returns when the last completes.
    /// Fails if the policy cannot change its size.
    pub fn resize<B: Backing>(&mut self, capacity: usize, time: u64, dev: &mut B) -> Result<u64> {
        self.evicted.clear();
        if !self.policy.get_mut().resize(capacity.max(1), &mut self.evicted) {
            return Err(Error::config("the cache policy cannot change its size (a resizable policy, such as lru, is needed)"));
        }
        self.capacity = capacity.max(1);
        self.evict_victims(time, dev)
    }

    /// Counts the pages in `evicted` and hands them to `dev` at `time` (dirty ones written
    /// back); returns when the last completes.
    #[inline]
    fn evict_victims<B: Backing>(&mut self, time: u64, dev: &mut B) -> Result<u64> {
        let mut done = time;
        for &e in &self.evicted {
            done = done.max(evict_one(&mut self.counters, e, time, dev)?);
        }
        Ok(done)
    }

    /// Writes back every dirty page left in the tier (end of run) at `time`.
    pub fn flush<B: Backing>(&mut self, time: u64, dev: &mut B) -> Result<()> {
        let mut dirty = Vec::new();
        self.policy.get().for_each_dirty(&mut |k| dirty.push(k));
        self.counters.flushed += dirty.len() as u64;
        self.counters.backing_writes += dirty.len() as u64;
        for k in dirty {
            dev.evict(k, true, time)?;
        }
        Ok(())
    }
}

/// Counts the page `e` evicted at `time` in `c` and hands it to `dev` (written back if dirty);
/// returns when that completes.
#[inline(always)]
fn evict_one<B: Backing>(c: &mut Counters, e: Evicted, time: u64, dev: &mut B) -> Result<u64> {
    c.evictions += 1;
    if e.dirty {
        c.dirty_evictions += 1;
        c.backing_writes += 1;
    }
    dev.evict(e.key, e.dirty, time)
}

/// The next tier down as the page store of a buffer tier: the buffer's misses and write-backs
/// are this tier's reads and writes (a DRAM buffer in front of a flash cache). The lower tier
/// sees no next-access times, so it cannot run an offline policy. The buffer's read hits and
/// clean evictions reach only the lower tier's admission, and only one that makes the tier a
/// victim cache of the buffer uses them ([`admission::dram_reads`]).
#[derive(Debug)]
pub struct Below<B> {
    pub tier: Tier,
    pub dev: B,
}

impl<B: Backing> Store for Below<B> {
    const TIMED: bool = B::TIMED;
    fn read(&mut self, page: u64, t: u64) -> Result<u64> {
        self.tier.access(page, Op::Read, 0, NEVER, t, &mut self.dev)
    }
    fn write(&mut self, page: u64, t: u64) -> Result<u64> {
        let done = self.tier.access(page, Op::Write, 0, NEVER, t, &mut self.dev)?;
        if let Some(adm) = self.tier.admission.as_mut() {
            adm.above_evicted(page);
        }
        Ok(done)
    }
    #[inline]
    fn read_hit(&mut self, page: u64) {
        if let Some(adm) = self.tier.admission.as_mut() {
            adm.above_read(page);
        }
    }
    fn drop_clean(&mut self, page: u64, t: u64) -> Result<u64> {
        let done = self.tier.offer_clean(page, t, &mut self.dev)?;
        if let Some(adm) = self.tier.admission.as_mut() {
            adm.above_evicted(page);
        }
        Ok(done)
    }
    fn place(&mut self, _: u64) -> Result<()> {
        Ok(())
    }
    fn trim(&mut self, page: u64) {
        // A trim costs nothing below the tier, so it cannot fail.
        let _ = self.tier.access(page, Op::Trim, 0, NEVER, 0, &mut self.dev);
    }
    fn view(&self) -> Option<&dyn DeviceView> {
        None
    }
    #[inline]
    fn advance(&mut self, now: u64) {
        self.dev.advance(now);
    }
    fn flash_stats(&self) -> Option<FtlStats> {
        self.dev.flash_stats()
    }
    fn loads(&self) -> DeviceLoads {
        self.dev.loads()
    }
    fn mark_epoch(&mut self) {
        self.dev.mark_epoch();
    }
    fn begin_flush(&mut self) {
        self.dev.begin_flush();
    }
    /// The tier's counters and everything below it.
    fn reset_stats(&mut self) {
        self.tier.counters = Counters::default();
        self.dev.reset_stats();
    }
}
