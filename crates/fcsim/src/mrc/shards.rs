//! SHARDS: approximate LRU miss-ratio curves from a spatially hashed sample of the pages.
//!
//! C. A. Waldspurger, N. Park, A. T. Garthwaite, and I. Ahmad, "Efficient MRC Construction with
//! SHARDS", FAST 2015, pp. 95–110 (as the dynamic-allocation paper's reference [4] prints it).
//!
//! A page is in the sample iff the hash of its key is below a threshold T out of P hash values,
//! so every access to a sampled page is seen and the sample's stack distances are exact among
//! the sampled pages ([`StackDistances`]). With sampling rate R = T/P, a sampled distance d
//! stands for a distance of about d/R in the whole trace, and each sampled access for 1/R
//! accesses.
//!
//! - **Fixed rate**: T stays fixed; memory grows with R × (distinct pages).
//! - **Fixed size**: at most s_max pages are held. When a new page would make s_max + 1, the
//!   page with the largest hash leaves the sample ([`StackDistances::remove`]), T is lowered to
//!   its hash (pages at or above it are no longer sampled, so it never comes back) and R = T/P
//!   from then on. Memory is O(s_max): the sampled pages' slots, a max-heap of (hash, key), and
//!   at most [`MAX_BUCKETS`] histogram buckets.
//! - **Adjustment**: a sample that holds too many or too few of the hot pages has more or fewer
//!   accesses than expected. As the issue states it (and as a summary of the paper quotes it),
//!   the difference between the expected sample count E[N_s] = N·R and the actual N_s is added
//!   to the first histogram bucket before the miss ratios are read. The paper's own text was not
//!   found with the search tools here, so this follows that quote.
//!
//! Choices the paper leaves open (or whose text was not available here), and what was chosen:
//!
//! - **Hash**: the splitmix64 output function (Steele, Lea and Flood's mixer with Stafford's
//!   "variant 13" constants; not in the seed papers' reference lists) of `key + (seed + 1)·γ`,
//!   γ = 0x9e3779b97f4a7c15. It is a bijection of u64, so two pages never share a hash, and a
//!   fixed-size eviction removes exactly one page.
//! - **P = 2^64**: the hash itself is compared with T (no modulus), so R can be any multiple of
//!   2^-64; the threshold is kept as an inclusive `limit` = T − 1 so that R = 1 fits in a u64.
//! - **Fixed size starts at R = 1** and lowers R only as the sample overflows, so a trace with at
//!   most s_max distinct pages gets the exact curve.
//! - **Weights at sample time**: an access sampled at rate R counts 1/R accesses at distance d/R,
//!   with the R in force when it was sampled. (Rescaling every bucket by R'/R when the rate
//!   drops to R' and reading the histogram at the final rate gives the same numbers.) The
//!   adjustment is taken in the same units: N − Σ 1/R over the sampled accesses, which for a fixed
//!   rate is exactly (E[N_s] − N_s)/R.
//! - **Histogram**: f64 weights over scaled distance in buckets of width w = 2^k pages; bucket i
//!   holds distances in (i·w, (i+1)·w] and counts as hits at every size ≥ (i+1)·w. w starts at one
//!   page and doubles (merging bucket pairs) whenever a distance would need more than
//!   [`MAX_BUCKETS`] buckets, so a curve is exact to one page while every scaled distance is at
//!   most 65,536 pages, and to w/largest-distance ≤ 2^-15 of its size range beyond that.
//! - **Miss ratio** at size c: (N − weight of buckets whose upper edge ≤ c) / N, clamped to
//!   [0, 1] (a negative adjustment can take the first bucket below zero). The adjustment counts
//!   from the first bucket's edge (c ≥ w).
//! - **Unique pages** (the estimate of the working set): held pages / final R. Every page seen
//!   with a hash below the final threshold was sampled on its first access and never left, so
//!   this is the usual distinct-count estimate from the smallest hashes.

use super::{CurveBuilder, StackDistances};
use crate::error::{Error, Result};
use std::collections::BinaryHeap;

/// Most histogram buckets; past it the bucket width doubles.
pub const MAX_BUCKETS: usize = 1 << 16;

const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
/// 2^64, as an f64 (exact).
const P: f64 = 18_446_744_073_709_551_616.0;

/// The spatial hash of a page key (see the module docs).
#[inline]
pub fn hash(key: u64, seed: u64) -> u64 {
    let mut z = key.wrapping_add(seed.wrapping_add(1).wrapping_mul(GAMMA));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The inclusive hash limit (T − 1) of sampling rate `rate` in (0, 1]: a page is sampled iff its
/// hash is at most this. The rate it gives is [`rate_of`] of it, within 2^-53 of `rate`.
pub fn limit_of(rate: f64) -> u64 {
    if rate >= 1.0 {
        u64::MAX
    } else {
        ((rate * P) as u64).saturating_sub(1)
    }
}

/// The sampling rate R = T/P of an inclusive hash limit T − 1.
pub fn rate_of(limit: u64) -> f64 {
    (limit as f64 + 1.0) / P
}

/// How pages are sampled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// A fixed rate R in (0, 1].
    Rate(f64),
    /// At most this many sampled pages (s_max ≥ 1); the rate falls as the sample overflows.
    MaxSamples(usize),
}

impl Sampling {
    /// Checks the parameter: a rate in (0, 1], at least one sample.
    pub fn validate(self) -> Result<Sampling> {
        match self {
            Sampling::Rate(r) if !(r > 0.0 && r <= 1.0) => Err(Error::config(format!("sampling rate must be in (0, 1], got {r}"))),
            Sampling::MaxSamples(0) => Err(Error::config("SHARDS needs at least one sample (max samples is 0)")),
            s => Ok(s),
        }
    }

    /// The inclusive hash limit of a starting rate.
    fn initial_limit(self) -> u64 {
        match self {
            Sampling::Rate(r) => limit_of(r),
            Sampling::MaxSamples(_) => u64::MAX,
        }
    }
}

/// Scaled-distance histogram: f64 weights in buckets of width `1 << shift` pages (see the module
/// docs).
#[derive(Debug, Clone, Default)]
struct Hist {
    shift: u32,
    weights: Vec<f64>,
}

impl Hist {
    /// Adds `weight` at scaled distance `dist` (≥ 1).
    #[inline]
    fn add(&mut self, dist: f64, weight: f64) {
        let mut i = self.bucket(dist);
        while i >= MAX_BUCKETS {
            self.coarsen();
            i = self.bucket(dist);
        }
        if i >= self.weights.len() {
            self.weights.resize(i + 1, 0.0);
        }
        self.weights[i] += weight;
    }

    #[inline]
    fn bucket(&self, dist: f64) -> usize {
        let w = (1u64 << self.shift) as f64;
        ((dist / w).ceil() as usize).max(1) - 1
    }

    /// Doubles the width: new bucket j holds old buckets 2j and 2j + 1.
    fn coarsen(&mut self) {
        let n = self.weights.len().div_ceil(2);
        for j in 0..n {
            let a = self.weights[2 * j];
            let b = self.weights.get(2 * j + 1).copied().unwrap_or(0.0);
            self.weights[j] = a + b;
        }
        self.weights.truncate(n);
        self.shift += 1;
    }

    fn width(&self) -> u64 {
        1 << self.shift
    }
}

/// A SHARDS curve builder (see the module docs).
#[derive(Debug)]
pub struct Shards {
    sampling: Sampling,
    seed: u64,
    /// Sample iff hash ≤ limit (T = limit + 1).
    limit: u64,
    sd: StackDistances,
    /// Fixed size: the sampled pages as (hash, key), largest hash on top.
    heap: BinaryHeap<(u64, u64)>,
    hist: Hist,
    /// Every access fed (N).
    accesses: u64,
    /// Sampled accesses (N_s).
    samples: u64,
    /// Σ 1/R over the sampled accesses.
    weight: f64,
}

impl Shards {
    /// A builder sampling by `sampling`, hashing with `seed`.
    pub fn new(sampling: Sampling, seed: u64) -> Result<Self> {
        let sampling = sampling.validate()?;
        // Room for at most 2^16 samples up front; beyond that the sample grows as pages are
        // sampled, so memory follows the trace, not the bound asked for (10^12 aborted).
        let (pages, heap) = match sampling {
            Sampling::Rate(_) => (0, BinaryHeap::new()),
            Sampling::MaxSamples(s) => (s, BinaryHeap::with_capacity(s.min(1 << 16) + 1)),
        };
        Ok(Shards {
            sampling,
            seed,
            limit: sampling.initial_limit(),
            sd: StackDistances::with_pages(pages),
            heap,
            hist: Hist::default(),
            accesses: 0,
            samples: 0,
            weight: 0.0,
        })
    }

    /// The sampling rate in force: the fixed rate, or the current one of a fixed size.
    pub fn rate(&self) -> f64 {
        rate_of(self.limit)
    }

    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    /// Records a read or write access to `key`; `Err` when the sample cannot grow for it.
    #[inline]
    pub fn access(&mut self, key: u64) -> Result<()> {
        self.accesses += 1;
        let h = hash(key, self.seed);
        if h > self.limit {
            return Ok(());
        }
        let r = self.rate();
        let w = 1.0 / r;
        self.samples += 1;
        self.weight += w;
        match self.sd.access(key)? {
            Some(d) => self.hist.add(d as f64 * w, w),
            None => {
                if let Sampling::MaxSamples(max) = self.sampling {
                    self.heap.push((h, key));
                    if self.heap.len() > max {
                        // The largest hash leaves; T drops to it (hashes are distinct, so it is
                        // ≥ 1 when another page is held).
                        let (top, k) = self.heap.pop().expect("heap holds max + 1 pages");
                        self.sd.remove(k);
                        self.limit = top - 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// Page accesses fed (N).
    pub fn accesses(&self) -> u64 {
        self.accesses
    }

    /// Sampled accesses (N_s).
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Distinct sampled pages held now (≤ s_max for a fixed size).
    pub fn sampled_pages(&self) -> usize {
        self.sd.pages()
    }

    /// The first bucket's adjustment in accesses: N − Σ 1/R (for a fixed rate, (E[N_s] − N_s)/R).
    pub fn adjustment(&self) -> f64 {
        self.accesses as f64 - self.weight
    }

    /// Estimated distinct pages of the stream: held pages / R.
    pub fn unique_pages(&self) -> f64 {
        self.sd.pages() as f64 / self.rate()
    }

    /// Width of the histogram's buckets in pages (1 until a scaled distance passes
    /// [`MAX_BUCKETS`] pages).
    pub fn bucket_width(&self) -> u64 {
        self.hist.width()
    }

    /// Estimated misses of an LRU cache of `size` pages, in [0, N].
    pub fn misses(&self, size: u64) -> f64 {
        let n = self.accesses as f64;
        let w = self.hist.width();
        let full = usize::try_from(size / w).unwrap_or(usize::MAX).min(self.hist.weights.len());
        let mut hits: f64 = self.hist.weights[..full].iter().sum();
        if size >= w {
            hits += self.adjustment();
        }
        (n - hits).clamp(0.0, n)
    }

    /// Estimated miss ratio of an LRU cache of `size` pages (1 with no accesses).
    pub fn miss_ratio(&self, size: u64) -> f64 {
        match self.accesses {
            0 => 1.0,
            n => self.misses(size) / n as f64,
        }
    }

    /// The curve's steps: (size, estimated misses) at every bucket edge where the misses drop,
    /// in increasing size; between two steps the curve keeps the smaller size's value.
    pub fn steps(&self) -> Vec<(u64, f64)> {
        let n = self.accesses as f64;
        let w = self.hist.width();
        let mut out = Vec::new();
        let mut prev = n;
        let mut hits = self.adjustment();
        for (i, &h) in self.hist.weights.iter().enumerate() {
            hits += h;
            let m = (n - hits).clamp(0.0, n);
            if m < prev {
                out.push(((i as u64 + 1) * w, m));
                prev = m;
            }
        }
        if self.hist.weights.is_empty() && hits > 0.0 {
            out.push((w, (n - hits).clamp(0.0, n)));
        }
        out
    }
}

impl CurveBuilder for Shards {
    #[inline]
    fn access(&mut self, key: u64) -> Result<()> {
        Shards::access(self, key)
    }
    fn miss_ratio(&self, size: u64) -> f64 {
        Shards::miss_ratio(self, size)
    }
    fn accesses(&self) -> u64 {
        self.accesses
    }
    fn reset(&mut self) {
        let hint = match self.sampling {
            Sampling::Rate(_) => self.sd.pages(),
            Sampling::MaxSamples(s) => s,
        };
        self.sd = StackDistances::with_pages(hint);
        self.heap.clear();
        self.hist = Hist::default();
        self.limit = self.sampling.initial_limit();
        (self.accesses, self.samples, self.weight) = (0, 0, 0.0);
    }
}

/// A hit ratio and its standard error, estimated from a spatial sample of pages.
///
/// Each page p is in the sample independently with probability R (the hash test: Poisson
/// sampling), with `a_p` accesses (of the cache the ratio is of) and `h_p` of them hits in the
/// miniature cache. With N, the accesses of the whole trace, known (the pass reads it all), each
/// coefficient β gives an estimate unbiased for the sampled pages' hits taken as the full
/// cache's, the difference estimator
///
///   ρ̂_β = [Σ_s h_p / R − β (Σ_s a_p / R − N)] / N,
///
/// whose variance is estimated from the sample as (1 − R) Σ_s (h_p − β a_p)² / (R N)² (each
/// sampled page weighs 1/R; its variance term is (1 − R)/R² of its square). Two choices of β are
/// the two readings of a miniature used before: β = Σh/Σa gives the miniature's own hit ratio
/// Σh/Σa, and β = 1 gives SHARDS' adjustment, 1 − misses / (N·R). Which is closer depends on the
/// trace: a hot page that always hits moves the own ratio (its accesses are in the denominator)
/// and not the adjusted one; a heavy page that misses moves the adjusted one more. The β that
/// makes the estimated variance least, Σ_s h_p a_p / Σ_s a_p², is read off the sample itself and
/// used here (the regression estimator of survey sampling; its bias is of the order of one over
/// the sampled pages). The estimate is kept in [0, 1].
///
/// Without N (`total` None: a flash cache under a DRAM tier, whose accesses are what the tier
/// above let through), it is the own ratio Σh/Σa with its linearised variance
/// (1 − R) Σ_s (h_p − ρ a_p)² / (Σa)². Returns (estimate, standard error); (0, 0) with no access.
pub fn page_sample_hit_ratio(rate: f64, total: Option<f64>, pages: impl Iterator<Item = (f64, f64)> + Clone) -> (f64, f64) {
    let (mut a, mut h, mut aa, mut ha) = (0.0, 0.0, 0.0, 0.0);
    for (x, y) in pages.clone() {
        (a, h, aa, ha) = (a + x, h + y, aa + x * x, ha + x * y);
    }
    if a <= 0.0 {
        return (0.0, 0.0);
    }
    let keep = (1.0 - rate).max(0.0);
    let (est, beta, scale) = match total.filter(|&n| n > 0.0) {
        Some(n) => {
            let beta = ha / aa;
            ((h / rate - beta * (a / rate - n)) / n, beta, rate * n)
        }
        None => (h / a, h / a, a),
    };
    let s: f64 = pages.map(|(x, y)| (y - beta * x).powi(2)).sum();
    (est.clamp(0.0, 1.0), (keep * s).sqrt() / scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_ratio_from_a_page_sample_weighs_its_pages() {
        // Three sampled pages at R = 0.5 of a trace of N = 20 accesses, (accesses, hits): a hot
        // page that always hits (4, 4), one that never hits (2, 0), one that hits once (2, 1).
        let pages = [(4.0, 4.0), (2.0, 0.0), (2.0, 1.0)];
        // β = Σha / Σa² = (16 + 0 + 2) / (16 + 4 + 4) = 0.75. Estimate: [5 / 0.5 − 0.75 × (8 / 0.5
        // − 20)] / 20 = (10 + 3) / 20 = 0.65. Residuals h − 0.75a: 1, −1.5, −0.5; squares 1 +
        // 2.25 + 0.25 = 3.5; standard error sqrt(0.5 × 3.5) / (0.5 × 20).
        let (est, se) = page_sample_hit_ratio(0.5, Some(20.0), pages.iter().copied());
        assert!((est - 0.65).abs() < 1e-12, "{est}");
        assert!((se - 1.75f64.sqrt() / 10.0).abs() < 1e-12, "{se}");
        // The two fixed readings it chooses between: own 5/8, adjusted 1 − 3 / (20 × 0.5) = 0.7;
        // their estimated variances (β = 0.625: residuals 1.5, −1.25, −0.25, sum of squares
        // 3.875; β = 1: 0, −2, −1, 5) are both above the chosen one's 3.5.
        let var = |beta: f64| pages.iter().map(|(a, h)| (h - beta * a).powi(2)).sum::<f64>();
        assert!(var(0.75) < var(0.625) && var(0.75) < var(1.0));
        // Without N: the own ratio, with the ratio's linearised error sqrt(0.5 × 3.875) / 8.
        let (own, se) = page_sample_hit_ratio(0.5, None, pages.iter().copied());
        assert!((own - 0.625).abs() < 1e-12 && (se - 1.9375f64.sqrt() / 8.0).abs() < 1e-12, "{own} {se}");
        // Every page sampled (R = 1, Σa = N): the ratio itself, no error.
        assert_eq!(page_sample_hit_ratio(1.0, Some(8.0), pages.iter().copied()), (0.625, 0.0));
        assert_eq!(page_sample_hit_ratio(0.5, Some(8.0), std::iter::empty()), (0.0, 0.0));
    }

    /// A seeded stream of `n` accesses over `pages` pages, skewed (squared uniform).
    fn stream(n: usize, pages: u64, seed: u64) -> Vec<u64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_add(GAMMA);
                let u = hash(s, 7) as f64 / P;
                (u * u * pages as f64) as u64
            })
            .collect()
    }

    fn exact(keys: &[u64]) -> StackDistances {
        let mut sd = StackDistances::new();
        keys.iter().for_each(|&k| {
            sd.access(k).unwrap();
        });
        sd
    }

    fn feed(s: &mut Shards, keys: &[u64]) {
        keys.iter().for_each(|&k| s.access(k).unwrap());
    }

    #[test]
    fn rate_one_is_exact() {
        let keys = stream(50_000, 3_000, 1);
        let sd = exact(&keys);
        let mut s = Shards::new(Sampling::Rate(1.0), 0).unwrap();
        feed(&mut s, &keys);
        assert_eq!((s.samples(), s.adjustment(), s.rate()), (50_000, 0.0, 1.0));
        for size in 0..=3_001 {
            assert_eq!(s.misses(size), sd.curve().misses(size as usize) as f64, "size {size}");
        }
        let steps: Vec<(u64, f64)> = sd.curve().steps().into_iter().map(|(c, m)| (c, m as f64)).collect();
        assert_eq!(s.steps(), steps);
        assert_eq!(s.unique_pages(), sd.pages() as f64);
    }

    #[test]
    fn fixed_size_at_least_the_pages_is_exact() {
        let keys = stream(50_000, 3_000, 2);
        let sd = exact(&keys);
        for max in [sd.pages(), 10_000] {
            let mut s = Shards::new(Sampling::MaxSamples(max), 5).unwrap();
            feed(&mut s, &keys);
            assert_eq!(s.rate(), 1.0);
            for size in [0, 1, 2, 10, 100, 1000, 2999, 3000, 5000] {
                assert_eq!(s.misses(size), sd.curve().misses(size as usize) as f64);
            }
        }
    }

    #[test]
    fn fixed_size_holds_at_most_s_max_pages() {
        let keys = stream(200_000, 100_000, 3);
        let mut s = Shards::new(Sampling::MaxSamples(500), 0).unwrap();
        let mut last_rate = 1.0;
        for &k in &keys {
            s.access(k).unwrap();
            assert!(s.sampled_pages() <= 500 && s.heap.len() <= 500);
            assert!(s.rate() <= last_rate);
            last_rate = s.rate();
        }
        assert!(s.rate() < 0.05, "rate {}", s.rate());
        // The slots, the heap and the histogram stay O(s_max), not O(distinct pages).
        assert!(s.heap.capacity() <= 1024);
        assert!(s.hist.weights.len() <= MAX_BUCKETS);
        // The estimate of the distinct pages is within 15% (500 samples: about 1/sqrt(500)).
        let distinct = exact(&keys).pages() as f64;
        assert!((s.unique_pages() / distinct - 1.0).abs() < 0.15, "{} vs {distinct}", s.unique_pages());
    }

    /// `n` keys whose hash is below `limit`, and `n` above it, by search from 0.
    fn keys_by_hash(limit: u64, n: usize) -> (Vec<u64>, Vec<u64>) {
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        for k in 0.. {
            let v = if hash(k, 0) <= limit { &mut lo } else { &mut hi };
            if v.len() < n {
                v.push(k);
            }
            if lo.len() == n && hi.len() == n {
                break;
            }
        }
        (lo, hi)
    }

    #[test]
    fn hand_computed_fixed_rate() {
        // R = 1/4 exactly (T = 2^62). Sampled pages a, b; unsampled x, y, z. Of the 20
        // accesses the sample sees a b a b a: two cold, then three at sampled distance 2
        // (scaled 2/R = 8, weight 1/R = 4 each: 12 in the bucket (7, 8]). N_s = 5 = N·R, so
        // the adjustment is 0. Misses: 20 below size 8, 20 − 12 = 8 from size 8 on.
        let (lo, hi) = keys_by_hash((1 << 62) - 1, 3);
        let (a, b, x, y, z) = (lo[0], lo[1], hi[0], hi[1], hi[2]);
        let keys = [a, x, y, b, z, a, x, y, b, z, a, x, y, z, x, y, z, x, y, z];
        let mut s = Shards::new(Sampling::Rate(0.25), 0).unwrap();
        feed(&mut s, &keys);
        assert_eq!((s.rate(), s.samples(), s.adjustment()), (0.25, 5, 0.0));
        assert_eq!(s.steps(), [(8, 8.0)]);
        assert_eq!(s.miss_ratio(7), 1.0);
        assert_eq!(s.miss_ratio(8), 0.4);
        assert_eq!(s.unique_pages(), 8.0);
        // Two more accesses to b make N_s = 7 against E[N_s] = 22/4 = 5.5: the first bucket
        // gets (5.5 − 7)/R = −6. b is at sampled distance 2 (a since), then 1: weights 4 at
        // scaled 8 and 4 at scaled 4. Hits at size 4: −6 + 4 < 0, so misses stay 22 (clamped);
        // at size 8: −6 + 4 + 16 = 14, misses 8.
        feed(&mut s, &[b, b]);
        assert_eq!(s.adjustment(), -6.0);
        assert_eq!(s.misses(3), 22.0);
        assert_eq!(s.misses(4), 22.0);
        assert_eq!(s.misses(8), 8.0);
        assert_eq!(s.steps(), [(8, 8.0)]);
    }

    #[test]
    fn hand_computed_fixed_size() {
        // s_max = 1; pages a, b with hash(a) < hash(b). a, b both cold at R = 1 (weight 1 each);
        // b overflows the sample, leaves it (larger hash) and T drops to hash(b): R = h_b/2^64.
        // a again: b is gone from the stack, so its distance is 1, scaled 1/R, weight 1/R. b
        // again: not sampled. N = 4, Σ 1/R = 2 + 1/R, adjustment 2 − 1/R into the first bucket.
        let (k1, k2) = (1u64, 2u64);
        let (a, b) = if hash(k1, 0) < hash(k2, 0) { (k1, k2) } else { (k2, k1) };
        let r = hash(b, 0) as f64 / P;
        let mut s = Shards::new(Sampling::MaxSamples(1), 0).unwrap();
        feed(&mut s, &[a, b, a, b]);
        assert!((s.rate() / r - 1.0).abs() < 1e-12);
        assert_eq!((s.samples(), s.sampled_pages()), (3, 1));
        assert!((s.adjustment() - (2.0 - 1.0 / r)).abs() < 1e-9 / r);
        // Hits from the first bucket on: 2 − 1/R + (1/R at scaled distance 1/R ≥ 1) = 2.
        let edge = (1.0 / r).ceil() as u64;
        assert!((s.misses(edge.next_power_of_two() * 2) - 2.0).abs() < 1e-9 / r);
    }

    #[test]
    fn buckets_widen_past_the_limit() {
        // A loop over 100,000 pages at R = 1: every re-access is at distance 100,000, past
        // 65,536 one-page buckets, so the width doubles once; the step lands at 100,000 rounded
        // up to the width (2 pages).
        let keys: Vec<u64> = (0..300_000u64).map(|i| i % 100_000).collect();
        let mut s = Shards::new(Sampling::Rate(1.0), 0).unwrap();
        feed(&mut s, &keys);
        assert_eq!(s.bucket_width(), 2);
        assert_eq!(s.steps(), [(100_000, 100_000.0)]);
        assert_eq!(s.misses(99_999), 300_000.0);
    }

    #[test]
    fn reset_forgets_and_restores_the_rate() {
        let keys = stream(20_000, 5_000, 4);
        let mut s = Shards::new(Sampling::MaxSamples(100), 0).unwrap();
        feed(&mut s, &keys);
        assert!(s.rate() < 1.0);
        CurveBuilder::reset(&mut s);
        assert_eq!((s.rate(), CurveBuilder::accesses(&s), s.sampled_pages()), (1.0, 0, 0));
        assert_eq!(CurveBuilder::miss_ratio(&s, 10), 1.0);
        let mut fresh = Shards::new(Sampling::MaxSamples(100), 0).unwrap();
        feed(&mut s, &keys[..5000]);
        feed(&mut fresh, &keys[..5000]);
        assert_eq!(s.steps(), fresh.steps());
    }

    #[test]
    fn bad_parameters_are_config_errors() {
        for s in [Sampling::Rate(0.0), Sampling::Rate(1.5), Sampling::Rate(f64::NAN), Sampling::MaxSamples(0)] {
            assert!(matches!(Shards::new(s, 0), Err(Error::Config(_))), "{s:?}");
        }
    }

    /// A bound far beyond the trace reserves nothing for it (10^12 samples aborted the process
    /// allocating a heap and stack-distance tables for them up front).
    #[test]
    fn a_huge_sample_bound_costs_what_the_trace_fills() {
        let mut s = Shards::new(Sampling::MaxSamples(1_000_000_000_000), 0).unwrap();
        feed(&mut s, &[1, 2, 1]);
        assert!(s.heap.capacity() <= (1 << 17), "{}", s.heap.capacity());
    }
}
