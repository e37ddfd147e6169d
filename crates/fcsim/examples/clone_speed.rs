//! Generation speed of a trace clone: `cargo run --release --example clone_speed -- SPEC`
//! (default: cloudphysics at 10x length and working set; `profile=NAME,...` times a paper
//! profile, issue 26; `...,model=renewal` the renewal clone, issue 40). Prints requests/s of the
//! generator
//! alone (the model is fitted, or read, before the clock starts). Run it under
//! `/usr/bin/time -v` for the peak memory. `--digest` (after SPEC) also prints a hash of every
//! request, to check that a change to the generator keeps its output. `--repeat-to N` builds and
//! runs the clone again (the model read once, for the stack clone as for the renewal clone)
//! until N requests are out in all, so that a short
//! clone's rate per CPU second of the process is its generator's, not the process's start and
//! the model's reading; the figures printed are over every repeat, the digest the first's.

use fcsim::trace::clone::renewal::Renewal;
use fcsim::trace::clone::Generator;
use fcsim::trace::TraceReader;
use std::time::Instant;

/// A clone and the bytes of its state that grow with the working set: the stack clone's LRU
/// stack, the renewal clone's page table and calendar.
trait Source: TraceReader {
    fn state(&self) -> usize;
}

impl Source for Generator {
    fn state(&self) -> usize {
        self.stack_bytes()
    }
}

impl Source for Renewal {
    fn state(&self) -> usize {
        self.state_bytes()
    }
}

fn main() {
    let default = format!("clone={}/../../data/traces/cloudphysics_vscsi_2h.csv.gz,scale=10", env!("CARGO_MANIFEST_DIR"));
    let spec = std::env::args().nth(1).unwrap_or(default);
    let spec = spec.strip_prefix("synth:").unwrap_or(&spec).to_string();
    let args: Vec<String> = std::env::args().skip(2).collect();
    let digest = args.iter().any(|a| a == "--digest");
    let repeat_to: u64 = args
        .iter()
        .position(|a| a == "--repeat-to")
        .map(|i| args.get(i + 1).and_then(|v| v.parse().ok()).expect("--repeat-to N: expected a count of requests"))
        .unwrap_or(0);
    let fit = Instant::now();
    let clone = fcsim::trace::clone::CloneSpec::parse(&spec).ok();
    // A clone's model is read once (the stack clone's too); each repeat builds its generator
    // again from it.
    let model = clone.as_ref().map(|s| {
        let opts = fcsim::trace::TraceOptions { format: s.format.clone(), ..Default::default() };
        fcsim::trace::clone::load(&s.path, &opts).unwrap_or_else(|e| panic!("{e}"))
    });
    let open = || -> Box<dyn Source> {
        if spec.starts_with("profile=") {
            use fcsim::trace::clone::profile;
            let p = profile::ProfileSpec::parse(&spec).unwrap_or_else(|e| panic!("{e}"));
            if p.renewal {
                Box::new(profile::open_renewal(&spec, &p).unwrap_or_else(|e| panic!("{e}")))
            } else {
                Box::new(profile::open_stack(&spec, &p).unwrap_or_else(|e| panic!("{e}")))
            }
        } else if let (Some(s), Some(model)) = (&clone, &model) {
            if s.renewal {
                Box::new(Renewal::new(model, s.scale, s.length, s.seed, s.ablate, spec.clone()).unwrap_or_else(|e| panic!("{e}")))
            } else {
                // As Generator::from_spec builds it, without reading the model again.
                Box::new(Generator::new(model, s.scale, s.length, s.seed, format!("synth:{spec}")).unwrap_or_else(|e| panic!("{e}")))
            }
        } else {
            Box::new(Generator::from_spec(&spec).unwrap_or_else(|e| panic!("{e}")))
        }
    };
    let mut c = open();
    let fitted = fit.elapsed().as_secs_f64();
    let start = Instant::now();
    let (mut n, mut bytes, mut pages, mut hash) = (0u64, 0u64, 0u64, 0u64);
    // The fixed part (the first request: the arrival thread's start and first block) and the
    // steady rate (over the second half of the requests, of the first run).
    let half = c.progress().1 / 2;
    let (mut first, mut mid, mut at_mid, mut end) = (0.0, 0.0, 0u64, 0.0);
    let (mut state, mut n_first) = (0, 0u64);
    loop {
        let mut one = 0u64;
        while let Some(r) = c.next_request().unwrap_or_else(|e| panic!("{e}")) {
            n += 1;
            one += 1;
            if n == 1 {
                first = start.elapsed().as_secs_f64();
            } else if mid == 0.0 && c.progress().0 >= half {
                // Halfway in the clone's own unit: requests, or the renewal clone's ticks.
                (mid, at_mid) = (start.elapsed().as_secs_f64(), n);
            }
            bytes += u64::from(r.len);
            // The 4 KiB pages it touches (a clone's offsets are bytes).
            pages += (r.offset + u64::from(r.len)).div_ceil(4096) - r.offset / 4096;
            if digest && n == one {
                for x in [r.time_ns, r.offset, u64::from(r.len), r.op as u64] {
                    hash = (hash ^ x).wrapping_mul(0x100_0000_01b3).rotate_left(29);
                }
            }
        }
        if end == 0.0 {
            (end, state, n_first) = (start.elapsed().as_secs_f64(), c.state(), n);
        }
        if n >= repeat_to || one == 0 {
            break;
        }
        c = open();
    }
    let s = start.elapsed().as_secs_f64();
    println!(
        "{n} requests ({:.1} GiB, {pages} page accesses) in {s:.3} s: {:.2} M requests/s; fit {fitted:.2} s; clone stack {:.1} MiB; \
         first request {:.1} ms; second half {:.2} M requests/s; one run {n_first} requests",
        bytes as f64 / (1u64 << 30) as f64,
        n as f64 / s / 1e6,
        state as f64 / (1 << 20) as f64,
        first * 1e3,
        n_first.saturating_sub(at_mid) as f64 / (end - mid).max(1e-9) / 1e6
    );
    if digest {
        println!("digest {hash:016x}");
    }
}
