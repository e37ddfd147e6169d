//! STEP 1 of the offline heuristics (offline-bounds paper §3.2, §5.1): the trace's page accesses
//! (large requests split into blocks), each annotated with its *next read reference*, and the
//! DRAM tier in front of the flash cache (§5) that decides which of them reach flash.
//!
//! The next read reference of access `i` is the index of the next access to the same block when
//! that access is a read, and [`NEVER`] when it is a write, a trim or there is none: the data as
//! of `i` is then never read again, so it is *dead* (§3.4; Fig. 3 line 10 tests `next_ref ==
//! INF`). A dead write goes to the DRAM tier only, never to flash (§3.4).
//!
//! The DRAM tier is 5% of the flash cache by default (§5) and uses MIN eviction for the offline
//! algorithms and LRU for the online ones. The paper does not say how the two levels exchange
//! blocks; fcsim's choice: the DRAM tier is a demand cache over every read and write (trims drop
//! the block); a read it hits is served from DRAM; a read it misses, and every write, go on to
//! the flash cache (writes reach stable storage: the DRAM tier is not the only copy, §3.4). The
//! DRAM tier's behaviour does not depend on the flash cache's, so it runs first and the flash
//! level's stream is annotated with its own next read references.

use crate::error::{Error, Result};
use crate::mem;
use crate::policy::{self, Access, Outcome};
use crate::request::{Op, PageSplitter, NEVER};
use crate::trace::{Progress, TraceReader};
use rustc_hash::FxHashMap;

/// Page accesses with their ops and next read references.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    pub keys: Vec<u64>,
    pub ops: Vec<Op>,
    /// Next read reference of each access (see the module docs).
    pub next: Vec<u64>,
    /// Distinct blocks accessed (the working set).
    pub unique: u64,
}

impl Stream {
    /// A stream of `keys` and `ops`, annotated.
    pub fn new(keys: Vec<u64>, ops: Vec<Op>) -> Result<Stream> {
        if keys.len() >= u32::MAX as usize {
            return Err(Error::config(format!(
                "the offline heuristics index page accesses with 32 bits: {} accesses is too many (cut the trace)",
                keys.len()
            )));
        }
        let (next, unique) = next_read(&keys, &ops)?;
        Ok(Stream { keys, ops, next, unique })
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// The next read reference of every access, and the number of distinct keys: one backward pass.
pub fn next_read(keys: &[u64], ops: &[Op]) -> Result<(Vec<u64>, u64)> {
    let mut next = mem::filled(keys.len(), NEVER, "the next-read column")?;
    let mut later: FxHashMap<u64, (u64, Op)> = FxHashMap::default();
    for i in (0..keys.len()).rev() {
        mem::reserve_map(&mut later, "the table of the trace's pages")?;
        if let Some((j, op)) = later.insert(keys[i], (i as u64, ops[i])) {
            if op == Op::Read {
                next[i] = j;
            }
        }
    }
    Ok((next, later.len() as u64))
}

/// A trace's page accesses and what is known of its time.
#[derive(Debug, Clone)]
pub struct Trace {
    pub stream: Stream,
    pub requests: u64,
    /// Time from the earliest request to the latest, ns (0 for a trace without timestamps).
    pub duration_ns: u64,
}

impl Trace {
    /// Reads every request of `reader`, split into pages.
    /// `progress` follows the pass and can stop it.
    pub fn read(reader: &mut dyn TraceReader, splitter: &PageSplitter, timed: bool, mut progress: Option<Progress<'_>>) -> Result<Trace> {
        let (mut keys, mut ops) = (Vec::new(), Vec::new());
        let (mut requests, mut first, mut last) = (0u64, u64::MAX, 0u64);
        while let Some(r) = reader.next_request()? {
            requests += 1;
            crate::trace::report(requests, reader, &mut progress)?;
            first = first.min(r.time_ns);
            last = last.max(r.time_ns);
            let (p, n) = splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
            mem::reserve(&mut keys, n as usize, "the trace's page keys")?;
            mem::reserve(&mut ops, n as usize, "the trace's page operations")?;
            for k in p..p + n {
                keys.push(k);
                ops.push(r.op);
            }
        }
        // Out-of-order timestamps: the span from the earliest to the latest.
        let duration_ns = if timed && requests > 0 { last - first } else { 0 };
        Ok(Trace { stream: Stream::new(keys, ops)?, requests, duration_ns })
    }
}

/// What the DRAM tier served.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dram {
    pub pages: u64,
    pub read_hits: u64,
    pub write_hits: u64,
}

/// Runs the DRAM tier of `pages` pages (`offline`: MIN by next read reference; else LRU) over
/// `s`; returns the flash level's stream and what DRAM served.
pub fn dram_filter(s: &Stream, pages: usize, offline: bool) -> Result<(Stream, Dram)> {
    let mut d = Dram { pages: pages as u64, ..Dram::default() };
    if pages == 0 {
        return Ok((s.clone(), d));
    }
    let mut tier = policy::build(if offline { "min" } else { "lru" }, pages, Default::default())?.0;
    let (mut keys, mut ops) = (Vec::with_capacity(s.len()), Vec::with_capacity(s.len()));
    let mut evicted = Vec::with_capacity(4);
    for i in 0..s.len() {
        let (key, op) = (s.keys[i], s.ops[i]);
        if op == Op::Trim {
            tier.remove(key);
        } else {
            evicted.clear();
            let a = Access { key, write: false, index: i as u64, next: if offline { s.next[i] } else { NEVER }, time: 0 };
            if let Outcome::Hit { .. } = tier.access(&a, &mut evicted) {
                if op == Op::Read {
                    d.read_hits += 1;
                    continue;
                }
                d.write_hits += 1;
            }
        }
        keys.push(key);
        ops.push(op);
    }
    Ok((Stream::new(keys, ops)?, d))
}

#[cfg(test)]
mod tests {
    use super::super::queue::tests::stream;
    use super::*;

    #[test]
    fn next_read_references() {
        // 1 2 1w 1 2 2w: access 0 (1) is next accessed by a write: dead. Access 1 (2) is next
        // read at 4. 2 (1w) is read at 3. 3 and 5 have no next access; 4 is overwritten at 5.
        let s = stream("1 2 1w 1 2 2w");
        assert_eq!((s.next, s.unique), (vec![NEVER, 4, 3, NEVER, NEVER, NEVER], 2));
    }

    #[test]
    fn dram_min_filters_reads_and_passes_writes() {
        // One DRAM page, MIN, on 1 1 2 1w 1: 1 misses (to flash) and is admitted; the second 1
        // hits DRAM (served there); 2 misses (to flash) and replaces 1; 1w misses and replaces 2
        // (writes reach flash whether they hit or not); the last 1 hits DRAM.
        let s = stream("1 1 2 1w 1");
        let (f, d) = dram_filter(&s, 1, true).unwrap();
        assert_eq!(f.keys, [1, 2, 1]);
        assert_eq!(f.ops, [Op::Read, Op::Read, Op::Write]);
        assert_eq!((d.read_hits, d.write_hits), (2, 0));
        // The flash level's own annotation: its 1w is not read again at flash level.
        assert_eq!(f.next, [NEVER, NEVER, NEVER]);
    }
}
