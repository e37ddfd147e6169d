//! The machine's limit for the device path (issue 29), as `limit` is for LRU: a minimal
//! page-mapped FTL written for the benchmark alone, so fcsim's `--policy none` figure on a flash
//! drive has a ratio to what this machine can do with the same tables and no simulator around
//! them.
//!
//!     cargo bench -p fcsim-bench --bench flash_limit -- TRACE PRESET [KEY=VALUE ...] [runs=N]
//!
//! The drive is PRESET's geometry, over-provisioning and GC reserve with the given `device.`
//! parameters (without the prefix, e.g. `fill=1 steady=1`; static placement and greedy GC only,
//! the `lcr` drive's). Untimed: TRACE's page writes are read into memory as logical pages, given
//! by fcsim's own key-to-logical-page assignment ([`Flash::lpn`]) with their arrival times; the
//! drive is preconditioned as fcsim does it (`fill` × user pages written sequentially, then
//! `steady` × user uniformly random overwrites from `StdRng` seeded with `seed`). Timed, RUNS
//! times (default 3), each on a copy of the preconditioned drive: every write is placed on its
//! static plane, invalidates its old copy, and triggers greedy GC on that plane while fewer than
//! the reserve's blocks are free; the chip is a serial server (program 200 µs, a copy a read
//! and a program, an erase), one `max` and an add per op. Prints one JSON line: host writes,
//! flash writes (host + GC copies), erasures, and per run its wall seconds (`seconds`), its CPU
//! seconds (`cpu`) and the seconds it waited for a CPU (`wait`), the last two from
//! `/proc/self/schedstat` (Linux; else the wall time and 0). The flash writes
//! equal fcsim's on the same trace when both place, collect and tie-break alike (the script
//! checks it: `bench/flash_speed.py`, device section).
//!
//! The structures, each the least the job needs (the two mapping tables in memory advised for
//! huge pages, as fcsim's are on a preconditioned drive: [`Table`]):
//! - `l2p[lpn]`: physical page + 1, 0 unmapped (4 bytes a logical page);
//! - `p2l[ppn]`: logical page + 2, 0 free, 1 invalid (4 bytes a physical page);
//! - `valid[block]`: valid pages of a closed block; `u32::MAX / 2` added while free or open, so
//!   a plain minimum over a plane's counts finds the greedy victim (lowest block on ties);
//! - per plane: a stack of free blocks (lowest block on top at the start), the open block and
//!   its next page.
//!
//! Reads (if the trace has any) cost their chip a read on the page's static plane and nothing
//! else; trims are skipped.
//!
//! **Where fcsim's time goes.** Each run also times, on a copy of the same aged state and the
//! same in-memory operations, two parts of fcsim itself: its FTL alone
//! ([`fcsim::device::ftl::Ftl`]: each write placed on its static plane, invalidated and
//! collected, no chip time; `ftl_cpu`), and its whole flash device ([`Flash`]: the FTL, each
//! op on its chip's timing with the load and load-balance accounting, the clock advanced at each
//! arrival, as the simulation loop does with `--policy none`; `flash_cpu`). Their flash writes must equal the
//! limit's. The limit, the FTL alone, the device alone and `--policy none` end to end (the
//! script's row) split fcsim's gap into the FTL, the device around it and the simulation loop
//! (trace generation, key assignment, the tier, response times).

use fcsim::device::table::Table;
use fcsim::device::{DeviceConfig, Flash};
use fcsim::request::{Op, PageSplitter};
use fcsim::trace::{self, TraceOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::time::Instant;

const NOT_CLOSED: u32 = 1 << 31;
const NIL: u32 = u32::MAX;

#[derive(Clone)]
struct Plane {
    free: Vec<u32>,
    open: u32,
    wp: u32,
}

#[derive(Clone)]
struct Ftl {
    ppb: u32,
    blocks: u32,
    reserve: u32,
    chips: u32,
    ppc: u32,
    l2p: Table,
    p2l: Table,
    valid: Vec<u32>,
    planes: Vec<Plane>,
    copies: u64,
    erases: u64,
}

impl Ftl {
    fn new(c: &DeviceConfig) -> Self {
        let g = c.geometry;
        let planes = g.total_planes();
        Ftl {
            ppb: g.pages_per_block,
            blocks: g.blocks,
            reserve: c.gc_reserve_blocks,
            chips: g.chips(),
            ppc: g.planes_per_chip(),
            l2p: Table::zeroed(c.user_pages as usize, true),
            p2l: Table::zeroed(g.physical_pages() as usize, true),
            valid: vec![NOT_CLOSED; g.total_blocks() as usize],
            planes: (0..planes)
                .map(|p| Plane { free: (p * g.blocks..(p + 1) * g.blocks).rev().collect(), open: NIL, wp: g.pages_per_block })
                .collect(),
            copies: 0,
            erases: 0,
        }
    }

    /// Static striping: chip `lpn mod chips`, plane `(lpn / chips) mod planes per chip` on it.
    #[inline]
    fn plane_of(&self, lpn: u32) -> u32 {
        (lpn % self.chips) * self.ppc + (lpn / self.chips) % self.ppc
    }

    #[inline]
    fn next_page(&mut self, plane: u32) -> u32 {
        let pl = &mut self.planes[plane as usize];
        if pl.wp == self.ppb {
            let b = pl.free.pop().expect("a free block");
            if pl.open != NIL {
                self.valid[pl.open as usize] -= NOT_CLOSED;
            }
            pl.open = b;
            pl.wp = 0;
        }
        pl.wp += 1;
        pl.open * self.ppb + pl.wp - 1
    }

    /// Writes `lpn`; returns the (copies, erases) of the GC it triggered.
    #[inline]
    fn write(&mut self, lpn: u32) -> (u32, u32) {
        let old = self.l2p[lpn as usize];
        if old != 0 {
            self.p2l[old as usize - 1] = 1;
            self.valid[((old - 1) / self.ppb) as usize] -= 1;
        }
        let plane = self.plane_of(lpn);
        let ppn = self.next_page(plane);
        self.l2p[lpn as usize] = ppn + 1;
        self.p2l[ppn as usize] = lpn + 2;
        self.valid[(ppn / self.ppb) as usize] += 1;
        let (mut copies, mut erases) = (0, 0);
        while (self.planes[plane as usize].free.len() as u32) < self.reserve {
            copies += self.collect(plane);
            erases += 1;
        }
        (copies, erases)
    }

    /// Greedy GC of one block on `plane`; returns the pages copied.
    fn collect(&mut self, plane: u32) -> u32 {
        let first = plane * self.blocks;
        let counts = &self.valid[first as usize..(first + self.blocks) as usize];
        let min = *counts.iter().min().expect("blocks");
        assert!(min < self.ppb, "no block with an invalid page");
        let victim = first + counts.iter().position(|&v| v == min).expect("the minimum") as u32;
        let base = victim * self.ppb;
        let mut copies = 0;
        for ppn in base..base + self.ppb {
            let e = self.p2l[ppn as usize];
            if e > 1 {
                let dst = self.next_page(plane);
                self.l2p[(e - 2) as usize] = dst + 1;
                self.p2l[dst as usize] = e;
                self.valid[(dst / self.ppb) as usize] += 1;
                copies += 1;
            }
        }
        self.p2l[base as usize..(base + self.ppb) as usize].fill(0);
        self.valid[victim as usize] = NOT_CLOSED;
        self.planes[plane as usize].free.push(victim);
        self.copies += u64::from(copies);
        self.erases += 1;
        copies
    }
}

/// This thread's (time on a CPU, time waiting for one), in seconds, if the kernel says.
fn schedstat() -> Option<(f64, f64)> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut f = s.split_whitespace().map(|x| x.parse::<u64>().ok());
    Some((f.next()?? as f64 / 1e9, f.next()?? as f64 / 1e9))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let [trace_path, preset, rest @ ..] = args.as_slice() else {
        eprintln!("usage: cargo bench -p fcsim-bench --bench flash_limit -- TRACE PRESET [KEY=VALUE ...] [runs=N]");
        std::process::exit(2);
    };
    let mut params: BTreeMap<String, String> = rest
        .iter()
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("KEY=VALUE");
            (k.to_string(), v.to_string())
        })
        .collect();
    let runs: usize = params.remove("runs").map_or(3, |r| r.parse().expect("runs: a number"));
    let (cfg, _) = DeviceConfig::build(preset, &params, 4096).expect("the device");
    assert!(cfg.placement == fcsim::device::config::Placement::Static && cfg.gc == fcsim::device::config::GcPolicy::Greedy);

    // The trace's page accesses as (logical page, arrival, write), with fcsim's key assignment.
    let mut keys = Flash::new(DeviceConfig { fill: 0.0, ..cfg.clone() }, None).expect("the device");
    let mut reader = trace::open(trace_path, &TraceOptions::default()).expect("the trace");
    let splitter = PageSplitter::new(4096, reader.key_unit());
    let mut ops: Vec<(u32, u64, bool)> = Vec::new();
    while let Some(r) = reader.next_request().expect("a request") {
        if r.op != Op::Trim {
            let (first, n) = splitter.pages(&r).expect("pages");
            for k in first..first + n {
                ops.push((keys.lpn(k).expect("a logical page"), r.time_ns, r.op == Op::Write));
            }
        }
    }
    drop(keys);

    // Preconditioning as fcsim's (sequential fill, then seeded uniform overwrites), untimed.
    let mut aged = Ftl::new(&cfg);
    let user = cfg.user_pages as u32;
    let n = (cfg.fill * f64::from(user)).round() as u32;
    assert!(n == 0 || cfg.fill_order == fcsim::device::config::Fill::Sequential, "fill_order=sequential only");
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    for l in 0..n {
        aged.write(l);
    }
    if n > 0 {
        for _ in 0..(cfg.steady * f64::from(user)).round() as u64 {
            aged.write(rng.gen_range(0..n));
        }
    }
    (aged.copies, aged.erases) = (0, 0);
    // fcsim's own FTL, preconditioned alike (the device preconditions through it the same way).
    let g = cfg.geometry;
    let mut fc_aged = fcsim::device::ftl::Ftl::with_tables(g, cfg.user_pages, cfg.gc, cfg.gc_reserve_blocks, n > 0);
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    for l in 0..n {
        fc_aged.write(l, g.static_plane(l)).expect("a write");
    }
    if n > 0 {
        for _ in 0..(cfg.steady * f64::from(user)).round() as u64 {
            let l = rng.gen_range(0..n);
            fc_aged.write(l, g.static_plane(l)).expect("a write");
        }
    }
    fc_aged.reset_stats();

    let (rd, wr, er) = (cfg.read_ns, cfg.write_ns, cfg.erase_ns);
    let (mut seconds, mut cpu, mut wait) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ftl_cpu, mut flash_cpu) = (Vec::new(), Vec::new());
    let cpu_since = |s0: Option<(f64, f64)>, t0: Instant| match (s0, schedstat()) {
        (Some((c0, _)), Some((c1, _))) => c1 - c0,
        _ => t0.elapsed().as_secs_f64(),
    };
    let (mut writes, mut flash, mut erases, mut last) = (0u64, 0u64, 0u64, 0u64);
    for _ in 0..runs {
        let mut ftl = aged.clone();
        let mut free_at = vec![0u64; cfg.geometry.chips() as usize];
        let s0 = schedstat();
        let t0 = Instant::now();
        writes = 0;
        for &(lpn, t, write) in &ops {
            let chip = (lpn % ftl.chips) as usize;
            let mut end = t.max(free_at[chip]);
            if write {
                writes += 1;
                let (c, e) = ftl.write(lpn);
                end += wr + u64::from(c) * (rd + wr) + u64::from(e) * er;
            } else {
                end += rd;
            }
            free_at[chip] = end;
        }
        let wall = t0.elapsed().as_secs_f64();
        let (c, w) = match (s0, schedstat()) {
            (Some((c0, w0)), Some((c1, w1))) => (c1 - c0, w1 - w0),
            _ => (wall, 0.0),
        };
        seconds.push(wall);
        cpu.push(c);
        wait.push(w);
        flash = writes + ftl.copies;
        erases = ftl.erases;
        last = std::hint::black_box(free_at.iter().copied().max().unwrap_or(0));

        // fcsim's FTL alone.
        let mut ftl = fc_aged.clone();
        let (s0, t0) = (schedstat(), Instant::now());
        for &(lpn, _, write) in &ops {
            if write {
                ftl.write(lpn, g.static_plane(lpn)).expect("a write");
            }
        }
        ftl_cpu.push(cpu_since(s0, t0));
        assert_eq!(ftl.stats.host_writes + ftl.stats.gc_copies, flash, "fcsim's FTL and the limit disagree on flash writes");
        drop(ftl);

        // fcsim's flash device (FTL and chip timing), preconditioned from the process's cache.
        let mut dev = Flash::new(cfg.clone(), None).expect("the device");
        dev.keep_queue(false); // as `--policy none` runs it: no policy asks for a chip's load
        let (s0, t0) = (schedstat(), Instant::now());
        let mut end = 0;
        for &(lpn, t, write) in &ops {
            dev.timing_mut().advance(t);
            let done = if write { dev.write(lpn, t) } else { dev.read(lpn, t) };
            end = end.max(done.expect("below the horizon"));
        }
        flash_cpu.push(cpu_since(s0, t0));
        let st = dev.stats();
        assert_eq!(st.host_writes + st.gc_copies, flash, "fcsim's device and the limit disagree on flash writes");
        std::hint::black_box(end);
    }
    let list = |v: &[f64]| v.iter().map(|s| format!("{s:.6}")).collect::<Vec<_>>().join(", ");
    println!(
        "{{\"host_writes\": {writes}, \"flash_writes\": {flash}, \"erasures\": {erases}, \"last_completion_ns\": {last}, \"seconds\": [{}], \"cpu\": [{}], \"wait\": [{}], \"ftl_cpu\": [{}], \"flash_cpu\": [{}]}}",
        list(&seconds),
        list(&cpu),
        list(&wait),
        list(&ftl_cpu),
        list(&flash_cpu)
    );
}
