//! Build script: `FCSIM_SOURCE_DIGEST`, the SHA-256 of every file under `src/` (paths and
//! contents, in path order), so that what the core caches on disk (fitted clone models,
//! `trace::clone::cache`) is keyed by the code that made it, not by a version string that
//! stays the same across revisions.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("src/ is readable").map(|e| e.expect("a directory entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let src = Path::new("src");
    let mut all = Vec::new();
    files(src, &mut all);
    let mut h = Sha256::new();
    for p in &all {
        let rel = p.strip_prefix(src).expect("under src/").to_string_lossy().replace('\\', "/");
        let bytes = std::fs::read(p).expect("a source file is readable");
        h.update((rel.len() as u64).to_le_bytes());
        h.update(rel.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let digest: String = h.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=FCSIM_SOURCE_DIGEST={digest}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=build.rs");
}
