//! Records the source revision the extension is built from, for the provenance columns of
//! every result row (`fcsim_revision`; issue 30): the git commit of the source tree when it is
//! a git checkout with git on the PATH, with `-dirty` when tracked files differ from it, else
//! `unknown` (a build from an sdist or a tarball has no history to name). `FCSIM_REVISION` in
//! the build's environment overrides both (a packager who knows the commit).

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=FCSIM_REVISION");
    let dir = std::env::var("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from).unwrap_or_default();
    let revision = std::env::var("FCSIM_REVISION").ok().filter(|r| !r.is_empty()).or_else(|| {
        // Only fcsim's own checkout: an unpacked tarball inside another repository is not it.
        let top = git(&dir, &["rev-parse", "--show-toplevel"])?;
        let root = dir.join("../..").canonicalize().ok()?;
        if Path::new(&top).canonicalize().ok()? != root {
            return None;
        }
        let commit = git(&dir, &["rev-parse", "HEAD"]).filter(|c| c.len() >= 40)?;
        // Rebuilt when HEAD moves (a commit, a checkout) or the index changes (git add, commit).
        for path in ["HEAD", "index", "packed-refs"] {
            if let Some(p) = git(&dir, &["rev-parse", "--path-format=absolute", "--git-path", path]) {
                println!("cargo:rerun-if-changed={p}");
            }
        }
        if let Some(head) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
            if let Some(p) = git(&dir, &["rev-parse", "--path-format=absolute", "--git-path", &head]) {
                println!("cargo:rerun-if-changed={p}");
            }
        }
        let dirty = git(&dir, &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
        Some(format!("{}{}", &commit[..12], if dirty { "-dirty" } else { "" }))
    });
    println!("cargo:rustc-env=FCSIM_REVISION={}", revision.as_deref().unwrap_or("unknown"));
}
