//! Device throughput.
//!
//! * `ftl/greedy-op15-steady/{lcr,gasa}`: host page writes per second into the `lcr` SSD (64
//!   chips, 64 GiB, 125 MB of mapping tables) and the `gasa` SSD (8 chips, 8 GiB), greedy GC, OP
//!   15%, preconditioned to steady state (filled, then one user capacity of uniform random
//!   overwrites); each write is placed, GC'd and timed on its chip. Writes are uniform random.
//! * `device-zipf5m/lru-*`: LRU at 1% and 10% of a 5M-request Zipf trace's working set (25% writes)
//!   with no device and over the `lcr` SSD, in the same run; throughput in host requests.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use fcsim::device::{DeviceConfig, Flash};
use fcsim::trace::{convert, fct, TraceOptions};
use fcsim::{simulate, SimConfig, SizeSpec};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::time::Duration;

const WRITES: u64 = 2_000_000;

fn ftl(c: &mut Criterion) {
    let mut g = c.benchmark_group("ftl");
    g.sample_size(10).measurement_time(Duration::from_secs(10)).throughput(Throughput::Elements(WRITES));
    for preset in ["lcr", "gasa"] {
        let params: BTreeMap<String, String> =
            [("fill", "1"), ("steady", "1")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let (cfg, _) = DeviceConfig::build(preset, &params, 4096).expect("preset");
        let user = cfg.user_pages as u32;
        // Writes arrive so that the chips keep up: at write amplification ~4 a host write costs
        // its chip ~1 ms (program, copies, erase share).
        let gap = 1_000_000 / u64::from(cfg.geometry.chips()) + 1000;
        let mut rng = StdRng::seed_from_u64(3);
        let lpns: Vec<u32> = (0..WRITES).map(|_| rng.gen_range(0..user)).collect();
        let mut flash = Flash::new(cfg, None).expect("device");
        // The same steady-state device keeps taking writes: every iteration continues the run,
        // so the drive stays in steady state and the chip queues stay short.
        let mut t = 0u64;
        g.bench_function(format!("greedy-op15-steady/{preset}"), |b| {
            b.iter_batched(
                || (),
                |_| {
                    for &l in &lpns {
                        t += gap;
                        flash.write(l, t).expect("write");
                    }
                },
                BatchSize::PerIteration,
            )
        });
        let s = flash.stats();
        eprintln!(
            "ftl/{preset}: write amplification {:.3} over {} host writes",
            (s.host_writes + s.gc_copies) as f64 / s.host_writes as f64,
            s.host_writes
        );
    }
    g.finish();
}

const SPEC: &str = "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=100000,write=0.25";

fn zipf_rw_trace() -> std::path::PathBuf {
    let path = std::env::temp_dir().join("fcsim-bench-zipf5m-rw.fct");
    if fct::read_header(&path).is_err() {
        convert::convert(SPEC, &TraceOptions::default(), &path, convert::Target::Fct, 4096, false, &mut |_, _| true).expect("convert");
    }
    path
}

fn lru_over_device(c: &mut Criterion) {
    let path = zipf_rw_trace();
    let h = fct::read_header(&path).expect("header");
    let trace = path.to_str().expect("utf-8 path");
    let mut g = c.benchmark_group("device-zipf5m");
    g.sample_size(10).measurement_time(Duration::from_secs(15)).throughput(Throughput::Elements(h.requests));
    for pct in [1.0, 10.0] {
        for device in [None, Some("lcr")] {
            let mut cfg = SimConfig::new("lru", SizeSpec::Percent(pct));
            cfg.device = device.map(String::from);
            let name = format!("lru-{}/{pct}%", device.unwrap_or("nodevice"));
            // Time the loop only (sim_seconds): building the 64 GiB device is setup.
            g.bench_function(name, |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| {
                            let row = simulate(trace, &TraceOptions::default(), &cfg, Some(h.unique_pages), None).expect("simulate");
                            Duration::from_secs_f64(row.sim_seconds)
                        })
                        .sum()
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, ftl, lru_over_device);
criterion_main!(benches);
