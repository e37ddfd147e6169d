//! Hostile trace input (issue 16): offsets near 2^64, huge sizes, lines without breaks, pipes,
//! lines cut short, `.fct` headers that lie. Each ends in one error naming the file and the line
//! or byte, never in a hang, a panic, a huge allocation or a silently wrong answer.

use fcsim::request::{HostRequest, KeyUnit, Op, PageSplitter};
use fcsim::trace::{self, convert, fct, TraceOptions};
use fcsim::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory for one test.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fcsim-hostile-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

fn opts(format: &str, params: &[(&str, &str)]) -> TraceOptions {
    let params: BTreeMap<String, String> = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    TraceOptions { format: Some(format.into()), params, ..TraceOptions::default() }
}

/// Reads a whole trace: the requests, or the first error.
fn read(path: &str, o: &TraceOptions) -> Result<Vec<HostRequest>, Error> {
    let mut r = trace::open(path, o)?;
    let mut v = Vec::new();
    while let Some(x) = r.next_request()? {
        v.push(x);
    }
    Ok(v)
}

fn err(path: &str, o: &TraceOptions) -> String {
    match read(path, o) {
        Ok(v) => panic!("{path}: expected an error, read {} requests", v.len()),
        Err(e) => {
            assert!(e.is_trace(), "{e}");
            e.to_string()
        }
    }
}

/// A format, a trace in it, and the options to read it.
type Case = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

/// One line per byte-addressed format whose request ends past 2^64 bytes.
fn past_the_end() -> Vec<Case> {
    vec![
        ("msr", "128166372003061629,hm,0,Read,18446744073709551000,8192,100\n", &[]),
        ("systor", "Timestamp,Response,IOType,LUN,Offset,Size\n1456095145.1,0.1,R,0,18446744073709551000,8192\n", &[]),
        ("csv", "18446744073709551000,8192\n", &[("offset", "1"), ("size", "2"), ("header", "false")]),
        ("tencent", "1538323200,36028797018963967,16,0,1\n", &[]),
        ("vscsi", "version,time,op,size,lbn\n1,5,28,8192,36028797018963967\n", &[]),
        ("spc", "0,36028797018963967,8192,r,0.0\n", &[]),
        ("arc", "36028797018963967 16 0 1\n", &[]),
        ("disksim", "0.0 0 36028797018963967 16 1\n", &[]),
        ("mqsim", "938513000 4 36028797018963967 16 0\n", &[]),
        ("diskmon", "0\t0.04\t0.0001\t0\tRead\t36028797018963967\t16\t\n", &[]),
    ]
}

#[test]
fn a_request_past_2_64_is_an_error_in_every_reader() {
    let d = dir("past");
    for (format, text, params) in past_the_end() {
        let path = write(&d, &format!("{format}.trace"), text);
        let o = opts(format, params);
        let e = err(&path, &o);
        let line = text.lines().count();
        assert!(e.starts_with(&format!("{path}:{line}: ")), "{format}: {e}");
        assert!(e.contains("past the 64-bit byte address space") || e.contains("overflows"), "{format}: {e}");
        // With skip_bad_lines it is a bad line like any other, and a good line after it is read.
        let good = std::fs::read_to_string(&path).unwrap().replace("36028797018963967", "8").replace("18446744073709551000", "4096");
        let path = write(&d, &format!("{format}-skip.trace"), format!("{text}{}", good.lines().last().unwrap()));
        let mut r = trace::open(&path, &TraceOptions { skip_bad_lines: true, ..o }).unwrap();
        let mut n = 0;
        while r.next_request().unwrap().is_some() {
            n += 1;
        }
        assert_eq!((n, r.bad_lines()), (1, 1), "{format}");
    }
}

#[test]
fn a_request_past_2_64_in_a_fct_file_is_an_error() {
    let d = dir("past-fct");
    let out = d.join("t.fct");
    let mut w = fct::Writer::new(std::fs::File::create(&out).unwrap()).unwrap();
    w.push(&HostRequest { time_ns: 0, volume: 0, offset: u64::MAX - 999, len: 8192, op: Op::Read }).unwrap();
    let header =
        fct::Header { requests: 1, reads: 1, page_accesses: 1, unique_pages: 1, page_size: 4096, volumes: 1, ..Default::default() };
    w.finish(&header, None).unwrap();
    let e = err(out.to_str().unwrap(), &TraceOptions::default());
    assert!(e.contains("at byte 136") && e.contains("past the 64-bit byte address space"), "{e}");
}

#[test]
fn the_page_splitter_never_wraps() {
    let s = PageSplitter::new(4096, KeyUnit::Bytes);
    let r = HostRequest { time_ns: 0, volume: 0, offset: 18_446_744_073_709_551_000, len: 8192, op: Op::Read };
    assert!(s.pages(&r).unwrap_err().to_string().contains("2^48 pages"), "a page number past the key space is refused, never wrapped");
}

#[test]
fn a_request_larger_than_1_gib_is_an_error() {
    let d = dir("size");
    let path = write(&d, "big.csv", "128166372003061629,hm,0,Read,0,1073741825,100\n");
    let e = err(&path, &opts("msr", &[]));
    assert!(e.ends_with("a size in bytes 1073741825 is larger than the largest request fcsim accepts (1 GiB)"), "{e}");
    let path = write(&d, "ok.csv", "128166372003061629,hm,0,Read,0,1073741824,100\n");
    assert_eq!(read(&path, &opts("msr", &[])).unwrap()[0].len, 1 << 30);
}

#[test]
fn a_line_without_breaks_is_refused_with_bounded_memory() {
    let d = dir("long");
    let good = "128166372003061629,hm,0,Read,4096,8192,100\n";
    let long = format!("{}\n{good}", "1".repeat(3 << 20));
    let path = write(&d, "long.csv", &long);
    let e = err(&path, &opts("msr", &[]));
    assert!(e.starts_with(&format!("{path}:1: line longer than 1 MiB")), "{e}");
    let o = TraceOptions { skip_bad_lines: true, ..opts("msr", &[]) };
    let mut r = trace::open(&path, &o).unwrap();
    assert_eq!(r.next_request().unwrap().map(|x| x.offset), Some(4096));
    assert_eq!((r.next_request().unwrap(), r.bad_lines()), (None, 1));
    // Detection reads at most about 1 MiB of a file without line breaks.
    let path = write(&d, "noline.txt", "7".repeat(4 << 20));
    let e = trace::open(&path, &TraceOptions::default()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("cannot detect the trace format"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_directory_is_refused_at_once() {
    let d = dir("fifo");
    let fifo = d.join("trace.fifo");
    let ok = std::process::Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
    if ok {
        // Opening a fifo for reading would block until a writer comes: it must not be opened.
        let e = err(fifo.to_str().unwrap(), &TraceOptions::default());
        assert!(
            e.ends_with("is a pipe, fifo or device, not a regular file; fcsim reads a trace several times, so save it to a file first"),
            "{e}"
        );
    }
    let e = err(d.to_str().unwrap(), &opts("msr", &[]));
    assert!(e.contains("is a directory"), "{e}");
}

#[test]
fn lines_cut_short_are_errors() {
    let d = dir("short");
    // MSR without its last field (ResponseTime).
    let path = write(&d, "msr.csv", "128166372003061629,hm,0,Read,4096,8192,100\n128166372003061629,hm,0,Read,4096,8192\n");
    assert!(err(&path, &opts("msr", &[])).ends_with(":2: expected 7 comma-separated MSR fields, found 6"));
    // ARC: one field (a block) or four; two or three are a line cut short.
    for line in ["100 8", "100 8 0"] {
        let path = write(&d, "p.lis", format!("100 8 0 1\n{line}\n"));
        let e = err(&path, &opts("arc", &[]));
        assert!(e.contains(":2: expected 4 fields (start_block count ignored request_number) or 1 (a block)"), "{e}");
    }
    let path = write(&d, "lirs.lis", "100\n101\n");
    assert_eq!(read(&path, &opts("arc", &[])).unwrap().len(), 2);
}

#[test]
fn lcs_csv_checks_its_size_column() {
    let d = dir("lcs");
    let path = write(&d, "t.csv", "time,obj_id,obj_size\n1,100,4096\n2,200,big\n");
    assert!(err(&path, &opts("lcs-csv", &[])).ends_with(":3: expected an object size in bytes, found 'big'"));
    let path = write(&d, "short.csv", "time,obj_id,obj_size\n1,100\n");
    assert!(err(&path, &opts("lcs-csv", &[])).ends_with(":2: expected at least 3 fields, found 2"));
    // Without a size column, none is needed.
    assert_eq!(read(&path, &opts("lcs-csv", &[("obj_size_col", "0")])).unwrap().len(), 1);
}

// ---------------------------------------------------------------------------------------------
// .fct headers

/// A `.fct` file of the tpcc fixture with a next-access column, as bytes.
fn fct_bytes(d: &Path) -> Vec<u8> {
    let out = d.join("good.fct");
    convert::convert(&fixture("mqsim_tpcc.trace.zst"), &TraceOptions::default(), &out, convert::Target::Fct, 4096, true, &mut |_, _| true)
        .unwrap();
    std::fs::read(out).unwrap()
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn add_u64(b: &mut [u8], at: usize, delta: i64) {
    let v = get_u64(b, at).wrapping_add_signed(delta);
    put_u64(b, at, v);
}

/// Moves one request from the reads to the writes of a header (or back): the sum still holds.
fn shift_a_read_to_writes(b: &mut [u8]) {
    let d = if get_u64(b, 24) > 0 { -1 } else { 1 };
    add_u64(b, 24, d);
    add_u64(b, 32, -d);
}

/// Reads a `.fct` file whole, then its next-access column: the first error.
fn fct_err(path: &str) -> String {
    let o = TraceOptions::default();
    let e = read(path, &o).err().or_else(|| trace::open(path, &o).and_then(|mut r| r.next_access_column(4096)).err());
    let e = e.unwrap_or_else(|| panic!("{path}: expected an error"));
    assert!(e.is_trace(), "{e}");
    e.to_string()
}

#[test]
fn fct_header_lies_are_errors_naming_the_field() {
    let d = dir("fct");
    let good = fct_bytes(&d);
    let n = get_u64(&good, 120);
    assert!(n > 0);
    let path = write(&d, "ok.fct", &good);
    assert_eq!(trace::open(&path, &TraceOptions::default()).unwrap().next_access_column(4096).unwrap().unwrap().len() as u64, n);

    type Lie = (&'static str, fn(&mut Vec<u8>), &'static str);
    let lies: [Lie; 10] = [
        ("unique", |b| put_u64(b, 56, u64::MAX), "at byte 56: bad .fct header: unique_pages 18446744073709551615"),
        ("requests", |b| put_u64(b, 16, 1 << 60), "at byte 24: bad .fct header: reads"),
        ("page-size", |b| b[80..84].copy_from_slice(&0u32.to_le_bytes()), "at byte 80: bad .fct header: page_size is 0"),
        ("flags", |b| b[12] |= 8, "at byte 12: bad .fct header: unknown flags"),
        ("reads", |b| shift_a_read_to_writes(b), "at byte 24: bad .fct header: reads is"),
        ("pages", |b| add_u64(b, 48, 1), "at byte 48: bad .fct header: page_accesses is"),
        ("time", |b| put_u64(b, 72, 7), "at byte 72: bad .fct header: time_last is 7"),
        ("garbage", |b| b.extend_from_slice(b"junk"), "which the file's"),
        ("huge-next", |b| put_u64(b, 120, 1 << 61), "at byte 120: bad .fct header: next-access entries"),
        // The column one entry shorter, the file cut to match: only the records can tell.
        ("short-next", |b| (add_u64(b, 120, -1), b.truncate(b.len() - 8)).1, "at byte 120: bad .fct header: next-access entries is"),
    ];
    for (name, lie, expected) in lies {
        let mut b = good.clone();
        lie(&mut b);
        let path = write(&d, &format!("{name}.fct"), &b);
        let e = fct_err(&path);
        assert!(e.starts_with(&path) && e.contains(expected), "{name}: {e}");
        // The same from a pass that reads by batches (an MRC's).
        let e = fcsim::curves::exact(&path, &TraceOptions::default(), 4096, &mut |_, _| true).unwrap_err().to_string();
        assert!(e.starts_with(&path) && e.contains(expected), "{name} (by batches): {e}");
        // The same lie inside a gzip file, whose length says nothing.
        let gz = d.join(format!("{name}.fct.gz"));
        let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, &b).unwrap();
        enc.finish().unwrap();
        let e = fct_err(gz.to_str().unwrap());
        assert!(e.contains(".fct"), "{name} (gzip): {e}");
    }
    // A next-access entry that points backwards.
    let mut b = good.clone();
    let col = b.len() - 8 * n as usize;
    put_u64(&mut b, col + 8, 0);
    let path = write(&d, "backwards.fct", &b);
    assert!(fct_err(&path).contains(&format!("at byte {}: bad .fct next-access entry 0 at access 1", col + 8)));
}

#[test]
fn a_refused_request_before_a_bad_record_of_its_batch_is_located_at_itself() {
    // Record 3's page is outside the key space (2^60 bytes: page 2^48 at 4 KiB), record 12
    // has a bad op code: a pass by batches stops at record 3, named at its own offset.
    let d = dir("fct-refused");
    let mut b = fct_bytes(&d);
    put_u64(&mut b, fct::HEADER + 3 * fct::RECORD + 8, 1 << 60);
    b[fct::HEADER + 12 * fct::RECORD + 22] = 9;
    let path = write(&d, "refused.fct", &b);
    let at = format!("at byte {}:", fct::HEADER + 3 * fct::RECORD + 8);
    let e = fcsim::curves::exact(&path, &TraceOptions::default(), 4096, &mut |_, _| true).unwrap_err().to_string();
    assert!(e.contains(&at) && e.contains("page"), "{e}");
    let lru = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(64));
    let e = fcsim::simulate(&path, &TraceOptions::default(), &lru, None, None).unwrap_err().to_string();
    assert!(e.contains(&at), "{e}");
}

#[test]
fn offline_runs_and_curves_refuse_a_lying_fct() {
    let d = dir("fct-use");
    let mut b = fct_bytes(&d);
    add_u64(&mut b, 120, -1);
    b.truncate(b.len() - 8);
    let path = write(&d, "short-next.fct", &b);
    // The column alone is well formed; MIN's run over the records finds the lie and gives no row.
    assert_eq!(
        fcsim::sim::next_accesses(&path, &TraceOptions::default(), 4096, None).unwrap().len() as u64,
        fct::read_header(Path::new(&path)).unwrap().next_entries
    );
    let min = fcsim::SimConfig::new("min", fcsim::SizeSpec::Pages(64));
    let e = fcsim::simulate(&path, &TraceOptions::default(), &min, None, None).unwrap_err().to_string();
    assert!(e.contains("next-access entries is"), "{e}");
    let mut b = fct_bytes(&d);
    put_u64(&mut b, 56, 1 << 50);
    let path = write(&d, "unique.fct", &b);
    let e = fcsim::curves::exact(&path, &TraceOptions::default(), 4096, &mut |_, _| true).unwrap_err().to_string();
    assert!(e.contains("unique_pages"), "{e}");
}

#[test]
fn a_lie_in_counts_a_run_does_not_use_fails_only_the_passes_that_use_them() {
    // An online policy's run uses none of the header's counts: it skips checking them, and its
    // row is the honest file's. Reading the file (trace info, convert) and MIN's run check them.
    let d = dir("fct-counts");
    let good = fct_bytes(&d);
    let mut b = good.clone();
    shift_a_read_to_writes(&mut b);
    let (honest, lying) = (write(&d, "honest.fct", &good), write(&d, "lying.fct", &b));
    let o = TraceOptions::default();
    let lru = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(64));
    let (a, z) = (fcsim::simulate(&honest, &o, &lru, None, None).unwrap(), fcsim::simulate(&lying, &o, &lru, None, None).unwrap());
    assert_eq!(a.counters, z.counters);
    assert!(fct_err(&lying).contains("bad .fct header: reads is"));
    let min = fcsim::SimConfig::new("min", fcsim::SizeSpec::Pages(64));
    let e = fcsim::simulate(&lying, &o, &min, None, None).unwrap_err().to_string();
    assert!(e.contains("bad .fct header: reads is"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// trace convert

#[test]
fn convert_refuses_an_unknown_output_name() {
    for ok in ["a.fct", "a.CSV", "a.oracleGeneral", "a.oracleGeneral.bin"] {
        assert!(convert::Target::from_path(Path::new(ok)).is_ok(), "{ok}");
    }
    let e = convert::Target::from_path(Path::new("x.xyz")).unwrap_err().to_string();
    assert_eq!(
        e,
        "x.xyz: unknown output format; name the file .fct, .csv (libCacheSim CSV), .oracleGeneral or .oracleGeneral.bin, or give --to"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn convert_removes_temporary_files_of_dead_processes() {
    let d = dir("tmp");
    let out = d.join("t.fct");
    // pid_max is at most 2^22 on Linux: this process never ran. Process 1 always runs.
    let dead = write(&d, ".t.fct.tmp-999999999", "half");
    let alive = write(&d, ".t.fct.tmp-1", "half");
    let other = write(&d, ".u.fct.tmp-999999999", "half");
    convert::convert(&fixture("msr_hm_0.csv"), &TraceOptions::default(), &out, convert::Target::Fct, 4096, false, &mut |_, _| true)
        .unwrap();
    assert!(!Path::new(&dead).exists() && Path::new(&alive).exists() && Path::new(&other).exists());
    // An error leaves nothing behind.
    let bad = write(&d, "bad.csv", "128166372003061629,hm,0,Read,18446744073709551000,8192,100\n");
    assert!(convert::convert(&bad, &opts("msr", &[]), &d.join("v.fct"), convert::Target::Fct, 4096, false, &mut |_, _| true).is_err());
    let mut names: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, [".t.fct.tmp-1", ".u.fct.tmp-999999999", "bad.csv", "t.fct"]);
}

// ---------------------------------------------------------------------------------------------
// Time (issue 24): every time and duration below the horizon, each refusal naming its key or
// its line; per-epoch loads and the split controller's log bounded whatever the times.

fn msr_excerpt() -> String {
    format!("{}/../../data/traces/msr_hm_0_excerpt1000.csv", env!("CARGO_MANIFEST_DIR"))
}

/// LRU over `trace` at `pages` with `kv` (`section.key` = value).
fn config_with(pages: u64, device: Option<&str>, kv: &[(&str, &str)]) -> fcsim::SimConfig {
    let mut cfg = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(pages));
    cfg.device = device.map(str::to_string);
    for (k, v) in kv {
        match k.split_once('.').unwrap() {
            ("device", key) => cfg.device_params.insert(key.into(), v.to_string()),
            ("stack", key) => cfg.stack_params.insert(key.into(), v.to_string()),
            ("sim", "time_scale") => {
                cfg.time_scale = v.parse().unwrap();
                None
            }
            _ => panic!("{k}"),
        };
    }
    cfg
}

/// A run of LRU over `trace` at 10 pages with `kv`: its row or its error.
fn run_with(trace: &str, device: Option<&str>, kv: &[(&str, &str)]) -> fcsim::Result<fcsim::ResultRow> {
    fcsim::simulate(trace, &TraceOptions::default(), &config_with(10, device, kv), None, None)
}

fn config_err(r: fcsim::Result<fcsim::ResultRow>) -> String {
    match r {
        Ok(_) => panic!("expected a configuration error, the run succeeded"),
        Err(e @ Error::Config(_)) => e.to_string(),
        Err(e) => panic!("expected a configuration error: {e}"),
    }
}

#[test]
fn durations_beyond_the_limit_are_refused_naming_the_key() {
    // Before: read_us=1e300 saturated to 2^64 - 1 ns and wrapped (wrong response times);
    // disk_ms=1e300 gave the responses of disk_ms=0.
    let t = msr_excerpt();
    for (device, kv) in [
        (Some("gasa"), [("device.read_us", "1e300")]),
        (Some("gasa"), [("device.erase_us", "2e15")]),
        (Some("gasa"), [("device.balance_epoch_ms", "1e300")]),
        (None, [("stack.disk_ms", "1e300")]),
    ] {
        let mut kv = kv.to_vec();
        if device.is_none() {
            kv.push(("stack.kind", "ssd-cache"));
        }
        let e = config_err(run_with(&t, device, &kv));
        let (key, value) = kv[0];
        assert!(e.starts_with(&format!("{key}={value}: expected ")) && e.contains(" below ") && e.contains("2^60 ns"), "{e}");
    }
    // A GC job (copies and erases of a whole plane) longer than the limit is refused too.
    let e = config_err(run_with(&t, Some("gasa"), &[("device.read_us", "1e11"), ("device.write_us", "1e11")]));
    assert!(e.contains("GC job") && e.contains("device.read_us"), "{e}");
}

#[test]
fn a_time_scale_past_the_horizon_names_the_key_and_the_request() {
    // Before: the scaled times saturated and the row said duration_s 5.59e9 (1.27e11 is right).
    let e = config_err(run_with(&msr_excerpt(), Some("gasa"), &[("sim.time_scale", "1e9")]));
    assert!(e.starts_with("sim.time_scale=1e9: request ") && e.contains("past the latest time"), "{e}");
    assert!(run_with(&msr_excerpt(), Some("gasa"), &[("sim.time_scale", "1000")]).is_ok());
}

#[test]
fn a_synthetic_arrival_rate_past_the_horizon_is_refused() {
    // Before: iops=1e-300 stamped every request at 2^64 - 1 ns, and iops=1e-9 panicked in the
    // device's epoch accounting.
    for spec in ["synth:zipf,requests=5,iops=1e-300", "synth:zipf,requests=1000,iops=1e-9"] {
        let e = trace::open(spec, &TraceOptions::default()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.starts_with("synth: iops=") && e.contains("at least"), "{spec}: {e}");
        assert!(config_err(run_with(spec, Some("gasa"), &[])).starts_with("synth: iops="));
    }
    assert!(trace::open("synth:zipf,requests=5,iops=1e-6", &TraceOptions::default()).is_ok());
}

#[test]
fn a_time_past_the_horizon_is_an_error_naming_the_line() {
    // Before: a read at 2^64 - 551616 ns hung the device; at 2^64 - 1 it panicked.
    let d = dir("horizon");
    for time in ["18446744073709000000", "18446744073709551615", "13835058055282163712"] {
        let path = write(&d, "t.trace", format!("0 0 100 8 1\n{time} 0 100 8 1\n"));
        let e = err(&path, &opts("mqsim", &[]));
        assert!(e.starts_with(&format!("{path}:2: time {time} ns is past the latest time fcsim simulates")), "{e}");
        let e = run_with(&path, Some("gasa"), &[]).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.starts_with(&format!("{path}:2: time")), "{e}");
    }
    // The last time below the horizon is read; MSR's FILETIME stamps (ns since 1601) are far
    // below it.
    let path = write(&d, "ok.trace", "13835058055282163711 0 100 8 1\n");
    assert_eq!(read(&path, &opts("mqsim", &[])).unwrap()[0].time_ns, 13_835_058_055_282_163_711);
    // A .fct record likewise, at its byte offset.
    let out = d.join("t.fct");
    let mut w = fct::Writer::new(std::fs::File::create(&out).unwrap()).unwrap();
    w.push(&HostRequest { time_ns: u64::MAX, volume: 0, offset: 0, len: 4096, op: Op::Read }).unwrap();
    let header =
        fct::Header { requests: 1, reads: 1, page_accesses: 1, unique_pages: 1, page_size: 4096, volumes: 1, ..Default::default() };
    w.finish(&header, None).unwrap();
    let e = err(out.to_str().unwrap(), &TraceOptions::default());
    assert!(e.contains("at byte 128: time 18446744073709551615 ns is past the latest time"), "{e}");
}

#[test]
fn long_operations_take_no_memory_per_epoch() {
    // Before: the per-epoch loads held a slot per 10 ms epoch of an operation's span: a disk of
    // 1e9 ms a page tried to allocate gigabytes for the flash cache's first program (aborting),
    // and 1e9 us reads took 1.2 GB for 1,000 requests.
    // (A flash cache of 2 pages on the default `offline` flash, its 512-page blocks set so that
    // the geometry is kept.)
    let kv = [("stack.kind", "ssd-cache"), ("stack.disk_ms", "1e9"), ("device.pages_per_block", "512")];
    let cfg = config_with(2, Some("offline"), &kv);
    let row = fcsim::simulate(&fixture("golden.csv"), &golden(), &cfg, None, None).unwrap();
    let resp = row.columns().into_iter().find(|(n, _)| n == "resp_max_us").unwrap().1;
    assert!(matches!(resp, fcsim::Value::Float(r) if r >= 1e12), "{resp:?}");
    let row = run_with(&msr_excerpt(), Some("gasa"), &[("device.read_us", "1e9")]).unwrap();
    let epochs = row.columns().into_iter().find(|(n, _)| n == "load_balance_epochs").unwrap().1;
    assert!(matches!(epochs, fcsim::Value::Int(n) if n > 10_000_000), "{epochs:?}");
}

#[test]
fn a_split_window_too_small_to_measure_is_refused() {
    // Before: stack.window=1e-12 made a window (and a log entry) of every host page write.
    let kv = [("stack.kind", "ssd-cache"), ("stack.write", "back"), ("stack.split", "dynamic"), ("stack.window", "1e-12")];
    let run = |kv: &[(&str, &str)]| {
        fcsim::simulate(&msr_excerpt(), &TraceOptions::default(), &config_with(65536, Some("dynamic"), kv), None, None)
    };
    let e = config_err(run(&kv));
    assert!(e.starts_with("stack.window=1e-12, stack.train=0.125: ") && e.contains("at least"), "{e}");
    assert!(!e.contains("stack.train must be"), "no share of the window can do: {e}");
    let least: f64 = e.rsplit("at least ").next().unwrap().split([' ', ')', ';', ',']).next().unwrap().parse().unwrap();
    let mut ok = kv;
    let least = least.to_string();
    ok[3].1 = &least;
    assert!(run(&ok).is_ok());
    // Issue 42: stack.train=1e-300 blamed stack.window and asked for a window of 9.8e296 SSDs;
    // now both keys are named and only the remedy in range is given.
    let kv = [("stack.kind", "ssd-cache"), ("stack.write", "back"), ("stack.split", "dynamic"), ("stack.train", "1e-300")];
    let e = config_err(run(&kv));
    assert!(e.starts_with("stack.window=2, stack.train=1e-300: "), "{e}");
    assert!(e.contains("stack.train must be at least ") && !e.contains("stack.window at least"), "{e}");
    let least: f64 = e.rsplit("at least ").next().unwrap().parse().unwrap();
    let least = least.to_string();
    let mut ok = kv;
    ok[3].1 = &least;
    assert!(run(&ok).is_ok(), "stack.train={least}");
}

#[test]
fn preconditioning_calls_the_runs_progress() {
    // Before: the progress (through which the Python binding stops a run on Ctrl-C) was first
    // called by the loop, so a long preconditioning could not be stopped. (A seed of its own:
    // a state preconditioned before in this process would be copied, not rebuilt.)
    let cfg = config_with(10, Some("gasa"), &[("device.fill", "0.5"), ("device.steady", "1"), ("device.seed", "2024")]);
    let mut calls = 0;
    let mut stop = |_: u64, _: u64| {
        calls += 1;
        false
    };
    let r = fcsim::simulate(&msr_excerpt(), &TraceOptions::default(), &cfg, None, Some(&mut stop));
    assert!(matches!(r, Err(Error::Interrupted)), "{:?}", r.map(|_| ()));
    assert_eq!(calls, 1);
}

#[test]
fn messages_name_the_key_set_and_show_numbers_compactly() {
    // Before: device.op=1e300 blamed device.capacity (set by the flash cache, not the user),
    // and stack.split=1e-300 printed its derived device.op with 300 digits.
    let t = msr_excerpt();
    let e = config_err(run_with(&t, Some("gasa"), &[("stack.kind", "ssd-cache"), ("device.op", "1e300")]));
    assert!(e.starts_with("device.op=1e300: expected a fraction in (0, 1]"), "{e}");
    let e = config_err(run_with(&t, Some("gasa"), &[("device.op", "1e300")]));
    assert!(e.starts_with("device.op=1e300: "), "{e}");
    let kv = [("stack.kind", "ssd-cache"), ("stack.write", "back"), ("stack.split", "1e-300")];
    let e = config_err(fcsim::simulate(&t, &TraceOptions::default(), &config_with(4096, None, &kv), None, None));
    assert!(e.len() < 300 && e.contains("device.op, 1e-300; on a split SSD, stack.split"), "{e}");
}

/// Page keys (issue 24): a volume above 65535 was folded onto volume 0, an offset of 2^60 B onto
/// offset 0, so two different pages counted as one (a hit ratio of 0.5 where 0 is right).
#[test]
fn pages_of_other_volumes_and_far_offsets_never_share_a_key() {
    use fcsim::{simulate, SimConfig, SizeSpec};
    let d = dir("keys");
    let run = |path: &str| simulate(path, &opts("msr", &[]), &SimConfig::new("lru", SizeSpec::Pages(10)), None, None);
    // Two distinct pages: the same offset on volumes 0 and 65535 (the largest kept apart).
    let apart = write(&d, "apart.csv", "1,h,0,Read,4096,4096,1\n2,h,65535,Read,4096,4096,1\n");
    let row = run(&apart).unwrap();
    assert_eq!(row.counters.hits, 0);
    for (name, line2) in [
        ("volume.csv", "2,h,65536,Read,4096,4096,1\n"),
        ("offset.csv", "2,h,0,Read,1152921504606851072,4096,1\n"), // 2^60 + 4096: page 2^48 + 1
    ] {
        let path = write(&d, name, format!("1,h,0,Read,4096,4096,1\n{line2}"));
        let e = run(&path).unwrap_err().to_string();
        assert!(e.contains(&format!("{name}:2: ")), "{e}");
        assert!(e.contains("volume 65536 is beyond the 65536 volumes") || e.contains("ends beyond the 2^48 pages of 4096 B"), "{e}");
        // Every pass that splits pages refuses it alike, at the same line.
        let mut r = trace::open(&path, &opts("msr", &[])).unwrap();
        let e = fcsim::trace::info::trace_info(r.as_mut(), 4096, None).unwrap_err().to_string();
        assert!(e.contains(&format!("{name}:2: ")), "{e}");
    }
}

/// Volume numbers of 2^32 or more were cut to 32 bits (2^32 read as volume 0).
#[test]
fn volume_numbers_are_never_wrapped() {
    let d = dir("volumes");
    for (format, line) in
        [("msr", "1,h,4294967296,Read,0,4096,1\n"), ("systor", "1,0.1,R,4294967296,0,4096\n"), ("tencent", "1,0,8,0,4294967296\n")]
    {
        let path = write(&d, &format!("{format}.csv"), line);
        let e = err(&path, &opts(format, &[]));
        assert!(e.contains(":1: ") && e.contains("4294967296 is larger than the largest volume number fcsim reads (4294967295)"), "{e}");
    }
}

/// A `.fct` header's unique-page count sizes a percent cache without a pass over the records
/// (issue 45); a lying one (which sized `--size 50%` to 1 page where the trace has 207) fails
/// the run at its end, before any row, as the header's other counts do; a run in pages does
/// not check it.
#[test]
fn a_percent_size_takes_the_headers_unique_page_count_and_checks_it() {
    let d = dir("unique");
    let good = fct_bytes(&d);
    let truth = get_u64(&good, 56);
    let o = TraceOptions::default();
    let honest = write(&d, "honest.fct", &good);
    assert_eq!(fcsim::sim::working_set(&honest, &o, 4096, None).unwrap(), truth);
    let half = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Percent(50.0));
    let row = fcsim::simulate(&honest, &o, &half, None, None).unwrap();
    assert_eq!(row.size_pages, truth / 2);
    for said in [1, truth / 2, truth - 1] {
        let mut lie = good.clone();
        put_u64(&mut lie, 56, said);
        let path = write(&d, "lie.fct", &lie);
        assert_eq!(fcsim::sim::working_set(&path, &o, 4096, None).unwrap(), said);
        let refused = format!("at byte 56: bad .fct header: unique_pages is {said}, the records hold {truth}");
        let e = fcsim::simulate(&path, &o, &half, None, None).unwrap_err().to_string();
        assert!(e.contains(&refused), "{e}");
        // The header's count handed back by the caller (as a sweep does, once per trace) is
        // checked as well; so is it under an offline policy, whose pass counts the records.
        let e = fcsim::simulate(&path, &o, &half, Some(said), None).unwrap_err().to_string();
        assert!(e.contains(&refused), "{e}");
        let min = fcsim::SimConfig::new("min", fcsim::SizeSpec::Percent(50.0));
        let e = fcsim::simulate(&path, &o, &min, None, None).unwrap_err().to_string();
        assert!(e.contains(&refused), "{e}");
        // A size not resolved against the header (in pages, or a percent of the caller's own
        // count) does not depend on it, and the run does not check it.
        let pages = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(64));
        fcsim::simulate(&path, &o, &pages, None, None).unwrap();
        assert_eq!(fcsim::simulate(&path, &o, &half, Some(truth), None).unwrap().size_pages, truth / 2);
    }
    // At another page size, or with a volume picked, the header's count is not the one asked
    // for: a pass counts it.
    assert_ne!(fcsim::sim::working_set(&honest, &o, 8192, None).unwrap(), truth);
}

/// `trace.size_unit=0` and `trace.offset_unit=0` were taken as 1.
#[test]
fn a_zero_unit_is_an_error() {
    let d = dir("unit");
    let path = write(&d, "t.csv", "0,4096\n");
    for key in ["size_unit", "offset_unit"] {
        let Err(e) = trace::open(&path, &opts("csv", &[("offset", "1"), ("size", "2"), (key, "0")])) else { panic!("{key}=0 accepted") };
        assert!(e.to_string().contains(&format!("trace.{key}: expected a positive number of bytes per unit, found 0")), "{e}");
    }
}

/// oracleGeneral has no magic: a CSV read as it gave garbage keys.
#[test]
fn a_text_file_read_as_oracle_general_is_an_error() {
    let e = err(&fixture("golden.csv"), &opts("oracle-general", &[]));
    assert!(e.contains("at byte 0: this is text, not oracleGeneral binary records"), "{e}");
}

/// A bad second line of a two-line trace hid its format ("unknown format"), so the message did
/// not point at the line.
#[test]
fn a_bad_line_of_a_short_trace_is_reported_at_its_line() {
    let d = dir("detect");
    let path = write(&d, "two.csv", "128166372003061629,hm,0,Read,0,4096,100\n128166372003061630,hm,0,Raed,0,4096,100\n");
    let e = err(&path, &TraceOptions::default());
    assert!(e.contains("two.csv:2: "), "{e}");
}

/// How `tests/fixtures/golden.csv` is read: times in µs, offsets and sizes in 4 KiB pages.
fn golden() -> TraceOptions {
    let params = [
        ("time", "t"),
        ("time_unit", "us"),
        ("op", "op"),
        ("offset", "page"),
        ("offset_unit", "4096"),
        ("size", "pages"),
        ("size_unit", "4096"),
    ];
    opts("csv", &params)
}

/// The converter's own rename never replaces what is not a regular file (a pipe was replaced by
/// a regular file), and its errors name the target, not `.NAME.tmp-PID`.
#[test]
fn convert_never_replaces_a_pipe_and_names_its_target() {
    let d = dir("convert-out");
    let fifo = d.join("out.fct");
    if std::process::Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false) {
        let e = convert::convert(&fixture("golden.csv"), &golden(), &fifo, convert::Target::Fct, 4096, false, &mut |_, _| true)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("out.fct: is not a regular file; not written over"), "{e}");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }
    let missing = d.join("no-such-dir").join("out.fct");
    let e = convert::convert(&fixture("golden.csv"), &golden(), &missing, convert::Target::Fct, 4096, false, &mut |_, _| true)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no-such-dir/out.fct: ") && !e.contains(".tmp-"), "{e}");
}

#[test]
fn a_bad_record_inside_a_fct_batch_is_named_by_its_byte() {
    // Three records read as one batch: the second is refused. Read by batches, the error comes
    // after the first request and names the second's byte, as request by request.
    let d = dir("batch");
    let good = HostRequest { time_ns: 0, volume: 0, offset: 0, len: 4096, op: Op::Read };
    let header =
        fct::Header { requests: 3, reads: 3, page_accesses: 3, unique_pages: 2, page_size: 4096, volumes: 1, ..Default::default() };
    let file = |name: &str, second: HostRequest| {
        let out = d.join(name);
        let mut w = fct::Writer::new(std::fs::File::create(&out).unwrap()).unwrap();
        for r in [good, second, good] {
            w.push(&r).unwrap();
        }
        w.finish(&header, None).unwrap();
        out.to_string_lossy().into_owned()
    };
    // A page past the key space: the reader takes it, the loop's splitter refuses it.
    let far = file("far.fct", HostRequest { offset: 1 << 60, ..good });
    let cfg = fcsim::SimConfig::new("lru", fcsim::SizeSpec::Pages(2));
    let e = fcsim::simulate(&far, &TraceOptions::default(), &cfg, None, None).unwrap_err().to_string();
    assert!(e.contains("at byte 160") && e.contains("2^48 pages"), "{e}");
    // A time past the horizon: the reader refuses it; the batch before it holds the first.
    let late = file("late.fct", HostRequest { time_ns: u64::MAX, ..good });
    let mut r = trace::open(&late, &TraceOptions::default()).unwrap();
    r.skip_count_checks();
    let mut batch = Vec::with_capacity(8);
    let e = r.next_batch(&mut batch).unwrap_err().to_string();
    assert_eq!(batch, [good]);
    assert!(e.contains("at byte 152"), "{e}");
    let e = fcsim::simulate(&late, &TraceOptions::default(), &cfg, None, None).unwrap_err().to_string();
    assert!(e.contains("at byte 152"), "{e}");
}
