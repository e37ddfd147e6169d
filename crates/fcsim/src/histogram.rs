//! The latency histogram of a run: fixed size, exact mean, standard deviation and max,
//! quantiles within 0.8%. A leaf: it uses nothing of fcsim.

/// Response-time histogram: exact below 128 ns, then 128 linear buckets per power of two, so a
/// quantile is within 0.8% of the true value; mean, standard deviation and max are exact.
/// Fixed size (58 × 128 counters); recording allocates nothing.
#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: f64,
    sum_sq: f64,
    max: u64,
}

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; ((64 - SUB_BITS + 1) as usize) << SUB_BITS], n: 0, sum: 0.0, sum_sq: 0.0, max: 0 }
    }
}

impl Histogram {
    #[inline]
    fn bucket(v: u64) -> usize {
        if v < SUB {
            return v as usize;
        }
        let e = 63 - v.leading_zeros(); // ≥ SUB_BITS
        let shift = e - SUB_BITS;
        (((shift + 1) as usize) << SUB_BITS) | ((v >> shift) & (SUB - 1)) as usize
    }

    /// The smallest value of bucket `b` and its width.
    fn bounds(b: usize) -> (u64, u64) {
        let (major, minor) = ((b >> SUB_BITS) as u32, (b as u64) & (SUB - 1));
        if major == 0 {
            return (minor, 1);
        }
        let shift = major - 1;
        ((SUB | minor) << shift, 1 << shift)
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.record_weighted(v, 1);
    }

    /// Records `v` as if it were seen `weight` times (quantiles, mean and standard deviation
    /// weighted by it).
    #[inline]
    pub fn record_weighted(&mut self, v: u64, weight: u64) {
        if weight == 0 {
            return;
        }
        self.counts[Self::bucket(v)] += weight;
        self.n += weight;
        let (f, w) = (v as f64, weight as f64);
        self.sum += f * w;
        self.sum_sq += f * f * w;
        self.max = self.max.max(v);
    }

    /// Adds every value recorded in `other`, as if recorded here (a run's total from its
    /// epochs'; mean and standard deviation stay exact, up to the order of float additions).
    pub fn merge(&mut self, other: &Histogram) {
        if other.n == 0 {
            return;
        }
        for (c, o) in self.counts.iter_mut().zip(&other.counts) {
            *c += o;
        }
        self.n += other.n;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
        self.max = self.max.max(other.max);
    }

    /// Forgets every value, keeping the buckets' memory (an epoch's histogram, reused).
    pub fn clear(&mut self) {
        if self.n > 0 {
            self.counts.fill(0);
        }
        self.n = 0;
        self.sum = 0.0;
        self.sum_sq = 0.0;
        self.max = 0;
    }

    /// Values recorded (their total weight).
    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }

    /// Population standard deviation.
    pub fn std(&self) -> Option<f64> {
        let m = self.mean()?;
        Some((self.sum_sq / self.n as f64 - m * m).max(0.0).sqrt())
    }

    pub fn max(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    /// The `q` quantile (nearest rank), as the midpoint of its bucket, capped at the max; the
    /// top rank is the exact max.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        if rank == self.n {
            return Some(self.max as f64);
        }
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, w) = Self::bounds(b);
                return Some((lo as f64 + (w - 1) as f64 / 2.0).min(self.max as f64));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_within_a_bucket() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        assert_eq!(h.count(), 100_000);
        assert!((h.mean().unwrap() - 50_000_500.0).abs() < 1e-3);
        for (q, exact) in [(0.5, 50_000_000.0), (0.99, 99_000_000.0), (0.999, 99_900_000.0)] {
            let got = h.quantile(q).unwrap();
            assert!((got - exact).abs() / exact < 0.008, "q{q}: {got} vs {exact}");
        }
        assert_eq!(h.quantile(1.0).unwrap(), 100_000_000.0);
        assert_eq!(h.max(), Some(100_000_000));
        // Small values are exact.
        let mut h = Histogram::default();
        for v in [3, 3, 7] {
            h.record(v);
        }
        assert_eq!((h.quantile(0.5), h.quantile(1.0)), (Some(3.0), Some(7.0)));
        // Every bucket's bounds contain the values it holds.
        for v in [127u64, 128, 129, 255, 256, 1 << 20, (1 << 20) + 12345, u64::MAX / 3] {
            let (lo, w) = Histogram::bounds(Histogram::bucket(v));
            assert!(lo <= v && v - lo < w, "{v}: [{lo}, +{w})");
        }
    }

    #[test]
    fn merge_and_clear() {
        // Two halves merged are the whole; a cleared histogram is an empty one.
        let (mut a, mut b, mut all) = (Histogram::default(), Histogram::default(), Histogram::default());
        for v in [5u64, 900, 70_000] {
            a.record(v);
            all.record(v);
        }
        for v in [3u64, 1 << 30] {
            b.record(v);
            all.record(v);
        }
        a.merge(&b);
        assert_eq!((a.count(), a.max(), a.quantile(0.5), a.mean()), (all.count(), all.max(), all.quantile(0.5), all.mean()));
        assert_eq!(a.counts, all.counts);
        a.clear();
        assert_eq!((a.count(), a.mean(), a.max()), (0, None, None));
        assert!(a.counts.iter().all(|&c| c == 0));
    }
}
