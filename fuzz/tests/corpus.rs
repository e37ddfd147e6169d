//! The short run of the fuzz targets (`make test`): every committed corpus input and every
//! regression input (a crash the fuzzer found, kept after its fix) goes through its target
//! without libFuzzer. The corpus is what long runs kept for new coverage, so this replays the
//! paths they found in a few seconds.

use fcsim_fuzz::Target;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The Python harnesses' corpora (`fuzz/experiment_toml.py`, `fuzz/fetch_response.py`), replayed by
/// their pytest files.
const PYTHON_TARGETS: &[&str] = &["experiment-toml", "fetch-response"];

fn dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(kind)
}

fn inputs(d: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(d) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// Runs every input of `kind/TARGET/`; returns the inputs that failed, with the panic.
fn replay(kind: &str) -> (usize, Vec<String>) {
    let mut failed = Vec::new();
    let mut n = 0;
    for t in Target::all() {
        for f in inputs(&dir(kind).join(t.name())) {
            n += 1;
            let data = std::fs::read(&f).unwrap();
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| t.run(&data))) {
                let why = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
                failed.push(format!("{}: {}", f.display(), why.unwrap_or_default()));
            }
        }
    }
    (n, failed)
}

#[test]
fn every_target_has_a_corpus_and_every_corpus_a_target() {
    for t in Target::all() {
        assert!(!inputs(&dir("corpus").join(t.name())).is_empty(), "fuzz target {} has no corpus in fuzz/corpus", t.name());
    }
    for kind in ["corpus", "regressions"] {
        for entry in std::fs::read_dir(dir(kind)).into_iter().flatten() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            assert!(Target::by_name(&name).is_some() || PYTHON_TARGETS.contains(&name.as_str()), "fuzz/{kind}/{name} names no fuzz target");
        }
    }
}

#[test]
fn corpus_replays_cleanly() {
    let (n, failed) = replay("corpus");
    assert!(n > 0);
    assert!(failed.is_empty(), "{} of {n} corpus inputs failed:\n{}", failed.len(), failed.join("\n"));
}

#[test]
fn regressions_replay_cleanly() {
    let (n, failed) = replay("regressions");
    assert!(failed.is_empty(), "{} of {n} regression inputs failed:\n{}", failed.len(), failed.join("\n"));
}

#[test]
fn reader_input_layout_round_trips() {
    use fcsim::trace::{format_by_name, TraceOptions};
    for (name, params) in [("csv", vec![("offset", "1"), ("size", "2"), ("delimiter", ";")]), ("fct", vec![])] {
        let format = format_by_name(name).unwrap();
        for (detect, volume, skip) in [(false, None, false), (true, Some(1), true), (false, Some(0), false)] {
            let opts = TraceOptions {
                format: (!detect).then(|| name.to_string()),
                volume,
                skip_bad_lines: skip,
                params: params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            };
            let bytes = fcsim_fuzz::ReaderInput::encode(format, &opts, b"1,2\n");
            let back = fcsim_fuzz::ReaderInput::decode(format, &bytes);
            assert_eq!(format!("{:?}", back.opts), format!("{opts:?}"));
            assert_eq!(back.trace, b"1,2\n");
        }
    }
}
