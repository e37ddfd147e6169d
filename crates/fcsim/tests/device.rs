//! The flash device against closed forms, hand-computed timing and invariants.

use fcsim::device::config::GcPolicy;
use fcsim::device::ftl::Ftl;
use fcsim::device::geometry::Geometry;
use fcsim::device::{DeviceConfig, Flash};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

/// Principal branch of Lambert's W on (−1/e, 0], by Halley's iteration.
fn lambert_w0(x: f64) -> f64 {
    let mut w = if x < -0.25 { -1.0 + (2.0 * (1.0 + std::f64::consts::E * x)).sqrt() } else { x };
    for _ in 0..50 {
        let ew = w.exp();
        let f = w * ew - x;
        w -= f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
    }
    w
}

/// Write amplification of FIFO cleaning under uniform random writes (Desnoyers, SYSTOR 2012; not
/// in the seed papers' reference lists):
/// A = α / (α + W0(−α·e^(−α))), α = usable physical pages / user pages.
fn fifo_wa(alpha: f64) -> f64 {
    alpha / (alpha + lambert_w0(-alpha * (-alpha).exp()))
}

const RESERVE: u32 = 2;

/// Fills a one-plane drive, overwrites it to steady state, and returns the write amplification
/// of `measure` × user further uniform random single-page writes, with α.
fn steady_wa(op: f64, gc: GcPolicy) -> (f64, f64) {
    let geo = Geometry { channels: 1, chips_per_channel: 1, dies: 1, planes: 1, blocks: 1024, pages_per_block: 64, page_size: 4096 };
    let physical = geo.physical_pages();
    let user = (physical as f64 / (1.0 + op)).floor() as u64;
    let mut ftl = Ftl::new(geo, user, gc, RESERVE);
    for lpn in 0..user as u32 {
        ftl.write(lpn, 0).unwrap();
    }
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..4 * user {
        ftl.write(rng.gen_range(0..user as u32), 0).unwrap();
    }
    ftl.reset_stats();
    for _ in 0..6 * user {
        ftl.write(rng.gen_range(0..user as u32), 0).unwrap();
    }
    ftl.check();
    let s = ftl.stats;
    let alpha = (physical - u64::from(RESERVE * geo.pages_per_block)) as f64 / user as f64;
    ((s.host_writes + s.gc_copies) as f64 / s.host_writes as f64, alpha)
}

#[test]
fn lambert_w_is_right() {
    for x in [-0.3678, -0.3, -0.1, -0.01, 0.0] {
        let w = lambert_w0(x);
        assert!((w * w.exp() - x).abs() < 1e-12, "{x}");
        assert!(w >= -1.0);
    }
}

#[test]
fn fifo_write_amplification_matches_the_closed_form() {
    // One plane of 1024 blocks × 64 pages; the GC trigger keeps 2 blocks free (it runs when a
    // plane's free list drops below 2 blocks), so α = (physical − 2 × 64) / user.
    for op in [0.07, 0.15, 0.28, 0.50] {
        let (fifo, alpha) = steady_wa(op, GcPolicy::Fifo);
        let model = fifo_wa(alpha);
        let greedy = steady_wa(op, GcPolicy::Greedy).0;
        println!("op {op}: alpha {alpha:.4} model {model:.3} fifo {fifo:.3} greedy {greedy:.3}");
        assert!((fifo - model).abs() / model < 0.05, "op {op}: FIFO WA {fifo:.3} vs closed form {model:.3}");
        assert!(greedy <= fifo, "op {op}: greedy {greedy:.3} > FIFO {fifo:.3}");
    }
}

fn small_device(gc: &str, placement: &str) -> Flash {
    let kv = [
        ("channels", "2"),
        ("chips_per_channel", "2"),
        ("planes", "2"),
        ("blocks", "16"),
        ("pages_per_block", "8"),
        ("op", "0.3"),
        ("gc", gc),
        ("placement", placement),
        ("gc_threshold", "0.1"),
    ];
    let m: BTreeMap<String, String> = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Flash::new(DeviceConfig::build("gasa", &m, 4096).unwrap().0, None).unwrap()
}

#[derive(Debug, Clone)]
enum FlashOp {
    Read(u32),
    Write(u32),
    Trim(u32),
}

fn op_strategy() -> impl Strategy<Value = FlashOp> {
    prop_oneof![
        1 => (0u32..400).prop_map(FlashOp::Read),
        6 => (0u32..400).prop_map(FlashOp::Write),
        1 => (0u32..400).prop_map(FlashOp::Trim),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On random op sequences: the FTL's mapping and block accounting hold (valid pages = mapped
    /// logical pages; free + valid + invalid = physical; no block is erased holding valid data,
    /// checked inside `Ftl::check` and by a debug assertion at erase time); flash writes = host
    /// writes + GC copies; erasures × pages per block ≥ flash writes − initially free pages; and
    /// no chip ever runs two ops at once.
    #[test]
    fn ftl_and_timing_invariants(
        ops in proptest::collection::vec((op_strategy(), 0u64..300_000), 1..1500),
        gc in prop_oneof![Just("greedy"), Just("fifo"), Just("cost-benefit")],
        placement in prop_oneof![Just("static"), Just("dynamic")],
    ) {
        let mut f = small_device(gc, placement);
        f.log_ops();
        let user = f.cfg.user_pages as u32;
        let physical = f.cfg.geometry.physical_pages();
        let ppb = u64::from(f.cfg.geometry.pages_per_block);
        let mut t = 0;
        let mut mapped = std::collections::HashSet::new();
        for (op, dt) in ops {
            t += dt;
            match op {
                FlashOp::Read(l) => { f.read(l % user, t).unwrap(); }
                FlashOp::Write(l) => { f.write(l % user, t).unwrap(); mapped.insert(l % user); }
                FlashOp::Trim(l) => { f.trim(l % user); mapped.remove(&(l % user)); }
            }
        }
        let (free, valid, invalid) = f.ftl().check();
        prop_assert_eq!(valid, mapped.len() as u64);
        prop_assert_eq!(free + valid + invalid, physical);
        let s = f.stats();
        let flash_writes = s.host_writes + s.gc_copies;
        prop_assert!(s.erasures * ppb >= flash_writes.saturating_sub(physical));
        // Host writes + GC copies = pages programmed, counted from the flash itself: pages now
        // holding data (valid or invalid) + pages erased since they were written.
        prop_assert_eq!(flash_writes, valid + invalid + s.erasures * ppb);
        let mut log = f.timing().log.clone().unwrap();
        log.sort_unstable();
        for w in log.windows(2) {
            if w[0].0 == w[1].0 {
                prop_assert!(w[0].2 <= w[1].1, "chip {} runs two ops at once: {:?} {:?}", w[0].0, w[0], w[1]);
            }
        }
    }
}

fn golden_opts() -> fcsim::TraceOptions {
    let mut params = BTreeMap::new();
    for (k, v) in [
        ("time", "t"),
        ("time_unit", "us"),
        ("op", "op"),
        ("offset", "page"),
        ("offset_unit", "4096"),
        ("size", "pages"),
        ("size_unit", "4096"),
    ] {
        params.insert(k.to_string(), v.to_string());
    }
    fcsim::TraceOptions { format: Some("csv".into()), params, ..fcsim::TraceOptions::default() }
}

fn golden_over_flash(eviction: &str) -> fcsim::ResultRow {
    golden_over_flash_with(eviction, |_| {})
}

/// LRU with `pages` over an empty two-chip `gasa` device (one plane each, 16 blocks of 8 pages,
/// OP 50%) with the given eviction order.
fn lru_over_two_chips(pages: u64, eviction: &str) -> fcsim::SimConfig {
    let mut cfg = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(pages));
    cfg.device = Some("gasa".into());
    for (k, v) in [
        ("channels", "1"),
        ("chips_per_channel", "2"),
        ("planes", "1"),
        ("blocks", "16"),
        ("pages_per_block", "8"),
        ("op", "0.5"),
        ("eviction", eviction),
    ] {
        cfg.device_params.insert(k.into(), v.into());
    }
    cfg
}

fn golden_over_flash_with(eviction: &str, tweak: impl Fn(&mut fcsim::SimConfig)) -> fcsim::ResultRow {
    let mut cfg = lru_over_two_chips(2, eviction);
    tweak(&mut cfg);
    let path = format!("{}/tests/fixtures/golden.csv", env!("CARGO_MANIFEST_DIR"));
    fcsim::simulate(&path, &golden_opts(), &cfg, None, None).unwrap()
}

fn col(row: &fcsim::ResultRow, name: &str) -> fcsim::Value {
    row.columns().into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no column {name}")).1
}

#[test]
fn buffer_over_flash_hand_computed() {
    // golden.csv (times in us) through LRU with 2 pages over 2 chips (read 25, program 200,
    // DRAM 1 us, empty drive). Page n is logical page n, on chip n mod 2: pages 1 and 3 on
    // chip 1, pages 2 and 4 on chip 0.
    //   t1 R1  miss, read chip1 1..26                                  resp 25
    //   t2 R2  miss, read chip0 2..27                                  resp 25
    //   t3 W3  miss, admitted dirty, evicts 1 (clean)                  resp 1 (DRAM)
    //   t4 R1  miss, evicts 2 (clean), read chip1 26..51               resp 47
    //   t5 W4  miss, evicts 3 (dirty): program chip1 51..251, then DRAM  resp 247
    //   t6 R2  miss, evicts 1 (clean), read chip0 27..52               resp 46
    //   t7 R3+4: page 3 evicts 4 (dirty): program chip0 52..252, then read 3 chip1 252..277;
    //          page 4 evicts 2 (clean), read chip0 252..277           resp 270
    //   t8 T4  trim: not a response
    //   t9 R4  miss, its page was trimmed: read on its static chip0 277..302   resp 293
    // Mean (25+25+1+47+247+46+270+293)/8 = 119.25 us. Chip 0 busy 4×25+200 = 300 us, chip 1
    // 3×25+200 = 275 us: runtime 575 us, load balance 300 / 287.5.
    use fcsim::Value::{Float, Int};
    let row = golden_over_flash("sync");
    assert_eq!(col(&row, "device"), fcsim::Value::Str("gasa".into()));
    assert_eq!(col(&row, "flash_page_reads"), Int(7));
    assert_eq!(col(&row, "flash_page_writes"), Int(2));
    assert_eq!(col(&row, "gc_page_writes"), Int(0));
    assert_eq!(col(&row, "erasures"), Int(0));
    assert_eq!(col(&row, "write_amplification"), Float(1.0));
    assert_eq!(col(&row, "resp_mean_us"), Float(119.25));
    assert_eq!(col(&row, "resp_max_us"), Float(293.0));
    // The median (46 us) comes from the histogram: within its 0.8% bucket.
    let Float(p50) = col(&row, "resp_p50_us") else { panic!() };
    assert!((p50 - 46.0).abs() / 46.0 < 0.008, "{p50}");
    assert_eq!(col(&row, "runtime_s"), Float(575e-6));
    assert_eq!(col(&row, "load_balance"), Float(300.0 / 287.5));
    assert_eq!(col(&row, "chip_busy_s"), fcsim::Value::List(vec![300e-6, 275e-6]));
    // Asynchronous evictions: W4 completes in DRAM (1 us); nothing else changes.
    let row = golden_over_flash("async");
    assert_eq!(col(&row, "resp_mean_us"), Float(708.0 / 8.0));
    // Parallel order: W4 is admitted at arrival (resp 246 with the program waited for); reading
    // page 3 at arrival (251..276) still ends before page 4's read on chip 0, so R3+4 is 270.
    let row = golden_over_flash("parallel");
    assert_eq!(col(&row, "resp_mean_us"), Float(953.0 / 8.0));
}

#[test]
fn flush_then_read_hand_computed() {
    // One dirty miss, LRU with 1 page over 2 chips (read 25 us, program 200 us, DRAM 1 us; page
    // n on chip n mod 2):
    //   t0    W1  miss, admitted dirty in DRAM                                     resp 1
    //   t1000 R2  miss, evicts 1 (dirty): program 1 on chip 1, 1000..1200, and read 2 on chip 0
    //     sync (flush, then read; LCR Alg. 2-3): read 1200..1225                   resp 225
    //     parallel: read at arrival, 1000..1025; the request waits for the flush   resp 200
    //     async: read 1000..1025, the flush is not waited for                      resp 25
    let dir = std::env::temp_dir().join(format!("fcsim-flush-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dirty_miss.csv");
    std::fs::write(&path, "t,op,page,pages\n0,W,1,1\n1000,R,2,1\n").unwrap();
    for (eviction, second) in [("sync", 225.0), ("parallel", 200.0), ("async", 25.0)] {
        let cfg = lru_over_two_chips(1, eviction);
        let row = fcsim::simulate(path.to_str().unwrap(), &golden_opts(), &cfg, None, None).unwrap();
        assert_eq!(col(&row, "resp_max_us"), fcsim::Value::Float(second), "{eviction}");
        assert_eq!(col(&row, "resp_mean_us"), fcsim::Value::Float((1.0 + second) / 2.0), "{eviction}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gc_on_one_plane_holds_the_whole_chip() {
    // One chip with two planes (logical page n on plane n mod 2). Overwriting page 0 fills plane
    // 0 until its free blocks fall below the GC reserve; the write that does it is followed by a
    // GC job on the chip (copies and an erase of a plane-0 block). A read of page 1, on plane 1,
    // that arrives while that job runs waits for it: the chip is one FIFO server, as an element
    // of DiskSim's SSD extension is with one parallel unit (ssdmodel/ssd.c, ssd_activate_elem
    // and ssd_invoke_element_cleaning keep one busy flag per element), the simulator and
    // configuration the LCR paper used (§IV.A, Table II).
    let kv = [("channels", "1"), ("chips_per_channel", "1"), ("planes", "2"), ("blocks", "16"), ("pages_per_block", "4"), ("op", "0.5")];
    let m: BTreeMap<String, String> = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut f = Flash::new(DeviceConfig::build("gasa", &m, 4096).unwrap().0, None).unwrap();
    f.log_ops();
    let mut t = 0;
    let gc_end = loop {
        let before = f.stats().erasures;
        let end = f.write(0, t).unwrap();
        if f.stats().erasures > before {
            let log = f.timing().log.as_ref().unwrap();
            let &(chip, start, gc_end) = log.last().unwrap();
            assert_eq!((chip, start), (0, end), "the GC job follows the write that triggered it");
            break gc_end;
        }
        t = end + 1_000_000;
    };
    let (_, gc_start, _) = *f.timing().log.as_ref().unwrap().last().unwrap();
    let arrival = gc_start + 1_000;
    assert!(gc_end > arrival);
    assert_eq!(f.read(1, arrival).unwrap(), gc_end + 25_000, "the plane-1 read waits for plane 0's GC");
}

#[test]
fn flash_aware_policies_need_the_device_view() {
    // Without a flash device below the buffer, or as a flash cache's policy (no chip view), GCaR
    // and LCR would be CFLRU: they refuse to run.
    let path = format!("{}/tests/fixtures/golden.csv", env!("CARGO_MANIFEST_DIR"));
    for policy in ["lcr", "gcar-cflru"] {
        let cfg = fcsim::SimConfig::new(policy, fcsim::SizeSpec::Pages(2));
        let err = fcsim::simulate(&path, &golden_opts(), &cfg, None, None).unwrap_err().to_string();
        assert!(err.contains("chip loads") && err.contains("--device"), "{err}");
        let mut ssd = cfg.clone();
        ssd.stack_params.insert("kind".into(), "ssd-cache".into());
        assert!(fcsim::simulate(&path, &golden_opts(), &ssd, None, None).is_err());
        let mut over_flash = cfg.clone();
        over_flash.device = Some("gasa".into());
        assert!(fcsim::simulate(&path, &golden_opts(), &over_flash, None, None).is_ok());
    }
}

#[test]
fn load_balance_per_epoch_hand_computed() {
    // The sync run above in epochs of 100 us. Chip 0 works 2..52 (reads), 52..252 (program),
    // 252..302 (reads); chip 1 works 1..51 (reads), 51..251 (program), 252..277 (read).
    //   epoch 0..100:   chip 0 98 us, chip 1 99 us  → rate 99 / 98.5, work 197 us
    //   epoch 100..200: 100 and 100                 → 1, work 200 us
    //   epoch 200..300: 100 and 76                  → 100 / 88, work 176 us
    //   epoch 300..400: 2 and 0: less work than one epoch's length, not counted
    // Weighted by work (573 us): p50 is the rate at 286.5 us in rate order (1: 200 us, then
    // 99 / 98.5: 197 us), p90 the one at 515.7 us (100 / 88); the histogram is within 0.8%.
    use fcsim::Value::{Float, Int};
    let row = golden_over_flash_with("sync", |c| {
        c.device_params.insert("balance_epoch_ms".into(), "0.1".into());
    });
    let Float(p50) = col(&row, "load_balance_p50") else { panic!() };
    assert!((p50 - 99.0 / 98.5).abs() < 0.008, "{p50}");
    let Float(p90) = col(&row, "load_balance_p90") else { panic!() };
    assert!((p90 - 100.0 / 88.0).abs() < 0.008, "{p90}");
    assert_eq!(col(&row, "load_balance_epochs"), Int(3));
    assert_eq!(col(&row, "device_balance_epoch_ms"), fcsim::Value::Str("0.1".into()));
}

#[test]
fn closed_loop_and_time_scale() {
    // A closed loop of one request: each arrives when the previous one completes, so nothing
    // queues behind another request, only behind its own write-backs:
    //   R1 25, R2 25, W3 1 (DRAM), R1 25, W4 201 (its eviction's program, then DRAM), R2 25,
    //   R3+4 225 (4's eviction programs chip 0, then 4 is read there), R4 25.
    // Mean 552 / 8 us. Stretching the trace's gaps 1000× (1 us → 1 ms) gives the same answer:
    // the chips are idle when each request arrives.
    use fcsim::Value::Float;
    let closed = golden_over_flash_with("sync", |c| c.queue_depth = 1);
    assert_eq!(col(&closed, "resp_mean_us"), Float(552.0 / 8.0));
    let spread = golden_over_flash_with("sync", |c| c.time_scale = 1000.0);
    assert_eq!(col(&spread, "resp_mean_us"), Float(552.0 / 8.0));
    assert_eq!(col(&spread, "time_scale"), Float(1000.0));
    let mut bad = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(2));
    bad.queue_depth = 4;
    bad.time_scale = 0.5;
    assert!(bad.validate().unwrap_err().to_string().contains("closed loop"));
    bad.queue_depth = 0;
    bad.time_scale = 0.0;
    assert!(bad.validate().is_err());
}

#[test]
fn untimed_traces_have_no_timing_columns() {
    // golden.csv read without its time column: requests are stamped with their index (ns), so
    // response times, EPBPD and per-epoch loads would rest on nothing and are null; the counts
    // do not depend on time and stay. A closed loop times the same trace (the 552 / 8 us above).
    use fcsim::Value::{Float, Null, Str};
    let path = format!("{}/tests/fixtures/golden.csv", env!("CARGO_MANIFEST_DIR"));
    let mut opts = golden_opts();
    opts.params.remove("time");
    opts.params.remove("time_unit");
    let timed = golden_over_flash("sync");
    let untimed = fcsim::simulate(&path, &opts, &lru_over_two_chips(2, "sync"), None, None).unwrap();
    assert_eq!(col(&timed, "timing"), Str("trace".into()));
    assert_eq!(col(&untimed, "timing"), Str("untimed-trace".into()));
    let ssd_only = |n: &str| n.starts_with("disk_") || n == "peak_dt";
    for name in fcsim::metrics::UNTIMED_NULL.iter().filter(|n| !n.starts_with("split_") && !ssd_only(n)) {
        assert_eq!(col(&untimed, name), Null, "{name}");
    }
    // DWPD is null and the row says why.
    assert_eq!(col(&untimed, "dwpd_null_reason"), Str("the trace has no timestamps, so there is no time to rate the writes by".into()));
    assert_eq!(col(&timed, "dwpd_null_reason"), Null);
    // A flash cache's disk columns that rest on time are null too; its counts stay.
    let ssd = ssd_cache_run("golden.csv", &opts, "around", &[]).unwrap();
    for name in fcsim::metrics::UNTIMED_NULL.iter().filter(|n| ssd_only(n)) {
        assert_eq!(col(&ssd, name), Null, "{name}");
    }
    assert_eq!(col(&ssd, "dt_mean_ms"), Float(5.0));
    assert_eq!(col(&ssd, "disk_accesses"), col(&golden_ssd_cache("around"), "disk_accesses"));
    assert_ne!(col(&timed, "resp_mean_us"), Null);
    for name in ["hits", "flash_page_writes", "erasures", "runtime_s", "load_balance"] {
        assert_eq!(col(&untimed, name), col(&timed, name), "{name}");
    }
    assert_eq!(col(&untimed, "device_state"), Str("fresh".into()));
    let mut cfg = lru_over_two_chips(2, "sync");
    cfg.queue_depth = 1;
    let closed = fcsim::simulate(&path, &opts, &cfg, None, None).unwrap();
    assert_eq!(col(&closed, "timing"), Str("closed-loop".into()));
    assert_eq!(col(&closed, "resp_mean_us"), Float(552.0 / 8.0));
}

fn golden_ssd_cache(write: &str) -> fcsim::ResultRow {
    golden_ssd_cache_with(write, &[]).unwrap()
}

fn golden_ssd_cache_with(write: &str, stack: &[(&str, &str)]) -> fcsim::Result<fcsim::ResultRow> {
    ssd_cache_run("golden.csv", &golden_opts(), write, stack)
}

fn ssd_cache_run(fixture: &str, opts: &fcsim::TraceOptions, write: &str, stack: &[(&str, &str)]) -> fcsim::Result<fcsim::ResultRow> {
    let mut cfg = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(2));
    cfg.device = Some("gasa".into());
    for (k, v) in [("channels", "1"), ("chips_per_channel", "1"), ("planes", "1"), ("pages_per_block", "4"), ("op", "1")] {
        cfg.device_params.insert(k.into(), v.into());
    }
    for (k, v) in [("kind", "ssd-cache"), ("write", write)].iter().chain(stack) {
        cfg.stack_params.insert(k.to_string(), v.to_string());
    }
    cfg.stack_params.entry("disk".into()).or_insert_with(|| "flat".into());
    if cfg.stack_params["disk"] == "flat" {
        cfg.stack_params.entry("disk_ms".into()).or_insert_with(|| "5".into());
    }
    let path = format!("{}/tests/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
    fcsim::simulate(&path, opts, &cfg, None, None)
}

#[test]
fn disk_keys_and_their_errors() {
    use fcsim::Value::{Int, Str};
    let err = |stack: &[(&str, &str)]| golden_ssd_cache_with("around", stack).err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(err(&[("disk", "10k")]), "stack.disk=10k: expected one of flat, 7200, 15k");
    for w in ["0", "-1", "soon"] {
        assert_eq!(err(&[("dt_window_s", w)]), format!("stack.dt_window_s={w}: expected a window of simulated time in seconds (> 0)"));
    }
    assert_eq!(
        err(&[("disk", "15k"), ("disk_ms", "5")]),
        "stack.disk_ms is the flat disk's time per access; stack.disk=15k times each access by its drive (drop stack.disk_ms, \
         or set stack.disk=flat)"
    );
    for n in ["0", "two", "65537"] {
        assert_eq!(err(&[("disks", n)]), format!("stack.disks={n}: expected a number of disks from 1 to 65536, or volume"));
    }
    assert!(err(&[("stripe", "64KiB")]).starts_with("stack.stripe: the stripe unit of an array needs stack.disks=N with N >= 2"));
    // A bare number is bytes (issue 42: stack.stripe=65536 was refused as not bytes).
    assert_eq!(err(&[("disks", "2"), ("stripe", "16")]), "stack.stripe=16 B: expected a whole number of pages (4096 B each)");
    assert_eq!(err(&[("disks", "2"), ("stripe", "16p")]), "stack.stripe=16p: expected a stripe unit in bytes (65536, 64KiB, 1MiB)");
    assert_eq!(err(&[("disks", "2"), ("stripe", "65536")]), "");
    assert_eq!(err(&[("disks", "2"), ("stripe", "6KiB")]), "stack.stripe=6144 B: expected a whole number of pages (4096 B each)");
    // Object ids carry no volume.
    let lcs = fcsim::TraceOptions { format: Some("lcs-csv".into()), ..Default::default() };
    let e = ssd_cache_run("lcs.csv", &lcs, "around", &[("disks", "volume")]).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.starts_with("stack.disks=volume: the trace's keys are object ids"), "{e}");
    // The keys taken are reported; a striped array and a drive preset run.
    let row = golden_ssd_cache_with("around", &[("disk", "15k"), ("disks", "4"), ("stripe", "8KiB")]).unwrap();
    assert_eq!((col(&row, "disk"), col(&row, "disks")), (Str("15k".into()), Int(4)));
    assert_eq!(
        (col(&row, "stack_disk"), col(&row, "stack_disks"), col(&row, "stack_stripe")),
        (Str("15k".into()), Str("4".into()), Str("8KiB".into()))
    );
    // tencent.csv's requests address two volumes: one disk each.
    let tencent = fcsim::TraceOptions { format: Some("tencent".into()), ..Default::default() };
    let row = ssd_cache_run("tencent.csv", &tencent, "around", &[("disks", "volume")]).unwrap();
    assert_eq!(col(&row, "disks"), Int(2));
}

#[test]
fn ssd_read_cache_hand_computed() {
    // golden.csv (us) through an LRU flash read cache of 2 pages on one chip (read 25, program
    // 200) over the flat 5 ms disk (5 ms per access); writes go around the cache.
    //   t1 R1  miss: disk 1..5001; programmed into a slot 5001..5201        resp 5000
    //   t2 R2  miss: disk 5001..10001; programmed 10001..10201              resp 9999
    //   t3 W3  around: disk 10001..15001                                    resp 14998
    //   t4 R1  hit: flash read 10201..10226                                 resp 10222
    //   t5 W4  around: disk 15001..20001                                    resp 19996
    //   t6 R2  hit: flash read 10226..10251                                 resp 10245
    //   t7 R3+4: 3 evicts 1 (trim), disk 20001..25001, programmed 25001..25201;
    //            4 evicts 2 (trim), continues the disk access of 3 (the next page, the same
    //            request, nothing between): done at 25001 too; programmed 25201..25401
    //                                                                       resp 24994
    //   t8 T4  trims 4's slot
    //   t9 R4  miss: disk 25001..30001, programmed 30001..30201              resp 29992
    // Mean 125446 / 8 = 15680.75 us. Flash: 5 programs, 2 reads (busy 1050 us); disk 7 pages in
    // 6 accesses (30 ms). FUE = read-hit flash reads / flash writes = 2 / 5.
    // (Before the disk served accesses, it charged 5 ms per page: R3+4 took 10 ms, the mean
    // was 16930.75 us and the disk busy 35 ms.)
    use fcsim::Value::{Float, Int, Str};
    let row = golden_ssd_cache("around");
    assert_eq!((row.counters.hits, row.counters.accesses, row.counters.insertions), (2, 9, 5));
    assert_eq!(col(&row, "stack"), Str("ssd-cache".into()));
    assert_eq!(col(&row, "cache_writes"), Int(5));
    assert_eq!(col(&row, "flash_page_writes"), Int(5));
    assert_eq!(col(&row, "read_hit_flash_reads"), Int(2));
    assert_eq!((col(&row, "disk_reads"), col(&row, "disk_writes")), (Int(5), Int(2)));
    assert_eq!(col(&row, "fue"), Float(0.4));
    assert_eq!(col(&row, "resp_mean_us"), Float(15680.75));
    assert_eq!(col(&row, "runtime_s"), Float(1050e-6));
    assert_eq!(col(&row, "disk_busy_s"), Float(0.030));
    assert_eq!((col(&row, "disk"), col(&row, "disks"), col(&row, "disk_accesses")), (Str("flat".into()), Int(1), Int(6)));
    // All in the first second: 30 ms of disk work; over the 60 s window, 30 ms / 60 s. Little's
    // law over the time the devices held the run's work, from the first arrival (1 us) to the
    // last completion (R4's program, 30201 us; the last arrival is at 9 us, so 30192 us of
    // drain): sojourns 5000 + 9999 + 14998 + 19996 + 24994 + 29992 = 104979 us of disk
    // accesses (the hits never reach the disk) / 30200 us, 3.48 of the 6 accesses on average.
    // (Over the arrivals' 8 us span, as before, it was 13122: more accesses than there were.)
    assert_eq!((col(&row, "disk_util_peak_1s"), col(&row, "disk_util_peak_60s")), (Float(0.03), Float(0.03 / 60.0)));
    assert_eq!(col(&row, "drain_s"), Float(30192e-6));
    assert_eq!(col(&row, "disk_queue_mean"), Float(104979.0 / 30200.0));
    // Simulated throughput over the same 30200 us: 9 host requests (t1..t9, the trim
    // included; it has no response time, so the mean is over 8), 9 page accesses of 4 KiB.
    assert_eq!(row.counters.requests, 9);
    let near = |name: &str, want: f64| match col(&row, name) {
        Float(x) => assert!((x - want).abs() < 1e-9 * want, "{name} {x} != {want}"),
        other => panic!("{name} {other:?}"),
    };
    near("throughput_iops", 9.0 / 30200e-6);
    near("throughput_mb_s", 9.0 * 4096.0 / 1e6 / 30200e-6);
    // Disk-head time: 6 accesses of 5 ms, 5 ms each on average; all in the first 10 min
    // window: 30 ms / 600 s.
    assert_eq!(col(&row, "dt_mean_ms"), Float(5.0));
    near("peak_dt", 0.030 / 600.0);
    // Flash writes over the trace's 8 us (first to last arrival): 5 programs of 4 KiB, no GC
    // copies, so NAND writes are host writes; per day, over the drive's user pages.
    near("flash_write_mb_s", 5.0 * 4096.0 / 1e6 / 8e-6);
    near("nand_write_mb_s", 5.0 * 4096.0 / 1e6 / 8e-6);
    let days = 8e-6 / 86_400.0;
    near("dwpd", 5.0 / col_int(&row, "device_user_pages") as f64 / days);
    near("nand_dwpd", 5.0 / col_int(&row, "device_user_pages") as f64 / days);
    // IOs: 8 reads and writes (the trim is not one); R1 and R2 at t4 and t6 hit, the other 6
    // missed a page (W3 and W4 go around the cache). Bytes: 9 pages asked, 7 missed.
    near("io_miss_ratio", 6.0 / 8.0);
    near("byte_miss_ratio", 7.0 / 9.0);
    // Write-back: both writes enter the cache dirty. W4 evicts 3 (dirty, written to disk),
    // and R3 evicts 4 (dirty) then 1; writes are never disk writes on their own.
    let row = golden_ssd_cache("back");
    assert_eq!(row.counters.dirty_evictions, col_int(&row, "disk_writes"));
    assert!(col_int(&row, "cache_writes") > 5);
}

#[test]
fn ssd_read_cache_over_a_15k_disk_hand_computed() {
    // The golden read cache above over the 15k drive instead. Pages 1-4 lie on cylinder 0, where
    // the head starts: a positioned access costs no seek, half a revolution (2 ms) and 25,129 ns
    // a page (4096 B / 163 MB/s); an access starting where the last ended, the transfer alone.
    //   t1 R1  positioned: disk 1,000..2,026,129; programmed 2,026,129..2,226,129  resp 2,025,129
    //   t2 R2  sequential: disk ..2,051,258; programmed 2,226,129..2,426,129        resp 2,049,258
    //   t3 W3  sequential (around): disk ..2,076,387                                resp 2,073,387
    //   t4 R1  hit: flash read 2,426,129..2,451,129                                 resp 2,447,129
    //   t5 W4  sequential: disk ..2,101,516                                         resp 2,096,516
    //   t6 R2  hit: flash read 2,451,129..2,476,129                                 resp 2,470,129
    //   t7 R3+4: 3 positioned (the head is past page 4): ..4,126,645; 4 continues: ..4,151,774
    //                                                                               resp 4,144,774
    //   t9 R4  positioned: disk 4,151,774..6,176,903                                resp 6,167,903
    // Sum 23,474,225 ns over 8 requests: 2,934.278125 us. Disk: 6 accesses, busy
    // 2 × 2,025,129 + 3 × 25,129 + 2,050,258 = 6,175,903 ns.
    use fcsim::Value::{Float, Int, Str};
    let row = golden_ssd_cache_with("around", &[("disk", "15k")]).unwrap();
    assert_eq!(col(&row, "disk"), Str("15k".into()));
    assert_eq!(col(&row, "disk_accesses"), Int(6));
    assert_eq!(col(&row, "disk_busy_s"), Float(6_175_903e-9));
    // Disk-head time: positioning + transfer of each access, as the busy time above; the peak
    // over the 10 min window holds all of it (as does a 1 ms window: the arrivals span 1-9 us).
    // Over 1 us windows (stack.dt_window_s=0.000001) the busiest is t7's, 2,025,129 + 25,129
    // ns arriving at 7 us, two thousand disks' worth of work for that microsecond.
    assert_eq!(col(&row, "dt_mean_ms"), Float(6_175_903.0 / 6.0 / 1e6));
    assert_eq!(col(&row, "peak_dt"), Float(6_175_903.0 / 600e9));
    let row = golden_ssd_cache_with("around", &[("disk", "15k"), ("dt_window_s", "0.001")]).unwrap();
    assert_eq!(col(&row, "peak_dt"), Float(6_175_903.0 / 1e6));
    let row = golden_ssd_cache_with("around", &[("disk", "15k"), ("dt_window_s", "0.000001")]).unwrap();
    assert_eq!(col(&row, "peak_dt"), Float(2_050_258.0 / 1e3));
    assert_eq!(col(&row, "stack_dt_window_s"), Str("0.000001".into()));
    assert_eq!(col(&row, "resp_mean_us"), Float(2934.278125));
}

fn col_int(row: &fcsim::ResultRow, name: &str) -> u64 {
    match col(row, name) {
        fcsim::Value::Int(v) => v,
        v => panic!("{name}: {v:?}"),
    }
}

/// A flash cache of `pages` on `preset` over a disk, run over a short uniform trace.
fn ssd_cache_row(preset: &str, pages: u64) -> fcsim::ResultRow {
    let mut cfg = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(pages));
    cfg.device = Some(preset.into());
    cfg.stack_params.insert("kind".into(), "ssd-cache".into());
    fcsim::simulate("synth:uniform,pages=2000000,requests=20000", &fcsim::TraceOptions::default(), &cfg, None, None).unwrap()
}

fn float(v: fcsim::Value) -> f64 {
    match v {
        fcsim::Value::Float(f) => f,
        fcsim::Value::Str(s) => s.parse().unwrap(),
        v => panic!("not a number: {v:?}"),
    }
}

#[test]
fn flash_cache_spare_is_device_op() {
    // A cache of 1%, 5% and 25% of an 8,000,000-page (32 GiB, the offline paper's smallest)
    // working set on the `dynamic` preset (16 planes of 64-page blocks, OP 15%, GC reserve 5% of
    // a plane's blocks): the drive holds ceil(pages × 1.15) in whole blocks per plane, the GC
    // reserve and open blocks inside that spare. 80,000 pages: 92,000 physical = 89.8 blocks a
    // plane → 90 → 92,160 pages, op 0.152.
    for pages in [80_000u64, 400_000, 2_000_000] {
        let row = ssd_cache_row("dynamic", pages);
        let op = float(col(&row, "device_op"));
        let actual = float(col(&row, "device_op_actual"));
        assert_eq!(op, 0.15);
        assert!((actual - op).abs() <= 0.01, "{pages} pages: spare {actual} for device.op {op}");
        let fcsim::Value::Int(physical) = col(&row, "device_physical_pages") else { panic!() };
        assert_eq!(actual, physical as f64 / pages as f64 - 1.0);
        // The row's block count is the simulated drive's, not the preset's 4096 a plane.
        assert_eq!(float(col(&row, "device_blocks")) * 16.0 * 64.0, physical as f64);
    }
    // 2,692 pages (1% of cloudphysics) on the `offline` preset (8 planes of 512-page blocks,
    // OP 7%): 7% is a third of one block, and each plane needs 2 reserve blocks and an open one,
    // so that geometry would be 16,384 physical pages, a spare of 5.09. The pages per block and
    // the planes are halved in turn: (8, 256), (4, 256), (4, 128), (2, 128), (2, 64), (1, 64):
    // 47 blocks, 0.117; (1, 32): 91 blocks, 0.082; (1, 16): ceil(2,692 × 1.07 / 16) = 181
    // blocks, 10 of them reserve, 2,896 pages, a spare of 0.0758. The row says the geometry.
    let row = ssd_cache_row("offline", 2692);
    assert_eq!(col(&row, "device_physical_pages"), fcsim::Value::Int(2896));
    assert_eq!(float(col(&row, "device_op_actual")), 2896.0 / 2692.0 - 1.0);
    for (k, v) in [("pages_per_block", 16.0), ("blocks", 181.0), ("planes", 1.0), ("channels", 1.0), ("chips_per_channel", 1.0)] {
        assert_eq!(float(col(&row, &format!("device_{k}"))), v, "device_{k}");
    }
    // The 1,000-page floor the spare is held at: 1 plane of 8-page blocks, 134 blocks, 0.072.
    let row = ssd_cache_row("offline", 1000);
    assert_eq!(float(col(&row, "device_op_actual")), 1072.0 / 1000.0 - 1.0);
    // A cache too small for any geometry to hold 7% is refused with the spare it can have: 40
    // pages need 45 one-page blocks, 3 of them reserve and one open, 0.125.
    let mut cfg = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(40));
    cfg.device = Some("offline".into());
    cfg.stack_params.insert("kind".into(), "ssd-cache".into());
    let e = fcsim::simulate("synth:uniform,pages=2000,requests=200", &fcsim::TraceOptions::default(), &cfg, None, None)
        .unwrap_err()
        .to_string();
    // The 7% is the preset's own, which the configuration never set: the error says so.
    assert!(
        e.contains("device.op=0.07 (the offline drive's default): a flash of 40 user pages") && e.contains("set device.op=0.125"),
        "{e}"
    );
    // A geometry the user set is kept, with the spare it gives, said in the row: 5 blocks of
    // data, one more, 2 reserve and one open, 9 blocks of 512 pages.
    cfg.size = fcsim::SizeSpec::Pages(2692);
    cfg.device_params.insert("pages_per_block".into(), "512".into());
    cfg.device_params.insert("planes".into(), "1".into());
    cfg.device_params.insert("chips_per_channel".into(), "1".into());
    cfg.device_params.insert("channels".into(), "1".into());
    let row = fcsim::simulate("synth:uniform,pages=200000,requests=2000", &fcsim::TraceOptions::default(), &cfg, None, None).unwrap();
    assert_eq!(col(&row, "device_physical_pages"), fcsim::Value::Int(9 * 512));
}
