//! Speed of the simulation loop end to end, for profiling it (issue 29): `cargo run --release
//! --example loop_speed -- TRACE POLICY PERCENT [RUNS]` runs `fcsim::simulate` RUNS times
//! (default 3) and prints each run's wall time and requests/s, trace reading included, under
//! `perf record` if asked. The working set is counted once, before the clock. Each run also
//! prints its time on the CPU (Linux `/proc/thread-self/schedstat`), which a busy machine
//! disturbs less than wall time.

use fcsim::{simulate, SimConfig, SizeSpec, TraceOptions};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [trace, policy, pct, rest @ ..] = args.as_slice() else {
        eprintln!("usage: loop_speed TRACE POLICY PERCENT [RUNS]");
        std::process::exit(2);
    };
    let pct: f64 = pct.trim_end_matches('%').parse().expect("PERCENT: a number");
    let runs: usize = rest.first().map_or(3, |r| r.parse().expect("RUNS: a number"));
    let opts = TraceOptions::default();
    let ws = fcsim::sim::working_set(trace, &opts, 4096, None).expect("the trace");
    let cfg = SimConfig::new(policy, SizeSpec::Percent(pct));
    for _ in 0..runs {
        let (t, cpu) = (Instant::now(), on_cpu());
        let row = simulate(trace, &opts, &cfg, Some(ws), None).unwrap_or_else(|e| panic!("{e}"));
        let s = t.elapsed().as_secs_f64();
        let cpu = on_cpu().zip(cpu).map_or(String::new(), |(b, a)| format!(", {:.3} s on the CPU", b - a));
        println!(
            "{policy} {pct}% ({} pages): {s:.3} s, {:.2} M accesses/s, {} hits{cpu}",
            row.size_pages,
            row.counters.accesses as f64 / s / 1e6,
            row.counters.hits
        );
    }
}

/// This thread's time on the CPU so far, s (None where the kernel does not say).
fn on_cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}
