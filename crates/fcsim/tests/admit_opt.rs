//! Issue 43: `--admit opt` is the reference no online admission beats. On every shipped real
//! trace with reads and writes, at 5% of its working set as an SSD cache over a disk, for every
//! online point (LRU with every miss admitted, and with each online admission of the registry at
//! the low end, middle and high end of its knob), opt capped at that point's own flash writes
//! per page access (`admit.writes`) writes no more pages to the flash (so has no more DWPD: same
//! cache, same trace time) and has a read hit ratio no lower than it less 0.005. opt's points
//! come from its plan ([`opt::plan`]), which the stack replays exactly
//! ([`the_stack_replays_the_plan`] checks that on real traces). The full sweep is
//! `fcsim pareto`'s; this is the quick check.

use fcsim::sim::PageAccesses;
use fcsim::stack::admission::{opt, AdmissionInfo, ADMISSIONS};
use fcsim::{simulate, SimConfig, SizeSpec, TraceOptions};

/// The shipped traces with both reads and writes (data/traces/MANIFEST.md).
const TRACES: &[&str] = &[
    "msr_hm_0_excerpt1000.csv",
    "systor17_vdi_sample1000.csv.gz",
    "mqsim_tpcc-small.trace.gz",
    "tencent_cbs_sample50k.csv.gz",
    "diskmon_sys1.trace.gz",
    "cloudphysics_vscsi_2h.csv.gz",
];

/// (flash page writes by the host, read hit ratio, the point's name).
type Point = (u64, f64, String);

fn path(trace: &str) -> String {
    format!("{}/../../data/traces/{trace}", env!("CARGO_MANIFEST_DIR"))
}

fn config(policy: &str, write: &str, admit: &str, knobs: &[(&str, f64)]) -> SimConfig {
    let mut cfg = SimConfig::new(policy, SizeSpec::Percent(5.0));
    // The host's page writes are compared, not GC's: a spare of 1/4 lets the smallest cache (96
    // pages of msr_hm_0) be built, which the default 7% cannot be at that size.
    cfg.device = Some(fcsim::stack::DEFAULT_SSD_CACHE_DEVICE.into());
    cfg.device_params.insert("op".into(), "0.25".into());
    cfg.stack_params.insert("kind".into(), "ssd-cache".into());
    cfg.stack_params.insert("write".into(), write.into());
    cfg.stack_params.insert("admit".into(), admit.into());
    for (k, v) in knobs {
        cfg.admit_params.insert(k.to_string(), v.to_string());
    }
    cfg
}

fn point(trace: &str, write: &str, admit: &str, knob: Option<(&str, f64)>) -> Point {
    let cfg = config("lru", write, admit, knob.as_slice());
    let row = simulate(&path(trace), &TraceOptions::default(), &cfg, None, None).unwrap_or_else(|e| panic!("{trace} {admit}: {e}"));
    let c = row.counters;
    let writes = row.device.as_ref().expect("a flash cache has a device").host_page_writes;
    let name = format!("{}+{admit}{}", row.policy, knob.map_or(String::new(), |(k, v)| format!(" {k}={v}")));
    (writes, c.read_hits as f64 / c.reads.max(1) as f64, name)
}

/// A trace's page accesses, next accesses and the cache's pages at 5%.
fn prepared(trace: &str) -> (PageAccesses, Vec<u64>, usize) {
    let p = fcsim::sim::page_accesses(&path(trace), &TraceOptions::default(), 4096, None).unwrap();
    let next = fcsim::trace::convert::next_access(&p.keys).unwrap();
    let ws = fcsim::sim::working_set(&path(trace), &TraceOptions::default(), 4096, None).unwrap();
    (p, next, SizeSpec::Percent(5.0).pages(4096, Some(ws)).unwrap() as usize)
}

/// The online admissions of the registry: not those that read the future, nor `dram-reads`,
/// which needs a DRAM tier above the flash cache (and `opt` refuses one).
fn online() -> Vec<&'static AdmissionInfo> {
    ADMISSIONS.iter().filter(|a| !["opt", "ml", "dram-reads"].contains(&a.name)).collect()
}

fn check(trace: &str, write: &str) {
    let (p, next, cap) = prepared(trace);
    let enter = write != "around";
    let reads = p.writes.iter().filter(|w| !**w).count().max(1) as f64;
    let opt = |share: f64, per_access: f64| opt::plan(&p.keys, &p.writes, &next, cap, enter, opt::Limits { share, per_access, first: 0 });
    // opt's own frontier: more share never costs read hits, nor saves writes.
    let shares: Vec<_> = [0.0, 0.1, 0.25, 0.5, 0.75, 1.0].iter().map(|&s| opt(s, 1.0)).collect();
    for w in shares.windows(2) {
        assert!(w[1].hits >= w[0].hits && w[1].writes >= w[0].writes, "{trace}: opt's share sweep is not monotone");
    }
    let mut points = vec![point(trace, write, "all", None)];
    for a in online() {
        if a.name == "writes" && write != "back" {
            continue;
        }
        match a.knob.and_then(|k| a.params.iter().find(|p| p.name == k)) {
            Some(k) => {
                for v in [k.lo, (k.lo + k.hi) / 2.0, k.hi] {
                    points.push(point(trace, write, a.name, Some((k.name, v))));
                }
            }
            None => points.push(point(trace, write, a.name, None)),
        }
    }
    let n = p.keys.len() as f64;
    for (w, rhr, name) in &points {
        // opt at this point's own write rate (rounded down to whole writes by the plan).
        let s = opt(1.0, *w as f64 / n);
        let o = s.hits as f64 / reads;
        if std::env::var_os("FCSIM_SHOW").is_some() {
            eprintln!("  {name:40} writes {w:8} RHR {rhr:.4} | opt writes {:8} RHR {o:.4}", s.writes);
        }
        assert!(s.writes <= *w, "{trace}: opt at {name}'s write rate writes {} > {w}", s.writes);
        assert!(o >= rhr - 0.005, "{trace} ({write}): online point {name} (writes {w}, RHR {rhr:.4}) beats opt at its writes (RHR {o:.4})");
    }
    let full = shares.last().unwrap();
    eprintln!(
        "{trace} ({write}): opt (M+) writes {}, RHR {:.4}; {} online points under opt",
        full.writes,
        full.hits as f64 / reads,
        points.len()
    );
}

/// ml's points (trained on the first `admit.train` = 0.3 of the requests, measured after them)
/// against opt over the same span (`admit.train` 0.3: free boundary content, the cap per access
/// of the span) at each point's own flash writes: none beats it.
fn check_span(trace: &str, write: &str) {
    let (p, next, cap) = prepared(trace);
    let split = (0.3 * p.requests.len() as f64).round() as usize;
    let first = p.requests.get(split).map_or(p.keys.len(), |&f| f as usize);
    let span = (p.keys.len() - first) as f64;
    let reads = p.writes[first..].iter().filter(|w| !**w).count().max(1) as f64;
    for level in [0.1, 0.5, 0.9] {
        let cfg = config("lru", write, "ml", &[("level", level)]);
        let row = simulate(&path(trace), &TraceOptions::default(), &cfg, None, None).unwrap_or_else(|e| panic!("{trace} ml: {e}"));
        assert_eq!(row.warmup.map(|w| w.requests), Some(split as u64).filter(|&s| s > 0));
        let c = row.counters;
        let w = row.device.as_ref().unwrap().host_page_writes;
        let rhr = c.read_hits as f64 / c.reads.max(1) as f64;
        let s =
            opt::plan(&p.keys, &p.writes, &next, cap, write != "around", opt::Limits { share: 1.0, per_access: w as f64 / span, first });
        let o = s.hits as f64 / reads;
        eprintln!(
            "{trace} ({write}): ml level {level}: writes {w} RHR {rhr:.4} | same-span opt writes {} (+{} free) RHR {o:.4}",
            s.writes, s.held
        );
        assert!(s.writes <= w, "{trace}: same-span opt at ml's write rate writes {} > {w}", s.writes);
        assert!(o >= rhr - 0.005, "{trace} ({write}): ml level {level} (writes {w}, RHR {rhr:.4}) beats same-span opt (RHR {o:.4})");
    }
}

#[test]
fn ml_never_beats_opt_over_its_span() {
    for t in TRACES {
        check_span(t, "around");
    }
    for t in &TRACES[..3] {
        check_span(t, "back");
    }
}

#[test]
fn opt_is_never_beaten_write_around() {
    for t in TRACES {
        check(t, "around");
    }
}

/// Write-back on the three small traces (all six with `FCSIM_FULL` set: about 4x longer).
#[test]
fn opt_is_never_beaten_write_back() {
    let n = if std::env::var_os("FCSIM_FULL").is_some() { TRACES.len() } else { 3 };
    for t in &TRACES[..n] {
        check(t, "back");
    }
}

/// The stack replays opt's plan exactly: its read hits and flash writes are the plan's (pass B's
/// hits, and its episodes that hit), under both write modes, by the share and by the cap.
#[test]
fn the_stack_replays_the_plan() {
    for trace in ["msr_hm_0_excerpt1000.csv", "tencent_cbs_sample50k.csv.gz"] {
        let (p, next, cap) = prepared(trace);
        for (write, enter) in [("around", false), ("back", true)] {
            for (share, per_access) in [(0.3, 1.0), (1.0, 1.0), (1.0, 0.002)] {
                let s = opt::plan(&p.keys, &p.writes, &next, cap, enter, opt::Limits { share, per_access, first: 0 });
                let cfg = config("lru", write, "opt", &[("share", share), ("writes", per_access)]);
                let row = simulate(&path(trace), &TraceOptions::default(), &cfg, None, None).unwrap();
                let c = row.counters;
                assert_eq!(row.policy, "min");
                assert_eq!((c.read_hits, c.write_hits, c.insertions), (s.hits, 0, s.writes), "{trace} {write} {share} {per_access}");
                assert_eq!(row.device.unwrap().host_page_writes, s.writes);
                // Pass B admits no more than the share and the cap kept of M+'s admissions.
                assert!(s.writes <= s.allowed && s.allowed <= s.mplus);
            }
            // Over the span after a warm-up of 30% of the requests: the row counts the span only.
            let split = (0.3 * p.requests.len() as f64).round() as usize;
            let first = p.requests[split] as usize;
            let s = opt::plan(&p.keys, &p.writes, &next, cap, enter, opt::Limits { share: 1.0, per_access: 0.01, first });
            let cfg = config("lru", write, "opt", &[("writes", 0.01), ("train", 0.3)]);
            let row = simulate(&path(trace), &TraceOptions::default(), &cfg, None, None).unwrap();
            let c = row.counters;
            assert_eq!(row.warmup.map(|w| w.requests), Some(split as u64));
            assert_eq!((c.read_hits, c.write_hits, c.insertions), (s.hits, 0, s.writes), "{trace} {write} span");
        }
    }
}

/// What opt and ml refuse, in one line each: a DRAM tier above the flash cache (their plan is of
/// the flash tier's own accesses), a budget out of range, ml with a warm-up of its own, opt with a
/// warm-up but no admit.train (its plan would span the warm-up: no bound for the rest).
#[test]
fn refusals() {
    let path = format!("{}/../../data/traces/msr_hm_0_excerpt1000.csv", env!("CARGO_MANIFEST_DIR"));
    let err = |admit: &str, stack: &[(&str, &str)], admit_params: &[(&str, &str)], warmup: bool| {
        let mut cfg = SimConfig::new("lru", SizeSpec::Percent(20.0));
        cfg.stack_params.insert("kind".into(), "ssd-cache".into());
        cfg.stack_params.insert("admit".into(), admit.into());
        for (k, v) in stack {
            cfg.stack_params.insert(k.to_string(), v.to_string());
        }
        for (k, v) in admit_params {
            cfg.admit_params.insert(k.to_string(), v.to_string());
        }
        cfg.warmup = warmup.then_some(fcsim::sim::Warmup::Requests(10));
        simulate(&path, &TraceOptions::default(), &cfg, None, None).unwrap_err().to_string()
    };
    for admit in ["opt", "ml"] {
        let e = err(admit, &[("dram", "0.05")], &[], false);
        assert!(e.starts_with(&format!("--admit {admit}: ")) && e.ends_with("set stack.dram=0"), "{e}");
    }
    assert!(err("opt", &[], &[("share", "1.5")], false).contains("admit.share=1.5: expected"));
    assert!(err("ml", &[], &[], true).contains("drop sim.warmup"));
    assert!(err("opt", &[], &[], true).contains("set admit.train to the warm-up's share"));
}
