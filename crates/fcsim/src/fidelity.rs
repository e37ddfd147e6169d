//! Fidelity report of a trace B (typically a clone) against a trace A (its original):
//! `fcsim trace compare A B`. It judges B by what a clone is used for (ranking cache policies on
//! A's behalf), and every tolerance comes from A alone, fixed before B is measured.
//!
//! [`measure`] takes one trace's measures: one streaming pass ([`crate::trace::fidelity`]) for
//! its statistics and exact LRU curve, two LRU write-back runs (the existing
//! [`crate::run::simulate`], no device) at 1% and 10% of its working set for the dirty share of
//! LRU's evictions, the share of read hits on dirty pages and the write reuse, and the policy
//! panel: each of the panel's policies ([`PANEL`] by default) through the same
//! [`crate::run::simulate`] (no device, the default stack) at the same two sizes, for its hit
//! ratio. Sizes are normalised: each trace is measured at shares of its own working set
//! (distinct pages read or written), so a clone at another scale is compared at the same shares.
//!
//! **Tolerances from A alone** ([`reference`], [`derive`]). A is cut into two halves by request
//! count (H1: the first ⌊n/2⌋ requests, H2: the rest; `trace.skip` and `trace.take`,
//! [`crate::trace::slice`]); each half is measured exactly as a clone is and compared with the
//! whole A by the same measure. The tolerance of a measure is the worse of the two halves'
//! values of that comparison:
//!
//! - a difference (sizes, shares, the MRC's and the panel's mean absolute errors): B passes when
//!   its deviation from A is at most the larger of the halves' deviations;
//! - a ratio (mean request sizes, the Fano factor): the same with |ln(B/A)| against the halves'
//!   largest |ln(H/A)|;
//! - an agreement (policy pairs kept, Kendall's tau): B passes when it is at least the smaller of
//!   the halves' values.
//!
//! The report names the half that set each tolerance. A half of A is a sample of the same
//! workload with the same machinery behind it, so a clone that strays from A further than both
//! halves do has lost something the workload has. A measure that cannot test B is
//! [`Status::Untestable`] with its reason, never a pass: A's value is missing (no writes,
//! untimed, too short), a half's is, the dirty-page measures of a trace without writes (they
//! are 0 by construction), a ranking without two policies 0.005 apart on A, and a tolerance
//! that comes out exactly 0 (both halves equal to A: B would have to be identical, a test of
//! nothing but bit-equality; no constant is put in its place) or at the worst score there is
//! (a half keeps none of A's pairs: every B would pass).
//!
//! [`compare`] also scores a naive baseline N beside B (a `synth:calibrated` trace with A's
//! counts, built by the caller), so a reader sees whether the clone beats a trivial generator.
//! [`MEASURES`] is the one place where measures are stated.

use crate::config::SimConfig;
use crate::error::{Error, Result};
use crate::run;
use crate::size::SizeSpec;
use crate::stack::Counters;
use crate::trace::fidelity::{self as stats, Measure, TraceStats};
use crate::trace::slice::Slice;
use crate::trace::{self, Progress, TraceOptions};

/// Shares of the working set of the LRU write-back runs and of the policy panel.
pub const LRU_SHARES: [f64; 2] = [0.01, 0.10];

/// The panel's policies by default: every online policy of fcsim that needs neither a device
/// nor a flash-aware view.
pub const PANEL: [&str; 10] = ["lru", "fifo", "clock", "2q", "arc", "lirs", "s3fifo", "sieve", "slru", "larc"];

/// Two policies whose hit ratios on A differ by less than this are not ranked by A: their order
/// is noise, not a ranking a clone must keep.
pub const SEPARATED: f64 = 0.005;

/// Why the ranking measures cannot test B when no two policies are [`SEPARATED`] on A.
pub const NO_RANKING: &str = "no two policies differ by 0.005 on A: the ranking cannot be tested";

/// Shares of the working set where the two miss-ratio curves are compared: 1%, 2%, ..., 50%.
pub fn mrc_shares() -> impl Iterator<Item = f64> {
    (1..=50).map(|i| f64::from(i) / 100.0)
}

/// LRU (write-back, write-allocate, no device) at one size.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LruRun {
    pub share: f64,
    pub pages: u64,
    pub counters: Counters,
}

fn share(part: u64, whole: u64, none: &str) -> Measure {
    match whole {
        0 => Err(none.to_string()),
        w => Ok(part as f64 / w as f64),
    }
}

impl LruRun {
    /// Dirty evictions over evictions (the pages flushed at the end are not evictions).
    pub fn dirty_eviction_share(&self) -> Measure {
        share(self.counters.dirty_evictions, self.counters.evictions, "no evictions")
    }

    /// Read hits on a dirty page over read hits.
    pub fn read_hits_dirty_share(&self) -> Measure {
        share(self.counters.read_hits_dirty, self.counters.read_hits, "no read hits")
    }

    /// Write hits over write page accesses: the share of writes whose page was accessed (read
    /// or written) within this many distinct pages before (LRU is a stack algorithm, so this is
    /// the share of writes with a stack distance ≤ the size).
    pub fn write_reuse(&self) -> Measure {
        share(self.counters.write_hits, self.counters.writes, "no writes")
    }
}

/// The panel's hit ratios at one size, in the panel's order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PanelRun {
    pub share: f64,
    pub pages: u64,
    pub hit_ratios: Vec<f64>,
}

/// One trace's measures.
#[derive(Debug, Clone)]
pub struct Fidelity {
    pub trace: String,
    pub stats: TraceStats,
    /// LRU at [`LRU_SHARES`].
    pub lru: [LruRun; 2],
    /// The panel's policies, and their hit ratios at [`LRU_SHARES`] (empty without a panel).
    pub panel: Vec<String>,
    pub panel_runs: [PanelRun; 2],
}

impl Fidelity {
    /// Whether arrivals are bursty: a Fano factor above 2 at 1 s (`None` when it has none).
    pub fn bursty(&self) -> Option<bool> {
        self.stats.fano(1).ok().map(|f| f > 2.0)
    }
}

/// `ConfigError` unless `panel` is at least two distinct registered online policies.
pub fn check_panel(panel: &[String]) -> Result<()> {
    let known: Vec<&str> = crate::policy::POLICIES.iter().filter(|p| !p.offline && !p.needs_view).map(|p| p.name).collect();
    for (i, p) in panel.iter().enumerate() {
        if !known.contains(&p.as_str()) {
            return Err(Error::config(format!(
                "panel: '{p}' is not an online policy that runs without a device; expected some of: {}",
                known.join(", ")
            )));
        }
        if panel[..i].contains(p) {
            return Err(Error::config(format!("panel: '{p}' is named twice")));
        }
    }
    if panel.len() < 2 {
        return Err(Error::config(format!("panel: {} policies; a ranking needs at least two", panel.len())));
    }
    Ok(())
}

/// Measures `trace`: one pass for its statistics and curve, two LRU runs, and each policy of
/// `panel` (none when empty; else checked by [`check_panel`]) at the same two sizes.
pub fn measure(trace: &str, opts: &TraceOptions, page_size: u32, panel: &[String], mut progress: Option<Progress<'_>>) -> Result<Fidelity> {
    if page_size == 0 {
        return Err(Error::config("page size must be positive"));
    }
    if !panel.is_empty() {
        check_panel(panel)?;
    }
    let mut reader = trace::open(trace, opts)?;
    let stats = stats::trace_stats(reader.as_mut(), page_size, trace::lend(&mut progress))?;
    drop(reader);
    let mut lru = [LruRun::default(); 2];
    let mut panel_runs = [PanelRun::default(), PanelRun::default()];
    for (k, &share) in LRU_SHARES.iter().enumerate() {
        let pages = stats.pages_at(share);
        let mut run_one = |policy: &str| -> Result<Counters> {
            let mut cfg = SimConfig::new(policy, SizeSpec::Pages(pages));
            cfg.page_size = page_size;
            Ok(run::simulate(trace, opts, &cfg, None, trace::lend(&mut progress))?.counters)
        };
        lru[k] = LruRun { share, pages, counters: run_one("lru")? };
        let mut hit_ratios = Vec::with_capacity(panel.len());
        for p in panel {
            // LRU's run is the one above: the same configuration.
            let c = if p == "lru" { lru[k].counters } else { run_one(p)? };
            hit_ratios.push(if c.accesses == 0 { 0.0 } else { c.hits as f64 / c.accesses as f64 });
        }
        panel_runs[k] = PanelRun { share, pages, hit_ratios };
    }
    Ok(Fidelity { trace: trace.to_string(), stats, lru, panel: panel.to_vec(), panel_runs })
}

/// The options that read A's two halves: H1 the first ⌊n/2⌋ of its `requests`, H2 the rest,
/// within whatever slice `opts` already takes.
pub fn halves(opts: &TraceOptions, requests: u64) -> Result<[TraceOptions; 2]> {
    let first = requests / 2;
    if first == 0 {
        return Err(Error::config(format!(
            "trace compare: A has {requests} request(s); its two halves, which set the tolerances, need at least 2"
        )));
    }
    let skip = Slice::take_from(&mut opts.params.clone())?.map_or(0, |s| s.skip);
    let half = |skip: u64, take: u64| {
        let mut o = opts.clone();
        o.params.insert("skip".into(), skip.to_string());
        o.params.insert("take".into(), take.to_string());
        o
    };
    Ok([half(skip, first), half(skip + first, requests - first)])
}

/// A and its two halves: all a report's tolerances come from these, before B is measured.
#[derive(Debug, Clone)]
pub struct Reference {
    pub a: Fidelity,
    pub halves: [Fidelity; 2],
}

/// Measures A and its halves ([`halves`]), each as [`measure`] measures a clone.
pub fn reference(
    trace: &str,
    opts: &TraceOptions,
    page_size: u32,
    panel: &[String],
    mut progress: Option<Progress<'_>>,
) -> Result<Reference> {
    let a = measure(trace, opts, page_size, panel, trace::lend(&mut progress))?;
    let [o1, o2] = halves(opts, a.stats.requests)?;
    let h1 = measure(trace, &o1, page_size, panel, trace::lend(&mut progress))?;
    let h2 = measure(trace, &o2, page_size, panel, trace::lend(&mut progress))?;
    Ok(Reference { a, halves: [h1, h2] })
}

/// How B's value of a measure is held to A's. The bound itself is derived from A's halves
/// ([`derive`]); nothing here is a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Reported, not checked.
    Info,
    /// Of each trace: |X − A|, at most the halves' largest.
    Difference,
    /// Of each trace, positive: |ln(X / A)|, at most the halves' largest.
    Ratio,
    /// Of the pair (A, X), 0 when X is A (an error): at most the halves' largest.
    Deviation,
    /// Of the pair (A, X), 1 when X is A (an agreement): at least the halves' smallest.
    Agreement,
}

impl Check {
    /// Whether a larger score is better (agreements) or worse (the rest).
    fn higher_is_better(self) -> bool {
        self == Check::Agreement
    }
}

/// How a measure is taken.
#[derive(Debug, Clone, Copy)]
pub enum Get {
    /// Of each trace.
    One(fn(&Fidelity) -> Measure),
    /// Of the pair (A, X): how X's policy ranking or curve agrees with A's.
    Pair(fn(&Fidelity, &Fidelity) -> Measure),
}

/// One measure of the report.
#[derive(Debug, Clone, Copy)]
pub struct MeasureDef {
    pub name: &'static str,
    pub what: &'static str,
    pub check: Check,
    pub get: Get,
    /// A trace without writes cannot test it: its value is 0 by construction.
    pub needs_writes: bool,
    /// The worst score there is (an agreement's lowest value; +inf for the rest): a tolerance
    /// there passes every B.
    pub worst: f64,
}

/// Mean over [`mrc_shares`] of |miss ratio of A − miss ratio of B|, each at that share of its
/// own working set.
pub fn mrc_mae(a: &Fidelity, b: &Fidelity) -> Measure {
    let mut sum = 0.0;
    let mut n = 0u32;
    for s in mrc_shares() {
        sum += (a.stats.miss_ratio_at(s)? - b.stats.miss_ratio_at(s)?).abs();
        n += 1;
    }
    Ok(sum / f64::from(n))
}

/// The two panels' hit ratios at share `k`, or why they cannot be compared.
fn panels<'f>(a: &'f Fidelity, x: &'f Fidelity, k: usize) -> std::result::Result<(&'f [f64], &'f [f64]), String> {
    if a.panel.is_empty() || a.panel != x.panel {
        return Err("no panel".into());
    }
    Ok((&a.panel_runs[k].hit_ratios, &x.panel_runs[k].hit_ratios))
}

/// Of the policy pairs whose hit ratios on A differ by at least [`SEPARATED`], the share whose
/// order X keeps (the difference of the same sign, not zero).
pub fn pairs_kept(a: &[f64], x: &[f64]) -> Measure {
    let (mut separated, mut kept) = (0u32, 0u32);
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            let d = a[i] - a[j];
            if d.abs() >= SEPARATED {
                separated += 1;
                let e = x[i] - x[j];
                kept += u32::from(e != 0.0 && (e > 0.0) == (d > 0.0));
            }
        }
    }
    match separated {
        0 => Err(NO_RANKING.into()),
        n => Ok(f64::from(kept) / f64::from(n)),
    }
}

/// Kendall's tau-b between `a` and `x` (ties in either, exact equality, counted as tau-b does).
pub fn kendall_tau_b(a: &[f64], x: &[f64]) -> Measure {
    let (mut concordant, mut discordant, mut ties_a, mut ties_x, mut pairs) = (0i64, 0i64, 0i64, 0i64, 0i64);
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            pairs += 1;
            let (d, e) = (a[i] - a[j], x[i] - x[j]);
            match (d == 0.0, e == 0.0) {
                (true, true) => {
                    ties_a += 1;
                    ties_x += 1;
                }
                (true, false) => ties_a += 1,
                (false, true) => ties_x += 1,
                (false, false) if (d > 0.0) == (e > 0.0) => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let denominator = ((pairs - ties_a) as f64 * (pairs - ties_x) as f64).sqrt();
    if denominator == 0.0 {
        return Err("every policy has the same hit ratio: no ranking".into());
    }
    Ok((concordant - discordant) as f64 / denominator)
}

/// Mean |hit ratio on X − hit ratio on A| over the panel.
pub fn panel_mae(a: &[f64], x: &[f64]) -> Measure {
    Ok(a.iter().zip(x).map(|(p, q)| (p - q).abs()).sum::<f64>() / a.len() as f64)
}

macro_rules! one {
    ($name:expr, $what:expr, $check:expr, $f:expr) => {
        MeasureDef { name: $name, what: $what, check: $check, get: Get::One($f), needs_writes: false, worst: f64::INFINITY }
    };
}

macro_rules! dirty {
    ($name:expr, $what:expr, $f:expr) => {
        MeasureDef { name: $name, what: $what, check: Check::Difference, get: Get::One($f), needs_writes: true, worst: f64::INFINITY }
    };
}

macro_rules! panel {
    ($name:expr, $what:expr, $check:expr, $worst:expr, $k:expr, $f:expr) => {
        MeasureDef {
            name: $name,
            what: $what,
            check: $check,
            get: Get::Pair(|a, x| panels(a, x, $k).and_then(|(p, q)| $f(p, q))),
            needs_writes: false,
            worst: $worst,
        }
    };
}

/// Every measure of the report, in the order printed, with how it is checked (its bound comes
/// from A's halves, [`derive`]).
pub static MEASURES: &[MeasureDef] = &[
    one!("requests", "requests (reads, writes, trims)", Check::Info, |f| Ok(f.stats.requests as f64)),
    one!("working_set_pages", "distinct pages read or written", Check::Info, |f| Ok(f.stats.working_set as f64)),
    one!("span_s", "latest time - earliest, s", Check::Info, |f| f.stats.span_ns().map(|n| n / 1e9)),
    one!("write_share_requests", "writes / (reads + writes), requests", Check::Info, |f| f.stats.write_share_requests()),
    one!("write_share_pages", "written / (read + written) pages", Check::Info, |f| f.stats.write_share_pages()),
    one!("mean_read_bytes", "mean read request size, B", Check::Ratio, |f| f.stats.mean_size(0)),
    one!("mean_write_bytes", "mean write request size, B", Check::Ratio, |f| f.stats.mean_size(1)),
    one!("sequential_share", "requests starting where the volume's previous ended", Check::Info, |f| f.stats.sequential_share(None)),
    one!("sequential_share_read", "the same, of reads", Check::Info, |f| f.stats.sequential_share(Some(0))),
    one!("sequential_share_write", "the same, of writes", Check::Info, |f| f.stats.sequential_share(Some(1))),
    one!("interarrival_cv", "std / mean of the gaps between arrivals", Check::Info, |f| f.stats.interarrival_cv()),
    one!("fano_10ms", "variance / mean of arrivals per 10 ms bin", Check::Info, |f| f.stats.fano(0)),
    one!("fano_1s", "variance / mean of arrivals per 1 s bin", Check::Ratio, |f| f.stats.fano(1)),
    one!("fano_60s", "variance / mean of arrivals per 60 s bin", Check::Info, |f| f.stats.fano(2)),
    MeasureDef {
        name: "mrc_mae",
        what: "mean |A - X| of LRU miss ratios at 1%..50% of each working set (50 sizes)",
        check: Check::Deviation,
        get: Get::Pair(mrc_mae),
        needs_writes: false,
        worst: f64::INFINITY,
    },
    one!("miss_ratio_1pct", "LRU miss ratio at 1% of the working set", Check::Info, |f| f.stats.miss_ratio_at(0.01)),
    one!("miss_ratio_10pct", "LRU miss ratio at 10%", Check::Info, |f| f.stats.miss_ratio_at(0.10)),
    one!("miss_ratio_50pct", "LRU miss ratio at 50%", Check::Info, |f| f.stats.miss_ratio_at(0.50)),
    dirty!("dirty_eviction_share_1pct", "LRU write-back at 1%: dirty evictions / evictions", |f| f.lru[0].dirty_eviction_share()),
    dirty!("dirty_eviction_share_10pct", "the same at 10%", |f| f.lru[1].dirty_eviction_share()),
    dirty!("read_hits_dirty_1pct", "LRU at 1%: read hits on dirty pages / read hits", |f| f.lru[0].read_hits_dirty_share()),
    dirty!("read_hits_dirty_10pct", "the same at 10%", |f| f.lru[1].read_hits_dirty_share()),
    one!("write_reuse_1pct", "writes re-accessing a page within 1% of the working set / writes", Check::Info, |f| f.lru[0].write_reuse()),
    one!("write_reuse_10pct", "the same within 10%", Check::Info, |f| f.lru[1].write_reuse()),
    panel!(
        "panel_pairs_kept_1pct",
        "policy pairs 0.005 apart on A (hit ratio at 1%) whose order X keeps / such pairs",
        Check::Agreement,
        0.0,
        0,
        pairs_kept
    ),
    panel!("panel_pairs_kept_10pct", "the same at 10%", Check::Agreement, 0.0, 1, pairs_kept),
    panel!("panel_tau_1pct", "Kendall tau-b of the panel's hit ratios at 1%, X against A", Check::Agreement, -1.0, 0, kendall_tau_b),
    panel!("panel_tau_10pct", "the same at 10%", Check::Agreement, -1.0, 1, kendall_tau_b),
    panel!("panel_mae_1pct", "mean |X - A| of the panel's hit ratios at 1%", Check::Deviation, f64::INFINITY, 0, panel_mae),
    panel!("panel_mae_10pct", "the same at 10%", Check::Deviation, f64::INFINITY, 1, panel_mae),
];

/// Which half of A set a tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    H1,
    H2,
}

impl Half {
    pub fn name(self) -> &'static str {
        match self {
            Half::H1 => "H1",
            Half::H2 => "H2",
        }
    }
}

/// A measure's tolerance, derived from A's halves: B's score (see [`Check`]) must be at most
/// (`at_least` false) or at least (`at_least` true) `bound`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    pub check: Check,
    pub bound: f64,
    pub at_least: bool,
    /// The half that set it, and the two halves' scores.
    pub from: Half,
    pub halves: [f64; 2],
}

impl Tolerance {
    /// Whether `score` passes.
    pub fn passes(&self, score: f64) -> bool {
        match self.at_least {
            true => score >= self.bound,
            false => score <= self.bound,
        }
    }
}

impl std::fmt::Display for Tolerance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.check {
            Check::Difference => "|B-A| <= ",
            Check::Ratio => "|ln B/A| <= ",
            Check::Deviation => "<= ",
            Check::Agreement => ">= ",
            Check::Info => "",
        };
        write!(f, "{what}{:.4} ({})", self.bound, self.from.name())
    }
}

/// X's score against A on measure `m` (see [`Check`]), or why it has none. `Err` when X's value
/// is missing; A's is checked by [`derive`] first.
pub fn score(m: &MeasureDef, a: &Fidelity, x: &Fidelity) -> Measure {
    match m.get {
        Get::Pair(f) => f(a, x),
        Get::One(f) => {
            let (va, vx) = (f(a)?, f(x)?);
            match m.check {
                Check::Ratio if vx <= 0.0 => Ok(f64::INFINITY),
                Check::Ratio => Ok((vx / va).ln().abs()),
                _ => Ok((vx - va).abs()),
            }
        }
    }
}

/// The tolerance of measure `m` from A and its halves, or why A cannot test a clone on it
/// (`Ok(None)` for a measure reported without one).
pub fn derive(m: &MeasureDef, r: &Reference) -> std::result::Result<Option<Tolerance>, String> {
    if m.check == Check::Info {
        return Ok(None);
    }
    let a = &r.a;
    if m.needs_writes && a.stats.ops[1] == 0 {
        return Err("A has no writes".into());
    }
    match m.get {
        Get::One(f) => match f(a) {
            Err(e) => return Err(format!("A: {e}")),
            Ok(v) if m.check == Check::Ratio && v <= 0.0 => return Err("A's value is 0: no ratio to it".into()),
            Ok(_) => {}
        },
        // What A's own ranking cannot give (no separated pair, ties throughout) is said as is.
        Get::Pair(f) => {
            f(a, a)?;
        }
    }
    let mut halves = [0.0; 2];
    for (h, (half, name)) in halves.iter_mut().zip(r.halves.iter().zip(["H1", "H2"])) {
        *h = score(m, a, half).map_err(|e| format!("{name}: {e}: no tolerance"))?;
    }
    let at_least = m.check.higher_is_better();
    let worse_second = if at_least { halves[1] < halves[0] } else { halves[1] > halves[0] };
    let (bound, from) = if worse_second { (halves[1], Half::H2) } else { (halves[0], Half::H1) };
    if !at_least && bound == 0.0 {
        return Err("both halves equal A exactly: a tolerance of 0 tests nothing but identity".into());
    }
    if bound == m.worst {
        return Err(format!("{} scores the worst there is: every B would pass", from.name()));
    }
    Ok(Some(Tolerance { check: m.check, bound, at_least, from, halves }))
}

/// The outcome of one measure's check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
    /// A cannot test a clone on this measure (the note says why): never a pass.
    Untestable,
    /// No tolerance: reported for reading.
    Info,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Untestable => "untestable",
            Status::Info => "",
        }
    }
}

/// One trace's standing on one measure against A.
#[derive(Debug, Clone)]
pub struct Scored {
    /// Its value (for a measure of the pair, the pair's value against A).
    pub value: Measure,
    /// Its score against A (|X − A|, |ln X/A|, or the pair's value).
    pub score: Option<f64>,
    pub status: Status,
}

fn judge(m: &MeasureDef, r: &Reference, tolerance: &std::result::Result<Option<Tolerance>, String>, x: &Fidelity) -> Scored {
    let value = match m.get {
        Get::One(f) => f(x),
        Get::Pair(f) => f(&r.a, x),
    };
    let s = match m.check {
        Check::Info => None,
        _ => score(m, &r.a, x).ok(),
    };
    let status = match (tolerance, s) {
        (Ok(None), _) => Status::Info,
        (Err(_), _) => Status::Untestable,
        // A has the value and X has none: X lacks what A has.
        (Ok(Some(_)), None) => Status::Fail,
        (Ok(Some(t)), Some(s)) if t.passes(s) => Status::Pass,
        (Ok(Some(_)), Some(_)) => Status::Fail,
    };
    Scored { value, score: s, status }
}

/// One line of the report.
#[derive(Debug, Clone)]
pub struct Row {
    pub measure: &'static MeasureDef,
    /// A's value (`Err("")` for a measure of the pair).
    pub a: Measure,
    /// B's value (for a measure of the pair, the pair's value) and standing.
    pub b: Scored,
    /// B − A (measures of each trace).
    pub difference: Option<f64>,
    /// B / A (A non-zero).
    pub ratio: Option<f64>,
    /// The tolerance, `Ok(None)` for an info measure, or why A cannot test a clone on it.
    pub tolerance: std::result::Result<Option<Tolerance>, String>,
    /// The naive baseline's value and standing, when there is one.
    pub baseline: Option<Scored>,
}

impl Row {
    /// Why the row is untestable, or why a value is missing ("A: ...", "B: ...").
    pub fn note(&self) -> String {
        if let Err(why) = &self.tolerance {
            return why.clone();
        }
        let why = |m: &Measure| m.as_ref().err().filter(|e| !e.is_empty()).cloned();
        let a = match self.measure.get {
            Get::One(_) => why(&self.a),
            Get::Pair(_) => None,
        };
        match (a, why(&self.b.value)) {
            (Some(x), Some(y)) if x == y => x,
            (Some(x), Some(y)) => format!("A: {x}; B: {y}"),
            (Some(x), None) => format!("A: {x}"),
            (None, Some(y)) => format!("B: {y}"),
            (None, None) => String::new(),
        }
    }
}

/// B's measures (and the baseline's, if given) against A's, one row per [`MEASURES`] entry,
/// each held to the tolerance derived from `r` (A and its halves).
pub fn compare(r: &Reference, b: &Fidelity, baseline: Option<&Fidelity>) -> Vec<Row> {
    MEASURES
        .iter()
        .map(|m| {
            let tolerance = derive(m, r);
            let a = match m.get {
                Get::One(f) => f(&r.a),
                Get::Pair(_) => Err(String::new()),
            };
            let bs = judge(m, r, &tolerance, b);
            let (difference, ratio) = match (&a, &bs.value, m.get) {
                (Ok(x), Ok(y), Get::One(_)) => (Some(y - x), (*x != 0.0).then(|| y / x)),
                _ => (None, None),
            };
            let baseline = baseline.map(|n| judge(m, r, &tolerance, n));
            Row { measure: m, a, b: bs, difference, ratio, tolerance, baseline }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Writes `lines` (DiskSim ASCII) to a file of its own; returns its path.
    fn trace_file(name: &str, lines: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fcsim-fidelity-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.disksim");
        std::fs::write(&p, lines).unwrap();
        p
    }

    /// A DiskSim trace of one-page requests, one per ms: `ops` as "W0 R1 ..." (op, page).
    fn pages(ops: &str) -> String {
        ops.split_whitespace()
            .enumerate()
            .map(|(i, a)| {
                let flags = if a.starts_with('R') { 1 } else { 0 };
                format!("{i} 0 {} 8 {flags}\n", 8 * a[1..].parse::<u64>().unwrap())
            })
            .collect()
    }

    fn opts() -> TraceOptions {
        TraceOptions { format: Some("disksim".into()), ..TraceOptions::default() }
    }

    fn by_name(name: &str) -> &'static MeasureDef {
        MEASURES.iter().find(|m| m.name == name).unwrap()
    }

    #[test]
    fn dirty_evictions_of_a_hand_traced_lru() {
        // 20 distinct pages: LRU at 1% holds max(1, round(0.2)) = 1 page, at 10% 2 pages.
        let reads: Vec<String> = (4..20).map(|p| format!("R{p}")).collect();
        let ops = format!("W0 R1 R0 W2 R2 R3 W3 {} R19", reads.join(" "));
        let path = trace_file("lru", &pages(&ops));
        let f = measure(path.to_str().unwrap(), &opts(), 4096, &[], None).unwrap();
        assert_eq!((f.stats.working_set, f.lru[0].pages, f.lru[1].pages), (20, 1, 2));
        // One page: W0 in (dirty); R1 evicts 0 (dirty); R0 evicts 1; W2 evicts 0; R2 hits dirty
        // 2; R3 evicts 2 (dirty); W3 hits clean 3 (a write hit), dirtying it; R4 evicts 3
        // (dirty); R5..R19 evict 15 clean pages; the last R19 hits clean. Evictions 4 + 16 = 20,
        // dirty 3; read hits 2 (R2 dirty, R19 clean); writes 3, one hit.
        let one = f.lru[0];
        assert_eq!((one.counters.evictions, one.counters.dirty_evictions), (20, 3));
        assert_eq!(one.dirty_eviction_share().unwrap(), 0.15);
        assert_eq!(one.read_hits_dirty_share().unwrap(), 0.5);
        assert_eq!(one.write_reuse().unwrap(), 1.0 / 3.0);
        // Two pages: W0 {0d}; R1 {1, 0d}; R0 hits dirty 0; W2 evicts 1 (clean); R2 hits dirty 2;
        // R3 evicts 0 (dirty); W3 hits clean 3; R4 evicts 2 (dirty); R5 evicts 3 (dirty);
        // R6..R19 evict 14 clean; R19 hits clean. Evictions 18, dirty 3; read hits 3, 2 dirty.
        let two = f.lru[1];
        assert_eq!((two.counters.evictions, two.counters.dirty_evictions), (18, 3));
        assert_eq!(two.dirty_eviction_share().unwrap(), 3.0 / 18.0);
        assert_eq!(two.read_hits_dirty_share().unwrap(), 2.0 / 3.0);
        // The curve agrees with the runs: at one page, 3 hits of 24 accesses.
        assert_eq!(f.stats.miss_ratio_at(0.01).unwrap(), 21.0 / 24.0);
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_trace_against_itself_passes_every_testable_measure() {
        let panel: Vec<String> = ["lru", "fifo", "clock", "arc"].map(String::from).to_vec();
        let spec = "synth:zipf,requests=4000,pages=600,write=0.3,seed=3";
        let r = reference(spec, &TraceOptions::default(), 4096, &panel, None).unwrap();
        // The halves are the first 2,000 requests and the other 2,000.
        assert_eq!((r.halves[0].stats.requests, r.halves[1].stats.requests), (2000, 2000));
        assert_eq!(r.halves[0].panel, panel);
        let rows = compare(&r, &r.a, Some(&r.halves[0]));
        assert_eq!(rows.len(), MEASURES.len());
        for row in &rows {
            assert!(matches!(row.b.status, Status::Pass | Status::Untestable | Status::Info), "{}", row.measure.name);
            if row.b.status == Status::Untestable {
                assert!(!row.note().is_empty());
            }
        }
        let get = |n: &str| rows.iter().find(|row| row.measure.name == n).unwrap();
        assert_eq!(get("panel_tau_10pct").b.score, Some(1.0));
        assert_eq!(get("mrc_mae").b.score, Some(0.0));
        // A half is at most as far from A as the worse half: the baseline slot passes too.
        assert_eq!(get("panel_mae_10pct").baseline.as_ref().unwrap().status, Status::Pass);
        // The Fano factor at 1 s: Poisson arrivals at 1000/s over 4 s: fewer than 10 bins.
        assert_eq!(get("fano_1s").note(), "A: span < 10 bins");
    }

    /// A trace's measures with only what the tolerance arithmetic reads: the panel's hit ratios
    /// at 1% and 10%, the mean read size (writes are half as large), and the writes.
    fn fid(hits_1: &[f64], hits_10: &[f64], read_bytes: u64, writes: u64) -> Fidelity {
        let mut stats = TraceStats::default();
        (stats.ops, stats.bytes) = ([10, writes, 0], [10 * read_bytes, writes * (read_bytes / 2), 0]);
        let run = |share, h: &[f64]| PanelRun { share, pages: 1, hit_ratios: h.to_vec() };
        Fidelity {
            trace: String::new(),
            stats,
            lru: [LruRun::default(); 2],
            panel: (0..hits_1.len()).map(|i| format!("p{i}")).collect(),
            panel_runs: [run(0.01, hits_1), run(0.10, hits_10)],
        }
    }

    #[test]
    fn ranking_measures_by_hand() {
        // A: 0.50, 0.40, 0.397, 0.30. Pairs 0.005 apart: (0,1), (0,2), (0,3), (1,3), (2,3); (1,2)
        // is 0.003 apart, not ranked. X = 0.45, 0.46, 0.30, 0.30: keeps (0,2) and (0,3); swaps
        // (0,1); ties (2,3), which is not kept; keeps (1,3). 3 of 5.
        let a = [0.50, 0.40, 0.397, 0.30];
        let x = [0.45, 0.46, 0.30, 0.30];
        assert_eq!(pairs_kept(&a, &x).unwrap(), 0.6);
        assert_eq!(pairs_kept(&[0.3, 0.302, 0.304], &x[..3]).unwrap_err(), NO_RANKING);
        // Tau-b: 6 pairs; A has no ties; X ties (2,3). Concordant (0,2) (0,3) (1,2) (1,3),
        // discordant (0,1): (4 − 1) / sqrt(6 · 5).
        assert!((kendall_tau_b(&a, &x).unwrap() - 3.0 / 30f64.sqrt()).abs() < 1e-12);
        assert_eq!(kendall_tau_b(&a, &a).unwrap(), 1.0);
        assert!(kendall_tau_b(&[0.1, 0.1], &[0.2, 0.3]).is_err());
        // MAE: (0.05 + 0.06 + 0.097 + 0) / 4.
        assert!((panel_mae(&a, &x).unwrap() - 0.207 / 4.0).abs() < 1e-12);
    }

    #[test]
    fn tolerances_are_the_worse_half_and_b_is_held_to_them() {
        let a = fid(&[0.50, 0.40, 0.30], &[0.70, 0.60, 0.50], 8192, 5);
        // H1 keeps every pair at 10% and strays 0.02 on average; H2 swaps one of the three pairs
        // and strays (0.04 + 0.07 + 0.02) / 3 on average, with a mean read size 10% larger.
        let h1 = fid(&[0.50, 0.40, 0.30], &[0.68, 0.58, 0.48], 8192, 5);
        let h2 = fid(&[0.50, 0.40, 0.30], &[0.66, 0.67, 0.48], 9011, 5);
        let r = Reference { a, halves: [h1, h2] };
        let tol = |n: &str| derive(by_name(n), &r);
        let kept = tol("panel_pairs_kept_10pct").unwrap().unwrap();
        assert_eq!((kept.bound, kept.from, kept.at_least), (2.0 / 3.0, Half::H2, true));
        assert_eq!(kept.halves, [1.0, 2.0 / 3.0]);
        let mae = tol("panel_mae_10pct").unwrap().unwrap();
        assert_eq!((mae.from, mae.at_least), (Half::H2, false));
        assert!((mae.bound - 0.13 / 3.0).abs() < 1e-12);
        let size = tol("mean_read_bytes").unwrap().unwrap();
        assert!((size.bound - (9011.0f64 / 8192.0).ln()).abs() < 1e-12 && size.from == Half::H2);
        assert_eq!(size.to_string(), "|ln B/A| <= 0.0953 (H2)");
        // At 1% both halves are A exactly: the MAE's tolerance would be 0, so it is untestable;
        // an agreement of 1 in both halves is a bound B can meet (keep every pair).
        assert!(tol("panel_mae_1pct").unwrap_err().starts_with("both halves equal A exactly"));
        assert_eq!(tol("panel_tau_1pct").unwrap().unwrap().bound, 1.0);
        // B: keeps 2 of 3 pairs at 10% (passes, at the bound), strays 0.17 / 3 (fails: above
        // H2's 0.13 / 3).
        let b = fid(&[0.50, 0.40, 0.30], &[0.66, 0.67, 0.44], 8192, 5);
        let rows = compare(&r, &b, None);
        let row = |n: &str| rows.iter().find(|x| x.measure.name == n).unwrap().clone();
        assert_eq!(row("panel_pairs_kept_10pct").b.status, Status::Pass);
        assert_eq!(row("panel_mae_10pct").b.status, Status::Fail);
        assert_eq!(row("panel_mae_1pct").b.status, Status::Untestable);
        assert_eq!(row("mean_read_bytes").b.status, Status::Pass);
        // A ratio is symmetric in log: down to 8192 · 8192 / 9011 = 7447.4 passes.
        let small = fid(&[0.5, 0.4, 0.3], &[0.7, 0.6, 0.5], 7448, 5);
        assert_eq!(compare(&r, &small, None).iter().find(|x| x.measure.name == "mean_read_bytes").unwrap().b.status, Status::Pass);
        let smaller = fid(&[0.5, 0.4, 0.3], &[0.7, 0.6, 0.5], 7447, 5);
        assert_eq!(compare(&r, &smaller, None).iter().find(|x| x.measure.name == "mean_read_bytes").unwrap().b.status, Status::Fail);
        // B without writes where A has them: B lacks what A has, a failure (not untestable).
        let none = fid(&[0.5, 0.4, 0.3], &[0.7, 0.6, 0.5], 8192, 0);
        let w = compare(&r, &none, None).into_iter().find(|x| x.measure.name == "mean_write_bytes").unwrap();
        assert_eq!((w.b.status, w.note()), (Status::Fail, "B: no writes".to_string()));
    }

    #[test]
    fn a_trace_without_writes_cannot_test_the_dirty_measures() {
        let a = fid(&[0.5, 0.4], &[0.7, 0.6], 4096, 0);
        let r = Reference { a: a.clone(), halves: [a.clone(), a.clone()] };
        for n in ["dirty_eviction_share_1pct", "dirty_eviction_share_10pct", "read_hits_dirty_1pct", "read_hits_dirty_10pct"] {
            assert_eq!(derive(by_name(n), &r).unwrap_err(), "A has no writes");
        }
        let rows = compare(&r, &a, None);
        let w = rows.iter().find(|x| x.measure.name == "dirty_eviction_share_10pct").unwrap();
        assert_eq!((w.b.status, w.note()), (Status::Untestable, "A has no writes".to_string()));
        // Two policies 0.005 apart at neither size... 0.1 apart: ranked; a panel of two equal
        // hit ratios is not.
        let flat = fid(&[0.5, 0.5], &[0.7, 0.7], 4096, 0);
        let r = Reference { a: flat.clone(), halves: [flat.clone(), flat] };
        assert_eq!(derive(by_name("panel_pairs_kept_1pct"), &r).unwrap_err(), NO_RANKING);
    }

    #[test]
    fn halves_cut_a_slice_of_a_in_two() {
        let mut o = TraceOptions::default();
        o.params.insert("skip".into(), "100".into());
        let [h1, h2] = halves(&o, 11).unwrap();
        assert_eq!((h1.params["skip"].as_str(), h1.params["take"].as_str()), ("100", "5"));
        assert_eq!((h2.params["skip"].as_str(), h2.params["take"].as_str()), ("105", "6"));
        assert!(halves(&o, 1).unwrap_err().to_string().contains("need at least 2"));
        assert!(check_panel(&["lru".into()]).is_err());
        assert!(check_panel(&["lru".into(), "lru".into()]).unwrap_err().to_string().contains("twice"));
        assert!(check_panel(&PANEL.map(String::from)).is_ok());
    }
}
