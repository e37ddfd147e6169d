//! Counters of a run and the result row (column names are part of fcsim's interface; see
//! DESIGN.md). A column that does not apply to the run is null.

/// A value of a result row cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(u64),
    Float(f64),
    Str(String),
    /// Per-chip values (busy time of each chip).
    List(Vec<f64>),
}

/// Counters of one cache tier, in page accesses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub requests: u64,
    /// Read and write page accesses (trims are not accesses).
    pub accesses: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub hits: u64,
    pub read_hits: u64,
    pub write_hits: u64,
    /// Hits on a page that was dirty (the rest hit clean pages; GASA Fig. 11).
    pub read_hits_dirty: u64,
    pub write_hits_dirty: u64,
    pub insertions: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
    /// Pages read from the backing store (read misses).
    pub backing_reads: u64,
    /// Pages written to the backing store: dirty evictions, writes not admitted, and the dirty
    /// pages flushed at the end.
    pub backing_writes: u64,
    /// Dirty pages flushed at the end of the run (included in `backing_writes`).
    pub flushed: u64,
    /// Cached pages invalidated by write-around writes.
    pub invalidations: u64,
}

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
        self.counts[Self::bucket(v)] += 1;
        self.n += 1;
        let f = v as f64;
        self.sum += f;
        self.sum_sq += f * f;
        self.max = self.max.max(v);
    }

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

/// What the device did during the measured run.
#[derive(Debug, Clone, Default)]
pub struct DeviceRow {
    pub preset: String,
    /// The device's parameters, reported as `device_<name>`.
    pub params: Vec<(String, String)>,
    pub host_page_reads: u64,
    pub host_page_writes: u64,
    pub gc_page_copies: u64,
    pub erasures: u64,
    pub blocks: u64,
    pub wear_min: u64,
    pub wear_max: u64,
    /// Busy time of each chip, ns.
    pub chip_busy_ns: Vec<u64>,
    /// The load balance rate × 1000 of each epoch with any chip work (`timing::Epochs`).
    pub balance_rates: Histogram,
    /// Response time of each host request, ns.
    pub response: Histogram,
    /// Time from the first request's arrival to the last one's, ns.
    pub duration_ns: u64,
    /// Wall time spent building and preconditioning the device (not in `sim_seconds`).
    pub setup_seconds: f64,
    /// The flash cache over a disk, when the device is a cache's medium.
    pub ssd: Option<SsdRow>,
}

/// A flash cache over a disk: its traffic, its disk, and the DRAM tier in front of it.
#[derive(Debug, Clone, Default)]
pub struct SsdRow {
    pub write_mode: &'static str,
    pub stats: crate::device::SsdCacheStats,
    pub disk_reads: u64,
    pub disk_writes: u64,
    pub disk_busy_ns: u64,
    pub dram_pages: u64,
    /// Counters of the DRAM tier (all zero without one).
    pub dram: Counters,
    /// The stack's parameters, reported as `stack_<name>`.
    pub stack_params: Vec<(String, String)>,
}

fn ratio(a: u64, b: u64) -> Value {
    if b == 0 {
        Value::Null
    } else {
        Value::Float(a as f64 / b as f64)
    }
}

/// One result row.
#[derive(Debug, Clone)]
pub struct ResultRow {
    pub trace: String,
    pub format: String,
    pub policy: String,
    pub size_pages: u64,
    pub page_size: u32,
    pub counters: Counters,
    pub sim_seconds: f64,
    pub bad_lines: u64,
    /// The policy's parameters, reported as `param_<name>`.
    pub params: Vec<(String, String)>,
    pub device: Option<DeviceRow>,
    pub time_scale: f64,
    pub queue_depth: u32,
}

fn opt_f(v: Option<f64>) -> Value {
    v.map_or(Value::Null, Value::Float)
}

fn us(v: Option<f64>) -> Value {
    opt_f(v.map(|ns| ns / 1000.0))
}

impl DeviceRow {
    /// Device columns in the documented order, then the wear and per-chip extras.
    fn columns(&self) -> Vec<(&'static str, Value)> {
        let flash_writes = self.host_page_writes + self.gc_page_copies;
        let days = self.duration_ns as f64 / 86_400e9;
        let busy: Vec<f64> = self.chip_busy_ns.iter().map(|&b| b as f64 / 1e9).collect();
        let total: f64 = busy.iter().sum();
        let mean = total / busy.len().max(1) as f64;
        let max = busy.iter().copied().fold(0.0, f64::max);
        let r = &self.response;
        vec![
            ("flash_page_reads", Value::Int(self.host_page_reads + self.gc_page_copies)),
            ("flash_page_writes", Value::Int(flash_writes)),
            ("gc_page_writes", Value::Int(self.gc_page_copies)),
            ("erasures", Value::Int(self.erasures)),
            ("write_amplification", ratio(flash_writes, self.host_page_writes)),
            (
                "epbpd",
                if days > 0.0 && self.blocks > 0 { Value::Float(self.erasures as f64 / self.blocks as f64 / days) } else { Value::Null },
            ),
            ("fue", self.ssd.as_ref().map_or(Value::Null, |s| ratio(s.stats.read_hit_reads, flash_writes))),
            ("resp_mean_us", us(r.mean())),
            ("resp_std_us", us(r.std())),
            ("resp_p50_us", us(r.quantile(0.5))),
            ("resp_p99_us", us(r.quantile(0.99))),
            ("resp_p999_us", us(r.quantile(0.999))),
            ("resp_max_us", us(r.max().map(|m| m as f64))),
            ("runtime_s", Value::Float(total)),
            ("load_balance", if mean > 0.0 { Value::Float(max / mean) } else { Value::Null }),
        ]
    }
}

/// Device columns, null when the run has no device.
const DEVICE_COLUMNS: &[&str] = &[
    "flash_page_reads",
    "flash_page_writes",
    "gc_page_writes",
    "erasures",
    "write_amplification",
    "epbpd",
    "fue",
    "resp_mean_us",
    "resp_std_us",
    "resp_p50_us",
    "resp_p99_us",
    "resp_p999_us",
    "resp_max_us",
    "runtime_s",
    "load_balance",
];

impl ResultRow {
    /// The row as (column, value) pairs in the documented order.
    pub fn columns(&self) -> Vec<(String, Value)> {
        let c = &self.counters;
        let mut v: Vec<(String, Value)> = vec![
            ("trace".into(), Value::Str(self.trace.clone())),
            ("format".into(), Value::Str(self.format.clone())),
            ("policy".into(), Value::Str(self.policy.clone())),
            ("size_pages".into(), Value::Int(self.size_pages)),
            ("page_size".into(), Value::Int(u64::from(self.page_size))),
            ("device".into(), self.device.as_ref().map_or(Value::Null, |d| Value::Str(d.preset.clone()))),
            ("requests".into(), Value::Int(c.requests)),
            ("accesses".into(), Value::Int(c.accesses)),
            ("reads".into(), Value::Int(c.reads)),
            ("writes".into(), Value::Int(c.writes)),
            ("hits".into(), Value::Int(c.hits)),
            ("read_hits".into(), Value::Int(c.read_hits)),
            ("write_hits".into(), Value::Int(c.write_hits)),
            ("hit_ratio".into(), ratio(c.hits, c.accesses)),
            ("read_hit_ratio".into(), ratio(c.read_hits, c.reads)),
            ("insertions".into(), Value::Int(c.insertions)),
            ("evictions".into(), Value::Int(c.evictions)),
            ("dirty_evictions".into(), Value::Int(c.dirty_evictions)),
            ("backing_reads".into(), Value::Int(c.backing_reads)),
            ("backing_writes".into(), Value::Int(c.backing_writes)),
        ];
        match &self.device {
            Some(d) => v.extend(d.columns().into_iter().map(|(n, x)| (n.to_string(), x))),
            None => v.extend(DEVICE_COLUMNS.iter().map(|n| (n.to_string(), Value::Null))),
        }
        v.push(("sim_seconds".into(), Value::Float(self.sim_seconds)));
        let rps = if self.sim_seconds > 0.0 { Value::Float(c.requests as f64 / self.sim_seconds) } else { Value::Null };
        v.push(("requests_per_s".into(), rps));
        v.push(("bad_lines".into(), Value::Int(self.bad_lines)));
        v.push(("read_hits_dirty".into(), Value::Int(c.read_hits_dirty)));
        v.push(("write_hits_dirty".into(), Value::Int(c.write_hits_dirty)));
        v.push(("dirty_eviction_share".into(), ratio(c.dirty_evictions, c.evictions)));
        v.push(("time_scale".into(), Value::Float(self.time_scale)));
        v.push(("queue_depth".into(), Value::Int(u64::from(self.queue_depth))));
        for (k, val) in &self.params {
            v.push((format!("param_{k}"), Value::Str(val.clone())));
        }
        if let Some(d) = &self.device {
            v.push(("gc_page_reads".into(), Value::Int(d.gc_page_copies)));
            v.push(("host_page_writes".into(), Value::Int(d.host_page_writes)));
            v.push(("wear_min".into(), Value::Int(d.wear_min)));
            v.push(("wear_mean".into(), opt_f((d.blocks > 0).then(|| d.erasures as f64 / d.blocks as f64))));
            v.push(("wear_max".into(), Value::Int(d.wear_max)));
            for (name, q) in [("load_balance_p50", 0.5), ("load_balance_p90", 0.9)] {
                v.push((name.into(), opt_f(d.balance_rates.quantile(q).map(|r| r / 1000.0))));
            }
            v.push(("chip_busy_s".into(), Value::List(d.chip_busy_ns.iter().map(|&b| b as f64 / 1e9).collect())));
            v.push(("device_setup_s".into(), Value::Float(d.setup_seconds)));
            for (k, val) in &d.params {
                v.push((format!("device_{k}"), Value::Str(val.clone())));
            }
            if let Some(s) = &d.ssd {
                v.push(("stack".into(), Value::Str("ssd-cache".into())));
                v.push(("write_mode".into(), Value::Str(s.write_mode.into())));
                v.push(("cache_writes".into(), Value::Int(s.stats.cache_writes)));
                v.push(("read_hit_flash_reads".into(), Value::Int(s.stats.read_hit_reads)));
                v.push(("invalidations".into(), Value::Int(c.invalidations)));
                v.push(("disk_reads".into(), Value::Int(s.disk_reads)));
                v.push(("disk_writes".into(), Value::Int(s.disk_writes)));
                v.push(("disk_busy_s".into(), Value::Float(s.disk_busy_ns as f64 / 1e9)));
                v.push(("dram_pages".into(), Value::Int(s.dram_pages)));
                v.push(("dram_accesses".into(), Value::Int(s.dram.accesses)));
                v.push(("dram_hits".into(), Value::Int(s.dram.hits)));
                v.push(("dram_read_hits".into(), Value::Int(s.dram.read_hits)));
                for (k, val) in &s.stack_params {
                    v.push((format!("stack_{k}"), Value::Str(val.clone())));
                }
            }
        }
        v
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
}
