//! Trace clones: `synth:clone=PATH[,format=F][,scale=K][,length=N][,seed=S]` fits a model to a
//! real trace (or reads one saved by `fcsim trace clone PATH -o MODEL`) and streams a
//! statistically similar trace of any length and working-set scale, seeded, in memory bounded
//! by the model (not by the output's length).
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
//! fits the bias's distribution per level and per count instead of one `b`.
//!
//! **The model** (all counts, so it can be saved and read back exactly; 4 KiB pages):
//!
//! - *Runs.* A request is sequential when it starts where the previous request of the same op
//!   (and volume) ended; a run is a maximal chain of them. The model keeps each op's run lengths
//!   (in requests) and the op transitions from one run to the next (a two-state Markov chain).
//! - *Sizes.* Per op, the empirical distribution of (request length in bytes, offset within the
//!   page), so that a request spans as many pages as in the original.
//! - *Reuse.* For each run's first request, the LRU stack distance (in pages, over every page
//!   access of the trace) of its first page, by class: the op of that page's previous access ×
//!   this op (read-after-read, read-after-write, write-after-read, write-after-write). Distances
//!   are binned: exact below 16, then 8 bins per power of two (±6%).
//! - *Working-set growth.* Per op and per window (64 windows of the trace's requests), the run
//!   starts and how many of them touch a new page.
//! - *Arrivals.* The cascade above: the span is halved down to about 1 µs; at each level, for
//!   each power of two of a parent interval's count, 16 quantiles of the share that falls in
//!   its first half.
//!
//! **Generation**, one run at a time: the run's op from the Markov chain, its length from the
//! op's run lengths; its first request's size and page offset from the op's sizes; its first
//! page is new with the window's probability, else a class is drawn (the previous op, by the
//! op's class counts), a distance from the class's distribution (uniform within a bin), and
//! the page at that depth of the clone's own LRU stack ([`stack`], a Fenwick tree over access
//! slots) is taken — or, when that page's last access was of the other op, the nearest page of
//! the drawn op (deeper or shallower with equal chance). New pages are numbered from 0 up; the
//! run's further requests start where the previous one ended. Every page a request touches is
//! pushed on the stack. Arrival times come from the cascade, independently of the addresses.
//!
//! **Scale and length.** `scale=K` multiplies the working set and every distance by K (a drawn
//! distance d becomes ⌊K·x⌋ + 1 for x uniform in the bin's interval (d − 1, d]); `length=N`
//! sets the number of requests, by default the original's × K (the original's shape at K times
//! the size). A new-page probability is multiplied by K × original requests / N (capped at 1),
//! so the working set is about K times the original's at any length. Arrivals keep the
//! original's mean rate: a longer clone lasts longer (its cascade has more levels above the
//! original span; they draw from the coarsest fitted level with samples).
//!
//! **Choices the sources leave open**, and what fcsim does:
//!
//! - Distances are of run starts only; a run's later requests follow on from the previous one
//!   (in the clone, into whatever pages lie there: the next ones numbered, which a new run
//!   allocates together, or new pages past the highest).
//! - The class of a reuse is drawn before its page; the page is then the nearest of that class
//!   to the drawn depth. Runs of reads and of writes are emitted one after the other, not
//!   interleaved as the original's may be.
//! - Sizes are drawn independently for each request; the distance distribution does not change
//!   over the trace (only the share of new pages does, per window).
//! - Volumes: all volumes of the original are fitted together (each volume's pages distinct,
//!   as fcsim keys them) and the clone is one volume, 0, holding that many pages. Clone one
//!   volume with `fcsim trace clone PATH --volume N -o MODEL`.
//! - Trims are not modelled (skipped by the fit, absent from the clone).
//! - Arrivals are independent of op and address. A cascade split of a count n is
//!   ⌊n·share + u⌋ (u uniform), the share interpolated between the 16 quantiles; a class with
//!   fewer than 8 samples draws from the nearest class of its level, else the nearest level. An
//!   interval shorter than 1 µs puts all its arrivals at its start (ties kept, as traces with
//!   coarse clocks have them); a single arrival is placed uniformly in its interval.
//! - The stack keeps at most the largest modelled distance × K pages (+64); a page pushed
//!   deeper is forgotten (its next touch is a first access), and a drawn distance deeper than
//!   the stack gives a new page.
//! - An untimed original (no timestamps, or all equal) gives an untimed clone: requests stamped
//!   with their index, [`TraceReader::timed`] false. A trace with fewer than 100 reads and writes
//!   is refused (too few to fit).

mod arrivals;
mod model;
mod stack;

pub use model::{bin, bin_range, Model, MAGIC, PAGE};

use self::arrivals::Arrivals;
use self::stack::Stack;
use super::{TraceOptions, TraceReader};
use crate::error::{compact, Error, Result};
use crate::request::{HostRequest, Op};
use crate::time::{HORIZON, HORIZON_NS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A parsed `clone=...` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct CloneSpec {
    pub path: PathBuf,
    pub format: Option<String>,
    pub scale: f64,
    pub length: Option<u64>,
    pub seed: u64,
}

impl CloneSpec {
    /// Parses `clone=PATH[,key=value...]` (the text after `synth:`).
    pub fn parse(spec: &str) -> Result<CloneSpec> {
        let mut parts = spec.split(',').map(str::trim);
        let path = parts.next().and_then(|p| p.strip_prefix("clone=")).unwrap_or("");
        if path.is_empty() {
            return Err(Error::config("synth:clone=PATH: expected the path of a trace or of a model saved by 'fcsim trace clone'"));
        }
        let mut s = CloneSpec { path: PathBuf::from(path), format: None, scale: 1.0, length: None, seed: 42 };
        for part in parts.filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| Error::config(format!("synth:clone: expected key=value, found '{part}'")))?;
            let bad = |what: &str| Error::config(format!("synth:clone: {k}={v}: expected {what}"));
            match k {
                "format" => s.format = Some(v.to_string()),
                "scale" => {
                    s.scale = v.parse::<f64>().ok().filter(|x| *x > 0.0 && x.is_finite() && *x <= 1e6).ok_or_else(|| bad("a positive number up to 1e6"))?
                }
                "length" | "requests" => {
                    let n = v.replace('_', "").parse::<f64>().ok().filter(|x| *x >= 1.0 && x.fract() == 0.0 && *x < 1.8e19);
                    s.length = Some(n.ok_or_else(|| bad("a positive integer (1000000, 1e6)"))? as u64);
                }
                "seed" => s.seed = v.parse().map_err(|_| bad("an unsigned integer"))?,
                _ => return Err(Error::config(format!("synth:clone: unknown key '{k}'; expected format, scale, length or seed"))),
            }
        }
        Ok(s)
    }
}

/// Models fitted in this process, by file, size and modification time: a run opens its trace
/// several times (checks, working set, the run), and a fit reads the whole original.
type Fitted = Vec<((PathBuf, Option<String>, u64, Option<std::time::SystemTime>), Arc<Model>)>;
static FITTED: OnceLock<Mutex<Fitted>> = OnceLock::new();

/// The model of `path`: read from a model file, or fitted to a trace (read with `opts`).
pub fn load(path: &Path, opts: &TraceOptions) -> Result<Arc<Model>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
    let mut head = [0u8; 32];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).map_err(|e| Error::io(path, &e))?;
    if Model::is_model(&head[..n]) {
        if opts.format.is_some() || opts.volume.is_some() {
            return Err(Error::config(format!("{}: is a clone model, not a trace: format and volume apply to a trace", path.display())));
        }
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
        return Model::parse(&text, path).map(Arc::new);
    }
    let key = (path.to_path_buf(), opts.format.clone(), meta.len(), meta.modified().ok());
    let cache = FITTED.get_or_init(|| Mutex::new(Vec::new()));
    if opts.volume.is_none() && !opts.skip_bad_lines && opts.params.is_empty() {
        if let Some(m) = cache.lock().ok().and_then(|c| c.iter().find(|(k, _)| *k == key).map(|(_, m)| m.clone())) {
            return Ok(m);
        }
    }
    let mut reader = super::open(&path.to_string_lossy(), opts)?;
    let model = Arc::new(Model::fit(reader.as_mut(), path)?);
    if opts.volume.is_none() && !opts.skip_bad_lines && opts.params.is_empty() {
        if let Ok(mut c) = cache.lock() {
            if c.len() >= 8 {
                c.remove(0);
            }
            c.push((key, model.clone()));
        }
    }
    Ok(model)
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

/// Streams a clone of a [`Model`].
#[derive(Debug)]
pub struct Clone {
    label: String,
    rng: StdRng,
    length: u64,
    i: u64,
    scale: f64,
    /// P(next run writes | previous run's op).
    write_after: [f64; 2],
    runs: [Cdf; 2],
    sizes: [Cdf; 2],
    /// Per op and window: P(a run start's first page is new).
    new: [Vec<f64>; 2],
    /// Per op: P(a reuse follows a write).
    after_write: [f64; 2],
    /// `[prev][op]`: distance bins.
    distances: [[Cdf; 2]; 2],
    stack: Stack,
    fresh: u64,
    op: usize,
    left: u64,
    next_offset: u64,
    arrivals: Option<Arrivals>,
    last_ns: u64,
}

impl Clone {
    /// Opens a clone spec (the text after `synth:`).
    pub fn from_spec(spec: &str) -> Result<Clone> {
        let s = CloneSpec::parse(spec)?;
        let opts = TraceOptions { format: s.format.clone(), ..Default::default() };
        let model = load(&s.path, &opts)?;
        Clone::new(&model, s.scale, s.length, s.seed, format!("synth:{spec}"))
    }

    /// A clone of `m` at `scale`, `length` requests (default the original's × scale).
    pub fn new(m: &Model, scale: f64, length: Option<u64>, seed: u64, label: String) -> Result<Clone> {
        let length = length.unwrap_or_else(|| ((m.requests as f64 * scale).round() as u64).max(1));
        let pages = m.pages as f64 * scale;
        if pages * 1.25 + 1e6 > f64::from(u32::MAX) {
            return Err(Error::config(format!(
                "{label}: scale={}: a working set of {} pages is more than a clone numbers (2^32 pages of 4 KiB)",
                compact(scale),
                compact(pages.round())
            )));
        }
        let row = |r: [u64; 2], all: f64| if r[0] + r[1] > 0 { r[1] as f64 / (r[0] + r[1]) as f64 } else { all };
        let starts = |o: usize| m.windows[o].iter().map(|w| w[0]).sum::<u64>();
        let all = starts(1) as f64 / (starts(0) + starts(1)).max(1) as f64;
        let write_after = [row(m.transitions[0], all), row(m.transitions[1], all)];
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
        let bins = |h: &Vec<u64>| Cdf::new(h.iter().enumerate().map(|(b, &c)| (b as u64, c)));
        let distances = [0, 1].map(|p| [0, 1].map(|o| bins(&m.distances[p][o])));
        let limit = (m.max_distance() as f64 * scale).ceil() as usize + 64;
        let stack = Stack::new((pages * 1.05) as usize + 64, limit);
        let arrivals = m.arrivals.clone().map(|c| Arrivals::new(c, length));
        Ok(Clone {
            label,
            rng: StdRng::seed_from_u64(seed),
            length,
            i: 0,
            scale,
            write_after,
            runs: [Cdf::new(m.runs[0].iter().copied()), Cdf::new(m.runs[1].iter().copied())],
            sizes: [Cdf::new(m.sizes[0].iter().copied()), Cdf::new(m.sizes[1].iter().copied())],
            new,
            after_write,
            distances,
            stack,
            fresh: 0,
            op: usize::from(all > 0.5),
            left: 0,
            next_offset: 0,
            arrivals,
            last_ns: 0,
        })
    }

    /// Bytes held by the clone's stack (its memory grows with the model, not the output).
    pub fn stack_bytes(&self) -> usize {
        self.stack.bytes()
    }

    /// The first page of a run start of op `o`: a reused page, or `fresh` for a new one.
    #[inline]
    fn start_page(&mut self, o: usize) -> u64 {
        let w = (self.i as u128 * model::WINDOWS as u128 / self.length as u128) as usize;
        if self.rng.gen::<f64>() < self.new[o][w] {
            return self.fresh;
        }
        let prev = usize::from(self.rng.gen::<f64>() < self.after_write[o]);
        let cdf = &self.distances[prev][o];
        if cdf.total() == 0 {
            return self.fresh;
        }
        // A distance deeper than the stack (early in the clone) is drawn again, a few times,
        // before it becomes a new page: the windows' new-page shares already say how many
        // run starts are new.
        for _ in 0..4 {
            let (lo, n) = model::bin_range(cdf.draw(&mut self.rng) as usize);
            let x = (lo - 1) as f64 + self.rng.gen::<f64>() * n as f64;
            let d = (x * self.scale) as u64 + 1;
            if d <= self.stack.len() as u64 {
                let deeper = self.rng.gen::<bool>();
                return self.stack.find(d, prev == 1, deeper).map_or(self.fresh, u64::from);
            }
        }
        self.fresh
    }
}

impl TraceReader for Clone {
    #[inline]
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if self.i == self.length {
            return Ok(None);
        }
        let (offset, packed);
        if self.left == 0 {
            let o = usize::from(self.rng.gen::<f64>() < self.write_after[self.op]);
            let o = if self.sizes[o].total() == 0 { 1 - o } else { o };
            self.op = o;
            self.left = if self.runs[o].total() > 0 { self.runs[o].draw(&mut self.rng) } else { 1 };
            packed = self.sizes[o].draw(&mut self.rng);
            offset = self.start_page(o) * PAGE + (packed & 0xfff);
        } else {
            packed = self.sizes[self.op].draw(&mut self.rng);
            offset = self.next_offset;
        }
        let o = self.op;
        let len = packed >> 12;
        self.left -= 1;
        self.next_offset = offset + len;
        let first = offset / PAGE;
        let last = (offset + len.max(1) - 1) / PAGE;
        if last >= u64::from(u32::MAX) {
            return Err(Error::config(format!("{}: request {}: the clone ran out of page numbers (2^32)", self.label, self.i + 1)));
        }
        for p in first..=last {
            self.stack.touch(p as u32, o == 1, p == first);
        }
        self.stack.done();
        self.fresh = self.fresh.max(last + 1);
        let time_ns = match &mut self.arrivals {
            Some(a) => {
                let t = a.next(&mut self.rng).map_or(self.last_ns, |t| t as u64);
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
        self.i += 1;
        let op = if o == 1 { Op::Write } else { Op::Read };
        Ok(Some(HostRequest { time_ns, volume: 0, offset, len: len as u32, op }))
    }

    fn format(&self) -> &'static str {
        "synth"
    }

    fn timed(&self) -> bool {
        self.arrivals.is_some()
    }

    fn progress(&self) -> (u64, u64) {
        (self.i, self.length)
    }

    fn error_at_last(&self, message: String) -> Error {
        Error::config(format!("{}: request {}: {message}", self.label, self.i))
    }
}

/// Fits the model of a trace and saves it to `out` (`fcsim trace clone PATH -o MODEL`).
pub fn save_model(trace: &str, opts: &TraceOptions, out: &Path) -> Result<Arc<Model>> {
    let path = Path::new(trace);
    if trace.starts_with("synth:") {
        return Err(Error::config("fcsim trace clone: expected a trace file, not a synth: generator"));
    }
    let model = load(path, opts)?;
    model.save(out)?;
    Ok(model)
}
