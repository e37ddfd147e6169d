//! The machine's limit for the side-by-side benchmark (issue 29): a minimal LRU, written for
//! the benchmark alone, over a trace's page sequence held in memory, so every fcsim figure has a
//! ratio to what this machine can do with the same data-structure idea and no simulator around
//! it: open addressing (linear probing, backward-shift deletion) from page key to a slot, and an
//! index-linked list of slots in recency order.
//!
//!     cargo bench -p fcsim-bench --bench limit -- TRACE PAGES [RUNS]
//!
//! reads TRACE's page accesses (reads and writes; trims are skipped) into memory with fcsim's
//! reader, untimed, then runs the LRU of PAGES pages over them RUNS times (default 3) and prints
//! one JSON line: accesses, misses and the seconds of each run.

use fcsim::request::{Op, PageSplitter};
use fcsim::trace::{self, TraceOptions};
use std::time::Instant;

const NIL: u32 = u32::MAX;
const EMPTY: u64 = u64::MAX;

/// The LRU: `keys`, `prev`, `next` per slot (front = most recent), `table` of key → slot.
struct Lru {
    keys: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    /// (key, slot) pairs; `EMPTY` key for a free entry. At most half full.
    table: Vec<(u64, u32)>,
    shift: u32,
    cap: usize,
}

#[inline]
fn hash(key: u64, shift: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

impl Lru {
    fn new(cap: usize) -> Self {
        let size = (2 * cap.max(2)).next_power_of_two();
        Lru {
            keys: Vec::with_capacity(cap),
            prev: Vec::with_capacity(cap),
            next: Vec::with_capacity(cap),
            head: NIL,
            tail: NIL,
            table: vec![(EMPTY, 0); size],
            shift: 64 - size.trailing_zeros(),
            cap,
        }
    }

    #[inline]
    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p != NIL {
            self.next[p as usize] = n
        } else {
            self.head = n
        }
        if n != NIL {
            self.prev[n as usize] = p
        } else {
            self.tail = p
        }
    }

    #[inline]
    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NIL;
        self.next[s as usize] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = s
        } else {
            self.tail = s
        }
        self.head = s;
    }

    /// Removes `key`'s entry (present) by backward-shift deletion.
    fn erase(&mut self, key: u64) {
        let mask = self.table.len() - 1;
        let mut p = hash(key, self.shift);
        while self.table[p].0 != key {
            p = (p + 1) & mask;
        }
        let mut q = p;
        loop {
            q = (q + 1) & mask;
            let (k, _) = self.table[q];
            if k == EMPTY {
                break;
            }
            let h = hash(k, self.shift);
            let stays = if p <= q { p < h && h <= q } else { p < h || h <= q };
            if !stays {
                self.table[p] = self.table[q];
                p = q;
            }
        }
        self.table[p] = (EMPTY, 0);
    }

    /// One access; true on a hit.
    #[inline]
    fn access(&mut self, key: u64) -> bool {
        let mask = self.table.len() - 1;
        let mut p = hash(key, self.shift);
        loop {
            let (k, s) = self.table[p];
            if k == key {
                if self.head != s {
                    self.unlink(s);
                    self.push_front(s);
                }
                return true;
            }
            if k == EMPTY {
                break;
            }
            p = (p + 1) & mask;
        }
        let s = if self.keys.len() < self.cap {
            self.keys.push(key);
            self.prev.push(NIL);
            self.next.push(NIL);
            (self.keys.len() - 1) as u32
        } else {
            let s = self.tail;
            self.unlink(s);
            let old = self.keys[s as usize];
            self.erase(old);
            self.keys[s as usize] = key;
            // The erase may have shifted an entry into the slot found above: probe again.
            p = hash(key, self.shift);
            while self.table[p].0 != EMPTY {
                p = (p + 1) & mask;
            }
            s
        };
        self.table[p] = (key, s);
        self.push_front(s);
        false
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let [trace_path, pages, rest @ ..] = args.as_slice() else {
        eprintln!("usage: cargo bench -p fcsim-bench --bench limit -- TRACE PAGES [RUNS]");
        std::process::exit(2);
    };
    let pages: usize = pages.parse().expect("PAGES: a number of pages");
    let runs: usize = rest.first().map_or(3, |r| r.parse().expect("RUNS: a number"));
    let mut reader = trace::open(trace_path, &TraceOptions::default()).expect("the trace");
    let splitter = PageSplitter::new(4096, reader.key_unit());
    let mut keys = Vec::new();
    while let Some(r) = reader.next_request().expect("a request") {
        if r.op != Op::Trim {
            let (first, n) = splitter.pages(&r).expect("pages");
            keys.extend(first..first + n);
        }
    }
    let mut seconds = Vec::new();
    let mut misses = 0u64;
    for _ in 0..runs {
        let mut lru = Lru::new(pages.max(1));
        let t = Instant::now();
        let hits = keys.iter().map(|&k| u64::from(lru.access(k))).sum::<u64>();
        seconds.push(t.elapsed().as_secs_f64());
        misses = keys.len() as u64 - std::hint::black_box(hits);
    }
    let secs: Vec<String> = seconds.iter().map(|s| format!("{s:.6}")).collect();
    println!("{{\"accesses\": {}, \"misses\": {misses}, \"seconds\": [{}]}}", keys.len(), secs.join(", "));
}
