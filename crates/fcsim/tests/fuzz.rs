//! Fuzzing every reader (issue 16): arbitrary bytes, and the committed fixtures mutated byte by
//! byte and field by field, must give requests or one clean error, never a panic, a hang or an
//! unbounded allocation. Every request that comes out splits into a bounded page range.
//! 256 cases a test by default; `PROPTEST_CASES=100000 cargo test --release -p fcsim --test fuzz`
//! runs longer.

use fcsim::request::{HostRequest, KeyUnit, PageSplitter, MAX_REQUEST_BYTES};
use fcsim::trace::{self, convert, TraceOptions, FORMATS};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR")))
}

/// A valid trace of each format, and the options it is read with.
struct Seed {
    format: &'static str,
    bytes: Vec<u8>,
    params: &'static [(&'static str, &'static str)],
}

fn seeds() -> &'static [Seed] {
    static SEEDS: OnceLock<Vec<Seed>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let file = |name: &str| std::fs::read(fixture(name)).unwrap();
        let csv: &[(&str, &str)] = &[
            ("offset", "sector"),
            ("size", "bytes"),
            ("time", "ts_us"),
            ("op", "kind"),
            ("volume", "dev"),
            ("offset_unit", "512"),
            ("time_unit", "us"),
        ];
        let fct = std::env::temp_dir().join(format!("fcsim-fuzz-seed-{}.fct", std::process::id()));
        convert::convert(
            fixture("msr_hm_0.csv").to_str().unwrap(),
            &TraceOptions::default(),
            &fct,
            convert::Target::Fct,
            4096,
            true,
            &mut |_, _| true,
        )
        .unwrap();
        let fct_bytes = std::fs::read(&fct).unwrap();
        let _ = std::fs::remove_file(fct);
        let seeds = vec![
            Seed { format: "fct", bytes: fct_bytes, params: &[] },
            Seed { format: "oracle-general", bytes: file("sample.oracleGeneral.bin"), params: &[] },
            Seed { format: "blkparse", bytes: file("blkparse.txt"), params: &[] },
            Seed { format: "msr", bytes: file("msr_hm_0.csv"), params: &[] },
            Seed { format: "systor", bytes: file("systor17.csv"), params: &[] },
            Seed { format: "vscsi", bytes: file("cloudphysics.vscsi.csv"), params: &[] },
            Seed { format: "lcs-csv", bytes: file("lcs.csv"), params: &[] },
            Seed { format: "spc", bytes: file("financial.spc"), params: &[] },
            Seed { format: "tencent", bytes: file("tencent.csv"), params: &[] },
            Seed { format: "diskmon", bytes: file("diskmon.trace"), params: &[] },
            Seed { format: "fiu", bytes: file("homes.blkparse"), params: &[] },
            Seed { format: "mqsim", bytes: b"938513000 4 264719034 16 0\n938828000 3 197570570 16 1\n".to_vec(), params: &[] },
            Seed { format: "disksim", bytes: file("disksim.trace"), params: &[] },
            Seed { format: "arc", bytes: file("arc_p2.lis"), params: &[] },
            Seed { format: "csv", bytes: file("generic.csv"), params: csv },
        ];
        for f in FORMATS {
            assert!(seeds.iter().any(|s| s.format == f.name), "format {} has no fuzz seed", f.name);
        }
        seeds
    })
}

/// Reads `bytes` as a trace of `seed`'s format (or detected): requests or a clean error. Every
/// request's page range is bounded; a `.fct` file's next-access column is read too.
fn read(seed: &Seed, bytes: &[u8], detect: bool, skip_bad_lines: bool) {
    static N: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!("fcsim-fuzz-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, bytes).unwrap();
    let params: BTreeMap<String, String> = seed.params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let opts = TraceOptions { format: (!detect).then(|| seed.format.to_string()), params, skip_bad_lines, volume: None };
    let name = path.to_string_lossy().into_owned();
    if let Ok(mut r) = trace::open(&name, &opts) {
        let unit = r.key_unit();
        let splitter = PageSplitter::new(4096, unit);
        // Each request comes from at least one byte of input: more would be a loop.
        let mut requests = 0;
        loop {
            match r.next_request() {
                Ok(Some(q)) => check(&q, unit, &splitter),
                Ok(None) => {
                    let _ = r.next_access_column(4096);
                    break;
                }
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    break;
                }
            }
            requests += 1;
            assert!(requests <= bytes.len(), "more requests than bytes");
        }
    }
    let _ = std::fs::remove_file(path);
}

fn check(q: &HostRequest, unit: KeyUnit, splitter: &PageSplitter) {
    let (_, pages) = splitter.pages(q);
    if unit == KeyUnit::Bytes {
        assert!(q.check(unit).is_ok(), "{q:?}");
        assert!(pages <= MAX_REQUEST_BYTES / 4096 + 1, "{q:?}: {pages} pages");
    } else {
        assert_eq!(pages, 1);
    }
}

/// Values that find the edges of parsers and of checked arithmetic.
const TOKENS: &[&str] = &[
    "18446744073709551615",
    "18446744073709551000",
    "36028797018963967",
    "4294967296",
    "1073741825",
    "-1",
    "0",
    "",
    ",",
    " ",
    "\t",
    "\n",
    "\r\n",
    "1e308",
    "nan",
    "0x",
    "\u{ff}",
    "\0",
];

/// One edit of a seed: overwrite a byte, insert a token, delete a span, or cut the file.
#[derive(Debug, Clone)]
enum Edit {
    Byte(usize, u8),
    Token(usize, usize),
    Delete(usize, usize),
    Cut(usize),
    /// Overwrite 8 bytes with an edge value (binary headers and records).
    Word(usize, u64),
}

fn edit() -> impl Strategy<Value = Edit> {
    let words = prop_oneof![Just(0u64), Just(1), Just(u64::MAX), Just(u64::MAX - 999), Just(1 << 32), Just(1 << 60), any::<u64>()];
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Edit::Byte(p, b)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(p, t)| Edit::Token(p, t)),
        (any::<usize>(), 1usize..40).prop_map(|(p, n)| Edit::Delete(p, n)),
        any::<usize>().prop_map(Edit::Cut),
        (any::<usize>(), words).prop_map(|(p, w)| Edit::Word(p, w)),
    ]
}

fn apply(bytes: &mut Vec<u8>, e: &Edit) {
    let at = |p: usize, b: &Vec<u8>| if b.is_empty() { 0 } else { p % (b.len() + 1) };
    match *e {
        Edit::Byte(p, v) if !bytes.is_empty() => {
            let i = p % bytes.len();
            bytes[i] = v;
        }
        Edit::Byte(..) => {}
        Edit::Token(p, t) => {
            let i = at(p, bytes);
            bytes.splice(i..i, TOKENS[t].bytes());
        }
        Edit::Delete(p, n) => {
            let i = at(p, bytes);
            bytes.drain(i..(i + n).min(bytes.len()));
        }
        Edit::Cut(p) => {
            let i = at(p, bytes);
            bytes.truncate(i);
        }
        Edit::Word(p, w) if bytes.len() >= 8 => {
            // Aligned to 8 in the first 128 bytes (a .fct header's fields), anywhere after.
            let i = p % (bytes.len() - 7);
            let i = if i < 128 { i & !7 } else { i };
            bytes[i..i + 8].copy_from_slice(&w.to_le_bytes());
        }
        Edit::Word(..) => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(s: prop::sample::Index, bytes in proptest::collection::vec(any::<u8>(), 0..2048), detect: bool, skip: bool) {
        read(&seeds()[s.index(seeds().len())], &bytes, detect, skip);
    }

    #[test]
    fn mutated_traces_never_panic(s: prop::sample::Index, edits in proptest::collection::vec(edit(), 1..6), detect: bool, skip: bool) {
        let seed = &seeds()[s.index(seeds().len())];
        let mut bytes = seed.bytes.clone();
        for e in &edits {
            apply(&mut bytes, e);
        }
        read(seed, &bytes, detect, skip);
    }
}
