//! Trace clones: `synth:clone=PATH[,format=F][,scale=K][,length=N][,seed=S]` fits a model to a
//! real trace (or reads one saved by `fcsim trace clone PATH -o MODEL`) and streams a
//! statistically similar trace of any length and working-set scale, seeded, in memory bounded
//! by the model (not by the output's length). This module is the stack-distance clone
//! (`model=stack`, the default for clones and paper profiles before issue 40); the default
//! is [`renewal`], which keeps what separates policies (long-term frequency with recency; the
//! stack clone keeps LRU's curve but loses the ranking of frequency-aware policies), fitted from
//! the same trace into the same model file.
//! Fitted models are kept on disk by content ([`cache`]).
//!
//! **Method.** A stack-distance generator: the LRU stack model of program behaviour drives
//! a reference string by a stack-distance probability mass function (O. Babaoglu, "Efficient
//! Generation of Memory Reference Strings Based on the LRU Stack Model of Program Behaviour",
//! Cornell University Computer Science technical report TR81-475, October 1981), extended, as
//! storage trace generators built on recency are (Y. Wang, I. Khor, P. Desnoyers, "2DIO:
//! Configurable and Cache-Accurate Trace Generation for Storage Benchmarking", EuroSys '26, which
//! reproduces real traces' LRU hit-ratio curves from a quantised recency distribution), with
//! what a block trace adds: reads and writes, request sizes, sequential runs and time.
//! Arrivals follow a binary cascade in the manner of the b-model (M. Wang, T. Madhyastha, N. H.
//! Chan, S. Papadimitriou, C. Faloutsos, "Data Mining Meets Performance Evaluation: Fast
//! Algorithms for Modeling Bursty Traffic", 18th International Conference on Data Engineering,
//! 2002), which splits a span's arrivals between its halves with a bias, recursively; fcsim
//! fits the bias's distribution per level and per count instead of one `b`, below a replayed
//! rate profile. The stack-distance part is calibrated against the original's page-level curve,
//! as 2DIO calibrates its parameters to mimic a real trace.
//!
//! **The model** (counts, so that it is saved and read back exactly; 4 KiB pages):
//!
//! - *Runs.* A request is sequential when it starts where the previous request of the same op
//!   (and volume) ended; a run is a maximal chain of them. The model keeps each op's run lengths
//!   (in requests) and, per window (below), the op transitions from one run to the next (a
//!   two-state Markov chain whose probabilities change over the trace, as its read/write mix
//!   does).
//! - *Sizes.* Per op, the empirical distribution of (request length in bytes, offset within the
//!   page), so that a request spans as many pages as in the original: one for runs' first
//!   requests, one for the requests that follow on (real traces' are larger: cloudphysics' run
//!   starts span 4.6 pages on average, their followers 15).
//! - *Reuse.* For each run's first request, the LRU stack distance (in pages, over every page
//!   access of the trace) of its first page, by class: the op of that page's previous access ×
//!   this op (read-after-read, read-after-write, write-after-read, write-after-write). Distances
//!   are binned: exact below 16, then 8 bins per power of two (±6%). Per class and bin, how many
//!   of those pages were last touched as the first page of their request (a request issued
//!   again) and how many as its last page (a request that starts in the page where an earlier
//!   one ended).
//! - *Working-set growth.* Per op and per window (64 windows of the trace's requests), the run
//!   starts, how many of them start on a new page, and the pages first touched.
//! - *Arrivals.* The span cut into 2^12 equal steps (fewer where a step would be under 1 µs), the
//!   arrivals in each (the rate profile); below a step, the cascade: halved down to about 1 µs,
//!   at each level and for each power of two of a parent interval's count, 16 quantiles of the
//!   share of its arrivals that fall in its first half (and all counts of the level pooled).
//! - *Calibration.* The page-level stack distances of the original (by bin) and the gap (below).
//!
//! **Generation**, one run at a time: the run's op from the window's transitions (drawn without
//! replacement), its length from the op's run lengths; its first request's size and page offset
//! from the op's sizes (sizes and run lengths are drawn without replacement, refilled when
//! spent, so a short clone keeps the original's means); its first page is new with the window's
//! probability, else a class is drawn (the previous op, by the op's class counts), a distance
//! from the class's distribution (uniform within a bin), and the page at that depth of the
//! clone's own LRU stack ([`stack`], a Fenwick tree over access slots) is taken — or, when that
//! page's last access was of the other op, the nearest page of the drawn op (deeper or
//! shallower with equal chance); then, with the bin's shares, the first or the last page of the
//! request that last touched it. New pages are numbered from 0 up, a run that starts on a new
//! page `gap` numbers past the highest; the run's further requests start where the previous one
//! ended. Every page a request touches is pushed on the stack. Arrival times: the profile's
//! steps in order, each step's count split by the cascade.
//!
//! **Scale and length.** `scale=K` multiplies the working set and every distance above 64 pages
//! by K (a drawn distance d becomes ⌊K·x⌋ + 1 for x uniform in the bin's interval); `length=N`
//! sets the number of requests, by default the original's × K (the original's shape at K times
//! the size). A new-page probability is multiplied by K × original requests / N (capped at 1),
//! so the working set is about K times the original's at any length. Arrivals keep the
//! original's rate: a longer clone replays the profile again, from a random step (seeded),
//! after the original's span. A clone longer than K times the original is thus the same
//! working set referenced more often, not the workload run longer: its first touches are
//! fewer, its reuses more, and its hit ratios higher (issue 45; cloudphysics, seed 3, LRU at
//! 4,049 pages: 0.142 at the original's length, 0.449 at 10x, 0.462 at 100x; read hit ratio
//! 0.096, 0.658, 0.652). The renewal clone's `length=` runs the workload again on new pages
//! instead, and keeps them (0.089, 0.116, 0.107; read 0.081, 0.082, 0.083, model format 3;
//! [`renewal`]).
//!
//! **Choices the sources leave open**, and what fcsim does:
//!
//! - Distances are of run starts only; the pages after a run's first page (in its first request
//!   and in the requests that follow on) take whatever distances the clone's layout gives them:
//!   the pages numbered next. That is the model's main error (the cloudphysics clone's LRU curve
//!   is 0.04-0.06 off in mean absolute error; `tests/clone.rs`), and why it is calibrated: a
//!   fitted model generates clones of the original's length (seeds 1, 2, ...: at least two, and
//!   as many as make 2^18 page accesses) and compares their page-level distances with the original's, 10 rounds; each
//!   round reweights the run starts' distance bins by (original / clone)^0.75 (capped to 1/4..4)
//!   and halves the gap (from 64 pages) while the clone touches over 2% more pages than the
//!   original; the round whose LRU curve is closest (1%..50% of the working set) is kept.
//! - Distances within 64 pages are not scaled: they are layout (a request starting in the page
//!   where a recent one ended), not working set.
//! - The working set's growth is held to the original's (× K) per op by feedback: the window's
//!   share of new run starts (at least 2% when behind) × 2^(pages behind / band), the band 0.5%
//!   of the working set (at least 16 pages).
//! - The class of a reuse is drawn before its page; the page is then the nearest of that class
//!   to the drawn depth. Runs of reads and of writes are emitted one after the other, not
//!   interleaved as the original's may be. Sizes are drawn independently of the page; the
//!   distance distribution does not change over the trace (the share of new pages does).
//! - Volumes: all volumes of the original are fitted together (each volume's pages distinct,
//!   as fcsim keys them) and the clone is one volume, 0, holding that many pages. Clone one
//!   volume with `fcsim trace clone PATH --volume N -o MODEL`.
//! - Trims are not modelled (skipped by the fit, absent from the clone).
//! - Arrivals are independent of op and address. The profile is replayed, not modelled: at
//!   scale 1 the clone's rate over time is the original's at 2^-12 of its span (cloudphysics:
//!   1.8 s steps). A cascade split of a count n is ⌊n·share + u⌋ (u uniform), the share
//!   interpolated between the 16 quantiles; a class with fewer than 8 samples draws from its
//!   level's pooled quantiles, a level without samples from the nearest level's. The
//!   interpolation is precomputed: each quantile row is read as 64 shares, the k-th the
//!   interpolated quantile at (k + 1/2)/64 of the way, and a split takes one 64-bit draw (its
//!   top 6 bits pick the share, its low 32 bits are u). Arrivals draw from their own generator
//!   (rand's `SmallRng`, xoshiro256++, seeded from the clone's seed), not from the stream the
//!   pages, ops and sizes draw from: the two are independent, as the model says they are. An interval
//!   shorter than 1 µs puts all its arrivals at its start (ties kept, as traces with coarse
//!   clocks have them); a single arrival is placed uniformly in its interval. The splits are
//!   independent across levels, which the trace's are not: cloudphysics' clone clusters more
//!   at 10 ms than the trace (seed 7: Fano 18.1 against 13.0), while 1 s and 60 s match to 6%
//!   (435 against 463, 10,876 against 10,887).
//! - The stack keeps at most the largest modelled distance × K pages (+64); a page pushed
//!   deeper is forgotten (its next touch is a first access); a drawn distance deeper than the
//!   stack is drawn again (4 times), then gives a new page. Page numbers stay below 1.5 × K ×
//!   (the original's pages + the gap × its run starts on new pages), + room for a request: a request that would pass it moves
//!   to its page number modulo the cap (a reuse). Without it, a clone much longer than the
//!   original keeps running on into new pages (runs that follow on past the highest page),
//!   and its working set and memory grow with its length.
//! - An untimed original (no timestamps, or all equal) gives an untimed clone: requests stamped
//!   with their index, [`TraceReader::timed`] false. A trace with fewer than 100 reads and writes
//!   is refused (too few to fit). Object-keyed traces (libCacheSim) are refused: the model is of
//!   byte ranges.
//! - Memory: the stack (about 20 bytes per page of the working set × K, plus 4 per page number
//!   including gaps; a profile with locality adds 4 per page for its hot marks) and the model;
//!   none of it grows with `length`. Generation allocates only when the stack doubles its
//!   slots or a page number passes the table (the stack compacts in place, and the size and
//!   run-length urns refill in place).
//! - Speed: the generator's output for a seed is fixed (a faster implementation keeps it
//!   draw for draw); `examples/clone_speed.rs --digest` prints a hash of a clone's requests to
//!   check that. Generator version 2 (issue 26) changed it once: the arrivals took a stream of
//!   their own and one draw per split (above), calibration two clones a round, and a profile's
//!   sizes a feedback on their mean ([`Generator::with_mean_size`]). Arrival times are drawn
//!   on a second thread in blocks ([`arrivals::Stream`]; about 15% of the work at 10x
//!   cloudphysics), so on an idle core they overlap the stack's work; per CPU second it is
//!   the same work. The first 65,536 are drawn inline: a short clone starts no thread, and
//!   draws no times ahead that it never takes. At 10x cloudphysics (`bench/RESULTS.md`, "Trace clones": about 3.4 M
//!   requests per CPU second at 100x length, short of issue 26's 5 M) the rate is the steady
//!   state's: the first request comes about 1 ms after the generator is built, and the
//!   second half of a 10x run is no faster than the whole. The stack's random accesses (the
//!   page at a depth, its entry, the entries of the pages a request touches) are out of cache
//!   there, but they are not most of the time: the same requests at scale=1 (a 7 MiB stack)
//!   take 11% (100x length) to 32% (10x) less CPU time, about 4.1-4.4 M per CPU second. The
//!   rest is spread over the draws (the urns' searches about 10%, the stack's select and
//!   find 20%, the arrival thread 12%, ChaCha's refills 3%; `perf record -e cpu-clock`,
//!   2026-11-27). Tried and left out, all output-identical: conditional moves in the urn's
//!   and the stack's tree searches (7-10% slower: a branch lets the next node's load start
//!   early), popcnt as a target feature (about 3%, not worth a build-wide flag), transparent
//!   huge pages for the stack (about 3%, within the shared machine's noise), and reading a
//!   follower's entries at the end of the request before it (no change: they are in cache).

mod arrivals;
pub mod cache;
mod calendar;
mod locality;
mod model;
pub mod profile;
pub mod renewal;
mod stack;
mod table;
mod tiling;

pub use model::{bin, bin_range, Model, MAGIC, PAGE};

use self::arrivals::{Arrivals, Stream};
use self::locality::Locality;
use self::stack::Stack;
use super::urn::Urn;
use super::{Progress, TraceOptions, TraceReader};
use crate::error::{compact, Error, Location, Result};
use crate::request::{HostRequest, Op};
use crate::time::{HORIZON, HORIZON_NS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Distances up to this many pages keep their value at any scale.
const UNSCALED: u64 = 64;

/// A parsed `clone=...` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct CloneSpec {
    pub path: PathBuf,
    pub format: Option<String>,
    pub scale: f64,
    pub length: Option<u64>,
    pub seed: u64,
    /// `model=renewal` ([`renewal`], the default) or `model=stack` (the stack-distance generator).
    pub renewal: bool,
    /// `ablate=...`: parts of the renewal model turned off.
    pub ablate: renewal::Ablate,
}

impl CloneSpec {
    /// Parses `clone=PATH[,key=value...]` (the text after `synth:`).
    pub fn parse(spec: &str) -> Result<CloneSpec> {
        let mut parts = spec.split(',').map(str::trim);
        let path = parts.next().and_then(|p| p.strip_prefix("clone=")).unwrap_or("");
        if path.is_empty() {
            return Err(Error::config("synth:clone=PATH: expected the path of a trace or of a model saved by 'fcsim trace clone'"));
        }
        let mut s = CloneSpec {
            path: PathBuf::from(path),
            format: None,
            scale: 1.0,
            length: None,
            seed: 42,
            renewal: true,
            ablate: renewal::Ablate::default(),
        };
        let mut seen = Vec::new();
        for part in parts.filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| Error::config(format!("synth:clone: expected key=value, found '{part}'")))?;
            super::synth::once(&mut seen, "synth:clone", k, v, &[&["length", "requests"]])?;
            let bad = |what: &str| Error::config(format!("synth:clone: {k}={v}: expected {what}"));
            match k {
                // The generic CSV format's columns come from --set trace.*, which a synth: trace
                // refuses: say so here rather than ask for a key that cannot reach it.
                "format" if v == "csv" => {
                    return Err(Error::config(format!(
                        "synth:clone: format=csv: the generic CSV format needs its columns (--set trace.offset=COLUMN ...), which a clone spec cannot pass; \
                         convert the trace first ('fcsim trace convert {} -o TRACE.fct --format csv --set trace.offset=COLUMN ...') and clone TRACE.fct",
                        s.path.display()
                    )))
                }
                "format" => s.format = Some(v.to_string()),
                "scale" => {
                    s.scale = v
                        .parse::<f64>()
                        .ok()
                        .filter(|x| *x > 0.0 && x.is_finite() && *x <= 1e6)
                        .ok_or_else(|| bad("a positive number up to 1e6"))?
                }
                "length" | "requests" => {
                    s.length = Some(super::synth::count(v).ok_or_else(|| bad("a positive integer (1000000, 1e6)"))?);
                }
                "seed" => s.seed = v.parse().map_err(|_| bad("an unsigned integer"))?,
                "model" => {
                    s.renewal = match v {
                        "renewal" => true,
                        "stack" => false,
                        _ => return Err(bad("renewal or stack")),
                    }
                }
                "ablate" => {
                    let pool = s.ablate.pool_phases;
                    s.ablate = renewal::Ablate::parse(v).map_err(|e| Error::config(format!("synth:clone: ablate={v}: {e}")))?;
                    s.ablate.pool_phases = pool;
                }
                "phases" => {
                    s.ablate.pool_phases = match v {
                        "1" => true,
                        "4" => false,
                        _ => return Err(bad("1 or 4 (quarters of the trace whose reuse the renewal clone keeps apart)")),
                    }
                }
                _ => {
                    return Err(Error::config(format!(
                        "synth:clone: unknown key '{k}'; expected format, scale, length, seed, model, ablate or phases"
                    )))
                }
            }
        }
        if s.ablate != renewal::Ablate::default() && !s.renewal {
            return Err(Error::config("synth:clone: ablate= and phases= apply to model=renewal only"));
        }
        Ok(s)
    }
}

/// Opens a clone spec (the text after `synth:`): the renewal clone, or the stack-distance clone
/// with `model=stack`. Its model's fit skips the original's malformed lines with
/// `skip_bad_lines` (the option of the run reading the clone), and the clone reports them.
pub fn open(spec: &str, skip_bad_lines: bool) -> Result<Box<dyn TraceReader>> {
    let s = CloneSpec::parse(spec)?;
    let model = load(&s.path, &source_options(&s, skip_bad_lines))?;
    let label = format!("synth:{spec}");
    Ok(if s.renewal {
        Box::new(renewal::Renewal::new(&model, s.scale, s.length, s.seed, s.ablate, label)?)
    } else {
        Box::new(Generator::new(&model, s.scale, s.length, s.seed, label)?)
    })
}

/// How a clone's original is read for its fit: the spec's `format=`, and malformed lines
/// skipped or not as the run reading the clone asks.
fn source_options(s: &CloneSpec, skip_bad_lines: bool) -> TraceOptions {
    TraceOptions { format: s.format.clone(), skip_bad_lines, ..Default::default() }
}

/// Models fitted or read from the disk cache ([`cache`]) in this process, by file, format,
/// whether bad lines were skipped and the file's [`cache::Stamp`]: a run opens its trace several
/// times (checks, working set, the run), and the disk cache's key reads the whole original.
type Fitted = Vec<((PathBuf, Option<String>, bool, cache::Stamp), Arc<Model>)>;
static FITTED: OnceLock<Mutex<Fitted>> = OnceLock::new();

/// The model of `path`: read from a model file, or fitted to a trace (read with `opts`). Only a
/// regular file is opened: a fifo or device is refused first (opening a fifo blocks until a
/// writer comes, and the fit reads its source several times), as [`super::Source::open`] does.
pub fn load(path: &Path, opts: &TraceOptions) -> Result<Arc<Model>> {
    load_with(path, opts, None)
}

/// [`load`], calling `progress` every [`super::PROGRESS_EVERY`] requests of each pass of a fit
/// (over the trace, over the calibration's clones) and stopping with [`Error::Interrupted`] when
/// it says stop: Ctrl-C while a model is fitted ends it within a pass's batch.
pub fn load_with(path: &Path, opts: &TraceOptions, progress: Option<Progress<'_>>) -> Result<Arc<Model>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "a pipe, fifo or device, not a regular file" };
        let message = format!("is {what}; a clone is fitted from a trace file or read from a model file, so save it to a file first");
        return Err(Error::Io { file: path.to_path_buf(), message });
    }
    // The file's first bytes, decompressed (a model may be gzipped, zstd- or xz-compressed as a
    // trace may): a model starts, after a byte-order mark, blank and comment lines, with its
    // magic word, whatever format number follows it.
    let mut src = super::Source::open(path)?;
    let head = src.reader.fill_buf().map_err(|e| Error::io(path, &e))?;
    if Model::is_model(head) {
        if opts.format.is_some() || opts.volume.is_some() {
            return Err(Error::config(format!("{}: is a clone model, not a trace: format and volume apply to a trace", path.display())));
        }
        let mut bytes = Vec::new();
        (&mut src.reader).take(model::MAX_MODEL_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::io(path, &e))?;
        if bytes.len() as u64 > model::MAX_MODEL_BYTES {
            return Err(Error::trace(
                path,
                Location::File,
                format!(
                    "a clone model larger than {} MiB (decompressed), the most fcsim reads; a model 'fcsim trace clone' writes is far smaller (under 1 MiB for the traces here)",
                    model::MAX_MODEL_BYTES >> 20
                ),
            ));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::trace(path, Location::Byte(e.utf8_error().valid_up_to() as u64), "a clone model is UTF-8 text; found a byte that is not")
        })?;
        return Model::parse(&text, path).map(Arc::new);
    }
    let stamp = cache::Stamp::of(&meta);
    let key = (path.to_path_buf(), opts.format.clone(), opts.skip_bad_lines, stamp.clone());
    let cache = FITTED.get_or_init(|| Mutex::new(Vec::new()));
    if opts.volume.is_none() && opts.params.is_empty() {
        if let Some(m) = cache.lock().ok().and_then(|c| c.iter().find(|(k, _)| *k == key).map(|(_, m)| m.clone())) {
            return Ok(m);
        }
    }
    let model = Arc::new(fit_cached(path, opts, &stamp, cache::dir().as_deref(), progress)?);
    if opts.volume.is_none() && opts.params.is_empty() {
        if let Ok(mut c) = cache.lock() {
            if c.len() >= 8 {
                c.remove(0);
            }
            c.push((key, model.clone()));
        }
    }
    Ok(model)
}

/// The model of the trace at `path`: from the on-disk cache in `dir` ([`cache`]) when it holds
/// one for this content, fitter and options, else fitted, calibrated and stored there. The fit
/// opens the trace several times and the key reads it once more: a trace whose [`cache::Stamp`]
/// is no longer `stamp` (taken before the first read) when the fit ends was written or replaced
/// meanwhile, and its model, read from more than one version of the file, is refused (neither
/// returned nor stored).
fn fit_cached(
    path: &Path,
    opts: &TraceOptions,
    stamp: &cache::Stamp,
    dir: Option<&Path>,
    mut progress: Option<Progress<'_>>,
) -> Result<Model> {
    let unchanged = || -> Result<()> {
        let now = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
        if cache::Stamp::of(&now) == *stamp {
            return Ok(());
        }
        let message = "changed while its clone model was fitted (written or replaced by another program); no model was kept: fit it again once the file is complete".to_string();
        Err(Error::Io { file: path.to_path_buf(), message })
    };
    let key = dir.and_then(|_| cache::key(path, opts));
    if let (Some(d), Some(k)) = (dir, &key) {
        if let Some(mut m) = cache::get(d, k) {
            unchanged()?;
            // The same content may have been fitted under another name.
            m.source = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
            return Ok(m);
        }
    }
    let mut reader = super::open(&path.to_string_lossy(), opts)?;
    let mut model = Model::fit(reader.as_mut(), path, super::lend(&mut progress))?;
    calibrate_with(&mut model, super::lend(&mut progress))?;
    let open = &mut || super::open(&path.to_string_lossy(), opts);
    model.renewal = Some(renewal::Counts::fit(open, model.accesses, progress)?);
    unchanged()?;
    if let (Some(d), Some(k)) = (dir, &key) {
        cache::put(d, k, &model);
    }
    Ok(model)
}

/// Rounds of [`calibrate`].
const ROUNDS: usize = 10;

/// Calibrates a fitted model to its own original: a run start's first page is the only page
/// whose distance the generator chooses; the others follow from the layout (the pages after it
/// in the clone's numbering). So the fit generates clones of the original's length (at least
/// two, seeds 1, 2, ...: [`measure`]), measures their page-level stack distances, and reweights the run starts' distance bins by the
/// ratio of the original's page-level count to the clone's in each bin (to the power 0.75, capped to
/// 1/4..4), and halves the gap while the clone touches over 2% more pages than the original;
/// `ROUNDS` times, keeping the round whose LRU curve is closest (mean absolute error of the
/// miss ratio at 1%..50% of the working set).
pub fn calibrate(m: &mut Model) -> Result<()> {
    calibrate_with(m, None)
}

/// [`calibrate`], calling `progress` as [`load_with`] says.
fn calibrate_with(m: &mut Model, mut progress: Option<Progress<'_>>) -> Result<()> {
    let target = m.target.clone();
    let curve = |h: &[u64]| -> Vec<f64> {
        // Miss ratios at 1%..50% of the pages, from a binned histogram (uniform within a bin).
        let total: u64 = h.iter().sum();
        let pages = h.first().copied().unwrap_or(0).max(1);
        (1..=50)
            .map(|p| {
                let size = pages as f64 * p as f64 / 100.0;
                let mut hits = 0.0;
                for (b, &c) in h.iter().enumerate().skip(1) {
                    let (lo, n) = model::bin_range(b);
                    let covered = ((size - (lo - 1) as f64) / n as f64).clamp(0.0, 1.0);
                    hits += c as f64 * covered;
                }
                1.0 - hits / total.max(1) as f64
            })
            .collect()
    };
    let want = curve(&target);
    let mut best: Option<(f64, Model)> = None;
    for _ in 0..ROUNDS {
        let got = measure(m, super::lend(&mut progress))?;
        let have = curve(&got);
        let mae = want.iter().zip(&have).map(|(a, b)| (a - b).abs()).sum::<f64>() / want.len() as f64;
        if best.as_ref().map_or(true, |(e, _)| mae < *e) {
            best = Some((mae, m.clone()));
        }
        let (cold, goal) = (got.first().copied().unwrap_or(0) as f64, target.first().copied().unwrap_or(0) as f64);
        if cold > goal * 1.02 && m.gap > 0 {
            m.gap /= 2;
        }
        let factor: Vec<f64> = (0..target.len().max(got.len()))
            .map(|b| {
                let (t, g) = (target.get(b).copied().unwrap_or(0) as f64, got.get(b).copied().unwrap_or(0) as f64);
                ((t + 1.0) / (g + 1.0)).powf(0.75).clamp(0.25, 4.0)
            })
            .collect();
        // Counts × 16 keep precision; heads and tails keep their shares of each bin.
        let scale = |h: &mut Vec<u64>, keep: bool| {
            for (b, c) in h.iter_mut().enumerate().skip(1) {
                let x = (*c as f64 * factor.get(b).copied().unwrap_or(1.0) * 16.0).round() as u64;
                *c = if keep && *c > 0 { x.max(1) } else { x };
            }
        };
        for p in 0..2 {
            for o in 0..2 {
                scale(&mut m.distances[p][o], true);
                scale(&mut m.heads[p][o], false);
                scale(&mut m.tails[p][o], false);
                for b in 0..m.distances[p][o].len() {
                    let d = m.distances[p][o][b];
                    if let Some(x) = m.heads[p][o].get_mut(b) {
                        *x = (*x).min(d);
                    }
                    let h = m.heads[p][o].get(b).copied().unwrap_or(0);
                    if let Some(x) = m.tails[p][o].get_mut(b) {
                        *x = (*x).min(d - h);
                    }
                }
            }
        }
    }
    if let Some((_, b)) = best {
        *m = b;
    }
    Ok(())
}

/// The page-level stack distances (by bin, bin 0 first accesses) of clones of `m` at scale 1:
/// as many (seeds 1, 2, ...) as make 2^18 page accesses and at least two, so that the round
/// calibration keeps is the best for its model, not for one clone's noise (with one clone,
/// cloudphysics' kept model gave clones 0.057-0.066 off the original's curve by seed, with
/// two, 0.050 at seed 7).
fn measure(m: &Model, mut progress: Option<Progress<'_>>) -> Result<Vec<u64>> {
    let clones = (1u64 << 18).div_ceil(m.accesses.max(1)).clamp(2, 64);
    let mut sum: Vec<u64> = Vec::new();
    for seed in 1..=clones {
        let mut c = Generator::new(m, 1.0, None, seed, "calibration".into())?;
        // Only pages are measured: no arrival thread (the arrivals draw from a stream of
        // their own, so the pages are the same without them).
        c.arrivals = None;
        let mut sd = crate::mrc::StackDistances::with_pages(m.pages as usize);
        let mut seen = 0u64;
        while let Some(r) = c.next_request()? {
            seen += 1;
            super::report(seen, &c, &mut progress)?;
            let first = r.offset / PAGE;
            let last = (r.offset + u64::from(r.len.max(1)) - 1) / PAGE;
            for p in first..=last {
                sd.access(p)?;
            }
        }
        let h = model::page_bins(&sd.finish());
        if sum.len() < h.len() {
            sum.resize(h.len(), 0);
        }
        for (s, x) in sum.iter_mut().zip(h) {
            *s += x;
        }
    }
    // Back to one original's counts, for the comparison with its target.
    Ok(sum.into_iter().map(|x| (x + clones / 2) / clones).collect())
}

/// What a fitted model leaves out, for the user: one line each.
pub fn notes(m: &Model) -> Vec<String> {
    let mut v = Vec::new();
    if m.arrivals.is_none() {
        v.push(format!(
            "{} has no usable timestamps (none, or all equal): the model has no arrival process, and its clones are untimed (requests stamped with their index)",
            m.source
        ));
    }
    v
}

/// An empirical distribution to draw from: values and cumulative counts.
#[derive(Debug, Clone, Default)]
struct Cdf {
    values: Vec<u64>,
    cum: Vec<u64>,
}

impl Cdf {
    fn new(pairs: impl IntoIterator<Item = (u64, u64)>) -> Cdf {
        let mut c = Cdf::default();
        let mut sum = 0;
        for (v, n) in pairs {
            if n > 0 {
                sum += n;
                c.values.push(v);
                c.cum.push(sum);
            }
        }
        c
    }

    fn total(&self) -> u64 {
        self.cum.last().copied().unwrap_or(0)
    }

    #[inline]
    fn draw<R: Rng>(&self, rng: &mut R) -> u64 {
        let u = rng.gen_range(0..self.total());
        self.values[self.cum.partition_point(|&c| c <= u)]
    }
}

/// Draws without replacement from a multiset of values, refilled when spent: a clone of the
/// original's length draws each op's sizes in about the original's proportions (a 1,000-request
/// trace's mean size would otherwise wander by several percent).
#[derive(Debug, Clone)]
struct Bag {
    values: Vec<u64>,
    counts: Vec<u64>,
    urn: Option<Urn>,
}

impl Bag {
    fn new(pairs: &[(u64, u64)]) -> Bag {
        Bag { values: pairs.iter().map(|p| p.0).collect(), counts: pairs.iter().map(|p| p.1).collect(), urn: None }
    }

    fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }

    #[inline]
    fn draw<R: Rng>(&mut self, rng: &mut R) -> Result<u64> {
        loop {
            match &mut self.urn {
                Some(u) => match u.draw(rng) {
                    Some(i) => return Ok(self.values[i]),
                    // Spent: the same balls again, in the same tree (no allocation).
                    None => u.refill(&self.counts)?,
                },
                None => self.urn = Some(Urn::new(&self.counts)?),
            }
        }
    }
}

/// Streams a clone of a [`Model`].
#[derive(Debug)]
pub struct Generator {
    label: String,
    /// The malformed lines its model's fit skipped (reported as the clone's own).
    skipped: u64,
    rng: StdRng,
    length: u64,
    i: u64,
    scale: f64,
    /// Per window and previous run's op: the next run's op, drawn without replacement from the
    /// original's transitions in that window (refilled when spent), or `None` to draw it with
    /// `write_share`.
    next_op: Vec<[Option<Bag>; 2]>,
    write_share: Vec<f64>,
    runs: [Bag; 2],
    sizes: [Bag; 2],
    follow: [Bag; 2],
    /// Per op and window: P(a run start's first page is new).
    new: [Vec<f64>; 2],
    /// Per op: P(a reuse follows a write).
    after_write: [f64; 2],
    /// `[prev][op]` and distance bin: P(a reuse takes the first page of the request that last
    /// touched the page at its distance).
    head: [[Vec<f64>; 2]; 2],
    /// The same for the last page of that request.
    tail: [[Vec<f64>; 2]; 2],
    /// `[prev][op]`: distance bins.
    distances: [[Cdf; 2]; 2],
    /// Cumulative pages first touched by the end of each window, × scale: the target.
    growth: [Vec<f64>; 2],
    /// Pages first touched so far, and the width of the control band (pages).
    cold: [u64; 2],
    band: [f64; 2],
    stack: Stack,
    /// Page numbers stay below this: 1.5 × (the pages and the gaps of the original) × K, and
    /// room for a request.
    cap: u64,
    /// Page numbers left free before each run that starts on a new page, so that a later
    /// request running on past the end of an extent finds new pages there, as a growing file
    /// does ([`Model::gap`]).
    gap: u64,
    fresh: u64,
    op: usize,
    left: u64,
    next_offset: u64,
    /// Arrival times, worked out on a thread of their own ([`Stream`]).
    arrivals: Option<Stream>,
    last_ns: u64,
    /// A paper profile's write share ([`profile`]): a run's op drawn from the transitions is
    /// turned to the other op while the writes emitted so far are more than 0.2 points off it.
    write_target: Option<f64>,
    writes: u64,
    /// A paper profile's mean request size (bytes, [`Generator::with_mean_size`]) and the
    /// bytes emitted so far.
    size_target: Option<f64>,
    bytes: u64,
    /// Multiplies every arrival time (a profile's mean rate; 1 for a clone).
    time_factor: f64,
    /// A paper profile's working set, held exactly ([`Generator::with_pages`]).
    pages: Option<Pages>,
    /// A paper profile's read and write locality p/a, held by feedback
    /// ([`Generator::with_locality`]).
    locality: Option<Box<Locality>>,
}

/// The exact working set of a profile: a bit per page number (touched or not), how many are
/// touched, and the table's count, which the clone never passes.
#[derive(Debug)]
struct Pages {
    seen: Vec<u64>,
    touched: u64,
    limit: u64,
}

impl Pages {
    #[inline]
    fn has(&self, p: u64) -> bool {
        self.seen.get((p / 64) as usize).is_some_and(|w| w >> (p % 64) & 1 == 1)
    }

    /// Marks page `p`; true when it was not touched before.
    #[inline]
    fn mark(&mut self, p: u64) -> bool {
        let (i, bit) = ((p / 64) as usize, 1u64 << (p % 64));
        if i >= self.seen.len() {
            self.seen.resize(i + 1, 0);
        }
        let new = self.seen[i] & bit == 0;
        self.seen[i] |= bit;
        self.touched += u64::from(new);
        new
    }

    fn full(&self) -> bool {
        self.touched >= self.limit
    }

    /// Whether pages first..first+span are all touched.
    #[inline]
    fn covers(&self, first: u64, span: u64) -> bool {
        (first..first + span).all(|p| self.has(p))
    }
}

impl Generator {
    /// Opens a clone spec (the text after `synth:`).
    pub fn from_spec(spec: &str) -> Result<Generator> {
        let s = CloneSpec::parse(spec)?;
        let model = load(&s.path, &source_options(&s, false))?;
        Generator::new(&model, s.scale, s.length, s.seed, format!("synth:{spec}"))
    }

    /// A clone of `m` at `scale`, `length` requests (default the original's × scale).
    pub fn new(m: &Model, scale: f64, length: Option<u64>, seed: u64, label: String) -> Result<Generator> {
        let length = length.unwrap_or_else(|| ((m.requests as f64 * scale).round() as u64).max(1));
        let pages = m.pages as f64 * scale;
        // Page numbers: the pages, and a gap before each run that starts on a new page, with
        // half as many again to spare.
        let new_runs: u64 = m.windows.iter().flatten().map(|w| w[1]).sum();
        // In f64: an edited model's counts must not wrap past the check.
        let (per_scale, fixed) = (1.5 * (m.pages as f64 + m.gap as f64 * new_runs as f64), 2.0 * m.max_request_pages() as f64 + 1024.0);
        let numbers = per_scale * scale + fixed;
        if numbers + 1e6 > f64::from(u32::MAX) {
            return Err(Error::config(format!(
                "{label}: scale={}: a working set of {} pages needs {} page numbers (its pages and a free number before each run on new pages, and half as many again to spare), more than a clone has (2^32 pages of 4 KiB); the largest scale of this model is {}",
                compact(scale),
                compact(pages.round()),
                compact(numbers.round()),
                compact(((f64::from(u32::MAX) - 1e6 - fixed) / per_scale * 1000.0).floor() / 1000.0)
            )));
        }
        let starts = |o: usize| m.windows[o].iter().map(|w| w[0]).sum::<u64>();
        let all = starts(1) as f64 / (starts(0) + starts(1)).max(1) as f64;
        // Per window and previous op: the original's transitions; a row without any takes the
        // window's share of write runs, a window without runs the whole trace's.
        let next_op: Vec<[Option<Bag>; 2]> = (0..model::WINDOWS)
            .map(|w| {
                [0, 1].map(|p| {
                    let t = m.transitions[w][p];
                    (t[0] + t[1] > 0).then(|| Bag::new(&[(0, t[0]), (1, t[1])]))
                })
            })
            .collect();
        let write_share: Vec<f64> = (0..model::WINDOWS)
            .map(|w| {
                let (r, wr) = (m.windows[0][w][0], m.windows[1][w][0]);
                if r + wr > 0 {
                    wr as f64 / (r + wr) as f64
                } else {
                    all
                }
            })
            .collect();
        let factor = scale * m.requests as f64 / length as f64;
        let new = [0, 1].map(|o| {
            let (s, n) = m.windows[o].iter().fold((0, 0), |a, w| (a.0 + w[0], a.1 + w[1]));
            let overall = if s > 0 { n as f64 / s as f64 } else { 1.0 };
            m.windows[o].iter().map(|w| (if w[0] > 0 { w[1] as f64 / w[0] as f64 } else { overall } * factor).min(1.0)).collect()
        });
        let sum = |h: &Vec<u64>| h.iter().sum::<u64>();
        let after_write = [0, 1].map(|o| {
            let (r, w) = (sum(&m.distances[0][o]), sum(&m.distances[1][o]));
            if r + w > 0 {
                w as f64 / (r + w) as f64
            } else {
                0.0
            }
        });
        let share = |of: &[[Vec<u64>; 2]; 2]| {
            [0, 1].map(|p| {
                [0, 1].map(|o| {
                    let d = &m.distances[p][o];
                    (0..d.len()).map(|b| of[p][o].get(b).copied().unwrap_or(0) as f64 / d[b].max(1) as f64).collect::<Vec<f64>>()
                })
            })
        };
        let (head, tail) = (share(&m.heads), share(&m.tails));
        let bins = |h: &Vec<u64>| Cdf::new(h.iter().enumerate().map(|(b, &c)| (b as u64, c)));
        let distances = [0, 1].map(|p| [0, 1].map(|o| bins(&m.distances[p][o])));
        let growth = [0, 1].map(|o| {
            let mut sum = 0.0;
            m.growth[o]
                .iter()
                .map(|&g| {
                    sum += g as f64 * scale;
                    sum
                })
                .collect::<Vec<f64>>()
        });
        let total = growth[0].last().copied().unwrap_or(0.0) + growth[1].last().copied().unwrap_or(0.0);
        let band = [0, 1].map(|_| (0.005 * total).max(16.0));
        let limit = (m.max_distance() as f64 * scale).ceil() as usize + 64;
        let stack = Stack::new((pages * 1.05) as usize + 64, limit);

        let arrivals = m.arrivals.clone().map(|c| Stream::new(Arrivals::new(c, seed), length));
        Ok(Generator {
            label,
            skipped: m.skipped,
            rng: StdRng::seed_from_u64(seed),
            length,
            i: 0,
            scale,
            next_op,
            write_share,
            runs: [Bag::new(&m.runs[0]), Bag::new(&m.runs[1])],
            sizes: [Bag::new(&m.sizes[0]), Bag::new(&m.sizes[1])],
            follow: [Bag::new(&m.follow[0]), Bag::new(&m.follow[1])],
            new,
            after_write,
            head,
            tail,
            distances,
            growth,
            cold: [0; 2],
            band,
            stack,
            gap: m.gap,
            cap: numbers as u64,
            fresh: 0,
            op: usize::from(all > 0.5),
            left: 0,
            next_offset: 0,
            arrivals,
            last_ns: 0,
            write_target: None,
            writes: 0,
            size_target: None,
            bytes: 0,
            time_factor: 1.0,
            pages: None,
            locality: None,
        })
    }

    /// Holds the working set to exactly `limit` pages, a paper profile's count: first touches
    /// are counted on a bitmap of page numbers (the stack forgets pages deeper than the model's
    /// deepest distance, and would count them again) and steer the growth feedback; once
    /// `limit` pages are touched, no request touches another: a run start reuses a page, and a
    /// request that would run into an untouched page starts on a touched one instead (the first
    /// page of a request on the clone's LRU stack at a uniform depth, up to 256 tries; in the
    /// rare case none fits, it runs into new pages). Memory: one bit per page number (1.5 × K × the donor's).
    /// `start_pages` is the mean number of pages a run's first request spans: page numbers
    /// are allowed up to 1.5 × (limit + the gap × the most runs that can start on new pages,
    /// limit / start_pages), as a profile's requests may be smaller than its donor's.
    pub fn with_pages(mut self, limit: u64, start_pages: f64) -> Result<Generator> {
        let numbers = 1.5 * (limit as f64 + self.gap as f64 * limit as f64 / start_pages.max(1.0)) + 1024.0;
        if numbers + 1e6 > f64::from(u32::MAX) {
            return Err(Error::config(format!(
                "{}: a working set of {limit} pages needs {} page numbers (its pages and a free number before each run on new pages, and half as many again to spare), more than a clone has (2^32 pages of 4 KiB)",
                self.label,
                compact(numbers.round())
            )));
        }
        self.cap = self.cap.max(numbers as u64);
        self.pages = Some(Pages { seen: Vec::with_capacity((self.cap / 64 + 1) as usize), touched: 0, limit });
        Ok(self)
    }

    /// Holds each op's locality p/a (read, then write) to a paper table's ([`Locality`]: hot
    /// sets, and the reuses the stack draws moved onto or off them).
    pub fn with_locality(mut self, target: [(f64, f64); 2]) -> Generator {
        self.stack.keep_marks();
        self.locality = Some(Box::new(Locality::new(target, self.cap)));
        self
    }

    /// Holds the share of write requests to `write` (within 0.2 points once 64 requests are
    /// out) and multiplies arrival times by `time_factor`: what a paper profile keeps from its
    /// table ([`profile`]).
    pub fn with_targets(mut self, write: Option<f64>, time_factor: f64) -> Generator {
        self.write_target = write;
        self.time_factor = time_factor;
        self
    }

    /// Holds the mean request size to `bytes`, a paper profile's (within about 1% once 64
    /// requests are out): while the mean so far is more than 1% off, a request's size is the
    /// better of two draws from its bag (the smaller above the mean, the larger below). The
    /// profile's sizes are already scaled to that mean in expectation ([`profile`]); the
    /// feedback takes out what the draws leave (a few long runs of large followers moved
    /// dynamic-msnfs' mean 2.8% off at 1% scale, seed 42).
    pub fn with_mean_size(mut self, bytes: f64) -> Generator {
        self.size_target = Some(bytes);
        self
    }

    /// A request's size and page offset (packed) of op `o`: from the run starts' sizes, or
    /// the followers' (`follow`, when the op has any), held to a profile's mean size.
    #[inline]
    fn size(&mut self, o: usize, follow: bool) -> Result<u64> {
        let bag = if follow && !self.follow[o].is_empty() { &mut self.follow[o] } else { &mut self.sizes[o] };
        let a = bag.draw(&mut self.rng)?;
        let Some(t) = self.size_target else { return Ok(a) };
        let mean = self.bytes as f64 / self.i.max(1) as f64;
        if self.i < 64 || (mean / t - 1.0).abs() <= 0.01 {
            return Ok(a);
        }
        let b = bag.draw(&mut self.rng)?;
        Ok(if (mean > t) == (a >> 12 < b >> 12) { a } else { b })
    }

    /// The mean arrival rate of the original, requests per second (`None` when untimed).
    pub fn rate(m: &Model) -> Option<f64> {
        m.arrivals.as_ref().map(|a| a.profile.iter().sum::<u64>() as f64 * 1e9 / a.root_ns.max(1.0))
    }

    /// Bytes held by the clone's stack (its memory grows with the model, not the output).
    pub fn stack_bytes(&self) -> usize {
        self.stack.bytes()
    }

    /// Bytes held by the stack and a profile's page bitmap: the generator's state that grows
    /// with the working set (none of it grows with the output's length).
    pub fn state_bytes(&self) -> usize {
        let locality = self.locality.as_ref().map_or(0, |l| l.bytes());
        self.stack.bytes() + self.pages.as_ref().map_or(0, |p| p.seen.capacity() * 8) + locality
    }

    /// The first page of a run start of op `o`: a reused page, or `fresh` for a new one.
    #[inline]
    fn start_page(&mut self, o: usize) -> u64 {
        let at = self.i as f64 * model::WINDOWS as f64 / self.length as f64;
        let w = (at as usize).min(model::WINDOWS - 1);
        // The working set's growth, held to the original's (× scale) by feedback, per op: the
        // window's share of new run starts, doubled for each half percent of the working set
        // the op's first touches are behind the original's, halved for each they are ahead.
        let g = &self.growth[o];
        let before = if w == 0 { 0.0 } else { g[w - 1] };
        let target = before + (g[w] - before) * (at - w as f64);
        let mut behind = (target - self.cold[o] as f64) / self.band[o];
        if self.pages.is_some() {
            // A profile holds the whole working set to its table's: an op ahead of its own
            // share still adds pages while the two together are behind.
            let at_w =
                |g: &Vec<f64>| (if w == 0 { 0.0 } else { g[w - 1] }) + (g[w] - if w == 0 { 0.0 } else { g[w - 1] }) * (at - w as f64);
            let total = at_w(&self.growth[0]) + at_w(&self.growth[1]) - (self.cold[0] + self.cold[1]) as f64;
            behind = behind.max(total / self.band[o]);
        }
        let base = if behind > 0.0 { self.new[o][w].max(0.02) } else { self.new[o][w] };
        let full = self.pages.as_ref().is_some_and(Pages::full);
        let p = if full { 0.0 } else { base * behind.exp2() };
        if self.rng.gen::<f64>() < p.min(1.0) {
            return self.fresh + self.gap;
        }
        let prev = usize::from(self.rng.gen::<f64>() < self.after_write[o]);
        let cdf = &self.distances[prev][o];
        if cdf.total() == 0 {
            return self.fresh + self.gap;
        }
        // A distance deeper than the stack (early in the clone) is drawn again, a few times,
        // before it becomes a new page: the windows' new-page shares already say how many
        // run starts are new.
        for _ in 0..4 {
            let b = cdf.draw(&mut self.rng) as usize;
            let (lo, n) = model::bin_range(b);
            let x = (lo - 1) as f64 + self.rng.gen::<f64>() * n as f64;
            // Distances within a few requests (a request starting in the page where a recent
            // one ended) are layout, not working set: they are not scaled.
            let d = if lo <= UNSCALED { lo } else { (x * self.scale) as u64 + 1 };
            if d <= self.stack.len() as u64 {
                let deeper = self.rng.gen::<bool>();
                let u = self.rng.gen::<f64>();
                let head = self.head[prev][o][b];
                let at = if u < head { 1 } else { u8::from(u < head + self.tail[prev][o][b]) * 2 };
                let Some(page) = self.stack.find(d, prev == 1, deeper, at) else { return self.fresh + self.gap };
                if let Some(l) = self.locality.as_deref() {
                    // Behind the table's share on hot pages: to the nearest hot page; ahead:
                    // to the nearest other page (or stay).
                    let hot = l.is_hot(o, u64::from(page));
                    if l.behind(o) {
                        if !hot && !l.list[o].is_empty() {
                            let near = self.stack.nearest_marked(d, Locality::RADIUS, o);
                            let list = &l.list[o];
                            return u64::from(near.unwrap_or_else(|| list[self.rng.gen_range(0..list.len())]));
                        }
                    } else if hot && !l.cold[o].is_empty() {
                        return u64::from(l.cold[o][self.rng.gen_range(0..l.cold[o].len())]);
                    }
                }
                return u64::from(page);
            }
        }
        self.fresh + self.gap
    }
}

impl TraceReader for Generator {
    #[inline]
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if self.i == self.length {
            return Ok(None);
        }
        let (offset, packed);
        if self.left == 0 {
            let w = (self.i as u128 * model::WINDOWS as u128 / self.length as u128) as usize;
            let o = match &mut self.next_op[w][self.op] {
                Some(bag) => bag.draw(&mut self.rng)? as usize,
                None => usize::from(self.rng.gen::<f64>() < self.write_share[w]),
            };
            let mut o = if self.sizes[o].is_empty() { 1 - o } else { o };
            if let Some(t) = self.write_target {
                let share = self.writes as f64 / self.i.max(1) as f64;
                let off = if o == 1 { share - t } else { t - share };
                if self.i >= 64 && off > 0.002 && !self.sizes[1 - o].is_empty() {
                    o = 1 - o;
                }
            }
            self.op = o;
            self.left = if self.runs[o].is_empty() { 1 } else { self.runs[o].draw(&mut self.rng)? };
            packed = self.size(o, false)?;
            let page = self.start_page(o);
            offset = page * PAGE + (packed & 0xfff);
        } else {
            let o = self.op;
            packed = self.size(o, true)?;
            offset = self.next_offset;
        }
        let o = self.op;
        let len = packed >> 12;
        self.left -= 1;
        let mut offset = offset;
        let span = (offset % PAGE + len.max(1)).div_ceil(PAGE);
        if offset / PAGE + span > self.cap {
            // Page numbers stay below the cap: the request moves to the same place modulo
            // it (a reuse), so the clone's memory does not grow with its length.
            offset = (offset / PAGE) % (self.cap - span).max(1) * PAGE + offset % PAGE;
        }
        if let Some(pages) = &self.pages {
            if pages.full() && !pages.covers(offset / PAGE, span) {
                // The working set is the table's: the request moves to touched pages.
                // Page-aligned there, so it spans as few pages as its length needs.
                let whole = len.max(1).div_ceil(PAGE);
                for k in 0..256 {
                    // A page of the stack, at a uniform depth (touched, unless forgotten), as
                    // the first page of the request or its last.
                    let d = self.rng.gen_range(1..=self.stack.len().max(1)) as u64;
                    let Some(at) = self.stack.find(d, k % 2 == 1, self.rng.gen(), 1) else { continue };
                    let at = u64::from(at);
                    let back = (at + 1).saturating_sub(whole);
                    if let Some(first) = [at, back].into_iter().find(|&f| pages.covers(f, whole)) {
                        offset = first * PAGE;
                        break;
                    }
                }
            }
        }
        self.next_offset = offset + len;
        let first = offset / PAGE;
        let last = (offset + len.max(1) - 1) / PAGE;
        // The request's first page's entry in the stack, read now: it is often out of cache,
        // and the arrival time (read from the arrival thread's block) is taken while it comes
        // in.
        std::hint::black_box(self.stack.slot_of(first));
        let time_ns = match &mut self.arrivals {
            Some(a) => {
                let next = a.next().map_err(|e| Error::config(format!("{}: request {}: {e}", self.label, self.i + 1)))?;
                let t = ((next * self.time_factor) as u64).max(self.last_ns);
                if t >= HORIZON_NS {
                    return Err(Error::config(format!(
                        "{}: request {} would arrive past the latest time fcsim simulates ({HORIZON}); shorten the clone (length=)",
                        self.label,
                        self.i + 1
                    )));
                }
                self.last_ns = t;
                t
            }
            None => self.i,
        };
        let new = self.stack.touch_range(first as u32, (last - first + 1) as usize, o == 1);
        // A profile counts first touches on its page bitmap (the stack forgets deep pages).
        let mut cold = new;
        if self.pages.is_some() || self.locality.is_some() {
            let mut marked = 0;
            for p in first..=last {
                if let Some(pages) = &mut self.pages {
                    marked += u64::from(pages.mark(p));
                }
                if let Some(l) = &mut self.locality {
                    l.touch(o, p);
                    // The stack marks each op's hot pages on their slots (for the nearest).
                    for m in 0..2 {
                        if l.is_hot(m, p) {
                            self.stack.mark(p as u32, m);
                        }
                    }
                }
            }
            if self.pages.is_some() {
                cold = marked;
            }
        }
        self.cold[o] += cold;
        self.fresh = self.fresh.max(last + 1);
        self.i += 1;
        self.writes += o as u64;
        self.bytes += len;
        let op = if o == 1 { Op::Write } else { Op::Read };
        Ok(Some(HostRequest { time_ns, volume: 0, offset, len: len as u32, op }))
    }

    fn bad_lines(&self) -> u64 {
        self.skipped
    }

    fn format(&self) -> &'static str {
        "synth"
    }

    fn timed(&self) -> bool {
        self.arrivals.is_some()
    }

    fn repeats_ns(&self) -> Option<u64> {
        self.arrivals.as_ref().map(|a| (a.pass_ns() * self.time_factor) as u64)
    }

    fn progress(&self) -> (u64, u64) {
        (self.i, self.length)
    }

    fn error_at_last(&self, message: String) -> Error {
        Error::config(format!("{}: request {}: {message}", self.label, self.i))
    }
}

/// Fits (or reads) the model of a `synth:clone=` trace before the trace is first opened, calling
/// `progress` as [`load_with`] does, so that Ctrl-C stops the fit of `run synth:clone=TRACE`
/// too (opening a trace takes no progress); the open that follows finds the model in this
/// process's cache. Any other trace: nothing to do.
pub fn prefit(trace: &str, skip_bad_lines: bool, progress: Option<Progress<'_>>) -> Result<()> {
    let Some(spec) = trace.strip_prefix("synth:").map(str::trim_start).filter(|s| s.starts_with("clone=")) else {
        return Ok(());
    };
    let s = CloneSpec::parse(spec)?;
    load_with(&s.path, &source_options(&s, skip_bad_lines), progress).map(|_| ())
}

/// Fits the model of a trace and saves it to `out` (`fcsim trace clone PATH -o MODEL`).
pub fn save_model(trace: &str, opts: &TraceOptions, out: &Path, progress: Option<Progress<'_>>) -> Result<Arc<Model>> {
    let path = Path::new(trace);
    if trace.starts_with("synth:") {
        return Err(Error::config("fcsim trace clone: expected a trace file, not a synth: generator"));
    }
    let model = load_with(path, opts, progress)?;
    if model.renewal.is_none() {
        // A model of an older format, read for its stack counts: saved again it would be headed
        // with this format and refused for lack of what this format holds.
        return Err(Error::config(format!(
            "{}: is a clone model of format {}, without the renewal counts of format {}; a model is not fitted again from a model: fit the original trace with 'fcsim trace clone TRACE -o MODEL'",
            path.display(),
            model.format,
            model::FORMAT
        )));
    }
    model.save(out)?;
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces").join(name)
    }

    /// [`fit_cached`] of the file as it is now.
    fn fit(path: &Path, opts: &TraceOptions, dir: Option<&Path>, progress: Option<Progress<'_>>) -> Result<Model> {
        fit_cached(path, opts, &cache::Stamp::of(&std::fs::metadata(path).unwrap()), dir, progress)
    }

    fn tmp(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fcsim-clone-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Every request of a clone spec (`model=` either).
    pub(super) fn requests(spec: &str) -> Vec<HostRequest> {
        let mut c = open(spec, false).unwrap_or_else(|e| panic!("{e}"));
        let mut v = Vec::new();
        while let Some(r) = c.next_request().unwrap() {
            v.push(r);
        }
        v
    }

    #[test]
    fn a_saved_model_reads_back_and_clones_the_same() {
        let orig = data("msr_hm_0_excerpt1000.csv");
        let m = load(&orig, &TraceOptions::default()).unwrap();
        let text = m.to_text();
        let saved = tmp("hm0.model", &text);
        let back = Model::parse(&text, &saved).unwrap();
        assert_eq!(back.to_text(), text);
        // The same stack clone (the renewal clone's: `renewal::tests`) from the trace and from its saved model, and again with the same seed.
        let a = requests(&format!("clone={},model=stack,seed=3", orig.display()));
        assert_eq!(a, requests(&format!("clone={},model=stack,seed=3", saved.display())));
        assert_eq!(a.len(), 1000);
        assert!(a.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
        assert_ne!(a, requests(&format!("clone={},model=stack,seed=4", saved.display())));
        // length and scale.
        let b = requests(&format!("clone={},model=stack,length=5000,scale=2", saved.display()));
        assert_eq!(b.len(), 5000);
    }

    #[test]
    fn a_cached_model_is_used_only_for_the_same_content_fitter_and_options() {
        let dir = std::env::temp_dir().join(format!("fcsim-model-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let orig = std::fs::read_to_string(data("msr_hm_0_excerpt1000.csv")).unwrap();
        let trace = tmp("cached.csv", &orig);
        let opts = TraceOptions::default();
        let fitted = fit(&trace, &opts, Some(&dir), None).unwrap();
        let key = cache::key(&trace, &opts).unwrap();
        assert!(key.contains('-') && dir.join(format!("{key}.model")).exists());
        // A hit: the stored model, read back exactly (as its text: the arrival quantiles are
        // saved to the precision they are drawn with).
        assert_eq!(cache::get(&dir, &key).unwrap().to_text(), fitted.to_text());
        assert_eq!(fit(&trace, &opts, Some(&dir), None).unwrap().to_text(), fitted.to_text());
        // Other options are another key.
        let other = TraceOptions { format: Some("msr".into()), ..TraceOptions::default() };
        assert_ne!(cache::key(&trace, &other).unwrap(), key);
        // The same file name and size but other content (the last request's offset one sector
        // further: a 9 for an 8 in its last digit): another key and a fresh fit.
        let line = orig.trim_end().rsplit('\n').next().unwrap();
        let fields: Vec<&str> = line.split(',').collect();
        let offset: u64 = fields[4].parse().unwrap();
        assert_eq!(offset % 10, 8, "the excerpt's last offset ends in 8");
        let moved = line.replace(fields[4], &(offset + 1).to_string());
        let changed = orig.replacen(line, &moved, 1);
        assert_eq!(changed.len(), orig.len());
        std::fs::write(&trace, &changed).unwrap();
        let key2 = cache::key(&trace, &opts).unwrap();
        assert_ne!(key2, key);
        let refit = fit(&trace, &opts, Some(&dir), None).unwrap();
        assert_ne!(refit.to_text(), fitted.to_text());
        assert_eq!(refit.to_text(), fit(&trace, &opts, None, None).unwrap().to_text());
        // A corrupt cached file is a miss: fitted again and rewritten.
        std::fs::write(dir.join(format!("{key2}.model")), "fcsim-clone-model 1\nrequests x\n").unwrap();
        assert_eq!(fit(&trace, &opts, Some(&dir), None).unwrap().to_text(), refit.to_text());
        assert_eq!(cache::get(&dir, &key2).unwrap().to_text(), refit.to_text());
        // A fifo where the cached file would be is a miss, not an open that waits for a writer.
        #[cfg(unix)]
        {
            let at = dir.join(format!("{key2}.model"));
            std::fs::remove_file(&at).unwrap();
            assert!(std::process::Command::new("mkfifo").arg(&at).status().unwrap().success());
            assert!(cache::get(&dir, &key2).is_none());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_input_names_the_file_and_what_was_expected() {
        let err = |spec: &str| Generator::from_spec(spec).unwrap_err().to_string();
        assert!(err("clone=/nonexistent/trace.csv").contains("/nonexistent/trace.csv: no such file"));
        for (spec, want) in [
            ("clone=", "expected the path"),
            ("clone=x,scale=0", "scale=0: expected a positive number"),
            ("clone=x,length=1.5", "length=1.5: expected a positive integer"),
            ("clone=x,volume=3", "unknown key 'volume'"),
        ] {
            assert!(err(spec).contains(want), "{spec}: {}", err(spec));
        }
        // Too short to fit.
        let short: String = (0..50).map(|i| format!("{} 0 {} 8 1\n", i * 1000, i * 64)).collect();
        let p = tmp("short.trace", &short);
        let e = err(&format!("clone={},format=disksim", p.display()));
        assert!(e.contains("has 50 reads and writes as read") && e.contains("a clone needs at least 100"), "{e}");
        // A corrupt model: the file, the line, what was expected.
        let orig = data("msr_hm_0_excerpt1000.csv");
        let text = load(&orig, &TraceOptions::default()).unwrap().to_text();
        let bad = text.replacen("requests 1000", "requests many", 1);
        let line = bad.lines().position(|l| l.starts_with("requests")).unwrap() + 1;
        let p = tmp("bad.model", &bad);
        let e = err(&format!("clone={}", p.display()));
        assert!(e.contains(&format!("bad.model:{line}: requests: expected a count, found 'many'")), "{e}");
        let cut: String = text.lines().take(12).map(|l| format!("{l}\n")).collect();
        let p = tmp("cut.model", &cut);
        assert!(err(&format!("clone={}", p.display())).contains("truncated"));
        let p = tmp("junk.model", "fcsim-clone-model 1\nhello 1\nend\n");
        assert!(err(&format!("clone={}", p.display())).contains("junk.model:2: unknown key 'hello'"));
    }

    /// Issue 42: an edited model whose counts add up past 2^64 (sizes, follow, renewal lines),
    /// or whose page count wraps, is refused at its line; before, the generator drew over a
    /// wrapped total and searched for ever.
    #[test]
    fn model_counts_that_would_wrap_are_refused_at_their_line() {
        let orig = data("msr_hm_0_excerpt1000.csv");
        let text = load(&orig, &TraceOptions::default()).unwrap().to_text();
        let half = 1u64 << 63;
        let replace = |key: &str, with: &str| -> (String, usize) {
            let line = text.lines().position(|l| l.starts_with(key)).unwrap_or_else(|| panic!("no '{key}' line"));
            let edited: Vec<&str> = text.lines().enumerate().map(|(i, l)| if i == line { with } else { l }).collect();
            (edited.join("\n") + "\n", line + 1)
        };
        for (key, with, want) in [
            ("sizes read ", format!("sizes read 4096+0:{half} 8192+0:{half}"), "sizes: the model's counts add up past 2^62 by this line"),
            ("follow read ", format!("follow read 4096+0:{half} 8192+0:{half}"), "follow: the model's counts add up past 2^62"),
            (
                "renewal sizes read ",
                format!("renewal sizes read 4096+0:{half} 8192+0:{half}"),
                "renewal: the model's counts add up past 2^62",
            ),
            ("pages ", "pages 18446744073709551615".to_string(), "pages: 18446744073709551615; expected at most 4294967295"),
        ] {
            let (edited, line) = replace(key, &with);
            let p = tmp("wrap.model", &edited);
            for spec in [format!("clone={},length=10", p.display()), format!("clone={},length=10,model=renewal", p.display())] {
                let e = open(&spec, false).err().unwrap_or_else(|| panic!("{key}: accepted")).to_string();
                assert!(e.contains(&format!("wrap.model:{line}: {want}")), "{key}: {e}");
            }
        }
        // A tick count far above the gaps the renewal counts hold (the renewal clone drew new
        // pages at a rate of ~0 and searched for ever).
        // A check across lines names the line it is about.
        let (edited, line) = replace("renewal ticks", &format!("renewal ticks {}", 1u64 << 61));
        let p = tmp("ticks.model", &edited);
        let e = open(&format!("clone={},length=10,model=renewal", p.display()), false).err().unwrap().to_string();
        assert!(
            e.contains(&format!("ticks.model:{line}: renewal ticks 2305843009213693952: expected the state lines' gaps and ends, 2473")),
            "{e}"
        );
    }

    /// Issue 42: a model with a byte-order mark, comments or blank lines before its first line,
    /// or gzipped, is read as a model (before, each was called a trace of unknown format); one
    /// of another format number says which it reads; one past [`model::MAX_MODEL_BYTES`] is
    /// refused before it is read whole; a count past 2^64 or a sum past 2^62 says which.
    #[test]
    fn models_are_known_by_their_magic_and_bounded() {
        let orig = data("msr_hm_0_excerpt1000.csv");
        let text = load(&orig, &TraceOptions::default()).unwrap().to_text();
        let want = requests(&format!("clone={},seed=3,length=50", tmp("plain.model", &text).display()));
        for (name, body) in [
            ("bom.model", format!("\u{feff}{text}")),
            ("comment.model", format!("# a note\n\n{text}")),
            ("crlf.model", text.replace('\n', "\r\n")),
        ] {
            let p = tmp(name, &body);
            assert_eq!(requests(&format!("clone={},seed=3,length=50", p.display())), want, "{name}");
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        let p = tmp("gz.model", "");
        std::fs::write(&p, gz.finish().unwrap()).unwrap();
        assert_eq!(requests(&format!("clone={},seed=3,length=50", p.display())), want);
        let err = |name: &str, body: &str| open(&format!("clone={}", tmp(name, body).display()), false).err().unwrap().to_string();
        for first in ["fcsim-clone-model 7", "fcsim-clone-model version 2", "fcsim-clone-model2"] {
            let e = err("v.model", &text.replacen(model::MAGIC, first, 1));
            assert!(e.contains(&format!("v.model:1: '{first}': a model format this fcsim does not read (it reads 1 to 6)")), "{e}");
        }
        // Lines ended by CR alone: the file is one line, quoted to its first 60 characters (the
        // error repeated the whole model, 45 KB).
        let e = err("cr.model", &text.replace('\n', "\r"));
        assert!(
            e.contains(&format!("cr.model:1: '{}... ({} bytes)': a model format", &text[..60].replace('\n', "\r"), text.trim_end().len())),
            "{e}"
        );
        assert!(e.len() < 400, "{} bytes", e.len());
        // Given where a trace is expected: named a model, with how to clone it.
        let p = tmp("bom-trace.model", &format!("\u{feff}{text}"));
        let e = crate::trace::open(&p.to_string_lossy(), &TraceOptions::default()).err().unwrap().to_string();
        assert!(
            e.ends_with(&format!(
                "is a clone model (made by 'fcsim trace clone'), not a trace: run its clone as synth:clone={}",
                p.display()
            )),
            "{e}"
        );
        // Counts: one past 2^64, and a sum past 2^62 tipped over by a later small count.
        let e = err("o.model", &text.replacen("requests 1000", "requests 18446744073709551616", 1));
        assert!(e.contains(":4: requests: 18446744073709551616 is past 2^64 - 1, the most a count holds"), "{e}");
        let e = err("o.model", &text.replacen("requests 1000", "requests 4611686018427387904", 1));
        assert!(
            e.contains(":5: pages: the model's counts add up past 2^62 by this line (the largest: requests 4611686018427387904 on line 4)"),
            "{e}"
        );
        // Larger than any model: refused without reading it whole (a sparse file).
        let p = tmp("huge.model", &format!("{}\n", model::MAGIC));
        std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(model::MAX_MODEL_BYTES + 10).unwrap();
        let e = open(&format!("clone={}", p.display()), false).err().unwrap().to_string();
        assert!(e.contains("huge.model: a clone model larger than 64 MiB (decompressed)"), "{e}");
        // Not UTF-8: the byte offset of the first bad byte.
        let p = tmp("bin.model", "");
        std::fs::write(&p, [model::MAGIC.as_bytes(), b"\nsource \xff\n"].concat()).unwrap();
        let e = open(&format!("clone={}", p.display()), false).err().unwrap().to_string();
        assert!(e.contains("bin.model at byte 27: a clone model is UTF-8 text; found a byte that is not"), "{e}");
        // A path through a file, not a directory: said in words, not the OS's text.
        let e = open(&format!("clone={}/x", tmp("file.model", &text).display()), false).err().unwrap().to_string();
        assert!(e.ends_with("file.model/x: a part of the path before the file name is a file, not a directory"), "{e}");
        assert!(!e.contains("os error"), "{e}");
    }

    /// Issue 42: a key given twice (or two keys for one thing) is refused, not last-wins; the
    /// generic CSV format, whose columns a clone spec cannot pass, is refused as such.
    #[test]
    fn clone_spec_keys_are_given_once() {
        let e = CloneSpec::parse("clone=x,seed=1,seed=2").unwrap_err().to_string();
        assert_eq!(e, "synth:clone: seed=2: seed is given twice (seed=1 before it); give each key once");
        let e = CloneSpec::parse("clone=x,length=10,requests=20").unwrap_err().to_string();
        assert_eq!(e, "synth:clone: requests=20: requests sets what length=10 before it sets; give each key once");
        let e = CloneSpec::parse("clone=x.csv,format=csv").unwrap_err().to_string();
        assert!(
            e.starts_with("synth:clone: format=csv: the generic CSV format needs its columns") && e.contains("fcsim trace convert x.csv"),
            "{e}"
        );
        let e = super::profile::ProfileSpec::parse("profile=lcr-web_0,n=5,requests=6").unwrap_err().to_string();
        assert!(e.ends_with("requests=6: requests sets what n=5 before it sets; give each key once"), "{e}");
        let e = super::profile::ProfileSpec::parse("profile=gasa-t1,model=lru").unwrap_err().to_string();
        assert!(e.ends_with("model=lru: expected renewal or stack"), "{e}");
        let e = super::profile::ProfileSpec::parse("profile=gasa-t1,ablate=ops").unwrap_err().to_string();
        assert!(e.ends_with("ablate=ops: expected locality (the one part a profile can turn off)"), "{e}");
        assert!(super::profile::ProfileSpec::parse("profile=gasa-t1,ablate=locality").unwrap().locality().is_none());
        assert!(super::profile::ProfileSpec::parse("profile=gasa-t1").unwrap().locality().is_some());
        // A profile is built on the renewal clone unless `model=stack` (issue 40).
        assert!(super::profile::ProfileSpec::parse("profile=gasa-t1").unwrap().renewal);
        assert!(!super::profile::ProfileSpec::parse("profile=gasa-t1,model=stack").unwrap().renewal);
    }

    /// A count is any positive integer up to 2^64 - 1, written whole or as 1e6 (`1e19` was
    /// taken while `18446744073709551615` was refused); `ablate=` names at least one part, each
    /// part once joined by a single `+` (an empty value or part was taken as nothing ablated).
    #[test]
    fn clone_spec_counts_and_parts_are_read_alike() {
        for (v, n) in [("18446744073709551615", u64::MAX), ("1e19", 10_000_000_000_000_000_000), ("1_000", 1000), ("2e3", 2000)] {
            assert_eq!(CloneSpec::parse(&format!("clone=x,length={v}")).unwrap().length, Some(n), "{v}");
            assert_eq!(super::profile::ProfileSpec::parse(&format!("profile=gasa-t1,requests={v}")).unwrap().requests, Some(n), "{v}");
        }
        for v in ["0", "1.5", "2e19", "18446744073709551616", "-1", ""] {
            let e = CloneSpec::parse(&format!("clone=x,length={v}")).unwrap_err().to_string();
            assert_eq!(e, format!("synth:clone: length={v}: expected a positive integer (1000000, 1e6)"));
        }
        let e = CloneSpec::parse("clone=x,ablate=").unwrap_err().to_string();
        assert!(e.starts_with("synth:clone: ablate=: an empty part; expected frequency, recency"), "{e}");
        let e = CloneSpec::parse("clone=x,ablate=ops++sizes").unwrap_err().to_string();
        assert!(e.starts_with("synth:clone: ablate=ops++sizes: an empty part; expected"), "{e}");
        assert!(CloneSpec::parse("clone=x,ablate=ops+sizes").unwrap().ablate.sizes);
    }

    /// Issue 42: a fifo or a device as the clone source is refused before it is opened (opening
    /// a fifo blocks until a writer comes).
    #[cfg(unix)]
    #[test]
    fn a_fifo_or_device_is_refused_as_a_clone_source() {
        let dir = std::env::temp_dir().join(format!("fcsim-clone-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("f");
        let _ = std::fs::remove_file(&fifo);
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let out = dir.join("f.model");
        for path in [fifo.clone(), PathBuf::from("/dev/null")] {
            let e = open(&format!("clone={}", path.display()), false).err().unwrap().to_string();
            assert!(e.contains("is a pipe, fifo or device, not a regular file"), "{e}");
            let e = open(&format!("clone={},model=renewal", path.display()), false).err().unwrap().to_string();
            assert!(e.contains("is a pipe, fifo or device"), "{e}");
            let e = save_model(&path.to_string_lossy(), &TraceOptions::default(), &out, None).unwrap_err().to_string();
            assert!(e.contains("is a pipe, fifo or device"), "{e}");
        }
        assert!(!out.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Issue 42: a fit stops when its progress says so (Ctrl-C in the bindings), in every pass
    /// (the trace's, the calibration's clones', the renewal counts'), and writes no model.
    #[test]
    fn a_fit_stops_when_progress_says_stop_and_writes_nothing() {
        // A trace long enough for a progress call in each pass (every 2^16 requests).
        let lines: String = (0..70_000u64).map(|i| format!("{} 0 {} 8 {}\n", i * 1000, (i * 7919 % 50_000) * 8, i % 3 / 2)).collect();
        let trace = tmp("long.trace", &lines);
        let out = trace.with_extension("model");
        let opts = TraceOptions { format: Some("disksim".into()), ..Default::default() };
        let dir = std::env::temp_dir().join(format!("fcsim-clone-stop-{}", std::process::id()));
        // A whole fit's calls: one in the trace's pass, one in each calibration clone's, one in
        // each of the renewal counts' two passes.
        let mut calls = 0;
        fit(
            &trace,
            &opts,
            None,
            Some(&mut |_, _| {
                calls += 1;
                true
            }),
        )
        .unwrap();
        assert!(calls >= 4, "{calls} progress calls");
        // Stopped at the first call (the trace's pass), the second (calibration), the last two
        // (the renewal passes).
        for stop_at in [1, 2, calls - 1, calls] {
            let mut n = 0;
            let r = fit(
                &trace,
                &opts,
                Some(&dir),
                Some(&mut |_, _| {
                    n += 1;
                    n < stop_at
                }),
            );
            assert!(matches!(r, Err(Error::Interrupted)), "stop at call {stop_at} of {calls}: {:?}", r.map(|_| ()));
        }
        let mut stop = |_: u64, _: u64| false;
        assert!(matches!(save_model(&trace.to_string_lossy(), &opts, &out, Some(&mut stop)), Err(Error::Interrupted)));
        assert!(!out.exists(), "an interrupted fit wrote {}", out.display());
        // The fit of a synth:clone= trace ahead of its first open (the bindings' prefit_clone),
        // and nothing to fit for another trace.
        let spec = format!("synth:clone={},format=disksim", trace.display());
        assert!(matches!(prefit(&spec, false, Some(&mut stop)), Err(Error::Interrupted)));
        assert!(prefit("synth:zipf", false, Some(&mut stop)).is_ok() && prefit(&trace.to_string_lossy(), false, Some(&mut stop)).is_ok());
        assert!(std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_none()), "an interrupted fit was cached");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A trace replaced (by a rename, as a download or a regeneration finishes) while its model is
    /// fitted: the fit read two traces (the cloudphysics trace's stack counts and tencent's
    /// renewal counts), and the mixed model was saved and cached under the first one's content,
    /// used by every later clone of it. Refused now, with nothing saved or cached, as is a
    /// trace rewritten in place with its size and modification time kept.
    #[test]
    fn a_trace_changed_while_it_is_fitted_gives_no_model() {
        let line = |i: u64, k: u64| format!("{} 0 {} 8 {}\n", i * 1000, (i * k % 50_000) * 8, i % 3 / 2);
        let trace = tmp("changing.trace", &(0..70_000u64).map(|i| line(i, 7919)).collect::<String>());
        let other = tmp("other.trace", &(0..70_000u64).map(|i| line(i, 104_729)).collect::<String>());
        let out = trace.with_extension("model");
        let opts = TraceOptions { format: Some("disksim".into()), ..Default::default() };
        let dir = std::env::temp_dir().join(format!("fcsim-clone-changed-{}", std::process::id()));
        // Replaced at the fit's second progress call (its first calibration clone).
        let mut calls = 0;
        let mut replace = |_: u64, _: u64| {
            calls += 1;
            if calls == 2 {
                std::fs::copy(&other, trace.with_extension("new")).unwrap();
                std::fs::rename(trace.with_extension("new"), &trace).unwrap();
            }
            true
        };
        let e = save_model(&trace.to_string_lossy(), &opts, &out, Some(&mut replace)).unwrap_err().to_string();
        assert!(e.contains("changing.trace: changed while its clone model was fitted"), "{e}");
        assert!(!out.exists(), "a mixed model was saved");
        let stamp = cache::Stamp::of(&std::fs::metadata(&trace).unwrap());
        let mut calls = 0;
        let mut rewrite = |_: u64, _: u64| {
            calls += 1;
            if calls == 2 {
                // The same bytes but the last request's op, the modification time set back
                // (`cp -p`).
                let mut text = std::fs::read(&trace).unwrap();
                let mtime = std::fs::metadata(&trace).unwrap().modified().unwrap();
                let op = text.len() - 2;
                text[op] = if text[op] == b'0' { b'1' } else { b'0' };
                std::fs::write(&trace, &text).unwrap();
                std::fs::File::options().write(true).open(&trace).unwrap().set_modified(mtime).unwrap();
            }
            true
        };
        let e = fit_cached(&trace, &opts, &stamp, Some(&dir), Some(&mut rewrite)).unwrap_err().to_string();
        assert!(e.contains("changed while its clone model was fitted"), "{e}");
        assert!(std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_none()), "a mixed model was cached");
        // A trace left alone is fitted and cached.
        fit(&trace, &opts, Some(&dir), None).unwrap();
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A line the writer always writes, deleted from a model, was read as zeros (no sequential
    /// requests, a window without new pages, reuse requests never sequential): a different
    /// clone, said nowhere. (A model without `reuse` lines, of a trace without reuse requests,
    /// still clones, its blocks whole.)
    #[test]
    fn a_model_without_a_renewal_line_its_writer_always_writes_is_refused() {
        let text = load(&data("msr_hm_0_excerpt1000.csv"), &TraceOptions::default()).unwrap().to_text();
        for key in [
            "renewal ticks ",
            "renewal sequential ",
            "renewal sizes read ",
            "renewal sizes write ",
            "renewal reuse-sequential ",
            "renewal shared ",
            "renewal new-pages 7 ",
        ] {
            let body: String = text.lines().filter(|l| !l.starts_with(key)).map(|l| format!("{l}\n")).collect();
            assert_eq!(body.lines().count() + 1, text.lines().count(), "{key}");
            let e = open(&format!("clone={}", tmp("cut.model", &body).display()), false).err().unwrap().to_string();
            assert!(e.contains(&format!("cut.model: no '{}' line: not a complete clone model", key.trim_end())), "{key}: {e}");
        }
    }

    /// A model with a line its writer always writes missing (`source`, one window's
    /// `transitions`), a line given twice, or a count with a sign is refused with the line: each
    /// was taken (the transitions of that window as zeros, the later line over the earlier).
    #[test]
    fn a_model_with_a_line_missing_or_given_twice_is_refused() {
        let text = load(&data("msr_hm_0_excerpt1000.csv"), &TraceOptions::default()).unwrap().to_text();
        let err = |body: &str| open(&format!("clone={}", tmp("edited.model", body).display()), false).err().unwrap().to_string();
        let without = |key: &str| -> String { text.lines().filter(|l| !l.starts_with(key)).map(|l| format!("{l}\n")).collect() };
        for (key, said) in [("source ", "no 'source' line"), ("transitions 9 ", "no 'transitions 9' line")] {
            let body = without(key);
            assert_eq!(body.lines().count() + 1, text.lines().count(), "{key}");
            assert!(err(&body).ends_with(&format!("edited.model: {said}: not a complete clone model")), "{key}: {}", err(&body));
        }
        // Each line twice, in turn: the second is named, with the first's line.
        // (Not the header, comments, `end`, nor the arrivals with their `profile` and `level`
        // lines, which must come in order: a line of them given again is refused as out of it.)
        let once = |l: &str| !["fcsim-clone-model", "#", "end", "arrivals", "profile", "level"].iter().any(|k| l.starts_with(k));
        for (at, line) in text.lines().enumerate().filter(|(_, l)| once(l)) {
            let body: String =
                text.lines().enumerate().flat_map(|(i, l)| if i == at { vec![l, l] } else { vec![l] }).map(|l| format!("{l}\n")).collect();
            let e = err(&body);
            assert!(
                e.contains(&format!("edited.model:{}: '", at + 2)) && e.contains(&format!("is given again (line {} gave it)", at + 1)),
                "{line}: {e}"
            );
        }
        // A check across lines names the line it is about: heads past their distances.
        let at = text.lines().position(|l| l.starts_with("heads read-after-read ")).unwrap();
        let body: String =
            text.lines().enumerate().map(|(i, l)| if i == at { format!("{l} 1:999999\n") } else { format!("{l}\n") }).collect();
        let e = err(&body);
        assert!(
            e.ends_with(&format!("edited.model:{}: heads and tails read-after-read: a bin has more of them than distances", at + 1)),
            "{e}"
        );
        let body = text.replacen("\nrequests 1000\n", "\nrequests +1000\n", 1);
        assert_ne!(body, text);
        assert!(err(&body).ends_with("requests: expected a count, found '+1000'"), "{}", err(&body));
    }

    #[test]
    fn an_untimed_trace_gives_an_untimed_clone() {
        // Every request at time 0: no arrival process to fit.
        let text: String = (0..400).map(|i| format!("0 0 {} 8 {}\n", (i * 37 % 200) * 8, i % 2)).collect();
        let p = tmp("untimed.trace", &text);
        let m = load(&p, &TraceOptions { format: Some("disksim".into()), ..Default::default() }).unwrap();
        assert!(m.arrivals.is_none());
        assert!(notes(&m)[0].contains("no usable timestamps"));
        let c = Generator::new(&m, 1.0, None, 1, "t".into()).unwrap();
        assert!(!c.timed());
    }
}
