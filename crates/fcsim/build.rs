//! Build script: `FCSIM_SOURCE_DIGEST`, the SHA-256 of every file under `src/` and of the donor
//! models in `data/profiles/models` the profiles compile in (paths and contents, in path order),
//! so that what is cached on disk (fitted clone models, `trace::clone::cache`; the reports'
//! fidelity measures) is keyed by the code that made it, not by a version string that stays the
//! same across revisions.

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
    // The donor models the profiles compile in (`include_str!`) are source too.
    let donors = Path::new("../../data/profiles/models");
    files(donors, &mut all);
    let mut h = Sha256::new();
    for p in &all {
        let name = p.to_string_lossy().replace('\\', "/");
        let bytes = std::fs::read(p).expect("a source file is readable");
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let digest: String = h.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=FCSIM_SOURCE_DIGEST={digest}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=../../data/profiles/models");
    println!("cargo:rerun-if-changed=build.rs");
}
