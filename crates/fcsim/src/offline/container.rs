//! The container-optimised offline heuristic's flash (offline-bounds paper §3.3, §4, Fig. 2-4):
//! host-managed containers of one erase unit, an in-RAM write buffer, container GC with
//! copy-forward, and the techniques TRIM, CFR and E as switches.
//!
//! - **Write buffer** (§4.1): new copies (insertions and new versions) enter an in-RAM buffer of
//!   `W` containers' worth of blocks; a copy in it is updated in place and a dropped one simply
//!   leaves (it never reaches flash). When it is full it is *sealed* (Fig. 3 `OnSeal`): its
//!   blocks, sorted, fill the open container and then free ones; a container is sealed into the
//!   container queue when full, and the last, partly filled one stays open for the next seal.
//! - **E** (§3.3, §3.5 C): the buffer is sorted by *eviction timestamp* — when M+ would remove
//!   the block (the queue evicts it, a write supersedes it, or it is read for the last time) —
//!   so blocks that die together share a container; without E, by arrival (Fig. 7's Arrival).
//! - **States** (Fig. 4): a copy on flash is valid, invalid (overwritten, trimmed, or dropped
//!   at GC) or evict-pending (the queue evicted it; it waits in flash for its container's GC).
//!   Reads of anything but a valid copy are misses; the queue never reads an evicted block.
//! - **GC** (Fig. 3 `EvictFlash`, §3.5): the system keeps `W` free containers, so a full buffer
//!   can always be sealed (§3.5: "GCs whenever it is necessary to make that number of containers
//!   free"). After each seal, while fewer are free, the sealed container with the fewest valid
//!   blocks (the container queue's priority V, §4.2) is collected: its valid blocks are copied
//!   forward into the buffer (each a flash write when sealed) and it is erased.
//! - **TRIM**: a copy is dropped as soon as its block is read for the last time (the replay
//!   does this, see [`super::queue::replay`]); a valid copy with no next read is never copied.
//! - **CFR** (§3.3): a valid block whose next read will not find it in the MIN queue (the queue
//!   evicts it first) is not copied forward but dropped. The paper finds such *wasted* copies by
//!   repeating the replay, and repeats it several times because each exclusion perturbs the GC
//!   sequence that follows ("butterfly effect"). Here the queue's evolution does not depend on
//!   placement (skipped copies stay in it, Fig. 3 lines 11-19), so whether the next read of a
//!   block hits the queue is known exactly from the first replay's log: one replay removes
//!   every wasted copy-forward. Without CFR they are counted (`wasted_cf`).
//!
//! The write buffer holds blocks of the flash cache, so the MIN queue counts them. Where its RAM
//! comes from is the run's `stack.buffer_in` (`crate::run`): by default out of the 5% DRAM tier
//! (§5 sizes that DRAM "to hold the maximum number of in-memory containers"), which then caches
//! W containers' worth less; `extra` keeps fcsim's earlier choice, RAM beside the DRAM tier and
//! the flash, which gives C the buffer as spare flash. Not in the paper, chosen: a read of a
//! block in the buffer is a hit (counted apart as `buffer_hits`, and not in FUE: it is no
//! flash read); containers are picked from
//! the free list last-erased-first; ties in V go to the container that reached that count last.

use super::containers::{FlashCounts, Shape};
use super::queue::{Log, Placement};
use crate::error::{Error, Result};
use crate::policy::list::FreeIds;
use crate::request::NEVER;
use rustc_hash::FxHashMap;

const NIL: u32 = u32::MAX;
/// A location in the write buffer rather than a flash slot.
const IN_BUFFER: u32 = 1 << 31;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Free,
    Valid,
    Invalid,
    EvictPending,
}

/// How a sealed buffer is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// By eviction timestamp (E).
    Evict,
    /// By arrival.
    Arrival,
}

/// What the container layer did beyond [`FlashCounts`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContainerStats {
    /// Valid blocks at GC whose next read would miss the queue (wasted copy-forwards, §3.3).
    pub wasted_cf: u64,
    /// Of those, not copied (CFR).
    pub cf_dropped: u64,
    /// Valid blocks at GC with no next read, not copied (TRIM).
    pub cf_trimmed: u64,
    /// Blocks that went evict-pending (Fig. 4).
    pub evict_pending: u64,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    next: u64,
    version: u32,
    seq: u64,
    copied: bool,
}

/// Copies on host-managed containers.
#[derive(Debug)]
pub struct OnContainers<'a> {
    shape: Shape,
    m: usize,
    log: &'a Log,
    trim: bool,
    cfr: bool,
    packing: Packing,
    key: Vec<u64>,
    next: Vec<u64>,
    version: Vec<u32>,
    state: Vec<State>,
    filled: Vec<u32>,
    valid: Vec<u32>,
    /// Sealed containers in lists by valid count: heads, and links per container.
    head: Vec<u32>,
    prev: Vec<u32>,
    succ: Vec<u32>,
    sealed: Vec<bool>,
    free: FreeIds,
    open: u32,
    loc: FxHashMap<u64, u32>,
    buffer: Vec<Entry>,
    seq: u64,
    pub error: Option<Error>,
    pub counts: FlashCounts,
    pub stats: ContainerStats,
}

impl<'a> OnContainers<'a> {
    /// Containers of `shape`, with `log` from the first replay (for CFR and E).
    pub fn new(shape: Shape, log: &'a Log, trim: bool, cfr: bool, packing: Packing) -> Result<Self> {
        check(&shape)?;
        let (m, n) = (shape.container_pages as usize, shape.containers as usize);
        Ok(OnContainers {
            shape,
            m,
            log,
            trim,
            cfr,
            packing,
            key: Vec::new(),
            next: Vec::new(),
            version: Vec::new(),
            state: Vec::new(),
            filled: Vec::new(),
            valid: Vec::new(),
            head: vec![NIL; m + 1],
            prev: Vec::new(),
            succ: Vec::new(),
            sealed: Vec::new(),
            free: FreeIds::new(n as u32),
            open: NIL,
            loc: FxHashMap::default(),
            buffer: Vec::with_capacity(shape.write_buffer as usize * m),
            seq: 0,
            error: None,
            counts: FlashCounts::default(),
            stats: ContainerStats::default(),
        })
    }

    pub fn finish(self) -> Result<(FlashCounts, ContainerStats)> {
        match self.error {
            Some(e) => Err(e),
            None => Ok((self.counts, self.stats)),
        }
    }

    fn unlink(&mut self, c: u32) {
        let (p, s) = (self.prev[c as usize], self.succ[c as usize]);
        if p == NIL {
            self.head[self.valid[c as usize] as usize] = s;
        } else {
            self.succ[p as usize] = s;
        }
        if s != NIL {
            self.prev[s as usize] = p;
        }
    }

    fn link(&mut self, c: u32) {
        let h = &mut self.head[self.valid[c as usize] as usize];
        self.prev[c as usize] = NIL;
        self.succ[c as usize] = *h;
        if *h != NIL {
            self.prev[*h as usize] = c;
        }
        *h = c;
    }

    /// The copy in `slot` stops being valid.
    fn invalidate(&mut self, slot: usize, to: State) {
        self.state[slot] = to;
        let c = (slot / self.m) as u32;
        if self.sealed[c as usize] {
            self.unlink(c);
            self.valid[c as usize] -= 1;
            self.link(c);
        } else {
            self.valid[c as usize] -= 1;
        }
    }

    fn push(&mut self, e: Entry) {
        if self.buffer.len() >= self.shape.write_buffer as usize * self.m {
            self.seal();
        }
        self.loc.insert(e.key, IN_BUFFER | self.buffer.len() as u32);
        self.buffer.push(e);
    }

    fn remove_buffered(&mut self, i: usize) {
        self.buffer.swap_remove(i);
        if let Some(moved) = self.buffer.get(i) {
            self.loc.insert(moved.key, IN_BUFFER | i as u32);
        }
    }

    /// Makes room for every container taken so far: the per-container and per-block storage
    /// grows (amortised, by doubling) with the containers used, not with the flash's size.
    fn grow(&mut self) {
        let n = self.free.used() as usize;
        if n <= self.filled.len() {
            return;
        }
        let slots = n * self.m;
        self.key.resize(slots, 0);
        self.next.resize(slots, NEVER);
        self.version.resize(slots, 0);
        self.state.resize(slots, State::Free);
        self.filled.resize(n, 0);
        self.valid.resize(n, 0);
        self.prev.resize(n, NIL);
        self.succ.resize(n, NIL);
        self.sealed.resize(n, false);
    }

    /// Writes the buffer to flash (Fig. 3 `OnSeal`), then collects containers until `W` are free.
    fn seal(&mut self) {
        let log = self.log;
        match self.packing {
            Packing::Evict => self.buffer.sort_unstable_by_key(|e| (log.end[e.version as usize], e.seq)),
            Packing::Arrival => self.buffer.sort_unstable_by_key(|e| e.seq),
        }
        for i in 0..self.buffer.len() {
            let e = self.buffer[i];
            if self.open == NIL {
                let Some(c) = self.free.pop() else {
                    self.error.get_or_insert(Error::config("container cache: no free container to seal the write buffer into"));
                    return;
                };
                self.grow();
                self.open = c;
            }
            let c = self.open as usize;
            let slot = c * self.m + self.filled[c] as usize;
            (self.key[slot], self.next[slot], self.version[slot], self.state[slot]) = (e.key, e.next, e.version, State::Valid);
            self.filled[c] += 1;
            self.valid[c] += 1;
            self.loc.insert(e.key, slot as u32);
            if e.copied {
                self.counts.cf_writes += 1;
            } else {
                self.counts.host_writes += 1;
            }
            if self.filled[c] as usize == self.m {
                self.sealed[c] = true;
                self.link(c as u32);
                self.open = NIL;
            }
        }
        self.buffer.clear();
        self.collect();
    }

    /// Garbage-collects the sealed containers with the fewest valid blocks until `W` are free.
    fn collect(&mut self) {
        while self.free.len() < self.shape.write_buffer as usize {
            let Some(v) = (0..self.m).find(|&v| self.head[v] != NIL) else {
                self.error.get_or_insert(Error::config(
                    "container cache: every container is full of valid blocks (more over-provisioning or fewer write buffers needed)",
                ));
                return;
            };
            let c = self.head[v];
            self.unlink(c);
            for slot in c as usize * self.m..(c as usize + 1) * self.m {
                if self.state[slot] != State::Valid {
                    continue;
                }
                let (key, next) = (self.key[slot], self.next[slot]);
                self.loc.remove(&key);
                if next == NEVER && self.trim {
                    self.stats.cf_trimmed += 1;
                    continue;
                }
                if next != NEVER && !self.log.hit.get(next as usize) {
                    self.stats.wasted_cf += 1;
                    if self.cfr {
                        self.stats.cf_dropped += 1;
                        continue;
                    }
                }
                self.seq += 1;
                let e = Entry { key, next, version: self.version[slot], seq: self.seq, copied: true };
                debug_assert!(self.buffer.len() < self.buffer.capacity());
                self.loc.insert(key, IN_BUFFER | self.buffer.len() as u32);
                self.buffer.push(e);
            }
            self.state[c as usize * self.m..(c as usize + 1) * self.m].fill(State::Free);
            (self.filled[c as usize], self.valid[c as usize], self.sealed[c as usize]) = (0, 0, false);
            self.counts.erasures += 1;
            self.free.push(c);
        }
    }
}

/// Fails unless GC can always make `W` containers free: the flash must hold the cache's blocks
/// in whole containers, the `W` free ones and the open one, and one more. `W` is at least one
/// (`stack.buffer` is checked where it is read).
pub fn check(s: &Shape) -> Result<()> {
    debug_assert!(s.write_buffer >= 1, "stack.buffer is checked where it is read");
    if s.container_pages == 0 {
        return Err(Error::config("containers of 0 blocks: device.pages_per_block must be at least 1"));
    }
    let need = s.cache_pages.div_ceil(u64::from(s.container_pages)) + u64::from(s.write_buffer) + 2;
    if u64::from(s.containers) < need {
        return Err(Error::config(format!(
            "a container cache of {} blocks in containers of {} needs {need} containers with a {}-container write buffer, and its flash \
             (over-provisioning included) has {}: use a larger cache, smaller containers (device.pages_per_block), more \
             over-provisioning (device.op) or a smaller buffer (stack.buffer)",
            s.cache_pages, s.container_pages, s.write_buffer, s.containers
        )));
    }
    Ok(())
}

impl Placement for OnContainers<'_> {
    fn write(&mut self, key: u64, version: u32, next: u64) {
        self.counts.insertions += 1;
        self.seq += 1;
        match self.loc.get(&key).copied() {
            Some(l) if l & IN_BUFFER != 0 => {
                let e = &mut self.buffer[(l & !IN_BUFFER) as usize];
                (e.next, e.version, e.copied) = (next, version, false);
                return;
            }
            Some(slot) => {
                self.loc.remove(&key);
                self.invalidate(slot as usize, State::Invalid);
            }
            None => {}
        }
        let seq = self.seq;
        self.push(Entry { key, next, version, seq, copied: false });
    }

    fn drop(&mut self, key: u64, evicted: bool) {
        let Some(l) = self.loc.remove(&key) else { return };
        if l & IN_BUFFER != 0 {
            self.remove_buffered((l & !IN_BUFFER) as usize);
        } else if evicted {
            self.stats.evict_pending += 1;
            self.invalidate(l as usize, State::EvictPending);
        } else {
            self.invalidate(l as usize, State::Invalid);
        }
    }

    fn read(&mut self, key: u64, next: u64) -> bool {
        match self.loc.get(&key).copied() {
            Some(l) if l & IN_BUFFER != 0 => {
                self.buffer[(l & !IN_BUFFER) as usize].next = next;
                self.counts.buffer_hits += 1;
                true
            }
            Some(slot) => {
                self.next[slot as usize] = next;
                self.counts.read_hits += 1;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::queue::Bits;
    use super::*;

    /// A log for `n` accesses in which every read hits the queue, with each version's end.
    fn log(n: usize, ends: &[(u32, u32)]) -> Log {
        let mut l = Log::new(n);
        for i in 0..n {
            l.hit.set(i);
        }
        for &(v, e) in ends {
            l.end[v as usize] = e;
        }
        l
    }

    fn shape(cache_pages: u64, container_pages: u32, containers: u32, write_buffer: u32) -> Shape {
        Shape { cache_pages, container_pages, containers, write_buffer }
    }

    /// Writes block k as version k, next read at 1000 + k.
    fn w(c: &mut OnContainers, k: u64) {
        c.write(k, k as u32, 1000 + k);
    }

    /// Writes and evictions on a cache of 12 blocks in containers of 4 (6 of them, one buffer
    /// container) up to its first GC, which collects c3 and copies its block 16 forward.
    fn to_first_gc(c: &mut OnContainers) {
        // A: 1-4 buffered, 5 seals c0 = {1,2,3,4}; 1-3 evicted: c0 keeps 4.
        // B: 6-8, 9 seals c1 = {5..8}; 5-7 evicted: c1 keeps 8. C: likewise c2 keeps 12,
        // D: c3 keeps 16.
        for k in 1..=5 {
            w(c, k);
        }
        for base in [0u64, 4, 8, 12] {
            for k in 1..=3 {
                c.drop(base + k, true);
            }
            for k in 6..=9 {
                w(c, base + k);
            }
        }
        // E: 17-20 were buffered by D's writes; 21 sealed them into c4 (after D: 17-21
        // written, c4 = {17..20}, buffer [21]).
        assert_eq!((c.counts.host_writes, c.counts.erasures, c.stats.evict_pending), (20, 0, 12));
        assert_eq!(c.free.len(), 1);
        // F: 22-24 fill the buffer (live: 4 8 12 16 17-24 = 12 = the cache); 17 is evicted so
        // 25 fits. Sealing 21-24 into c5 leaves no free container: GC. c0-c3 hold one valid
        // block each, c4 three; of the four with one, c3 reached it last: it goes, 16 is
        // offered for copy-forward into the buffer, c3 is erased.
        for k in 22..=24 {
            w(c, k);
        }
        c.drop(17, true);
        w(c, 25);
    }

    #[test]
    fn gc_copies_forward() {
        let l = log(2000, &[]);
        let mut c = OnContainers::new(shape(12, 4, 6, 1), &l, true, true, Packing::Arrival).unwrap();
        to_first_gc(&mut c);
        assert_eq!((c.counts.host_writes, c.counts.cf_writes, c.counts.erasures), (24, 0, 1));
        assert_eq!(c.loc[&16] & IN_BUFFER, IN_BUFFER, "16 waits in the buffer");
        assert!(c.read(16, 1016));
        assert_eq!(c.counts.buffer_hits, 1);
        // The next seal writes 16 again: a copy-forward write (three evictions keep the cache
        // at 12 blocks).
        c.drop(18, true);
        c.drop(19, true);
        c.drop(4, true);
        for k in 26..=28 {
            w(&mut c, k);
        }
        assert_eq!((c.counts.host_writes, c.counts.cf_writes), (27, 1));
        assert!(c.read(16, 1016) && c.counts.read_hits == 1);
        c.finish().unwrap();
    }

    #[test]
    fn cfr_drops_a_wasted_copy_forward() {
        // The run of to_first_gc, but block 16's next read (1016) will miss the MIN queue (the
        // queue evicts 16 first): copying it forward is wasted. With CFR it is dropped; without,
        // copied and counted.
        for cfr in [true, false] {
            let mut l = log(2000, &[]);
            l.hit = Bits::new(2000);
            for i in 0..2000 {
                if i != 1016 {
                    l.hit.set(i);
                }
            }
            let mut c = OnContainers::new(shape(12, 4, 6, 1), &l, true, cfr, Packing::Arrival).unwrap();
            to_first_gc(&mut c);
            assert_eq!(c.stats.wasted_cf, 1);
            assert_eq!(c.stats.cf_dropped, u64::from(cfr));
            assert_eq!(c.loc.contains_key(&16), !cfr, "without CFR 16 is copied into the buffer");
        }
    }

    #[test]
    fn eviction_time_packing_lets_a_container_die() {
        // Two buffer containers of 4; blocks 1-8 arrive alternating long-lived (odd, end 900)
        // and short-lived (even, end 50). Sealed by eviction time, the evens share a container;
        // by arrival, each container holds two of each.
        let ends: Vec<(u32, u32)> = (1..=8).map(|k| (k, if k % 2 == 0 { 50 } else { 900 })).collect();
        let l = log(2000, &ends);
        for (packing, survivors) in [(Packing::Evict, [0, 4]), (Packing::Arrival, [2, 2])] {
            let mut c = OnContainers::new(shape(8, 4, 6, 2), &l, true, true, packing).unwrap();
            for k in 1..=9 {
                w(&mut c, k); // 9 seals 1-8
            }
            for k in [2, 4, 6, 8] {
                c.drop(k, true); // the short-lived die
            }
            let sealed: Vec<u32> = (0..c.sealed.len()).filter(|&i| c.sealed[i]).map(|i| c.valid[i]).collect();
            let mut sorted = sealed.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, survivors, "{packing:?}");
            // A container with no valid block is erased by GC without a copy-forward.
            if packing == Packing::Evict {
                assert!(sealed.contains(&0));
            }
        }
    }
}
