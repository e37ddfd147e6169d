//! The MIN queue (offline-bounds paper §4.1 "block-level MIN PQ", Fig. 3) and the replay that
//! every offline heuristic shares.
//!
//! The queue is the cache's *logical* content: Belady's MIN as the paper uses it (§3.5 M). A
//! missed block is inserted only if it will be read again (its next read reference is not
//! INF) and, when the queue is full, only if that read comes before the furthest one in the
//! queue, whose block is then evicted (Fig. 3 `OnInsert`). A read of a queued block updates its
//! next reference; a write gives the block a new version with the write's next reference.
//!
//! Where the heuristics differ is which versions get a *physical* copy and when a copy is
//! dropped ([`Placement`]). A version the heuristic skips (M+'s wasted insertions, M_N's and
//! M_T's low-reuse ones) stays in the queue without a copy, as Fig. 3 lines 11-19 keep the
//! skipped block in MIN_Q: the queue, and so every decision it makes, is the same in every
//! heuristic and every replay. A read of a queued block is a hit only if a copy exists.
//!
//! The first replay (the plain MIN run of STEP 2) records a [`Log`]: which reads hit the queue,
//! how many reads each version absorbed, and when each version left (evicted, overwritten, or
//! dead after its last read). M+, M_N and M_T filter versions by it; C's copy-forward reduction
//! and eviction-timestamp packing read it.

use crate::policy::heap::MaxHeap;
use crate::request::{Op, NEVER};
use rustc_hash::FxHashMap;

use super::stream::Stream;

/// A fixed set of bits, one per page access.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
    pub fn count(&self) -> u64 {
        self.0.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// Where a heuristic keeps its physical copies: the FTL of a unit cache, or containers.
pub trait Placement {
    /// Writes the version of `key` created by access `v` (an insertion, or a new version of a
    /// queued block), replacing any older copy; `next` is its next read reference.
    fn write(&mut self, key: u64, v: u32, next: u64);
    /// The copy of `key`, if any, is no longer wanted: the queue evicted the block (`evicted`),
    /// or its data died (overwritten by a dead write, trimmed by the host, or, with TRIM, read
    /// for the last time).
    fn drop(&mut self, key: u64, evicted: bool);
    /// A read of `key`, which the queue holds; `next` is the block's new next read reference.
    /// Returns whether a copy served it.
    fn read(&mut self, key: u64, next: u64) -> bool;
}

/// What the first replay saw, for the filters and for C.
#[derive(Debug, Clone, Default)]
pub struct Log {
    /// Reads that found their block in the queue.
    pub hit: Bits,
    /// Accesses that created a version.
    pub created: Bits,
    /// Reads each version absorbed (indexed by the access that created it).
    pub absorbed: Vec<u32>,
    /// When each version stopped being needed (indexed likewise): the access that evicted or
    /// overwrote it, or its last read; the stream's length if it outlived the trace.
    pub end: Vec<u32>,
}

impl Log {
    pub(crate) fn new(n: usize) -> Self {
        Log { hit: Bits::new(n), created: Bits::new(n), absorbed: vec![0; n], end: vec![n as u32; n] }
    }

    /// The versions created, with the reads each absorbed, in time order.
    pub fn versions(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.absorbed.len()).filter(|&i| self.created.get(i)).map(|i| (i as u32, self.absorbed[i]))
    }
}

/// What the queue did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueCounts {
    pub reads: u64,
    pub writes: u64,
    /// Reads that found their block in the queue (MIN's hits).
    pub queue_hits: u64,
    /// Of those, reads a copy served.
    pub read_hits: u64,
    /// Versions created.
    pub versions: u64,
    /// Blocks the queue evicted.
    pub evictions: u64,
}

/// The MIN queue: `capacity` blocks in a max-heap by next read reference.
#[derive(Debug)]
struct Queue {
    index: FxHashMap<u64, u32>,
    key: Vec<u64>,
    version: Vec<u32>,
    free: Vec<u32>,
    heap: MaxHeap,
}

impl Queue {
    /// A queue with room reserved for `reserve` blocks (the limit is the replay's).
    fn new(reserve: usize) -> Self {
        Queue { index: FxHashMap::default(), key: Vec::new(), version: Vec::new(), free: Vec::new(), heap: MaxHeap::with_capacity(reserve) }
    }

    fn insert(&mut self, key: u64, next: u64, v: u32) {
        let n = match self.free.pop() {
            Some(n) => {
                self.key[n as usize] = key;
                self.version[n as usize] = v;
                n
            }
            None => {
                self.key.push(key);
                self.version.push(v);
                self.key.len() as u32 - 1
            }
        };
        self.index.insert(key, n);
        self.heap.push(n, next);
    }

    /// Removes the block furthest from its next read; returns its key and version.
    fn pop(&mut self) -> Option<(u64, u32)> {
        let n = self.heap.top()?;
        self.heap.remove(n);
        self.free.push(n);
        let key = self.key[n as usize];
        self.index.remove(&key);
        Some((key, self.version[n as usize]))
    }
}

/// Replays `s` through a MIN queue of `capacity` blocks, giving each version a copy in `p`
/// unless `skip` holds the access that created it. With `trim`, a copy is dropped as soon as
/// its block is read for the last time (TRIM, §3.3). With `log`, records the [`Log`] (the run
/// must then skip nothing, so that every queued block has a copy).
pub fn replay<P: Placement>(
    s: &Stream,
    capacity: usize,
    skip: Option<&Bits>,
    trim: bool,
    p: &mut P,
    mut log: Option<&mut Log>,
) -> QueueCounts {
    // The queue never holds more blocks than the stream has accesses: no allocation to a
    // capacity the trace cannot fill.
    let mut q = Queue::new(capacity.min(s.len()));
    let mut c = QueueCounts::default();
    let end_of = |log: &mut Option<&mut Log>, v: u32, i: usize| {
        if let Some(l) = log.as_deref_mut() {
            l.end[v as usize] = l.end[v as usize].min(i as u32);
        }
    };
    for i in 0..s.len() {
        let (key, op, next) = (s.keys[i], s.ops[i], s.next[i]);
        let node = q.index.get(&key).copied();
        match (op, node) {
            (Op::Trim, Some(n)) => {
                q.heap.remove(n);
                q.free.push(n);
                q.index.remove(&key);
                end_of(&mut log, q.version[n as usize], i);
                p.drop(key, false);
            }
            (Op::Trim, None) => {}
            (Op::Read, Some(n)) => {
                c.reads += 1;
                c.queue_hits += 1;
                let v = q.version[n as usize];
                if p.read(key, next) {
                    c.read_hits += 1;
                }
                q.heap.update(n, next);
                if let Some(l) = log.as_deref_mut() {
                    l.hit.set(i);
                    l.absorbed[v as usize] += 1;
                }
                if next == NEVER {
                    end_of(&mut log, v, i);
                    if trim {
                        p.drop(key, false);
                    }
                }
            }
            (Op::Write, Some(n)) => {
                c.writes += 1;
                end_of(&mut log, q.version[n as usize], i);
                q.heap.update(n, next);
                if next == NEVER {
                    p.drop(key, false);
                } else {
                    q.version[n as usize] = i as u32;
                    version(&mut c, &mut log, skip, p, key, i, next);
                }
            }
            (_, None) => {
                if op == Op::Read {
                    c.reads += 1;
                } else {
                    c.writes += 1;
                }
                let full = q.index.len() >= capacity;
                if next == NEVER || (full && q.heap.top().is_some_and(|t| next >= q.heap.prio(t))) {
                    continue;
                }
                if full {
                    if let Some((victim, v)) = q.pop() {
                        c.evictions += 1;
                        end_of(&mut log, v, i);
                        p.drop(victim, true);
                    }
                }
                q.insert(key, next, i as u32);
                version(&mut c, &mut log, skip, p, key, i, next);
            }
        }
    }
    c
}

/// A new version of `key` made by access `i`: a copy unless skipped.
#[inline]
fn version<P: Placement>(c: &mut QueueCounts, log: &mut Option<&mut Log>, skip: Option<&Bits>, p: &mut P, key: u64, i: usize, next: u64) {
    c.versions += 1;
    if let Some(l) = log.as_deref_mut() {
        l.created.set(i);
    }
    if skip.is_some_and(|s| s.get(i)) {
        p.drop(key, false);
    } else {
        p.write(key, i as u32, next);
    }
}

/// The first replay: MIN with every version copied, and its log.
pub fn min_pass(s: &Stream, capacity: usize) -> (QueueCounts, Log) {
    /// Copies that cost nothing: the queue's own view.
    struct All;
    impl Placement for All {
        fn write(&mut self, _: u64, _: u32, _: u64) {}
        fn drop(&mut self, _: u64, _: bool) {}
        fn read(&mut self, _: u64, _: u64) -> bool {
            true
        }
    }
    let mut log = Log::new(s.len());
    let c = replay(s, capacity, None, false, &mut All, Some(&mut log));
    (c, log)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A stream from "1 2 1w 3t": a trailing w is a write, t a trim.
    pub fn stream(s: &str) -> Stream {
        let (k, o): (Vec<u64>, Vec<Op>) = s
            .split_whitespace()
            .map(|t| {
                let op = match t.chars().last() {
                    Some('w') => Op::Write,
                    Some('t') => Op::Trim,
                    _ => Op::Read,
                };
                (t.trim_end_matches(['w', 't']).parse::<u64>().unwrap(), op)
            })
            .unzip();
        Stream::new(k, o).unwrap()
    }

    #[test]
    fn min_pass_log() {
        // Capacity 2 on  A=1 B=2:  1 2 3 1 2 3 2 1   (indices 0..7)
        // 0: 1 inserted (read at 3). 1: 2 inserted (read at 4). 2: 3 (read at 5) comes after
        // both: bypassed. 3: 1 hits (next 7). 4: 2 hits (next 6). 5: 3 misses; full; 3's next
        // read is never, so it is not inserted. 6: 2 hits (never again: its version ends here).
        // 7: 1 hits (ends). Versions 0 and 1 absorbed 2 reads each.
        let s = stream("1 2 3 1 2 3 2 1");
        let (c, log) = min_pass(&s, 2);
        assert_eq!((c.reads, c.queue_hits, c.versions, c.evictions), (8, 4, 2, 0));
        assert_eq!(log.versions().collect::<Vec<_>>(), [(0, 2), (1, 2)]);
        assert_eq!((log.end[0], log.end[1]), (7, 6));
        assert!(log.hit.get(3) && log.hit.get(4) && !log.hit.get(5));
    }

    #[test]
    fn wasted_write_example() {
        // The paper's example (§3.2): A is cached and next read at T; B is read at t0 and once
        // more at T-1. MIN replaces A by B: one hit (B's) for one extra write, and A's miss.
        // Capacity 1:  A  B  B  A   (t0 = 1, T-1 = 2, T = 3).
        let s = stream("1 2 2 1");
        let (c, log) = min_pass(&s, 1);
        // 0: A inserted (next 3). 1: B's next read (2) comes before A's (3): A is evicted, B
        // inserted. 2: B hits. 3: A misses (and is never read again: not inserted).
        assert_eq!((c.queue_hits, c.versions, c.evictions), (1, 2, 1));
        // A's version (0) was evicted without a read: M+ skips it (R_1). B's absorbed one hit.
        assert_eq!(log.versions().collect::<Vec<_>>(), [(0, 0), (1, 1)]);
        assert_eq!(log.end[0], 1);
    }

    #[test]
    fn writes_make_versions_and_dead_writes_none() {
        // Capacity 4: 1w 1 1w 1w 1. 0: a write read at 1: version 0. 1: a hit, and version 0's
        // last read (the next access writes): it ends at 1. 2: a write overwritten at 3 (dead):
        // no version. 3: version 3 (read at 4).
        let s = stream("1w 1 1w 1w 1");
        let (c, log) = min_pass(&s, 4);
        assert_eq!(log.versions().collect::<Vec<_>>(), [(0, 1), (3, 1)]);
        assert_eq!((log.end[0], log.end[3]), (1, 4));
        assert_eq!((c.reads, c.writes, c.queue_hits), (2, 3, 2));
    }
}
