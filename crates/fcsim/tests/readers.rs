//! Every reader on a committed fixture in its real format: request count, then the first (and
//! some later) requests field by field, each value derived by hand from the fixture's text and
//! the format's units (see fixtures/README.md).

use fcsim::request::{HostRequest, KeyUnit, Op};
use fcsim::trace::{self, TraceOptions};
use fcsim::Error;
use std::collections::BTreeMap;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn read_with(name: &str, opts: &TraceOptions) -> (String, Vec<HostRequest>, KeyUnit) {
    let mut r = trace::open(&fixture(name), opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut v = Vec::new();
    while let Some(x) = r.next_request().unwrap_or_else(|e| panic!("{name}: {e}")) {
        v.push(x);
    }
    (r.format().to_string(), v, r.key_unit())
}

/// Reads a fixture with format detection.
fn read(name: &str) -> (String, Vec<HostRequest>) {
    let (f, v, _) = read_with(name, &TraceOptions::default());
    (f, v)
}

fn req(time_ns: u64, volume: u32, offset: u64, len: u32, op: Op) -> HostRequest {
    HostRequest { time_ns, volume, offset, len, op }
}

fn err_of(name: &str, opts: &TraceOptions) -> Error {
    let mut r = match trace::open(&fixture(name), opts) {
        Ok(r) => r,
        Err(e) => return e,
    };
    loop {
        match r.next_request() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("{name}: expected an error"),
            Err(e) => return e,
        }
    }
}

#[test]
fn msr() {
    let (f, v) = read("msr_hm_0.csv");
    assert_eq!(f, "msr");
    assert_eq!(v.len(), 12);
    // 128166385295514663,hm,0,Write,9056014336,2048,2833: FILETIME × 100 ns
    assert_eq!(v[0], req(12_816_638_529_551_466_300, 0, 9_056_014_336, 2048, Op::Write));
    // last: 128166385315515043,hm,0,Write,369532928,1024,2324
    assert_eq!(v[11], req(12_816_638_531_551_504_300, 0, 369_532_928, 1024, Op::Write));
}

#[test]
fn blkparse_counts_q_events_only() {
    let (f, v) = read("blkparse.txt");
    assert_eq!(f, "blkparse");
    assert_eq!(v.len(), 11); // 10 Q R + 1 Q W in the first 200 events; the summary ends the trace
                             // 8,16 5 2 0.000001850 18615 Q R 1444645666 + 256 [java]
    assert_eq!(v[0], req(1_850, 0, 739_658_580_992, 131_072, Op::Read));
    // 8,16 0 2 0.629226337 20246 Q W 935733770 + 8 [java]
    assert_eq!(v[10], req(629_226_337, 0, 479_095_690_240, 4096, Op::Write));
}

#[test]
fn mqsim_and_compression() {
    let (f, v) = read("mqsim_tpcc.trace");
    assert_eq!(f, "mqsim");
    assert_eq!(v.len(), 10);
    // 938513000 4 264719034 16 0: ns, device 4, sectors, 0 = write
    assert_eq!(v[0], req(938_513_000, 4, 135_536_145_408, 8192, Op::Write));
    // 939685000 10 358335802 16 0
    assert_eq!(v[9], req(939_685_000, 10, 183_467_930_624, 8192, Op::Write));
    for ext in ["gz", "zst", "xz"] {
        let (fc, vc) = read(&format!("mqsim_tpcc.trace.{ext}"));
        assert_eq!((fc.as_str(), &vc), ("mqsim", &v), "{ext}");
    }
}

#[test]
fn volume_selection() {
    let opts = TraceOptions { volume: Some(4), ..TraceOptions::default() };
    let (_, v, _) = read_with("mqsim_tpcc.trace", &opts);
    assert!(!v.is_empty() && v.iter().all(|r| r.volume == 4));
    let none = TraceOptions { volume: Some(999), ..TraceOptions::default() };
    assert!(err_of("mqsim_tpcc.trace", &none).to_string().contains("no requests on volume 999"));
}

#[test]
fn disksim() {
    let (f, v) = read("disksim.trace");
    assert_eq!(f, "disksim");
    assert_eq!(v.len(), 3);
    assert_eq!(v[0], req(0, 0, 512_000, 4096, Op::Read)); // flags 1: read
    assert_eq!(v[1], req(1_250_000, 1, 1_048_576, 8192, Op::Write)); // 1.25 ms; flags 0: write
    assert_eq!(v[2], req(2_500_000, 0, 2_097_152, 4096, Op::Read)); // flags 3: bit 0 set
}

#[test]
fn systor() {
    let (f, v) = read("systor17.csv");
    assert_eq!(f, "systor");
    assert_eq!(v.len(), 10); // header skipped
                             // 1456095145.133076000,0.000806000,R,0,899056122368,131072
    assert_eq!(v[0], req(1_456_095_145_133_076_000, 0, 899_056_122_368, 131_072, Op::Read));
    // 1456095145.153548000,0.000285000,R,0,693250354176,4096
    assert_eq!(v[9], req(1_456_095_145_153_548_000, 0, 693_250_354_176, 4096, Op::Read));
}

#[test]
fn tencent() {
    let (f, v) = read("tencent.csv");
    assert_eq!(f, "tencent");
    assert_eq!(v.len(), 10);
    // 1538323200,4247200,128,1,1058: s, sectors, 1 = write, volume 1058
    assert_eq!(v[0], req(1_538_323_200_000_000_000, 1058, 2_174_566_400, 65_536, Op::Write));
    // 1538323199,49413784,8,0,1063
    assert_eq!(v[9], req(1_538_323_199_000_000_000, 1063, 25_299_857_408, 4096, Op::Read));
}

#[test]
fn vscsi() {
    let (f, v) = read("cloudphysics.vscsi.csv");
    assert_eq!(f, "vscsi");
    assert_eq!(v.len(), 10);
    // 1,5633898368802,2a,512,42932745: µs, WRITE(10), bytes, 512 B blocks
    assert_eq!(v[0], req(5_633_898_368_802_000, 0, 21_981_565_440, 512, Op::Write));
    // 1,5633900967758,2a,8192,26185655
    assert_eq!(v[9], req(5_633_900_967_758_000, 0, 13_407_055_360, 8192, Op::Write));
}

#[test]
fn diskmon() {
    let (f, v) = read("diskmon.trace");
    assert_eq!(f, "diskmon");
    assert_eq!(v.len(), 10);
    // 0 0.047339 0.00019073 0 Read 1320146 8
    assert_eq!(v[0], req(47_339_000, 0, 675_914_752, 4096, Op::Read));
    // 9 0.844158 0.00001907 0 Write 2030256 8
    assert_eq!(v[9], req(844_158_000, 0, 1_039_491_072, 4096, Op::Write));
}

#[test]
fn arc_lis() {
    let (f, v) = read("arc_p2.lis");
    assert_eq!(f, "arc");
    assert_eq!(v.len(), 10);
    // 3050771 25 0 0: a run of 25 blocks of 512 B; time = line index
    assert_eq!(v[0], req(0, 0, 1_561_994_752, 12_800, Op::Read));
    // 2933523 8 0 9
    assert_eq!(v[9], req(9, 0, 1_501_963_776, 4096, Op::Read));
    let mut params = BTreeMap::new();
    params.insert("block_size".to_string(), "4096".to_string());
    let (_, v4, _) = read_with("arc_p2.lis", &TraceOptions { params, ..TraceOptions::default() });
    assert_eq!(v4[0], req(0, 0, 3_050_771 * 4096, 25 * 4096, Op::Read));
    assert!(!trace::open(&fixture("arc_p2.lis"), &TraceOptions::default()).unwrap().timed());
}

#[test]
fn spc() {
    let (f, v) = read("financial.spc");
    assert_eq!(f, "spc");
    assert_eq!(v.len(), 5);
    // 0,303567,3584,w,0.000000: ASU 0, 512 B LBA, bytes
    assert_eq!(v[0], req(0, 0, 155_426_304, 3584, Op::Write));
    // 2,1013832,512,R,0.118741
    assert_eq!(v[3], req(118_741_000, 2, 519_081_984, 512, Op::Read));
}

#[test]
fn fiu() {
    let (f, v) = read("homes.blkparse");
    assert_eq!(f, "fiu");
    assert_eq!(v.len(), 4);
    // 89966527868604 5359 syslogd 14603152 8 W 6 0 md5: ns, sectors
    assert_eq!(v[0], req(89_966_527_868_604, 0, 7_476_813_824, 4096, Op::Write));
    // a process name with a space: 89966640085300 7014 kjournald daemon 512 8 W 6 0 md5
    assert_eq!(v[3], req(89_966_640_085_300, 0, 262_144, 4096, Op::Write));
    assert_eq!(v[2].op, Op::Read);
}

#[test]
fn lcs_csv_keys_are_object_ids() {
    let (f, v, unit) = read_with("lcs.csv", &TraceOptions::default());
    assert_eq!((f.as_str(), unit), ("lcs-csv", KeyUnit::Object));
    assert_eq!(v.len(), 4);
    assert_eq!(v[0], req(1_000_000_000, 0, 100, 0, Op::Read));
    assert_eq!(v[3].offset, u64::MAX);
    let timed = |time_col: &str| {
        let params = BTreeMap::from([("time_col".to_string(), time_col.to_string())]);
        trace::open(&fixture("lcs.csv"), &TraceOptions { params, ..TraceOptions::default() }).unwrap().timed()
    };
    assert!(timed("1") && !timed("0"));
}

#[test]
fn oracle_general() {
    let (f, v, unit) = read_with("sample.oracleGeneral.bin", &TraceOptions::default());
    assert_eq!((f.as_str(), unit), ("oracle-general", KeyUnit::Object));
    let ids: Vec<u64> = v.iter().map(|r| r.offset).collect();
    assert_eq!(ids, [42, 7, 42]);
    assert_eq!(v[1].time_ns, 2_000_000_000);
}

#[test]
fn generic_csv_named_columns() {
    let mut params = BTreeMap::new();
    for (k, val) in [
        ("time", "ts_us"),
        ("time_unit", "us"),
        ("volume", "dev"),
        ("op", "kind"),
        ("offset", "sector"),
        ("offset_unit", "512"),
        ("size", "bytes"),
    ] {
        params.insert(k.to_string(), val.to_string());
    }
    let opts = TraceOptions { format: Some("csv".into()), params, ..TraceOptions::default() };
    let (f, v, _) = read_with("generic.csv", &opts);
    assert_eq!(f, "csv");
    assert!(trace::open(&fixture("generic.csv"), &opts).unwrap().timed());
    let mut untimed = opts.clone();
    untimed.params.remove("time");
    assert!(!trace::open(&fixture("generic.csv"), &untimed).unwrap().timed());
    assert_eq!(
        v,
        [req(1_000_000, 3, 1_048_576, 4096, Op::Read), req(1_500_000, 3, 1_052_672, 8192, Op::Write), req(2_250_000, 4, 0, 512, Op::Read)]
    );
    let mut missing = BTreeMap::new();
    missing.insert("offset".to_string(), "nope".to_string());
    missing.insert("size".to_string(), "bytes".to_string());
    let e = err_of("generic.csv", &TraceOptions { format: Some("csv".into()), params: missing, ..TraceOptions::default() });
    assert!(e.to_string().contains("no column named 'nope'"), "{e}");
}

#[test]
fn malformed_line_names_file_and_line() {
    let e = err_of("msr_bad_line.csv", &TraceOptions::default());
    let msg = e.to_string();
    assert!(matches!(e, Error::Trace { .. }));
    assert!(msg.contains("msr_bad_line.csv:2:") && msg.contains("expected Type Read or Write, found 'Sideways'"), "{msg}");
    let skip = TraceOptions { skip_bad_lines: true, ..TraceOptions::default() };
    let mut r = trace::open(&fixture("msr_bad_line.csv"), &skip).unwrap();
    let mut n = 0;
    while r.next_request().unwrap().is_some() {
        n += 1;
    }
    assert_eq!((n, r.bad_lines()), (2, 1));
}

#[test]
fn bad_files() {
    let e = err_of("empty.csv", &TraceOptions::default());
    assert!(e.to_string().contains("empty trace"), "{e}");
    let e = err_of("missing.csv", &TraceOptions::default());
    assert!(matches!(e, Error::Io { .. }) && e.to_string().contains("no such file"), "{e}");
    for t in ["truncated.csv.gz", "truncated.lis.zst"] {
        let e = err_of(t, &TraceOptions::default());
        assert!(e.is_trace(), "{t}: {e}");
        assert!(e.to_string().contains(t), "{e}");
    }
    // Truncation is reported where the stream ends.
    let e = err_of("truncated.csv.gz", &TraceOptions::default()).to_string();
    assert!(e.contains("truncated.csv.gz:6: unexpected end of file"), "{e}");
    let e = err_of("msr_hm_0.csv", &TraceOptions { format: Some("nope".into()), ..TraceOptions::default() });
    assert!(matches!(e, Error::Config(_)), "{e}");
    // A trace read as the wrong format fails on its first line.
    let e = err_of("msr_hm_0.csv", &TraceOptions { format: Some("tencent".into()), ..TraceOptions::default() });
    assert!(e.to_string().contains("msr_hm_0.csv:1:"), "{e}");
}

/// Issue 42: what reads a file (a volume, a reader's `trace.*` keys) does not apply to a
/// generator and is refused, not silently ignored; a slice still applies.
#[test]
fn options_of_a_file_are_refused_on_a_synth_trace() {
    let err = |spec: &str, opts: &TraceOptions| trace::open(spec, opts).err().map(|e| e.to_string()).unwrap_or_default();
    for spec in ["synth:zipf,requests=100,pages=50", "synth:profile=lcr-web_0", "synth:clone=x.model"] {
        let volume = TraceOptions { volume: Some(3), ..Default::default() };
        assert!(err(spec, &volume).starts_with("--volume 3: a synth: trace has no volumes to pick"), "{spec}: {}", err(spec, &volume));
        let params = BTreeMap::from([("block_size".to_string(), "512".to_string())]);
        let block = TraceOptions { params, ..Default::default() };
        assert!(err(spec, &block).starts_with("trace.block_size: a synth: trace reads no file"), "{spec}: {}", err(spec, &block));
    }
    // trace.take is a slice, which applies to any trace.
    let params = BTreeMap::from([("take".to_string(), "10".to_string())]);
    let mut r = trace::open("synth:zipf,requests=100,pages=50", &TraceOptions { params, ..Default::default() }).unwrap();
    let mut n = 0;
    while r.next_request().unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, 10);
}
