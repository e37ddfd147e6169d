//! Policy throughput: LRU and FIFO over a 5-million-request Zipf trace read from fcsim's binary
//! format, at 1% and 10% of its working set. Throughput is in host requests (= page accesses).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fcsim::trace::{convert, fct, TraceOptions};
use fcsim::{simulate, SimConfig, SizeSpec};
use std::time::Duration;

const SPEC: &str = "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=0";

fn zipf_trace() -> std::path::PathBuf {
    let path = std::env::temp_dir().join("fcsim-bench-zipf5m.fct");
    if fct::read_header(&path).is_err() {
        convert::convert(SPEC, &TraceOptions::default(), &path, convert::Target::Fct, 4096, false, &mut |_, _| true).expect("convert");
    }
    path
}

fn policies(c: &mut Criterion) {
    let path = zipf_trace();
    let h = fct::read_header(&path).expect("header");
    let trace = path.to_str().expect("utf-8 path");
    let mut g = c.benchmark_group("zipf5m");
    g.sample_size(10).measurement_time(Duration::from_secs(10)).throughput(Throughput::Elements(h.requests));
    for policy in ["lru", "fifo"] {
        for pct in [1.0, 10.0] {
            let cfg = SimConfig::new(policy, SizeSpec::Percent(pct));
            g.bench_function(format!("{policy}/{pct}%"), |b| {
                b.iter(|| simulate(trace, &TraceOptions::default(), &cfg, Some(h.unique_pages), None).expect("simulate"))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, policies);
criterion_main!(benches);
