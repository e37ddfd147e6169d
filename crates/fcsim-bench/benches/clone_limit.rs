//! The machine's limit for a trace clone's generation speed (issue 40, item 5): a minimal renewal
//! generator, written for the benchmark alone, so that the renewal clone's requests per CPU
//! second have a ratio to what this machine does with the same idea and nothing around it.
//!
//!     cargo bench -p fcsim-bench --bench clone_limit -- TRACE [SCALE] [--repeat-to N]
//!
//! The fit (untimed) reads TRACE's page accesses with fcsim's reader (trims skipped; one tick
//! per page access, as the renewal clone counts time) and keeps, per bin of a page's
//! references so far (1, 2, 3-4, 5-8, ...), the octaves of the gap to its next reference and
//! its ends, as cumulative thresholds of a 32-bit random number, and the page counts of the
//! requests that open new pages. The run (timed) makes SCALE times the trace's requests on
//! SCALE times its working set (default 10, the target's 10x clone): each tick, every run of
//! pages due is one request; a request's pages count one more reference each and draw one gap
//! together (one random number: its octave by the page's bin, its offset in the octave from the
//! number's other bits, times SCALE), or end, and go back into a two-level calendar (a wheel of
//! 2^16 ticks and one list per 2^16 ticks beyond it); new pages come at the trace's rate of new
//! pages per tick in requests of the trace's new-request sizes. Each request gets a time
//! (ticks times a mean gap).
//!
//! What it leaves out, each of which the renewal clone does: the state's class, octave, phase
//! and op, a block's re-cut into the original's reuse request sizes, sequential runs and shared
//! pages, the size urns, the profile's levers, the arrival process. So its rate is what a plain
//! implementation of the idea alone makes on this machine (a cleverer one could make more), a
//! reference for the renewal clone's speed, not a clone to use.
//!
//! `--repeat-to N` makes clones (seeds 1, 2, ...) until N requests are out in all, as
//! `examples/clone_speed.rs` does for fcsim's clones, so that a short clone's rate is its
//! generator's; clones go on, in any case, until they have taken [`MIN_CPU`] seconds of CPU.
//! Prints one JSON line: one clone's requests, page accesses and pages, the requests of every
//! clone and the CPU seconds they took (the thread's time on a CPU, from Linux's schedstat; the
//! fit not counted).

use fcsim::request::{Op, PageSplitter};
use fcsim::trace::{self, TraceOptions};

/// References-so-far bins (1, 2, 3-4, ..., 2^14 and more) and gap octaves (1, 2-3, ..., 2^39).
const BINS: usize = 16;
const OCTAVES: usize = 40;
const NEAR: u64 = 1 << 16;

#[inline]
fn bin(refs: u64) -> usize {
    ((64 - refs.max(1).leading_zeros()) as usize - 1).min(BINS - 1)
}

/// A small, fast generator (xorshift64*): the minimal one, not fcsim's.
struct Rng(u64);

impl Rng {
    #[inline]
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// What the fit keeps: per bin, the cumulative thresholds of the octaves (the last, 2^32 when
/// no page of the bin ends, its share of continued references), new pages per tick, and the
/// new requests' page counts.
struct Fit {
    cum: [[u64; OCTAVES]; BINS],
    new_per_tick: f64,
    new_sizes: Vec<u32>,
    requests: u64,
    pages: u64,
}

fn fit(path: &str) -> Fit {
    let mut reader = trace::open(path, &TraceOptions::default()).expect("the trace");
    let splitter = PageSplitter::new(4096, reader.key_unit());
    // Per page: its references so far and the tick of the last.
    let mut seen: rustc_hash::FxHashMap<u64, (u64, u64)> = Default::default();
    let mut counts = [[0u64; OCTAVES + 1]; BINS];
    let (mut t, mut requests, mut new_sizes) = (0u64, 0u64, Vec::new());
    while let Some(r) = reader.next_request().expect("a request") {
        if r.op == Op::Trim {
            continue;
        }
        requests += 1;
        let (first, n) = splitter.pages(&r).expect("pages");
        if !seen.contains_key(&first) {
            new_sizes.push(n as u32);
        }
        for p in first..first + n {
            let e = seen.entry(p).or_insert((0, t));
            if e.0 > 0 {
                let gap = t - e.1;
                counts[bin(e.0)][((64 - gap.leading_zeros()) as usize - 1).min(OCTAVES - 1)] += 1;
            }
            *e = (e.0 + 1, t);
            t += 1;
        }
    }
    // A page's last reference ends it.
    for &(refs, _) in seen.values() {
        counts[bin(refs)][OCTAVES] += 1;
    }
    let mut cum = [[0u64; OCTAVES]; BINS];
    for (c, k) in cum.iter_mut().zip(&counts) {
        let total = k.iter().sum::<u64>().max(1);
        let mut acc = 0;
        for (x, &v) in c.iter_mut().zip(k) {
            acc += v;
            *x = (acc << 32) / total;
        }
    }
    assert!(!new_sizes.is_empty(), "{path}: no request to fit (trims are skipped)");
    Fit { cum, new_per_tick: seen.len() as f64 / t.max(1) as f64, new_sizes, requests, pages: seen.len() as u64 }
}

/// The calendar: runs (first page, pages) due in the next 2^16 ticks by tick, and beyond them
/// by their 2^16-tick span.
struct Calendar {
    near: Vec<Vec<(u32, u32)>>,
    far: Vec<Vec<(u64, u32, u32)>>,
}

impl Calendar {
    #[inline]
    fn push(&mut self, now: u64, due: u64, first: u32, n: u32) {
        if due / NEAR == now / NEAR {
            self.near[(due % NEAR) as usize].push((first, n));
        } else {
            let s = (due / NEAR) as usize;
            if self.far.len() <= s {
                self.far.resize_with(s + 1, Vec::new);
            }
            self.far[s].push((due, first, n));
        }
    }

    /// At the start of span `s`: its far runs into the wheel.
    fn open(&mut self, s: u64) {
        if let Some(v) = self.far.get_mut(s as usize) {
            for (due, first, n) in std::mem::take(v) {
                self.near[(due % NEAR) as usize].push((first, n));
            }
        }
    }
}

/// One clone of `requests` requests at `scale`; returns (requests, page accesses, pages, hash).
fn run(f: &Fit, scale: u64, requests: u64, seed: u64) -> (u64, u64, u64, u64) {
    let mut rng = Rng(seed | 1);
    let mut refs: Vec<u16> = Vec::with_capacity((f.pages * scale) as usize + 1024);
    let mut cal = Calendar { near: (0..NEAR).map(|_| Vec::new()).collect(), far: Vec::new() };
    let mut due: Vec<(u32, u32)> = Vec::new();
    let (mut out, mut accesses, mut credit, mut hash) = (0u64, 0u64, 0.0f64, 0u64);
    let mut t = 0u64;
    // The gap drawn for a request's pages (their references so far `r`), or none: they end.
    let draw = |rng: &mut Rng, r: u16| -> Option<u64> {
        let u = rng.next();
        let x = u >> 32;
        let c = &f.cum[bin(u64::from(r))];
        let o = c.partition_point(|&y| y <= x);
        (o < OCTAVES).then(|| ((1u64 << o) + (u & ((1 << o) - 1))) * scale)
    };
    while out < requests {
        if t % NEAR == 0 {
            cal.open(t / NEAR);
        }
        std::mem::swap(&mut due, &mut cal.near[(t % NEAR) as usize]);
        for &(first, n) in &due {
            out += 1;
            accesses += u64::from(n);
            let mut r = 0;
            for p in &mut refs[first as usize..(first + n) as usize] {
                *p = p.saturating_add(1);
                r = *p;
            }
            hash = hash.wrapping_mul(31).wrapping_add(u64::from(first) ^ (t * 3));
            if let Some(g) = draw(&mut rng, r) {
                cal.push(t, t + g, first, n);
            }
        }
        due.clear();
        credit += f.new_per_tick;
        while credit >= 1.0 && out < requests {
            let n = f.new_sizes[(rng.next() % f.new_sizes.len() as u64) as usize];
            let first = refs.len() as u32;
            refs.resize(refs.len() + n as usize, 1);
            credit -= f64::from(n);
            out += 1;
            accesses += u64::from(n);
            hash = hash.wrapping_mul(31).wrapping_add(u64::from(first) ^ (t * 3));
            if let Some(g) = draw(&mut rng, 1) {
                cal.push(t, t + g, first, n);
            }
        }
        t += 1;
    }
    (out, accesses, refs.len() as u64, hash)
}

/// The least CPU time measured: schedstat's figure moves at the scheduler's ticks (a 2 ms
/// busy loop read 0 ms here, a 50 ms one 52 ms), so a run of 0.5 s is within about 1%.
const MIN_CPU: f64 = 0.5;

/// The process's time on a CPU (its main thread's, the only one), in seconds: Linux's
/// schedstat, in nanoseconds.
fn cpu_seconds() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("/proc/thread-self/schedstat (Linux)");
    s.split_whitespace().next().and_then(|x| x.parse::<f64>().ok()).expect("schedstat's first field") / 1e9
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let (repeat_to, args): (u64, Vec<&String>) = match args.iter().position(|a| a == "--repeat-to") {
        Some(i) => (
            args.get(i + 1).and_then(|v| v.parse().ok()).expect("--repeat-to N: a count of requests"),
            args.iter().enumerate().filter(|&(j, _)| j != i && j != i + 1).map(|(_, a)| a).collect(),
        ),
        None => (0, args.iter().collect()),
    };
    let [trace_path, rest @ ..] = args.as_slice() else {
        eprintln!("usage: cargo bench -p fcsim-bench --bench clone_limit -- TRACE [SCALE] [--repeat-to N]");
        std::process::exit(2);
    };
    let scale: u64 = rest.first().map_or(10, |s| s.parse().expect("SCALE: a whole number"));
    let f = fit(trace_path);
    // Clones of SCALE x the trace's requests, seeds 1, 2, ..., until `repeat_to` requests are
    // out in all and MIN_CPU seconds have passed (at least one).
    let (mut total, mut one, mut seed) = (0u64, (0, 0, 0, 0), 1u64);
    let start = cpu_seconds();
    while seed == 1 || total < repeat_to || cpu_seconds() - start < MIN_CPU {
        let r = std::hint::black_box(run(&f, scale, f.requests * scale, seed));
        if seed == 1 {
            one = r;
        }
        total += r.0;
        seed += 1;
    }
    let cpu = cpu_seconds() - start;
    println!(
        "{{\"requests\": {}, \"accesses\": {}, \"pages\": {}, \"total_requests\": {total}, \"cpu_seconds\": {cpu:.6}}}",
        one.0, one.1, one.2
    );
}
