//! Seeded synthetic traces, for tests, benchmarks and what-if studies.
//!
//! A spec is `KIND[,key=value...]`, used as the trace path `synth:KIND,...` everywhere a trace
//! is accepted (CLI, Python, experiment files), or `profile=NAME[,key=value...]`: a workload
//! profile, a clone of a real trace reshaped to a seed paper's trace table (`profiles.rs`,
//! [`super::clone::profile`]). Kinds choose the first page of each request:
//!
//! | kind      | page chosen |
//! |-----------|-------------|
//! | `zipf`    | rank r in 1..=pages with P(r) ∝ r^-alpha (rejection-inversion, `rand_distr::Zipf`); page r-1 |
//! | `uniform` | uniform over 0..pages |
//! | `scan`    | 0, 1, 2, ... (one sequential pass; wraps after `pages`) |
//! | `loop`    | 0, 1, ..., pages-1, 0, 1, ... |
//! | `hotcold` | with probability `hot_prob` uniform over the first `hot`·pages pages, else over the rest |
//! | `calibrated` | the model below: exact counts, every page touched (the paper profiles before they were rebuilt on clones) |
//! | `clone=PATH` | a clone of a real trace or of a saved model ([`super::clone`]): each page's references a renewal process over its popularity and recency (`model=stack`: reuse distances by read/write class), sizes, sequential runs, working-set growth and bursty arrivals; keys `format`, `scale`, `length`, `seed`, `model`, `phases`, `ablate` only |
//!
//! Common keys: `requests` (1000000), `pages` (working set, 100000), `seed` (42), `alpha` (1.0),
//! `hot` (0.2), `hot_prob` (0.8) (`alpha` zipf's only, `hot` and `hot_prob` hotcold's and
//! calibrated's: another kind refuses them), `write` (share of writes, 0), `size` (request size in bytes:
//! `4096`, or `4096-65536` for sizes uniform in whole pages), `mean_size` (sizes in whole 512 B
//! sectors, 1 + a geometric number, with this mean: `7.64KiB`; `size` and `mean_size` set the
//! same thing, the last one given wins), `unit` (page unit of the addresses, 4096), `iops` (mean
//! rate of Poisson arrivals, 1000; 0 puts every request at time 0; the last request's mean
//! arrival, `requests` / `iops` s, must be below the time horizon of [`crate::time`], and a
//! request drawn past it is an error), `phases` (number of phases,
//! 1: phase i shifts every page by i·pages, so each phase has a working set of its own),
//! `volume` (0), `working_set` (bytes: sets `pages` to working_set / unit), `requested` (bytes:
//! sets `requests` to requested / mean request size), `scale` (1: multiplies requests and pages,
//! keeping every ratio), and for `calibrated` `read_locality` and `write_locality` (`P/A`, in
//! percent: P% of the op's pages get A% of its accesses; default `hot`/`hot_prob`).
//! A request that spans several pages starts at the chosen page. The same spec gives the same
//! trace on every machine (the generator's RNG and distributions are pinned by Cargo.lock).
//!
//! **The `calibrated` model.** Every count is exact, not expected: round(write·requests)
//! requests are writes, the rest reads. Each op has a page set starting at page 0: the op with
//! more cold accesses spans all `pages`; the other's set is sized so that its cold pages get the
//! same mean number of accesses (a cold page is as cold for reads as for writes), capped at
//! `pages`. Within an op's set of m pages with locality P/A, the first round(P·m) pages are hot
//! and get round(A·n) of the op's n accesses, the rest cold get the others (the hot sets of the
//! two ops overlap from page 0: the hottest pages are read and written). A class (op × hot or
//! cold) with k accesses over m pages touches every page once and spreads the other k − m
//! uniformly over them (if k < m, it touches k distinct pages chosen uniformly); the trace is a
//! uniformly random order of all classes' accesses ([`super::urn::Urn`]), so the classes mix
//! evenly over time, a page's accesses are spread over the run, and the unique pages, op counts
//! and P/A are those of the spec. A request spanning s pages starts at min(page, pages − s), so
//! the trace touches exactly `pages` pages. Arrivals: Poisson at `iops`.

use super::urn::Urn;
use super::TraceReader;
use crate::error::{compact, Error, Result};
use crate::request::{HostRequest, Op, MAX_REQUEST_BYTES};
use crate::time::{HORIZON, HORIZON_NS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, Geometric, Zipf};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Zipf,
    Uniform,
    Scan,
    Loop,
    HotCold,
    Calibrated,
}

/// Request sizes in bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sizes {
    /// Uniform in whole units between the bounds (one size when they are equal).
    Range(u64, u64),
    /// 512 B sectors, 1 + a geometric number, with this mean.
    Mean(f64),
}

const SECTOR: f64 = 512.0;

/// A count given as itself, or as bytes to be divided by a unit known once every key is read.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Amount {
    Count(u64),
    Bytes(f64),
}

/// A parsed `synth:` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    kind: Kind,
    pub requests: u64,
    pub pages: u64,
    seed: u64,
    alpha: f64,
    hot: f64,
    hot_prob: f64,
    write: f64,
    size: Sizes,
    unit: u64,
    iops: f64,
    phases: u64,
    volume: u32,
    read_locality: Option<(f64, f64)>,
    write_locality: Option<(f64, f64)>,
}

/// Refuses a spec key given twice, or two keys that set one thing (`same`: groups of such
/// keys, `requests` and `n`): a spec's keys are not last-wins. `seen` holds the keys so far;
/// `prefix` starts the message (`synth`, `synth:clone`).
pub(crate) fn once<'a>(seen: &mut Vec<(&'a str, &'a str)>, prefix: &str, k: &'a str, v: &'a str, same: &[&[&str]]) -> Result<()> {
    let group = |x: &str| same.iter().position(|g| g.contains(&x));
    let earlier = seen.iter().find(|(k0, _)| *k0 == k || (group(k).is_some() && group(k) == group(k0)));
    if let Some((k0, v0)) = earlier {
        let what =
            if *k0 == k { format!("{k} is given twice ({k0}={v0} before it)") } else { format!("{k} sets what {k0}={v0} before it sets") };
        return Err(Error::config(format!("{prefix}: {k}={v}: {what}; give each key once")));
    }
    seen.push((k, v));
    Ok(())
}

/// A positive count of a spec key: an unsigned integer (`1_000_000`), or a number with an
/// integer value in range (`1e6`); `None` for anything else (0, a fraction, past 2^64 - 1).
pub(crate) fn count(v: &str) -> Option<u64> {
    let clean = v.replace('_', "");
    clean
        .parse::<u64>()
        .ok()
        .or_else(|| clean.parse::<f64>().ok().filter(|f| f.fract() == 0.0 && *f >= 0.0).and_then(|f| format!("{f:.0}").parse().ok()))
        .filter(|&n| n >= 1)
}

fn bad(key: &str, v: &str, what: &str) -> Error {
    Error::config(format!("synth: {key}={v}: expected {what}"))
}

fn num<T: std::str::FromStr>(key: &str, v: &str, what: &str) -> Result<T> {
    // Allow 5e6 and 1_000_000 for counts.
    let clean = v.replace('_', "");
    clean.parse::<T>().or_else(|_| {
        clean
            .parse::<f64>()
            .ok()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .and_then(|f| format!("{f:.0}").parse::<T>().ok())
            .ok_or_else(|| bad(key, v, what))
    })
}

fn share(key: &str, v: &str) -> Result<f64> {
    let x: f64 = num(key, v, "a number in [0, 1]")?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err(bad(key, v, "a number in [0, 1]"))
    }
}

/// A positive amount of bytes: `7823`, `7.64KiB`, `3.6GiB` (binary units).
fn bytes(key: &str, v: &str) -> Result<f64> {
    let what = "a positive number of bytes (7.64KiB, 3.6GiB)";
    let split = v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len());
    let (n, unit) = v.split_at(split);
    let mult = match unit {
        "" | "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad(key, v, what)),
    };
    let x: f64 = n.trim().parse().map_err(|_| bad(key, v, what))?;
    if x > 0.0 && x.is_finite() {
        Ok(x * mult)
    } else {
        Err(bad(key, v, what))
    }
}

/// `P/A` in percent, as shares: P% of the pages get A% of the accesses.
fn locality(key: &str, v: &str) -> Result<(f64, f64)> {
    let what = "P/A in percent, 0 < P < 100, 0 < A <= 100 (13/87)";
    let (p, a) = v.split_once('/').ok_or_else(|| bad(key, v, what))?;
    let (p, a): (f64, f64) = (p.trim().parse().map_err(|_| bad(key, v, what))?, a.trim().parse().map_err(|_| bad(key, v, what))?);
    if p > 0.0 && p < 100.0 && a > 0.0 && a <= 100.0 {
        Ok((p / 100.0, a / 100.0))
    } else {
        Err(bad(key, v, what))
    }
}

impl Spec {
    pub fn parse(spec: &str) -> Result<Spec> {
        let mut parts = spec.split(',').map(str::trim);
        let kind_name = parts.next().unwrap_or("");
        let kind = match kind_name {
            "zipf" => Kind::Zipf,
            "uniform" => Kind::Uniform,
            "scan" => Kind::Scan,
            "loop" => Kind::Loop,
            "hotcold" => Kind::HotCold,
            "calibrated" => Kind::Calibrated,
            k => {
                return Err(Error::config(format!(
                    "synth: unknown kind '{k}'; expected zipf, uniform, scan, loop, hotcold, calibrated, clone=PATH or profile=NAME"
                )))
            }
        };
        let mut s = Spec {
            kind,
            requests: 1_000_000,
            pages: 100_000,
            seed: 42,
            alpha: 1.0,
            hot: 0.2,
            hot_prob: 0.8,
            write: 0.0,
            size: Sizes::Range(0, 0),
            unit: 4096,
            iops: 1000.0,
            phases: 1,
            volume: 0,
            read_locality: None,
            write_locality: None,
        };
        let (mut requests, mut pages) = (Amount::Count(s.requests), Amount::Count(s.pages));
        let mut size = None;
        let mut scale = 1.0f64;
        let mut seen = Vec::new();
        for part in parts.filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| Error::config(format!("synth: expected key=value, found '{part}'")))?;
            once(&mut seen, "synth", k, v, &[&["requests", "n", "requested"], &["pages", "working_set"], &["size", "mean_size"]])?;
            match k {
                "requests" | "n" => requests = Amount::Count(num(k, v, "a positive integer")?),
                "requested" => requests = Amount::Bytes(bytes(k, v)?),
                "pages" => pages = Amount::Count(num(k, v, "a positive integer")?),
                "working_set" => pages = Amount::Bytes(bytes(k, v)?),
                "seed" => s.seed = num(k, v, "an unsigned integer")?,
                "alpha" => s.alpha = num(k, v, "a non-negative number")?,
                "hot" => s.hot = share(k, v)?,
                "hot_prob" => s.hot_prob = share(k, v)?,
                "write" => s.write = share(k, v)?,
                "size" => size = Some(v.to_string()),
                "mean_size" => {
                    let m = bytes(k, v)?;
                    if !(SECTOR..=MAX_REQUEST_BYTES as f64).contains(&m) {
                        return Err(bad(k, v, "from 512 B (one sector) to 1 GiB"));
                    }
                    size = None;
                    s.size = Sizes::Mean(m);
                }
                "unit" => s.unit = num(k, v, "a positive integer")?,
                "iops" => s.iops = num(k, v, "a non-negative number")?,
                "phases" => s.phases = num(k, v, "a positive integer")?,
                "volume" => s.volume = num(k, v, "an unsigned integer")?,
                "scale" => scale = num(k, v, "a positive number")?,
                "read_locality" => s.read_locality = Some(locality(k, v)?),
                "write_locality" => s.write_locality = Some(locality(k, v)?),
                _ => {
                    return Err(Error::config(format!(
                        "synth: unknown key '{k}'; expected requests, requested, pages, working_set, seed, alpha, hot, hot_prob, write, size, mean_size, unit, iops, phases, volume, scale, read_locality or write_locality"
                    )))
                }
            }
        }
        // A key that shapes another kind's pages is refused, not ignored.
        for (k, kinds, shapes) in [
            ("alpha", &[Kind::Zipf][..], "zipf's skew"),
            ("hot", &[Kind::HotCold, Kind::Calibrated][..], "hotcold's and calibrated's hot set"),
            ("hot_prob", &[Kind::HotCold, Kind::Calibrated][..], "hotcold's and calibrated's hot set"),
            ("read_locality", &[Kind::Calibrated][..], "calibrated's pages"),
            ("write_locality", &[Kind::Calibrated][..], "calibrated's pages"),
        ] {
            if let Some((_, v)) = seen.iter().find(|(k0, _)| *k0 == k).filter(|_| !kinds.contains(&s.kind)) {
                return Err(Error::config(format!("synth: {k}={v}: {kind_name} does not take it ({k} sets {shapes})")));
            }
        }
        if s.unit == 0 {
            return Err(bad("unit", "0", "a positive integer"));
        }
        if let Some(v) = size {
            let (lo, hi) = v.split_once('-').unwrap_or((&v, &v));
            s.size = Sizes::Range(num("size", lo, "bytes, or MIN-MAX")?, num("size", hi, "bytes, or MIN-MAX")?);
        } else if s.size == Sizes::Range(0, 0) {
            s.size = Sizes::Range(s.unit, s.unit);
        }
        if let Sizes::Range(lo, hi) = s.size {
            if lo == 0 || lo > hi || hi > MAX_REQUEST_BYTES {
                return Err(Error::config(format!("synth: size {lo}-{hi} must be 1 ≤ MIN ≤ MAX ≤ 1 GiB")));
            }
        }
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(bad("scale", &scale.to_string(), "a positive number"));
        }
        let scaled = |x: f64| (x * scale).round() as u64;
        s.pages = match pages {
            Amount::Count(n) => scaled(n as f64),
            Amount::Bytes(b) => scaled(b / s.unit as f64),
        };
        s.requests = match (requests, s.size) {
            (Amount::Count(n), _) => scaled(n as f64),
            (Amount::Bytes(b), Sizes::Mean(m)) => scaled(b / m),
            (Amount::Bytes(b), Sizes::Range(lo, hi)) if lo == hi => scaled(b / lo as f64),
            (Amount::Bytes(_), Sizes::Range(..)) => return Err(Error::config("synth: requested needs one size or a mean_size")),
        };
        for (key, n) in [("requests", s.requests), ("pages", s.pages), ("phases", s.phases)] {
            if n == 0 {
                return Err(Error::config(format!("synth: {key} is 0 (as given, or once scaled): expected at least 1")));
            }
        }
        // Every request's byte range, and the phase arithmetic, fit 64 bits (as a reader checks).
        let longest = match s.size {
            Sizes::Range(_, hi) => hi,
            Sizes::Mean(_) => MAX_REQUEST_BYTES,
        };
        let end = s.pages.checked_mul(s.phases).and_then(|p| p.checked_mul(s.unit)).and_then(|b| b.checked_add(longest));
        if end.is_none() || s.requests.checked_mul(s.phases).is_none() {
            return Err(Error::config("synth: pages × phases × unit + size, and requests × phases, must fit 64 bits"));
        }
        for (key, v) in [("alpha", s.alpha), ("iops", s.iops)] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(Error::config(format!("synth: {key}={v}: expected a finite number, 0 or more")));
            }
        }
        // The mean arrival of the last request, requests / iops seconds, below the horizon.
        let least = s.requests as f64 * 1e9 / HORIZON_NS as f64;
        if s.iops > 0.0 && s.iops <= least {
            return Err(Error::config(format!(
                "synth: iops={}: {} requests at that rate would arrive past the latest time fcsim simulates ({HORIZON}); \
                 iops must be at least {}",
                compact(s.iops),
                s.requests,
                compact(least)
            )));
        }
        Ok(s)
    }
}

/// One class of the `calibrated` model: an op over a run of pages, its balls in the urn from
/// `first` on.
#[derive(Debug, Clone, Copy)]
struct Class {
    first: usize,
    page: u64,
    op: Op,
}

/// The `calibrated` model's state: every (class, page) pair is an item of the urn, as many
/// balls as the page gets accesses of that class.
#[derive(Debug)]
struct Calibrated {
    urn: Urn,
    classes: Vec<Class>,
}

impl Calibrated {
    fn new(s: &Spec, rng: &mut StdRng) -> Result<Calibrated> {
        let writes = (s.write * s.requests as f64).round() as u64;
        let reads = s.requests - writes;
        let default = (s.hot, s.hot_prob);
        let (r_loc, w_loc) = (s.read_locality.unwrap_or(default), s.write_locality.unwrap_or(default));
        let cold = |n: u64, (_, a): (f64, f64)| n - (a * n as f64).round() as u64;
        let (r_cold, w_cold) = (cold(reads, r_loc), cold(writes, w_loc));
        // The op with more cold accesses spans all pages; the other's cold pages get as many
        // accesses each on average.
        let sized = |big_cold: u64, (big_p, _): (f64, f64), small_cold: u64, (small_p, _): (f64, f64)| {
            let m = small_cold as f64 / big_cold as f64 * (1.0 - big_p) * s.pages as f64 / (1.0 - small_p);
            (m.round() as u64).clamp(1, s.pages)
        };
        let (r_pages, w_pages) = if r_cold >= w_cold {
            (s.pages, if r_cold == 0 { s.pages } else { sized(r_cold, r_loc, w_cold, w_loc) })
        } else {
            (sized(w_cold, w_loc, r_cold, r_loc), s.pages)
        };
        // A count per (op, page): refused, not aborted, when a spec's pages cannot be held.
        let items = usize::try_from(r_pages + w_pages).unwrap_or(usize::MAX);
        let mut counts: Vec<u64> = Vec::new();
        counts.try_reserve_exact(items).map_err(|_| {
            Error::config(format!(
                "synth: calibrated: pages={} needs a count for each of {items} (op, page) pairs, more memory than can be allocated",
                s.pages
            ))
        })?;
        let mut classes = Vec::new();
        for (op, n, m, (p, a)) in [(Op::Read, reads, r_pages, r_loc), (Op::Write, writes, w_pages, w_loc)] {
            let hot = ((p * m as f64).round() as u64).clamp(1, m);
            let hot_n = if hot == m { n } else { (a * n as f64).round() as u64 };
            for (page, pages, k) in [(0, hot, hot_n), (hot, m - hot, n - hot_n)] {
                if k == 0 {
                    continue;
                }
                let pages = usize::try_from(pages).map_err(|_| Error::config("synth: calibrated: too many pages"))?;
                classes.push(Class { first: counts.len(), page, op });
                let start = counts.len();
                counts.resize(start + pages, 0);
                let class = &mut counts[start..];
                if k >= pages as u64 {
                    class.fill(1);
                    for _ in pages as u64..k {
                        class[rng.gen_range(0..pages)] += 1;
                    }
                } else {
                    for i in rand::seq::index::sample(rng, pages, k as usize) {
                        class[i] = 1;
                    }
                }
            }
        }
        Ok(Calibrated { urn: Urn::new(&counts)?, classes })
    }

    /// The next access: its page and op.
    fn next(&mut self, rng: &mut StdRng) -> (u64, Op) {
        let item = self.urn.draw(rng).unwrap_or(0);
        let c = self.classes.iter().rev().find(|c| c.first <= item).unwrap_or(&self.classes[0]);
        (c.page + (item - c.first) as u64, c.op)
    }
}

/// Streams the requests of a [`Spec`].
#[derive(Debug)]
pub struct Generator {
    spec: Spec,
    rng: StdRng,
    zipf: Option<Zipf<f64>>,
    calibrated: Option<Calibrated>,
    sectors: Option<Geometric>,
    gap: Option<Exp<f64>>,
    i: u64,
    time_ns: f64,
}

impl Generator {
    pub fn from_spec(spec: &str) -> Result<Generator> {
        Self::new(Spec::parse(spec)?)
    }

    pub fn new(spec: Spec) -> Result<Generator> {
        let zipf = match spec.kind {
            Kind::Zipf => Some(Zipf::new(spec.pages, spec.alpha).map_err(|e| Error::config(format!("synth: zipf: {e}")))?),
            _ => None,
        };
        let sectors = match spec.size {
            Sizes::Mean(m) => Some(Geometric::new(SECTOR / m).map_err(|e| Error::config(format!("synth: mean_size: {e}")))?),
            Sizes::Range(..) => None,
        };
        let gap =
            (spec.iops > 0.0).then(|| Exp::new(spec.iops / 1e9)).transpose().map_err(|e| Error::config(format!("synth: iops: {e}")))?;
        // The calibrated model's urn (a ball per access) is drawn at the first request, not here:
        // opening a paper profile to check a run's configuration cost 8-30 ms. Nothing else
        // draws from the generator before it, so the requests are the same.
        let rng = StdRng::seed_from_u64(spec.seed);
        Ok(Generator { rng, spec, zipf, calibrated: None, sectors, gap, i: 0, time_ns: 0.0 })
    }

    fn page(&mut self) -> u64 {
        let s = &self.spec;
        let n = s.pages;
        match s.kind {
            Kind::Zipf => self.zipf.as_ref().map_or(0, |z| z.sample(&mut self.rng) as u64 - 1).min(n - 1),
            Kind::Uniform => self.rng.gen_range(0..n),
            Kind::Scan | Kind::Loop => self.i % n,
            Kind::HotCold => {
                let hot = ((s.hot * n as f64) as u64).clamp(1, n);
                if hot == n || self.rng.gen_bool(s.hot_prob) {
                    self.rng.gen_range(0..hot)
                } else {
                    self.rng.gen_range(hot..n)
                }
            }
            Kind::Calibrated => unreachable!("calibrated pages come from the urn"),
        }
    }

    fn len(&mut self) -> u64 {
        match (self.spec.size, &self.sectors) {
            (_, Some(g)) => ((1 + g.sample(&mut self.rng)).saturating_mul(SECTOR as u64)).min(MAX_REQUEST_BYTES),
            (Sizes::Range(lo, hi), None) if lo == hi => lo,
            (Sizes::Range(lo, hi), None) => {
                let unit = self.spec.unit;
                let pages = self.rng.gen_range(lo.div_ceil(unit)..=hi.div_ceil(unit).max(1));
                (pages * unit).clamp(lo, hi)
            }
            (Sizes::Mean(_), None) => unreachable!("a mean size has its distribution"),
        }
    }
}

impl TraceReader for Generator {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if self.i == self.spec.requests {
            return Ok(None);
        }
        if self.spec.kind == Kind::Calibrated && self.calibrated.is_none() {
            self.calibrated = Some(Calibrated::new(&self.spec, &mut self.rng)?);
        }
        let phase = self.i * self.spec.phases / self.spec.requests;
        let (page, len, op) = match &mut self.calibrated {
            Some(c) => {
                let (page, op) = c.next(&mut self.rng);
                let len = self.len();
                let span = len.div_ceil(self.spec.unit).min(self.spec.pages);
                (page.min(self.spec.pages - span), len, op)
            }
            None => {
                let page = self.page();
                let len = self.len();
                let op = if self.spec.write > 0.0 && self.rng.gen_bool(self.spec.write) { Op::Write } else { Op::Read };
                (page, len, op)
            }
        };
        if let Some(gap) = &self.gap {
            self.time_ns += gap.sample(&mut self.rng);
            if self.time_ns >= HORIZON_NS as f64 {
                return Err(Error::config(format!(
                    "synth: iops={}: request {} would arrive past the latest time fcsim simulates ({HORIZON}); raise iops",
                    compact(self.spec.iops),
                    self.i + 1
                )));
            }
        }
        self.i += 1;
        let page = page + phase * self.spec.pages;
        Ok(Some(HostRequest { time_ns: self.time_ns as u64, volume: self.spec.volume, offset: page * self.spec.unit, len: len as u32, op }))
    }

    fn format(&self) -> &'static str {
        "synth"
    }

    /// `iops=0` puts every request at time 0: no arrival process to time them by.
    fn timed(&self) -> bool {
        self.gap.is_some()
    }

    fn progress(&self) -> (u64, u64) {
        (self.i, self.spec.requests)
    }

    fn error_at_last(&self, message: String) -> Error {
        Error::config(format!("synth: request {}: {message}", self.i))
    }
}

#[cfg(test)]
mod tests {
    /// Issue 42: a spec's keys are not last-wins: a key given twice, or two keys that set one
    /// thing, is refused with both named.
    #[test]
    fn a_key_given_twice_is_refused() {
        let e = |spec: &str| Spec::parse(spec).unwrap_err().to_string();
        assert_eq!(e("zipf,seed=1,seed=2"), "synth: seed=2: seed is given twice (seed=1 before it); give each key once");
        assert_eq!(e("zipf,n=5,requests=6"), "synth: requests=6: requests sets what n=5 before it sets; give each key once");
        assert_eq!(
            e("zipf,pages=5,working_set=1MiB"),
            "synth: working_set=1MiB: working_set sets what pages=5 before it sets; give each key once"
        );
        assert_eq!(
            e("zipf,size=4096,mean_size=8KiB"),
            "synth: mean_size=8KiB: mean_size sets what size=4096 before it sets; give each key once"
        );
    }

    use super::*;

    fn collect(spec: &str) -> Vec<HostRequest> {
        let mut g = Generator::from_spec(spec).unwrap();
        let mut v = Vec::new();
        while let Some(r) = g.next_request().unwrap() {
            v.push(r);
        }
        v
    }

    #[test]
    fn same_seed_same_trace() {
        assert_eq!(collect("zipf,requests=1000,seed=7,write=0.5"), collect("zipf,requests=1000,seed=7,write=0.5"));
        assert_ne!(collect("zipf,requests=1000,seed=7"), collect("zipf,requests=1000,seed=8"));
    }

    #[test]
    fn loop_and_scan_are_sequential() {
        let v = collect("loop,requests=7,pages=3,iops=0");
        let pages: Vec<u64> = v.iter().map(|r| r.offset / 4096).collect();
        assert_eq!(pages, [0, 1, 2, 0, 1, 2, 0]);
        assert!(v.iter().all(|r| r.time_ns == 0 && r.len == 4096 && r.op == Op::Read));
    }

    #[test]
    fn zipf_is_skewed_and_in_range() {
        let v = collect("zipf,requests=20000,pages=1000,alpha=1.0");
        let top = v.iter().filter(|r| r.offset == 0).count();
        assert!(v.iter().all(|r| r.offset / 4096 < 1000));
        // P(rank 1) = 1 / H(1000) ≈ 0.134 for alpha = 1
        assert!((2300..3100).contains(&top), "rank-1 count {top}");
    }

    #[test]
    fn mix_sizes_phases_and_arrivals() {
        let v = collect("uniform,requests=10000,pages=100,write=0.3,size=4096-16384,phases=2,iops=1000");
        let writes = v.iter().filter(|r| r.op == Op::Write).count();
        assert!((2700..3300).contains(&writes));
        assert!(v.iter().all(|r| [4096, 8192, 12288, 16384].contains(&r.len)));
        assert!(v[..5000].iter().all(|r| r.offset / 4096 < 100) && v[5000..].iter().all(|r| r.offset / 4096 >= 100));
        let mean_gap = v.last().unwrap().time_ns as f64 / 10000.0;
        assert!((0.9e6..1.1e6).contains(&mean_gap), "mean gap {mean_gap} ns");
    }

    #[test]
    fn hotcold_prefers_hot_pages() {
        let v = collect("hotcold,requests=10000,pages=1000,hot=0.1,hot_prob=0.9");
        let hot = v.iter().filter(|r| r.offset / 4096 < 100).count();
        assert!((8700..9300).contains(&hot));
    }

    #[test]
    fn calibrated_counts_are_exact() {
        let v = collect("calibrated,requests=10000,pages=1000,write=0.3,read_locality=20/80,write_locality=10/90,iops=0");
        let (mut reads, mut writes) = (vec![0u32; 1000], vec![0u32; 1000]);
        for r in &v {
            let c = if r.op == Op::Write { &mut writes } else { &mut reads };
            c[(r.offset / 4096) as usize] += 1;
        }
        assert_eq!(writes.iter().sum::<u32>(), 3000);
        // Reads have more cold accesses (1400 vs 300), so they span all 1000 pages, the first
        // 200 hot with 80% of the 7000 reads; every page is read.
        assert!(reads.iter().all(|&c| c > 0));
        assert_eq!(reads[..200].iter().sum::<u32>(), 5600);
        // Writes: cold pages get 1400 / 800 = 1.75 accesses each as for reads, so 300 / 1.75
        // = 171 cold pages, 90% of a set of 171 / 0.9 = 190 pages; 19 hot pages get 2700.
        assert_eq!(writes.iter().filter(|&&c| c > 0).count(), 190);
        assert_eq!(writes[..19].iter().sum::<u32>(), 2700);
        assert!(writes[..190].iter().all(|&c| c > 0));
    }

    #[test]
    fn mean_sizes_are_whole_sectors_with_the_mean() {
        let v = collect("uniform,requests=20000,mean_size=7.64KiB");
        let mean = v.iter().map(|r| f64::from(r.len)).sum::<f64>() / v.len() as f64;
        assert!(v.iter().all(|r| r.len % 512 == 0 && r.len > 0));
        assert!((mean / 7823.36 - 1.0).abs() < 0.02, "mean {mean}");
    }

    #[test]
    fn bad_specs_are_config_errors() {
        for s in [
            "nope",
            "zipf,alpha",
            "zipf,foo=1",
            "zipf,write=2",
            "zipf,size=8-4",
            "zipf,requests=0",
            "calibrated,read_locality=0/50",
            "calibrated,write_locality=13",
            "zipf,mean_size=100",
            "zipf,mean_size=4KB",
            "zipf,requested=1GiB,size=4096-8192",
            "zipf,scale=0",
            "uniform,size=1073741825",
            "uniform,mean_size=2GiB",
        ] {
            assert!(matches!(Generator::from_spec(s), Err(Error::Config(_))), "{s}");
        }
        // A key of another kind is refused, not ignored.
        for (s, said) in [
            ("zipf,hot=0.1", "synth: hot=0.1: zipf does not take it"),
            ("uniform,alpha=2", "synth: alpha=2: uniform does not take it"),
            ("zipf,read_locality=10/90", "synth: read_locality=10/90: zipf does not take it"),
        ] {
            let e = Generator::from_spec(s).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(said), "{s}: {e}");
        }
        for s in ["hotcold,hot=0.1,hot_prob=0.9", "calibrated,hot=0.1,read_locality=10/90", "zipf,alpha=0.5"] {
            assert!(Generator::from_spec(s).is_ok(), "{s}");
        }
        // An out-of-range value is named with its key.
        for (s, said) in [
            ("zipf,requests=0", "synth: requests is 0"),
            ("zipf,pages=0", "synth: pages is 0"),
            ("zipf,alpha=-1", "synth: alpha=-1: expected a finite number, 0 or more"),
            ("zipf,iops=-5", "synth: iops=-5: expected"),
        ] {
            let e = Generator::from_spec(s).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(said), "{s}: {e}");
        }
        // Byte ranges past 2^64 are refused as a reader refuses them.
        for s in ["uniform,pages=4503599627370496", "uniform,pages=1000,unit=18446744073709551615", "scan,phases=4611686018427387904"] {
            assert!(matches!(Generator::from_spec(s), Err(Error::Config(_))), "{s}");
        }
    }
}
