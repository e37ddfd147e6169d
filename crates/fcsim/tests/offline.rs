//! The offline flash-cache bounds (offline-bounds paper, ATC '16) on random traces: M+ and C
//! keep MIN's read hit ratio exactly (§6.1: "MIN, M+ and C achieve the (identical) highest hit
//! ratio"), on a DRAM tier or none, with containers or an FTL; with no writes and no DRAM tier,
//! M is Belady's MIN with bypass, the `min` policy of the plain stack.

use fcsim::device::DeviceConfig;
use fcsim::offline::{self, stream::Stream, stream::Trace, Setup};
use fcsim::params::Params;
use fcsim::request::Op;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn setup(cache: u64, dram: usize, ppb: u32) -> Setup {
    let p: BTreeMap<String, String> = [
        ("capacity", cache.to_string()),
        ("pages_per_block", ppb.to_string()),
        ("channels", "1".into()),
        ("chips_per_channel", "1".into()),
        ("op", "0.5".into()),
        // As the offline bounds build their flash (`run::bounds_setup`).
        ("reserve", "extra".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let device = DeviceConfig::build("offline", &p, 4096).unwrap().0;
    Setup { cache_pages: cache, dram_pages: dram, device, write_buffer: 2 }
}

fn run(name: &str, t: &Trace, s: &Setup, set: &[(&str, &str)]) -> offline::Bounds {
    let alg = offline::algorithm(name).unwrap();
    let mut p = Params::new(set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
    offline::run(t, alg, &mut p, s).unwrap()
}

/// A skewed random trace: keys from a small hot set and a larger cold one.
fn trace(seed: u64, n: usize, keys: u64, writes: u32) -> Trace {
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut k, mut o) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let r = next();
        let key = if r % 3 == 0 { r / 7 % keys } else { r / 7 % (keys / 8 + 1) };
        k.push(key);
        o.push(if (r >> 40) % 100 < u64::from(writes) { Op::Write } else { Op::Read });
    }
    Trace { stream: Stream::new(k, o).unwrap(), requests: n as u64, duration_ns: 86_400_000_000_000 }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn mplus_and_c_keep_min_read_hits(seed in 1u64.., writes in 0u32..60, cache in 40u64..120, dram in 0usize..6) {
        let t = trace(seed, 3000, 600, writes);
        let s = setup(cache, dram, 8);
        let m = run("m", &t, &s, &[]);
        let mplus = run("m+", &t, &s, &[]);
        let c = run("c", &t, &s, &[]);
        prop_assert_eq!(m.read_hits(), mplus.read_hits());
        prop_assert_eq!(m.read_hits(), c.read_hits());
        prop_assert_eq!(mplus.reference.read_hits, mplus.read_hits());
        prop_assert_eq!(mplus.reference.erasures, mplus.flash.erasures);
        // M+ writes no more than M; M_N's skipped versions lose exactly their reads.
        prop_assert!(mplus.flash.host_writes <= m.flash.host_writes);
        let m2 = run("m_n", &t, &s, &[("n", "2")]);
        prop_assert!(m2.read_hits() <= mplus.read_hits() && m2.flash.host_writes <= mplus.flash.host_writes);
        // C_T meets its quota.
        let ct = run("c_t", &t, &s, &[("quota", "50%")]);
        prop_assert!(ct.flash.erasures as f64 <= 0.5 * c.flash.erasures as f64);
    }
}

#[test]
fn m_is_belady_min_with_bypass_on_reads() {
    let path = std::env::temp_dir().join(format!("fcsim-offline-{}.lis", std::process::id()));
    let t = trace(7, 5000, 900, 0);
    let lines: Vec<String> = t.stream.keys.iter().map(|k| format!("{} 8 0 0", k * 8)).collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    for cache in [30u64, 90, 200] {
        let opts = fcsim::TraceOptions::default();
        let mut cfg = fcsim::SimConfig::new("min", fcsim::SizeSpec::Pages(cache));
        cfg.params.insert("bypass".into(), "true".into());
        let min = fcsim::simulate(path.to_str().unwrap(), &opts, &cfg, None, None).unwrap();
        let m = run("m", &t, &setup(cache, 0, 8), &[]);
        assert_eq!(min.counters.read_hits, m.read_hits(), "cache {cache}");
    }
    std::fs::remove_file(path).ok();
}

/// The hot-overwrite trace of issue 28: 64 hot blocks overwritten in turn, interleaved with
/// reads of blocks never seen before (always misses), and each new version of a hot block read
/// again exactly 100 accesses after it was written (hits for any cache that keeps it that
/// long). With `writes` false the hot blocks are read instead of overwritten.
fn hot_overwrite(n: usize, writes: bool) -> Trace {
    let mut due: std::collections::HashMap<usize, u64> = Default::default();
    let (mut k, mut o) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut hot, mut cold, mut turn) = (0u64, 1u64 << 32, false);
    for p in 0..n {
        if let Some(key) = due.remove(&p) {
            k.push(key);
            o.push(Op::Read);
            continue;
        }
        turn = !turn;
        if turn {
            k.push(hot % 64);
            o.push(if writes { Op::Write } else { Op::Read });
            due.insert(p + 100, hot % 64);
            hot += 1;
        } else {
            k.push(cold);
            o.push(Op::Read);
            cold += 1;
        }
    }
    Trace { stream: Stream::new(k, o).unwrap(), requests: n as u64, duration_ns: 86_400_000_000_000 }
}

fn flash_setup(cache: u64, dram: usize, ppb: u32, op: f64) -> Setup {
    let p: BTreeMap<String, String> = [
        ("capacity", cache.to_string()),
        ("pages_per_block", ppb.to_string()),
        ("channels", "1".into()),
        ("chips_per_channel", "1".into()),
        ("op", op.to_string()),
        ("reserve", "extra".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let device = DeviceConfig::build("offline", &p, 4096).unwrap().0;
    Setup { cache_pages: cache, dram_pages: dram, device, write_buffer: 4 }
}

fn rhr(b: &offline::Bounds) -> f64 {
    b.read_hits() as f64 / b.reads as f64
}

#[test]
fn ripq_plus_survives_hot_overwrites() {
    // A 1,024-page cache of 16-page containers (OP 7%, 68 containers), a 5% LRU DRAM tier.
    let s = flash_setup(1024, 51, 16, 0.07);
    let t = hot_overwrite(60_000, true);
    let lru = rhr(&run("lru-ftl", &t, &s, &[]));
    assert!((0.45..0.55).contains(&lru), "LRU {lru}");
    for points in ["1", "2", "8"] {
        for ow in ["promote", "insert"] {
            let r = rhr(&run("ripq+", &t, &s, &[("points", points), ("overwrite", ow)]));
            eprintln!("ripq+ points={points} overwrite={ow}: RHR {r:.4} (LRU {lru:.4})");
            assert!(r >= 0.9 * lru, "ripq+ points={points} overwrite={ow}: RHR {r} < 0.9 x LRU's {lru}");
        }
    }
    // Without the writes, the same reads.
    let t = hot_overwrite(60_000, false);
    let lru_ro = rhr(&run("lru-ftl", &t, &s, &[]));
    let r = rhr(&run("ripq+", &t, &s, &[]));
    assert!(r >= 0.9 * lru_ro, "read-only: ripq+ {r}, LRU {lru_ro}");
}

#[test]
fn pannier_endurance_target_of_half_the_rate_halves_flash_writes() {
    // Two read-mostly random traces over a day; Pannier unthrottled, then with an EPBPD target
    // of half its unthrottled EPBPD. Flash writes (host + copy-forward) within 10% of half:
    // the target counts erasures (a container written whole per erasure), the writes also
    // include the containers still live at the end, and the credit bucket is one flash's worth.
    let s = flash_setup(2000, 100, 16, 0.07);
    for (seed, writes) in [(5u64, 2u32), (6, 5)] {
        let t = trace(seed, 400_000, 40_000, writes);
        let free = run("pannier", &t, &s, &[]);
        let days = t.duration_ns as f64 / 86_400e9;
        let epbpd = free.flash.erasures as f64 / f64::from(free.shape.containers) / days;
        let half = run("pannier", &t, &s, &[("epbpd", &format!("{}", epbpd / 2.0))]);
        let (w0, w1) = ((free.flash.host_writes + free.flash.cf_writes) as f64, (half.flash.host_writes + half.flash.cf_writes) as f64);
        eprintln!(
            "seed {seed}: unthrottled {w0} flash writes, RHR {:.4}, EPBPD {epbpd:.2}; target {:.2}: {w1} ({:.3}), RHR {:.4}",
            rhr(&free),
            epbpd / 2.0,
            w1 / w0,
            rhr(&half)
        );
        assert!((w1 / w0 - 0.5).abs() <= 0.05, "seed {seed}: {w1} of {w0}");
        // Fewer insertions; not necessarily fewer read hits: the read misses cut are mostly
        // blocks never read again, whose insertion evicts others (seed 5: RHR 0.1932 throttled,
        // 0.1923 unthrottled, with credits spent per flash page written).
        assert!(half.flash.insertions < free.flash.insertions);
    }
}

#[test]
fn epbpd_needs_an_hour_of_trace() {
    use fcsim::metrics::epbpd_null_reason;
    assert_eq!(epbpd_null_reason(0).as_deref(), Some("the trace has no timestamps"));
    assert!(epbpd_null_reason(1_000_000_000).unwrap().contains("spans 1 s, under the 1 h"));
    assert!(epbpd_null_reason(3_599_000_000_000).is_some());
    assert_eq!(epbpd_null_reason(3_600_000_000_000), None);
}

/// Issue 41: RIPQ+ with its default settings (8 insertion points, overwrites inserted where
/// misses go, the cache's pages only) keeps at least 0.9x LRU's read hit ratio on a shipped
/// real trace with overwrites, at 2.5% of its working set with 32-page containers, as the
/// offline report runs it. With `overwrite=promote` (the default before) it kept 0.830x here,
/// and with `insert` 0.985x, while it cached 1.14x LRU's pages.
#[test]
fn ripq_plus_keeps_lrus_read_hits_on_a_real_trace_with_overwrites() {
    use fcsim::{simulate, SimConfig, SizeSpec, TraceOptions};
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/traces/diskmon_sys1.trace.gz");
    let rhr = |policy: &str| {
        let mut cfg = SimConfig::new(policy, SizeSpec::Percent(2.5));
        cfg.device_params.insert("pages_per_block".into(), "32".into());
        cfg.stack_params.insert("buffer_in".into(), "extra".into());
        let row = simulate(trace, &TraceOptions::default(), &cfg, None, None).unwrap();
        let b = &row.bounds.as_ref().unwrap().bounds;
        assert!(b.writes > b.reads / 2, "a trace with overwrites");
        b.read_hits() as f64 / b.reads as f64
    };
    let (lru, ripq) = (rhr("lru-ftl"), rhr("ripq+"));
    eprintln!("diskmon_sys1 at 2.5%: LRU {lru:.4}, RIPQ+ {ripq:.4} ({:.3}x)", ripq / lru);
    assert!(ripq >= 0.9 * lru, "RIPQ+ {ripq} < 0.9 x LRU's {lru}");
}
