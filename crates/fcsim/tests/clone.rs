//! Trace clones (`synth:clone=...`) against their originals: every shipped timestamped real trace
//! is cloned at scale 1 and held to stated tolerances, and cloudphysics at 10x length and working
//! set keeps its normalised LRU miss-ratio curve.
//!
//! Tolerances (checked where the trace can show them):
//!
//! - LRU MRC: mean absolute error < 0.03 between the curves at 1%, 2%, ..., 50% of each trace's
//!   own working set (unique 4 KiB pages).
//! - Dirty share of LRU's evictions (write-back; dirty_evictions / evictions) at 1% and 10% of
//!   the working set: within 5 points.
//! - Fano factor (variance / mean) of arrival counts in 1 s bins: within a factor of 2. Only
//!   where the original spans at least 30 bins of 1 s (a variance from fewer bins is noise):
//!   cloudphysics (2 h), diskmon (20 min), msr hm_0 (127 s), wsrch (60 s). Tencent's clock
//!   counts whole seconds over ~1 s, systor spans 2.4 s, tpcc 0.14 s and blkparse 9.4 s.
//! - Mean request size per op: within 5%, for an op with at least 50 requests (wsrch has 4
//!   writes, blkparse 0.5% reads: 78).
//!
//! Clones are random; each test uses one fixed seed.

use fcsim::mrc::{Mrc, StackDistances};
use fcsim::request::{Op, PageSplitter};
use fcsim::trace::{self, TraceOptions, TraceReader};
use fcsim::{simulate, SimConfig, SizeSpec};

fn data(name: &str) -> String {
    format!("{}/../../data/traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// What the tests compare of a trace.
#[derive(Debug)]
struct Stats {
    mrc: Mrc,
    pages: u64,
    times: Vec<u64>,
    bytes: [u64; 2],
    requests: [u64; 2],
}

fn stats(trace: &str) -> Stats {
    let mut r = trace::open(trace, &TraceOptions::default()).unwrap();
    stats_of(r.as_mut())
}

fn stats_of(r: &mut dyn TraceReader) -> Stats {
    let split = PageSplitter::new(4096, r.key_unit());
    let mut sd = StackDistances::new();
    let (mut times, mut bytes, mut requests) = (Vec::new(), [0; 2], [0; 2]);
    while let Some(q) = r.next_request().unwrap() {
        let o = match q.op {
            Op::Read => 0,
            Op::Write => 1,
            Op::Trim => continue,
        };
        let (first, n) = split.pages(&q).unwrap();
        for k in first..first + n {
            sd.access(k).unwrap();
        }
        times.push(q.time_ns);
        bytes[o] += u64::from(q.len);
        requests[o] += 1;
    }
    let pages = sd.pages() as u64;
    Stats { mrc: sd.finish(), pages, times, bytes, requests }
}

/// Mean absolute error of the LRU miss ratio at 1%..50% of each trace's working set.
fn mrc_mae(a: &Stats, b: &Stats) -> f64 {
    let at = |s: &Stats, share: f64| s.mrc.miss_ratio(((s.pages as f64 * share).round() as u64).max(1));
    (1..=50).map(|p| (at(a, p as f64 / 100.0) - at(b, p as f64 / 100.0)).abs()).sum::<f64>() / 50.0
}

/// Fano factor of arrival counts in bins of `bin_ns` over the trace's span.
fn fano(times: &[u64], bin_ns: u64) -> f64 {
    let t0 = *times.iter().min().unwrap();
    let t1 = *times.iter().max().unwrap();
    let bins = ((t1 - t0) / bin_ns + 1) as usize;
    let mut c = vec![0f64; bins];
    for &t in times {
        c[((t - t0) / bin_ns) as usize] += 1.0;
    }
    let mean = c.iter().sum::<f64>() / bins as f64;
    let var = c.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / bins as f64;
    var / mean
}

/// Dirty share of LRU's evictions (write-back) at `percent` of the working set.
fn dirty_share(trace: &str, percent: f64) -> f64 {
    let row = simulate(trace, &TraceOptions::default(), &SimConfig::new("lru", SizeSpec::Percent(percent)), None, None).unwrap();
    let c = row.counters;
    c.dirty_evictions as f64 / c.evictions.max(1) as f64
}

fn mean_size(s: &Stats, o: usize) -> f64 {
    s.bytes[o] as f64 / s.requests[o].max(1) as f64
}

/// Compares the clone of `name` at scale 1 with it: a line of the fidelity table and what is
/// out of tolerance.
fn check(name: &str, fano_s: bool) -> (String, Vec<String>) {
    let orig = data(name);
    let seed = std::env::var("CLONE_SEED").unwrap_or("7".into());
    let spec = format!("synth:clone={orig},seed={seed}");
    let (a, b) = (stats(&orig), stats(&spec));
    let mae = mrc_mae(&a, &b);
    let mut line = format!("{name}: MAE {mae:.4}");
    let mut bad = Vec::new();
    if mae >= 0.03 {
        bad.push(format!("MRC MAE {mae:.4}"));
    }
    for p in [1.0, 10.0] {
        let (x, y) = (dirty_share(&orig, p), dirty_share(&spec, p));
        line += &format!(" | dirty@{p}% {x:.3}/{y:.3}");
        if (x - y).abs() > 0.05 {
            bad.push(format!("dirty share at {p}%: {x:.3} vs {y:.3}"));
        }
    }
    for (bin, label) in [(10_000_000, "10ms"), (1_000_000_000, "1s"), (60_000_000_000, "60s")] {
        let (x, y) = (fano(&a.times, bin), fano(&b.times, bin));
        line += &format!(" | fano {label} {x:.1}/{y:.1}");
        if label == "1s" && fano_s && !(0.5..=2.0).contains(&(y / x)) {
            bad.push(format!("Fano at 1 s {x:.1} vs {y:.1}"));
        }
    }
    for (o, op) in ["read", "write"].iter().enumerate() {
        let (x, y) = (mean_size(&a, o), mean_size(&b, o));
        line += &format!(" | {op} {x:.0}/{y:.0} B");
        if a.requests[o] >= 50 && (y / x - 1.0).abs() > 0.05 {
            bad.push(format!("mean {op} size {x:.0} vs {y:.0}"));
        }
    }
    (line, bad.into_iter().map(|b| format!("{name}: {b}")).collect())
}

#[test]
fn clones_of_the_shipped_traces_keep_their_shape() {
    let traces = [
        ("cloudphysics_vscsi_2h.csv.gz", true),
        ("diskmon_sys1.trace.gz", true),
        ("msr_hm_0_excerpt1000.csv", true),
        ("mqsim_wsrch-small.trace.gz", true),
        ("tencent_cbs_sample50k.csv.gz", false),
        ("systor17_vdi_sample1000.csv.gz", false),
        ("mqsim_tpcc-small.trace.gz", false),
        ("blkparse_java_50k_events.txt.gz", false),
    ];
    let (mut lines, mut bad) = (Vec::new(), Vec::new());
    for (n, f) in traces {
        let (l, b) = check(n, f);
        lines.push(l);
        bad.extend(b);
    }
    println!("{}", lines.join("\n"));
    assert!(bad.is_empty(), "{}\n\nout of tolerance:\n{}", lines.join("\n"), bad.join("\n"));
}

#[test]
fn debug_mrc() {
    for name in ["cloudphysics_vscsi_2h.csv.gz", "msr_hm_0_excerpt1000.csv"] {
        let orig = data(name);
        let (a, b) = (stats(&orig), stats(&format!("synth:clone={orig},seed=7")));
        println!("{name}: pages {} / {}, accesses {} / {}, cold {} / {}, requests {:?} / {:?}", a.pages, b.pages, a.mrc.accesses, b.mrc.accesses, a.mrc.cold, b.mrc.cold, a.requests, b.requests);
        for p in [0.001, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5] {
            let at = |s: &Stats| s.mrc.miss_ratio(((s.pages as f64 * p).round() as u64).max(1));
            println!("  {p}: {:.3} {:.3}", at(&a), at(&b));
        }
    }
}

#[test]
fn debug_model() {
    use fcsim::trace::clone::Model;
    let name = "msr_hm_0_excerpt1000.csv";
    let orig = data(name);
    for t in [orig.clone(), format!("synth:clone={orig},seed=7")] {
        let mut r = trace::open(&t, &TraceOptions::default()).unwrap();
        let m = Model::fit(r.as_mut(), std::path::Path::new("x")).unwrap();
        let runs: Vec<(u64, u64)> = (0..2).map(|o| (m.runs[o].iter().map(|x| x.1).sum::<u64>(), m.runs[o].iter().map(|x| x.0 * x.1).sum::<u64>())).collect();
        println!("runs {runs:?} transitions {:?}", m.transitions);
        let st: Vec<(u64, u64)> = (0..2).map(|o| m.windows[o].iter().fold((0, 0), |a, w| (a.0 + w[0], a.1 + w[1]))).collect();
        println!("starts/new {st:?} reissue {:?} growth {} {} gap {}", m.reissue, m.growth[0].iter().sum::<u64>(), m.growth[1].iter().sum::<u64>(), m.gap);
        for p in 0..2 {
            for o in 0..2 {
                let h = &m.distances[p][o];
                let tot: u64 = h.iter().sum();
                let cum = |d: u64| h.iter().enumerate().filter(|(b, _)| fcsim::trace::clone::bin_range(*b).0 <= d).map(|x| x.1).sum::<u64>() as f64 / tot.max(1) as f64;
                println!("  [{p}][{o}] n={tot} <=16 {:.3} <=270 {:.3} <=2700 {:.3} <=27000 {:.3}", cum(16), cum(270), cum(2700), cum(27000));
            }
        }
    }
}

#[test]
fn debug_categories() {
    for name in ["cloudphysics_vscsi_2h.csv.gz", "systor17_vdi_sample1000.csv.gz"] {
        let orig = data(name);
        for t in [orig.clone(), format!("synth:clone={orig},seed=7")] {
            let mut r = trace::open(&t, &TraceOptions::default()).unwrap();
            let split = PageSplitter::new(4096, r.key_unit());
            let mut sd = StackDistances::new();
            let mut last_end = [None; 2];
            // [category][count, cold, <=270, <=2700]
            let mut cat = [[0u64; 4]; 4];
            while let Some(q) = r.next_request().unwrap() {
                let o = if q.op == Op::Write { 1 } else { 0 };
                let seq = last_end[o] == Some((q.volume, q.offset));
                last_end[o] = Some((q.volume, q.offset + u64::from(q.len)));
                let (first, n) = split.pages(&q).unwrap();
                for k in first..first + n {
                    let d = sd.access(k).unwrap();
                    let c = usize::from(seq) * 2 + usize::from(k != first);
                    cat[c][0] += 1;
                    match d {
                        None => cat[c][1] += 1,
                        Some(d) => {
                            cat[c][2] += u64::from(d <= 270);
                            cat[c][3] += u64::from(d <= 2700);
                        }
                    }
                }
            }
            println!("{t}: start-first {:?} start-rest {:?} cont-first {:?} cont-rest {:?}", cat[0], cat[1], cat[2], cat[3]);
        }
    }
}
