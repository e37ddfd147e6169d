//! The simulation loop end to end on tiny traces with hand-computed answers, the conformance
//! kit run over every registered policy, and trace conversion round trips.

use fcsim::device::no_device;
use fcsim::policy::{self, POLICIES};
use fcsim::request::{Op, NEVER};
use fcsim::stack::{Counters, Tier};
use fcsim::trace::{self, convert, fct, TraceOptions};
use fcsim::{simulate, SimConfig, SizeSpec};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn golden_opts() -> TraceOptions {
    let mut params = BTreeMap::new();
    for (k, v) in [("time", "t"), ("op", "op"), ("offset", "page"), ("offset_unit", "4096"), ("size", "pages"), ("size_unit", "4096")] {
        params.insert(k.to_string(), v.to_string());
    }
    TraceOptions { format: Some("csv".into()), params, ..TraceOptions::default() }
}

fn golden(policy: &str) -> Counters {
    let row = simulate(&fixture("golden.csv"), &golden_opts(), &SimConfig::new(policy, SizeSpec::Pages(3)), None, None).unwrap();
    assert_eq!(row.size_pages, 3);
    row.counters
}

#[test]
fn golden_lru() {
    // Capacity 3, MRU first. R1 miss [1]; R2 miss [2 1]; W3 miss, admitted dirty, nothing read
    // [3* 2 1]; R1 hit [1 3* 2]; W4 miss evicts 2 (clean) [4* 1 3*]; R2 miss evicts 3 (dirty:
    // written back) [2 4* 1]; R3 miss evicts 1 [3 2 4*]; R4 hit [4* 3 2]; T4 drops 4 unwritten
    // [3 2]; R4 miss [4 3 2]. Nothing dirty is left to flush. Of the two read hits, R4's found
    // its page dirty.
    let c = golden("lru");
    let want = Counters {
        requests: 9,
        accesses: 9,
        reads: 7,
        writes: 2,
        trims: 1,
        hits: 2,
        read_hits: 2,
        write_hits: 0,
        read_hits_dirty: 1,
        write_hits_dirty: 0,
        insertions: 7,
        evictions: 3,
        dirty_evictions: 1,
        backing_reads: 5,
        backing_writes: 1,
        flushed: 0,
        invalidations: 0,
    };
    assert_eq!(c, want);
}

#[test]
fn golden_fifo() {
    // Capacity 3, newest first. R1, R2, W3 miss [3* 2 1]; R1 hit; W4 miss evicts 1 (clean)
    // [4* 3* 2]; R2 hit; R3 hit; R4 hit; T4 drops 4 [3* 2]; R4 miss [4 3* 2]. 3 is still dirty
    // at the end: flushed.
    let c = golden("fifo");
    assert_eq!((c.hits, c.read_hits, c.insertions, c.evictions, c.dirty_evictions), (4, 4, 5, 1, 0));
    assert_eq!((c.backing_reads, c.backing_writes, c.flushed), (3, 1, 1));
}

#[test]
fn percent_sizes_use_the_working_set() {
    // golden.csv touches pages 1..=4: 50% is 2 pages.
    let row = simulate(&fixture("golden.csv"), &golden_opts(), &SimConfig::new("lru", SizeSpec::Percent(50.0)), None, None).unwrap();
    assert_eq!(row.size_pages, 2);
}

/// Feeds (key, op) pairs to a fresh tier of `policy`, checking occupancy after each access.
fn drive(policy: &str, cap: usize, ops: &[(u64, Op)]) -> Counters {
    let (p, _) = policy::build(policy, cap, BTreeMap::new()).unwrap();
    let mut tier = Tier::new(p, cap);
    for (i, &(k, op)) in ops.iter().enumerate() {
        tier.access(k, op, i as u64, NEVER, 0, &mut no_device()).unwrap();
        assert!(tier.resident() <= cap, "{policy}: {} pages resident in a cache of {cap}", tier.resident());
    }
    tier.flush(0, &mut no_device()).unwrap();
    tier.counters
}

fn ops_strategy(trims: bool) -> impl Strategy<Value = Vec<(u64, Op)>> {
    let op = if trims {
        prop_oneof![6 => Just(Op::Read), 3 => Just(Op::Write), 1 => Just(Op::Trim)].boxed()
    } else {
        prop_oneof![Just(Op::Read), Just(Op::Write)].boxed()
    };
    prop::collection::vec((0u64..40, op), 1..400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The conformance kit: every registered policy, on random read/write/trim sequences.
    #[test]
    fn conformance(ops in ops_strategy(true), cap in 1usize..24) {
        for p in POLICIES {
            let c = drive(p.name, cap, &ops);
            let misses = c.accesses - c.hits;
            prop_assert_eq!(c.accesses + c.trims, ops.len() as u64);
            prop_assert_eq!(c.hits, c.read_hits + c.write_hits);
            prop_assert_eq!(c.reads + c.writes, c.accesses);
            prop_assert!(c.insertions <= misses);
            prop_assert_eq!(c.backing_reads, c.reads - c.read_hits);
            prop_assert!(c.dirty_evictions <= c.evictions && c.evictions <= c.insertions);
            prop_assert!(c.read_hits_dirty <= c.read_hits && c.write_hits_dirty <= c.write_hits);
            // Every dirty page is written back once: on eviction or in the final flush.
            prop_assert!(c.dirty_evictions + c.flushed <= c.writes);
            // Same input, same result.
            prop_assert_eq!(c, drive(p.name, cap, &ops));
        }
    }

    /// MIN is optimal: it never misses more than any online policy at the same size. With
    /// bypass (a missed page used no sooner than every resident one is not admitted) it is the
    /// bound for policies that may decline admission too (LARC), not only demand paging.
    #[test]
    fn min_misses_at_most_every_online_policy(ops in ops_strategy(false), cap in 1usize..24) {
        let keys: Vec<u64> = ops.iter().map(|o| o.0).collect();
        let next = convert::next_access(&keys).unwrap();
        let bypass = BTreeMap::from([("bypass".to_string(), "true".to_string())]);
        let (p, _) = policy::build("min", cap, bypass).unwrap();
        let mut min = Tier::new(p, cap);
        for (i, &(k, op)) in ops.iter().enumerate() {
            min.access(k, op, i as u64, next[i], 0, &mut no_device()).unwrap();
        }
        let min_misses = min.counters.accesses - min.counters.hits;
        for p in POLICIES.iter().filter(|p| !p.offline) {
            let c = drive(p.name, cap, &ops);
            prop_assert!(min_misses <= c.accesses - c.hits, "{} beats MIN at {}", p.name, cap);
        }
    }

    /// The exact MRC equals LRU simulated at every size.
    #[test]
    fn exact_mrc_equals_lru_at_every_size(ops in ops_strategy(false)) {
        let mut sd = fcsim::mrc::StackDistances::new();
        for &(k, _) in &ops {
            sd.access(k).unwrap();
        }
        let mrc = sd.finish();
        for cap in 1..=41 {
            let c = drive("lru", cap, &ops);
            prop_assert_eq!(mrc.accesses, c.accesses);
            prop_assert_eq!(mrc.misses(cap), c.accesses - c.hits, "size {}", cap);
        }
    }

    /// LRU has the inclusion property: misses never rise with the cache size.
    #[test]
    fn lru_misses_never_rise_with_size(ops in ops_strategy(false), cap in 1usize..30) {
        let a = drive("lru", cap, &ops);
        let b = drive("lru", cap + 1, &ops);
        prop_assert!(b.accesses - b.hits <= a.accesses - a.hits);
    }
}

fn read_all(path: &str, opts: &TraceOptions) -> Vec<fcsim::request::HostRequest> {
    let mut r = trace::open(path, opts).unwrap();
    let mut v = Vec::new();
    while let Some(x) = r.next_request().unwrap() {
        v.push(x);
    }
    v
}

#[test]
fn fct_round_trip_with_next_access() {
    let dir = std::env::temp_dir().join(format!("fcsim-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("tpcc.fct");
    let src = fixture("mqsim_tpcc.trace.zst");
    let info = convert::convert(&src, &TraceOptions::default(), &out, convert::Target::Fct, 4096, true, &mut |_, _| true).unwrap();
    let back = read_all(out.to_str().unwrap(), &TraceOptions::default());
    assert_eq!(back, read_all(&src, &TraceOptions::default()));
    let h = fct::read_header(&out).unwrap();
    assert_eq!(
        (h.requests, h.reads, h.writes, h.page_accesses, h.unique_pages),
        (10, info.reads, info.writes, info.page_accesses, info.unique_pages)
    );
    assert_eq!(h.source_format, "mqsim");
    assert!(!h.untimed && trace::open(out.to_str().unwrap(), &TraceOptions::default()).unwrap().timed());
    // An untimed source (ARC: requests stamped with their index) stays untimed in binary.
    let arc = dir.join("p2.fct");
    convert::convert(&fixture("arc_p2.lis"), &TraceOptions::default(), &arc, convert::Target::Fct, 4096, false, &mut |_, _| true).unwrap();
    assert!(fct::read_header(&arc).unwrap().untimed);
    assert!(!trace::open(arc.to_str().unwrap(), &TraceOptions::default()).unwrap().timed());
    let mut r = trace::open(out.to_str().unwrap(), &TraceOptions::default()).unwrap();
    let next = r.next_access_column(4096).unwrap().unwrap();
    assert_eq!(next.len() as u64, h.page_accesses);
    assert!(r.next_access_column(512).unwrap().is_none());
    // The same simulation from text and from binary.
    let cfg = SimConfig::new("lru", SizeSpec::Pages(8));
    let a = simulate(&src, &TraceOptions::default(), &cfg, None, None).unwrap();
    let b = simulate(out.to_str().unwrap(), &TraceOptions::default(), &cfg, None, None).unwrap();
    assert_eq!(a.counters, b.counters);
    // A truncated .fct is refused when opened (its length does not match its header); inside a
    // compressed file, whose length says nothing, at the byte offset of the missing record.
    let bytes = std::fs::read(&out).unwrap();
    let cut = dir.join("cut.fct");
    let cut_bytes = &bytes[..fct::HEADER + 5 * fct::RECORD + 7];
    std::fs::write(&cut, cut_bytes).unwrap();
    let e = trace::open(cut.to_str().unwrap(), &TraceOptions::default()).err().unwrap().to_string();
    assert!(
        e.ends_with("cut.fct: bad .fct: the header promises 10 records and 30 next-access entries, which the file's 255 bytes do not hold"),
        "{e}"
    );
    let cut = dir.join("cut.fct.gz");
    let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(&cut).unwrap(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, cut_bytes).unwrap();
    gz.finish().unwrap();
    let mut r = trace::open(cut.to_str().unwrap(), &TraceOptions::default()).unwrap();
    let e = std::iter::from_fn(|| r.next_request().transpose()).find_map(Result::err).unwrap().to_string();
    assert!(e.contains("cut.fct.gz at byte 248: truncated .fct: header promises 10 records"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn page_sequences_for_libcachesim_round_trip() {
    let dir = std::env::temp_dir().join(format!("fcsim-test-lcs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = fixture("arc_p2.lis");
    let csv = dir.join("p2.csv");
    let og = dir.join("p2.oracleGeneral.bin");
    convert::convert(&src, &TraceOptions::default(), &csv, convert::Target::LcsCsv, 4096, false, &mut |_, _| true).unwrap();
    convert::convert(&src, &TraceOptions::default(), &og, convert::Target::OracleGeneral, 4096, false, &mut |_, _| true).unwrap();
    // Page keys of the original, split into 4 KiB pages.
    let splitter = fcsim::request::PageSplitter::new(4096, fcsim::request::KeyUnit::Bytes);
    let want: Vec<u64> = read_all(&src, &TraceOptions::default())
        .iter()
        .flat_map(|r| {
            let (f, n) = splitter.pages(r).unwrap();
            f..f + n
        })
        .collect();
    let ids = |p: &std::path::Path| read_all(p.to_str().unwrap(), &TraceOptions::default()).iter().map(|r| r.offset).collect::<Vec<_>>();
    assert_eq!(ids(&csv), want);
    assert_eq!(ids(&og), want);
    // The CSV keeps each access's operation (an `op` column, read back by its header name);
    // oracleGeneral has none.
    let tpcc = fixture("mqsim_tpcc.trace");
    let csv = dir.join("tpcc.csv");
    convert::convert(&tpcc, &TraceOptions::default(), &csv, convert::Target::LcsCsv, 4096, false, &mut |_, _| true).unwrap();
    assert!(std::fs::read_to_string(&csv).unwrap().starts_with("time,obj_id,obj_size,op\n"));
    let ops = |reqs: Vec<fcsim::request::HostRequest>| {
        reqs.iter()
            .flat_map(|r| std::iter::repeat(r.op).take(splitter.pages(r).unwrap().1 as usize))
            .filter(|op| *op != fcsim::request::Op::Trim)
            .collect::<Vec<_>>()
    };
    let back = read_all(csv.to_str().unwrap(), &TraceOptions::default());
    assert_eq!(back.iter().map(|r| r.op).collect::<Vec<_>>(), ops(read_all(&tpcc, &TraceOptions::default())));
    assert!(back.iter().any(|r| r.op == fcsim::request::Op::Write));
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(names.iter().all(|n| !n.contains(".tmp")), "{names:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn failed_conversion_leaves_no_file() {
    let dir = std::env::temp_dir().join(format!("fcsim-test-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("bad.fct");
    let e =
        convert::convert(&fixture("msr_bad_line.csv"), &TraceOptions::default(), &out, convert::Target::Fct, 4096, false, &mut |_, _| true);
    assert!(e.is_err());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).ok();
}
