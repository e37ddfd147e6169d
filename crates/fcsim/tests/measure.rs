//! Warm-up (`sim.warmup`) and the per-epoch table (`--epoch`) end to end: the epochs add up to
//! the row exactly; a warm-up leaves exactly the counts of the rest of the run; times are
//! refused where the run has none.

use fcsim::metrics::Value;
use fcsim::sim::{Epoch, Every, Warmup};
use fcsim::stack::Counters;
use fcsim::{simulate, ResultRow, SimConfig, SizeSpec, TraceOptions};
use std::collections::BTreeMap;

fn data(name: &str) -> String {
    format!("{}/../../data/traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

const MSR: &str = "msr_hm_0_excerpt1000.csv";

/// LRU at `size` over `device`, with `kv` as `--set` would give them (`device.`, `stack.`).
fn config(size: SizeSpec, device: Option<&str>, kv: &[(&str, &str)]) -> SimConfig {
    let mut cfg = SimConfig::new("lru", size);
    cfg.device = device.map(str::to_string);
    for (k, v) in kv {
        match k.split_once('.').unwrap() {
            ("device", key) => cfg.device_params.insert(key.into(), v.to_string()),
            ("stack", key) => cfg.stack_params.insert(key.into(), v.to_string()),
            _ => panic!("{k}"),
        };
    }
    cfg
}

fn with(mut cfg: SimConfig, warmup: Option<&str>, epoch: Option<&str>) -> SimConfig {
    cfg.warmup = warmup.and_then(|w| Warmup::parse(w).unwrap());
    cfg.epoch = epoch.map(|e| Every::parse(e).unwrap());
    cfg
}

fn run_on(trace: &str, opts: &TraceOptions, cfg: &SimConfig) -> fcsim::Result<ResultRow> {
    simulate(trace, opts, cfg, None, None)
}

fn run(trace: &str, cfg: &SimConfig) -> ResultRow {
    run_on(trace, &TraceOptions::default(), cfg).unwrap()
}

/// The counters of several epochs added up.
fn total(epochs: &[Epoch]) -> (u64, Counters, [u64; 4]) {
    let mut c = Counters::default();
    let mut flash = [0u64; 4];
    let mut requests = 0;
    for e in epochs {
        requests += e.requests;
        let x = &e.counters;
        for (a, b) in [
            (&mut c.accesses, x.accesses),
            (&mut c.reads, x.reads),
            (&mut c.writes, x.writes),
            (&mut c.trims, x.trims),
            (&mut c.hits, x.hits),
            (&mut c.read_hits, x.read_hits),
            (&mut c.write_hits, x.write_hits),
            (&mut c.read_hits_dirty, x.read_hits_dirty),
            (&mut c.write_hits_dirty, x.write_hits_dirty),
            (&mut c.insertions, x.insertions),
            (&mut c.evictions, x.evictions),
            (&mut c.dirty_evictions, x.dirty_evictions),
            (&mut c.backing_reads, x.backing_reads),
            (&mut c.backing_writes, x.backing_writes),
            (&mut c.flushed, x.flushed),
            (&mut c.invalidations, x.invalidations),
        ] {
            *a += b;
        }
        if let Some(f) = e.flash {
            for (a, b) in flash.iter_mut().zip([f.host_reads, f.host_writes, f.gc_copies, f.erasures]) {
                *a += b;
            }
        }
    }
    (requests, c, flash)
}

/// The row's flash counts: host reads, host writes, GC copies, erasures.
fn flash(row: &ResultRow) -> [u64; 4] {
    let d = row.device.as_ref().unwrap();
    [d.host_page_reads, d.host_page_writes, d.gc_page_copies, d.erasures]
}

/// Every count of the epochs adds up to the row's exactly; the epochs tile the run.
fn assert_epochs_add_up(row: &ResultRow) {
    let e = &row.epochs;
    assert!(e.len() > 1, "{} epochs", e.len());
    let (requests, c, f) = total(e);
    let mut want = row.counters;
    want.requests = 0;
    assert_eq!((requests, c), (row.counters.requests, want));
    if row.device.is_some() {
        assert_eq!(f, flash(row));
    }
    for (i, w) in e.windows(2).enumerate() {
        assert_eq!((w[0].index, w[1].index), (i as u64, i as u64 + 1));
        assert_eq!(w[0].end_ns, w[1].start_ns);
    }
}

#[test]
fn epochs_add_up_to_the_row_over_an_ssd_and_as_a_flash_cache() {
    let trace = data(MSR);
    // A DRAM buffer over the gasa SSD, made small and aged so that GC copies and erases.
    let aged = [("device.capacity", "16MiB"), ("device.fill", "1"), ("device.steady", "1")];
    let flash_cache = [("stack.kind", "ssd-cache"), ("stack.write", "back")];
    let behind_dram = [("stack.kind", "ssd-cache"), ("stack.write", "back"), ("stack.dram", "0.2")];
    let cases: [(&[(&str, &str)], &str); 4] = [(&[], "10s"), (&aged, "10s"), (&flash_cache, "7s"), (&behind_dram, "100")];
    let mut gc = 0;
    for (kv, epoch) in cases {
        let row = run(&trace, &with(config(SizeSpec::Percent(10.0), Some("gasa"), kv), None, Some(epoch)));
        assert_epochs_add_up(&row);
        gc += row.device.as_ref().unwrap().erasures;
        // Dirty pages left at the end are flushed in the last epoch.
        let last = row.epochs.last().unwrap();
        assert_eq!(last.counters.flushed, row.counters.flushed);
        // The columns of the table: one row per epoch, the run's own columns first.
        let cols = row.epoch_columns();
        assert_eq!(cols.len(), row.epochs.len());
        let names: Vec<&str> = cols[0].iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(&names[..7], ["trace", "policy", "size_pages", "device", "time_scale", "queue_depth", "epoch"]);
        let hit_sum: u64 = cols
            .iter()
            .map(|r| r.iter().find(|(n, _)| n == "hits").map(|(_, v)| v.clone()).unwrap())
            .map(|v| match v {
                Value::Int(i) => i,
                v => panic!("{v:?}"),
            })
            .sum();
        assert_eq!(hit_sum, row.counters.hits);
    }
    assert!(gc > 0, "no case collected garbage");
    // Time epochs span their full length from the first request, empty ones included.
    let row = run(&trace, &with(config(SizeSpec::Percent(10.0), Some("gasa"), &[]), None, Some("10s")));
    assert!(row.epochs.iter().all(|e| e.end_ns - e.start_ns == 10_000_000_000));
    assert_eq!(row.epochs[0].start_ns, 0);
    // More epochs than a table should hold (128 s in 10 us epochs) is refused, not allocated.
    let err = run_on(&trace, &TraceOptions::default(), &with(config(SizeSpec::Percent(10.0), Some("gasa"), &[]), None, Some("10us")))
        .unwrap_err()
        .to_string();
    assert!(err.contains("epoch=10us: the run spans more than 1000000 epochs"), "{err}");
    // Without a device nothing is timed, but the counts add up all the same.
    let row = run(&trace, &with(config(SizeSpec::Pages(50), None, &[]), None, Some("200")));
    assert_epochs_add_up(&row);
    assert_eq!(row.epochs.len(), 5);
    assert!(row.epochs.iter().all(|e| e.requests == 200 && e.flash.is_none() && e.resp_mean_ns.is_none()));
}

fn golden_opts() -> TraceOptions {
    let mut params = BTreeMap::new();
    for (k, v) in [("time", "t"), ("op", "op"), ("offset", "page"), ("offset_unit", "4096"), ("size", "pages"), ("size_unit", "4096")] {
        params.insert(k.to_string(), v.to_string());
    }
    TraceOptions { format: Some("csv".into()), params, ..TraceOptions::default() }
}

#[test]
fn warmup_of_k_requests_by_hand() {
    // golden.csv, LRU of 3 pages (tests/sim.rs traces the whole run). Warm-up of 4 requests:
    // R1 R2 W3 R1 leave [1 3* 2]; then counted: W4 miss evicts 2 (clean) [4* 1 3*]; R2 miss
    // evicts 3 (dirty, written back) [2 4* 1]; R3 miss evicts 1 [3 2 4*], R4 hit (dirty)
    // [4* 3 2]; T4 drops 4; R4 miss [4 3 2].
    let g = fixture("golden.csv");
    let row = run_on(&g, &golden_opts(), &with(config(SizeSpec::Pages(3), None, &[]), Some("4"), None)).unwrap();
    let want = Counters {
        requests: 5,
        accesses: 5,
        reads: 4,
        writes: 1,
        trims: 1,
        hits: 1,
        read_hits: 1,
        write_hits: 0,
        read_hits_dirty: 1,
        write_hits_dirty: 0,
        insertions: 4,
        evictions: 3,
        dirty_evictions: 1,
        backing_reads: 3,
        backing_writes: 1,
        flushed: 0,
        invalidations: 0,
    };
    assert_eq!(row.counters, want);
    let w = row.warmup.unwrap();
    assert_eq!((w.warmup, w.requests), (Warmup::Requests(4), 4));
    let col = |row: &ResultRow, name: &str| row.columns().into_iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!((col(&row, "warmup"), col(&row, "warmup_requests")), (Value::Str("4".into()), Value::Int(4)));
    // `full`: the cache of 3 is full after R1 R2 W3, so those three are left out: the rest is
    // the whole run's counts less their 3 misses, 3 insertions and 2 reads from the backing store.
    let row = run_on(&g, &golden_opts(), &with(config(SizeSpec::Pages(3), None, &[]), Some("full"), None)).unwrap();
    assert_eq!(row.warmup.unwrap().requests, 3);
    let c = row.counters;
    assert_eq!((c.requests, c.accesses, c.hits, c.insertions, c.evictions, c.backing_reads, c.backing_writes), (6, 6, 2, 4, 3, 3, 1));
    // Without a warm-up the columns are null.
    let row = run_on(&g, &golden_opts(), &config(SizeSpec::Pages(3), None, &[])).unwrap();
    assert_eq!((col(&row, "warmup"), col(&row, "warmup_requests"), col(&row, "warmup_s")), (Value::Null, Value::Null, Value::Null));
    // A warm-up as long as the trace (9 requests) measures nothing: refused, naming the key.
    let err = run_on(&g, &golden_opts(), &with(config(SizeSpec::Pages(3), None, &[]), Some("9"), None)).unwrap_err().to_string();
    assert!(err.contains("sim.warmup=9") && err.contains("the trace has 9 requests") && err.contains("nothing would be measured"), "{err}");
    // A cache that never fills: likewise.
    let err = run_on(&g, &golden_opts(), &with(config(SizeSpec::Pages(50), None, &[]), Some("full"), None)).unwrap_err().to_string();
    assert!(err.contains("sim.warmup=full") && err.contains("held 4 of its 50 pages"), "{err}");
}

/// The run after a warm-up of `warmup` equals, counter for counter, the epochs after the
/// first of the same run with epochs of that length: the warm-up resets what the epochs
/// difference.
fn assert_warmup_is_the_tail(kv: &[(&str, &str)], warmup: &str) {
    let trace = data(MSR);
    let base = config(SizeSpec::Percent(10.0), Some("gasa"), kv);
    let split = run(&trace, &with(base.clone(), None, Some(warmup)));
    let warm = run(&trace, &with(base, Some(warmup), None));
    let (requests, c, f) = total(&split.epochs[1..]);
    let mut got = warm.counters;
    got.requests = 0;
    assert_eq!((warm.counters.requests, got), (requests, c), "{kv:?}");
    assert_eq!(flash(&warm), f, "{kv:?}");
    let w = warm.warmup.unwrap();
    assert_eq!((w.requests, w.ns), (split.epochs[0].requests, split.epochs[0].end_ns));
    assert_eq!(warm.device.as_ref().unwrap().duration_ns + w.ns, split.device.as_ref().unwrap().duration_ns);
    // Erase counts restart with the erasures: the wear is the measured run's.
    let d = warm.device.as_ref().unwrap();
    assert!(d.wear_max <= d.erasures);
    if split.epochs.len() == 2 {
        // One measured epoch: its response times are the warm run's, value for value.
        let r = &d.response;
        assert_eq!((r.mean(), r.quantile(0.99)), (split.epochs[1].resp_mean_ns, split.epochs[1].resp_p99_ns));
    }
}

#[test]
fn a_warmup_resets_every_counter_of_the_tier_and_the_devices() {
    let aged = [("device.capacity", "16MiB"), ("device.fill", "1"), ("device.steady", "1")];
    assert_warmup_is_the_tail(&aged, "500");
    assert_warmup_is_the_tail(&aged, "60s");
    assert_warmup_is_the_tail(&[("stack.kind", "ssd-cache"), ("stack.write", "back"), ("stack.dram", "0.2")], "500");
    assert_warmup_is_the_tail(&[("stack.kind", "ssd-cache")], "40s");
    // A time warm-up ends exactly at its time.
    let row = run(&data(MSR), &with(config(SizeSpec::Percent(10.0), Some("gasa"), &[]), Some("1min"), None));
    assert_eq!(row.warmup.unwrap().ns, 60_000_000_000);
}

#[test]
fn untimed_traces_take_request_counts_and_refuse_times() {
    let lis = fixture("arc_p2.lis");
    let cfg = config(SizeSpec::Pages(20), Some("gasa"), &[]);
    let row = run(&lis, &with(cfg.clone(), Some("2"), Some("3")));
    assert_epochs_add_up(&row);
    assert_eq!(row.epochs.iter().map(|e| e.requests).collect::<Vec<_>>(), [3, 3, 2]);
    // Times and response times of an untimed trace are null in the table.
    for r in row.epoch_columns() {
        for (name, v) in r {
            if fcsim::metrics::EPOCH_UNTIMED_NULL.contains(&name.as_str()) {
                assert_eq!(v, Value::Null, "{name}");
            }
        }
    }
    let err = run_on(&lis, &TraceOptions::default(), &with(cfg.clone(), None, Some("60s"))).unwrap_err().to_string();
    assert!(err.contains("epoch=60s") && err.contains("no timestamps") && err.contains("--epoch 100000"), "{err}");
    let err = run_on(&lis, &TraceOptions::default(), &with(cfg.clone(), Some("60s"), None)).unwrap_err().to_string();
    assert!(err.contains("sim.warmup=60s") && err.contains("no timestamps"), "{err}");
    // check() refuses it before the run, too.
    assert!(fcsim::check(&lis, &TraceOptions::default(), &with(cfg.clone(), Some("60s"), None), None).is_err());
    // A closed loop gives the run simulated time: a time is then taken.
    let mut closed = with(cfg, Some("20us"), Some("20us"));
    closed.queue_depth = 4;
    let row = run(&lis, &closed);
    assert_eq!(row.warmup.unwrap().ns, 20_000);
    assert_epochs_add_up(&row);
}

#[test]
fn offline_bounds_refuse_warmup_and_epochs() {
    let trace = data(MSR);
    for (w, e, key) in [(Some("100"), None, "sim.warmup=100"), (None, Some("10s"), "epoch=10s")] {
        let mut cfg = with(SimConfig::new("m+", SizeSpec::Percent(10.0)), w, e);
        cfg.stack_params.insert("dram".into(), "0".into());
        let err = run_on(&trace, &TraceOptions::default(), &cfg).unwrap_err().to_string();
        assert!(err.contains(key) && err.contains("offline bound"), "{err}");
        assert!(fcsim::check(&trace, &TraceOptions::default(), &cfg, None).is_err());
    }
}

#[test]
fn warmup_and_epoch_values() {
    assert_eq!(Warmup::parse("100000").unwrap(), Some(Warmup::Requests(100_000)));
    assert_eq!(Warmup::parse("1e5").unwrap(), Some(Warmup::Requests(100_000)));
    assert_eq!(Warmup::parse("5min").unwrap(), Some(Warmup::Time(300_000_000_000)));
    assert_eq!(Warmup::parse(" full ").unwrap(), Some(Warmup::Full));
    assert_eq!(Warmup::parse("0").unwrap(), None);
    assert_eq!(Every::parse("60s").unwrap(), Every::Time(60_000_000_000));
    assert_eq!(Every::parse("250ms").unwrap(), Every::Time(250_000_000));
    assert_eq!(Every::parse("1.5h").unwrap().to_string(), "5400s");
    assert_eq!(
        (Every::parse("0.25s").unwrap().to_string(), Every::parse("1500ns").unwrap().to_string()),
        ("250ms".into(), "1500ns".into())
    );
    for bad in ["-5s", "2.5", "60 parsecs", "s", "0s", "1e300h"] {
        let err = Every::parse(bad).unwrap_err().to_string();
        assert!(err.starts_with(&format!("epoch={bad}")), "{bad}: {err}");
    }
    assert!(Warmup::parse("soon").unwrap_err().to_string().starts_with("sim.warmup=soon"));
}

fn value(row: &ResultRow, name: &str) -> Value {
    row.columns().into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no column {name}")).1
}

fn float(row: &ResultRow, name: &str) -> f64 {
    match value(row, name) {
        Value::Float(x) => x,
        v => panic!("{name}: {v:?}"),
    }
}

#[test]
fn queue_means_are_bounded_by_the_ops_and_the_flush_is_apart() {
    // msr's 1,000 requests squeezed into 127 ns (issue 42): the ops' sojourns over the arrivals'
    // span made 3.3e8 flash ops in the system on average, out of 2,323. Over the time the flash
    // held the run's work (to its last completion), at most the ops.
    let mut cfg = config(SizeSpec::Pages(10), Some("gasa"), &[]);
    cfg.time_scale = 1e-9;
    let row = run(&data(MSR), &cfg);
    let d = row.device.as_ref().unwrap();
    assert_eq!(d.host_page_reads + d.host_page_writes + d.gc_page_copies, 2_323);
    let q = float(&row, "flash_queue_mean");
    assert!(q > 1.0 && q <= (d.load.ops - d.load.flush.ops) as f64, "{q}");
    assert!(float(&row, "drain_s") > 1e-3 && float(&row, "duration_s") < 1e-6);
    // Every epoch's mean is bounded by its own ops too, and the last epoch's offered load
    // leaves out the end-of-run flush (LRU at 90% over gasa flushes 285 dirty pages).
    let row = run(&data(MSR), &with(config(SizeSpec::Percent(90.0), Some("gasa"), &[]), None, Some("20s")));
    assert_eq!(value(&row, "flush_pages"), Value::Int(285));
    for (e, cols) in row.epochs.iter().zip(row.epoch_columns()) {
        let get = |n: &str| cols.iter().find(|(c, _)| c == n).unwrap().1.clone();
        let l = e.loads.flash.unwrap();
        if let Value::Float(q) = get("flash_queue_mean") {
            assert!(q <= (l.ops - l.flush.ops) as f64, "epoch {}: {q} of {} ops", e.index, l.ops);
        }
        let span = (e.end_ns - e.start_ns) as f64 * l.servers as f64;
        assert_eq!(get("flash_offered_load"), Value::Float((l.busy_ns - l.flush.busy_ns) as f64 / span));
    }
    let last = row.epochs.last().unwrap().loads.flash.unwrap();
    assert!(last.flush.ops > 0 && row.epochs[..row.epochs.len() - 1].iter().all(|e| e.loads.flash.unwrap().flush.ops == 0));
}
