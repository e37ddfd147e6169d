//! `fcsim trace convert`: write a trace as fcsim's binary format, or write its page-level access
//! sequence as libCacheSim CSV or oracleGeneral so that libCacheSim replays the same accesses.
//!
//! Output is written to a temporary file beside the target and renamed over it only when
//! complete, so an error or an interruption never leaves a half-written file.

use super::fct::{self, Header};
use super::info::{InfoBuilder, TraceInfo};
use super::{oracle, TraceOptions};
use crate::error::{Error, Result};
use crate::mem;
use crate::request::{KeyUnit, PageSplitter, NEVER};
use rustc_hash::FxHashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// fcsim binary (`.fct`), host requests.
    Fct,
    /// libCacheSim CSV `time,obj_id,obj_size,op`, one row per page access (time in s from the
    /// start, op `read` or `write` as libCacheSim's CSV reader spells them).
    LcsCsv,
    /// libCacheSim oracleGeneral, one record per page access, with next-access times. The
    /// format has no operation: writes are replayed as reads.
    OracleGeneral,
}

impl Target {
    pub fn parse(s: &str) -> Result<Target> {
        match s {
            "fct" => Ok(Target::Fct),
            "lcs-csv" => Ok(Target::LcsCsv),
            "oracle-general" | "oraclegeneral" => Ok(Target::OracleGeneral),
            _ => Err(Error::config(format!("unknown conversion target '{s}'; expected fct, lcs-csv or oracle-general"))),
        }
    }

    /// What the target format cannot carry of a trace with these statistics, one sentence each
    /// (empty for `.fct`, which keeps every request whole).
    pub fn dropped(self, info: &TraceInfo) -> Vec<String> {
        if self == Target::Fct {
            return Vec::new();
        }
        let name = if self == Target::LcsCsv { "libCacheSim CSV" } else { "oracleGeneral" };
        let mut v = vec![format!("{name} holds one {} B page access per row: request sizes and boundaries are not kept", info.page_size)];
        if self == Target::OracleGeneral && info.write_pages > 0 {
            v.push(format!(
                "oracleGeneral has no read/write flag: the {} written page accesses replay as reads (the CSV target keeps them in its op column)",
                thousands(info.write_pages)
            ));
        }
        if info.trims > 0 {
            v.push(format!("{} trims are left out (they are not accesses)", thousands(info.trims)));
        }
        v.push(if info.timed {
            "times are whole seconds from the first request".to_string()
        } else {
            "the trace has no timestamps: every time is 0".to_string()
        });
        v
    }

    /// The target an output file name asks for: `.fct`, `.csv` (libCacheSim CSV),
    /// `.oracleGeneral` or `.oracleGeneral.bin`. Any other name is refused with that list, so
    /// that a typo never writes a format the user did not ask for.
    pub fn from_path(p: &Path) -> Result<Target> {
        let name = p.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        if name.ends_with(".fct") {
            Ok(Target::Fct)
        } else if name.ends_with(".csv") {
            Ok(Target::LcsCsv)
        } else if name.ends_with(".oraclegeneral") || name.ends_with(".oraclegeneral.bin") {
            Ok(Target::OracleGeneral)
        } else {
            Err(Error::config(format!(
                "{}: unknown output format; name the file .fct, .csv (libCacheSim CSV), .oracleGeneral or .oracleGeneral.bin, or give --to",
                p.display()
            )))
        }
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A file being written under a temporary name (`.NAME.tmp-PID` beside the target); removed
/// unless committed. A process killed outright cannot remove its own: the next write to the
/// same target removes those whose process is gone. Conversions and saved clone models
/// ([`super::clone::Model::save`]) are written through it.
pub(crate) struct AtomicFile {
    tmp: PathBuf,
    target: PathBuf,
    done: bool,
}

impl AtomicFile {
    pub(crate) fn create(target: &Path) -> Result<(AtomicFile, File)> {
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prefix = format!(".{name}.tmp-");
        remove_stale(target, &prefix);
        let tmp = target.with_file_name(format!("{prefix}{}", std::process::id()));
        // Errors name the target the user gave, never the hidden temporary file.
        let f = File::create(&tmp).map_err(|e| Error::io(target, &e))?;
        Ok((AtomicFile { tmp, target: target.to_path_buf(), done: false }, f))
    }

    /// Renames the file over the target, unless what is there now is not a regular file (a
    /// pipe, a device, a directory made while converting: never replaced).
    pub(crate) fn commit(mut self) -> Result<()> {
        if let Ok(m) = std::fs::symlink_metadata(&self.target) {
            if !m.is_file() {
                return Err(Error::Io { file: self.target.clone(), message: "is not a regular file; not written over".into() });
            }
        }
        std::fs::rename(&self.tmp, &self.target).map_err(|e| Error::io(&self.target, &e))?;
        self.done = true;
        Ok(())
    }
}

/// Removes the temporary files `PREFIX<pid>` beside `target` whose process no longer runs. Where
/// there is no `/proc` to ask, nothing is removed; failures are ignored (a leftover is untidy,
/// never harmful: it is never read).
fn remove_stale(target: &Path, prefix: &str) {
    let proc = Path::new("/proc");
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let (true, Ok(entries)) = (proc.join("self").exists(), std::fs::read_dir(dir)) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix(prefix)).filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if pid.is_some_and(|p| !proc.join(p).exists()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Next-access index of every page access (one backward pass), [`NEVER`] if none. Indices
/// count read and write page accesses; trims are not accesses. `Err` when the column or the
/// table of pages does not fit in memory.
pub fn next_access(keys: &[u64]) -> Result<Vec<u64>> {
    let mut next = mem::filled(keys.len(), NEVER, "the next-access column")?;
    let mut seen: FxHashMap<u64, u64> = FxHashMap::default();
    for (i, &k) in keys.iter().enumerate().rev() {
        mem::reserve_map(&mut seen, "the table of the trace's pages")?;
        if let Some(n) = seen.insert(k, i as u64) {
            next[i] = n;
        }
    }
    Ok(next)
}

/// Converts `trace` to `out`. `annotate_next` adds the next-access column to a `.fct` file
/// (oracleGeneral always has it). Returns the trace's statistics.
pub fn convert(
    trace: &str,
    opts: &TraceOptions,
    out: &Path,
    target: Target,
    page_size: u32,
    annotate_next: bool,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<TraceInfo> {
    if page_size == 0 {
        return Err(Error::config("page size must be positive"));
    }
    let mut reader = super::open(trace, opts)?;
    let unit = reader.key_unit();
    let splitter = PageSplitter::new(page_size, unit);
    let mut info = InfoBuilder::new(reader.format(), page_size, unit);
    let (file, f) = AtomicFile::create(out)?;
    let werr = |e: std::io::Error| Error::io(out, &e);
    let need_keys = target == Target::OracleGeneral || (target == Target::Fct && annotate_next);
    let mut keys: Vec<u64> = Vec::new();
    let mut times: Vec<u32> = Vec::new();
    let mut fct_w = if target == Target::Fct {
        Some(fct::Writer::new(BufWriter::with_capacity(1 << 20, f.try_clone().map_err(werr)?)).map_err(werr)?)
    } else {
        None
    };
    let mut csv_w = if target == Target::LcsCsv { Some(BufWriter::with_capacity(1 << 20, f.try_clone().map_err(werr)?)) } else { None };
    if let Some(w) = csv_w.as_mut() {
        w.write_all(b"time,obj_id,obj_size,op\n").map_err(werr)?;
    }
    let mut first_time = None;
    let mut n = 0u64;
    while let Some(r) = reader.next_request()? {
        info.add(&r, reader.as_ref())?;
        let t0 = *first_time.get_or_insert(r.time_ns);
        if let Some(w) = fct_w.as_mut() {
            w.push(&r).map_err(werr)?;
        }
        let secs = (r.time_ns.saturating_sub(t0) / 1_000_000_000).min(u64::from(u32::MAX)) as u32;
        if r.op != crate::request::Op::Trim {
            let (first, count) = splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
            for k in first..first + count {
                if let Some(w) = csv_w.as_mut() {
                    let op = if r.op == crate::request::Op::Write { "write" } else { "read" };
                    writeln!(w, "{secs},{k},{page_size},{op}").map_err(werr)?;
                }
                if need_keys {
                    mem::reserve(&mut keys, 1, "the trace's page keys")?;
                    keys.push(k);
                    if target == Target::OracleGeneral {
                        mem::reserve(&mut times, 1, "the trace's access times")?;
                        times.push(secs);
                    }
                }
            }
        }
        n += 1;
        if n % (1 << 16) == 0 && !progress(reader.progress().0, reader.progress().1) {
            return Err(Error::Interrupted);
        }
    }
    let info = info.finish(reader.bad_lines(), reader.timed());
    match target {
        Target::Fct => {
            let next = annotate_next.then(|| next_access(&keys)).transpose()?;
            let header = Header {
                object_keys: unit == KeyUnit::Object,
                has_next: annotate_next,
                untimed: !reader.timed(),
                requests: info.requests,
                reads: info.reads,
                writes: info.writes,
                trims: info.trims,
                page_accesses: info.page_accesses,
                unique_pages: info.unique_pages,
                time_first: info.time_first_ns,
                time_last: info.time_last_ns,
                page_size,
                volumes: info.volumes.len() as u32,
                source_format: info.format.clone(),
                next_entries: next.as_ref().map_or(0, |n| n.len() as u64),
            };
            if let Some(w) = fct_w {
                w.finish(&header, next.as_deref()).map_err(werr)?.into_inner().map_err(|e| werr(e.into_error()))?;
            }
        }
        Target::LcsCsv => {
            if let Some(mut w) = csv_w {
                w.flush().map_err(werr)?;
            }
        }
        Target::OracleGeneral => {
            let next = next_access(&keys)?;
            let mut w = BufWriter::with_capacity(1 << 20, f.try_clone().map_err(werr)?);
            for i in 0..keys.len() {
                let nx = if next[i] == NEVER { -1 } else { next[i] as i64 };
                oracle::write_record(&mut w, times[i], keys[i], page_size, nx).map_err(werr)?;
            }
            w.flush().map_err(werr)?;
        }
    }
    f.sync_all().map_err(werr)?;
    drop(f);
    file.commit()?;
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!([0, 999, 1000, 7995, 1_234_567].map(thousands), ["0", "999", "1,000", "7,995", "1,234,567"]);
    }

    #[test]
    fn next_access_backward_pass() {
        assert_eq!(next_access(&[1, 2, 1, 3, 2, 1]).unwrap(), [2, 4, 5, NEVER, NEVER, NEVER]);
    }
}
