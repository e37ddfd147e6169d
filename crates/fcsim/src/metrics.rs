//! Counters of a run and the result row (column names are part of fcsim's interface; see
//! DESIGN.md). A column that does not apply to the run is null.

/// A value of a result row cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(u64),
    Float(f64),
    Str(String),
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
}

/// Columns of the device model, null until a device is configured.
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
            ("device".into(), Value::Null),
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
        v.extend(DEVICE_COLUMNS.iter().map(|n| (n.to_string(), Value::Null)));
        v.push(("sim_seconds".into(), Value::Float(self.sim_seconds)));
        let rps = if self.sim_seconds > 0.0 { Value::Float(c.requests as f64 / self.sim_seconds) } else { Value::Null };
        v.push(("requests_per_s".into(), rps));
        v.push(("bad_lines".into(), Value::Int(self.bad_lines)));
        for (k, val) in &self.params {
            v.push((format!("param_{k}"), Value::Str(val.clone())));
        }
        v
    }
}
