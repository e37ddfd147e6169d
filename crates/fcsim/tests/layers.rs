//! The core's modules form layers that a newcomer can read from the bottom up: each module uses
//! only modules of lower layers (see the crate docs in `src/lib.rs`). This test reads every
//! source file and fails on a `crate::` path that points to the same layer or up, which also
//! rules out every import cycle between modules, and on a module missing from the table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Lowest first. A module may use the modules of every layer before its own.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["mem"],
    &["params", "time", "size", "histogram", "load", "view", "request", "mrc"],
    &["trace"],
    &["policy"],
    &["device"],
    &["stack"],
    &["sim", "offline"],
    &["curves", "minisim"],
    &["metrics"],
    &["config"],
    &["run"],
    &["fidelity"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules named by `crate::NAME` paths in `line` (comments removed first).
fn crate_paths(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        // `fcsim_crate::` or similar identifiers ending in "crate" are not paths of this crate.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            // `crate::{a, b}`: every name in the braces.
            if let Some(group) = rest.strip_prefix('{') {
                let group = group.split('}').next().unwrap_or("");
                found.extend(group.split(',').filter_map(|s| s.trim().split("::").next()).map(|s| s.trim().to_string()));
            }
        } else {
            found.push(name);
        }
    }
    found
}

#[test]
fn modules_use_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut edges: BTreeMap<(String, String), String> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        if rel == Path::new("lib.rs") {
            continue;
        }
        let module = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        let Some(own) = layer_of(&module) else {
            problems.push(format!("{}: module `{module}` is in no layer of tests/layers.rs", rel.display()));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for used in crate_paths(line) {
                // `crate::Error` and `crate::Result` are the error module's, re-exported.
                let used = if used == "Error" || used == "Result" { "error".to_string() } else { used };
                if used == module {
                    continue;
                }
                let Some(theirs) = layer_of(&used) else {
                    problems.push(format!("{}:{}: `crate::{used}` is in no layer of tests/layers.rs", rel.display(), n + 1));
                    continue;
                };
                edges.entry((module.clone(), used.clone())).or_insert_with(|| format!("{}:{}", rel.display(), n + 1));
                if theirs >= own {
                    problems.push(format!(
                        "{}:{}: `{module}` (layer {own}) uses `crate::{used}` (layer {theirs}): a module may use only lower layers",
                        rel.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The table is not vacuous: the core's main edges are there.
    for (a, b) in [("policy", "view"), ("device", "params"), ("stack", "device"), ("metrics", "stack"), ("run", "config")] {
        assert!(edges.contains_key(&(a.to_string(), b.to_string())), "expected `{a}` to use `{b}`");
    }
}

#[test]
fn paths_are_found_in_every_form() {
    assert_eq!(crate_paths("use crate::device::{Backing, Store};"), ["device"]);
    assert_eq!(crate_paths("use crate::{params::Params, size::SizeSpec};"), ["params", "size"]);
    assert_eq!(crate_paths("    let x = crate::policy::build(a); // crate::run is only named here"), ["policy"]);
    assert!(crate_paths("//! see [`crate::run`]").is_empty());
}
