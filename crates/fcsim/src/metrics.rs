//! The result row of a run (column names are part of fcsim's interface; see
//! DESIGN.md). A column that does not apply to the run is null.

use crate::histogram::Histogram;
use crate::load::Summary;
use crate::offline::Bounds;
use crate::sim::{Epoch, Every, Excluded, IoMisses};
use crate::stack::budget::BudgetLog;
use crate::stack::{CostModel, Counters, SplitLog, SsdCacheStats};

/// A value of a result row cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(u64),
    Float(f64),
    Str(String),
    /// Per-chip values (busy time of each chip).
    List(Vec<f64>),
}

/// What the device did during the measured run.
#[derive(Debug, Clone, Default)]
pub struct DeviceRow {
    pub preset: String,
    /// The drive's state when the run started ([`crate::device::DeviceConfig::state`]).
    pub state: String,
    /// The device's parameters, reported as `device_<name>`.
    pub params: Vec<(String, String)>,
    pub host_page_reads: u64,
    pub host_page_writes: u64,
    pub gc_page_copies: u64,
    pub erasures: u64,
    pub blocks: u64,
    /// The simulated drive's physical and user pages and its actual spare over user capacity
    /// ([`crate::device::DeviceConfig::op_actual`]).
    pub physical_pages: u64,
    pub user_pages: u64,
    pub op_actual: f64,
    /// The chips' load: work, sojourns, the busiest chip's peak offered load.
    pub load: Summary,
    pub wear_min: u64,
    pub wear_max: u64,
    /// Busy time of each chip, ns.
    pub chip_busy_ns: Vec<u64>,
    /// The load balance rate × 1000 of each epoch with enough work, weighted by its work
    /// (`device::timing::Epochs`), and the number of such epochs.
    pub balance_rates: Histogram,
    pub balance_epochs: u64,
    /// Response time of each host request, ns.
    pub response: Histogram,
    /// Time from the first request's arrival to the last one's, ns.
    pub duration_ns: u64,
    /// From the last arrival to the latest completion of arrival work on any device, ns: the
    /// queue means are over `duration_ns + drain_ns`, the time the devices held arrival work.
    pub drain_ns: u64,
    /// Dirty pages the end-of-run flush wrote back, and the time from the last arrival to the
    /// completion of its last op on any device, ns (0 without a flush).
    pub flush_pages: u64,
    pub flush_ns: u64,
    /// Wall time spent building and preconditioning the device (not in `sim_seconds`).
    pub setup_seconds: f64,
    /// The flash cache over a disk, when the device is a cache's medium.
    pub ssd: Option<SsdRow>,
}

/// A flash cache over a disk: its traffic, its disk, and the DRAM tier in front of it.
#[derive(Debug, Clone, Default)]
pub struct SsdRow {
    pub write_mode: &'static str,
    pub stats: SsdCacheStats,
    /// The disk preset (`flat`, `7200`, `15k`) and the number of disks (per volume: the
    /// volumes seen).
    pub disk: &'static str,
    pub disks: u64,
    /// Pages read from and written to the disks.
    pub disk_reads: u64,
    pub disk_writes: u64,
    /// The disks' combined load (accesses, busy time, sojourns, peak offered load per window).
    pub disk_load: Summary,
    /// The peak disk-head time over windows of `stack.dt_window_s` ([`crate::device::Disk::dt_peak`]).
    pub dt_peak: f64,
    pub dram_pages: u64,
    /// Counters of the DRAM tier (all zero without one).
    pub dram: Counters,
    /// The stack's parameters, reported as `stack_<name>`.
    pub stack_params: Vec<(String, String)>,
    /// The flash cache's admission policy (`all`: none), and its parameters, reported as
    /// `admit_<name>`.
    pub admission: &'static str,
    pub admit_params: Vec<(String, String)>,
    /// The SSD split between cache and spare, when it is.
    pub split: Option<SplitRow>,
    /// What the write-budget controller did, when there is one.
    pub budget: Option<BudgetLog>,
}

/// A split SSD write cache (`stack.split`).
#[derive(Debug, Clone)]
pub struct SplitRow {
    /// The spare share, or `dynamic`.
    pub mode: String,
    pub physical_pages: u64,
    /// The cache's size at the end of the run.
    pub cache_pages: u64,
    pub model: CostModel,
    /// What the dynamic controller did.
    pub log: Option<SplitLog>,
}

fn ratio(a: u64, b: u64) -> Value {
    if b == 0 {
        Value::Null
    } else {
        Value::Float(a as f64 / b as f64)
    }
}

/// What the run's arrival times, and so its response times, rest on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    /// The trace's times (inter-arrival gaps scaled by `time_scale`).
    Trace,
    /// A closed loop of `queue_depth` outstanding requests.
    ClosedLoop,
    /// Neither: the trace has no times (its requests are stamped with their index or 0), so
    /// the columns in [`UNTIMED_NULL`] are null.
    UntimedTrace,
}

impl Timing {
    pub fn of(trace_timed: bool, queue_depth: u32) -> Timing {
        match (queue_depth, trace_timed) {
            (1.., _) => Timing::ClosedLoop,
            (0, true) => Timing::Trace,
            (0, false) => Timing::UntimedTrace,
        }
    }

    /// The `timing` column.
    pub fn name(self) -> &'static str {
        match self {
            Timing::Trace => "trace",
            Timing::ClosedLoop => "closed-loop",
            Timing::UntimedTrace => "untimed-trace",
        }
    }
}

/// Columns that rest on arrival times (response times, rates per day of trace time, per-epoch
/// loads, the span): null when the run has no arrival times ([`Timing::UntimedTrace`]).
pub const UNTIMED_NULL: &[&str] = &[
    "epbpd",
    "flash_util_peak_1s",
    "flash_util_peak_60s",
    "flash_queue_mean",
    "flash_queueing_ratio",
    "saturated",
    "mostly_queueing",
    "drain_s",
    "flush_s",
    "throughput_iops",
    "throughput_mb_s",
    "resp_mean_us",
    "resp_std_us",
    "resp_p50_us",
    "resp_p99_us",
    "resp_p999_us",
    "resp_max_us",
    "load_balance_p50",
    "load_balance_p90",
    "load_balance_epochs",
    "duration_s",
    "split_resp_mean_us",
    "disk_util_peak_1s",
    "disk_util_peak_60s",
    "disk_queue_mean",
    "disk_queueing_ratio",
    "warmup_s",
    "flash_write_mb_s",
    "nand_write_mb_s",
    "dwpd",
    "nand_dwpd",
    "peak_dt",
];

/// Columns of the per-epoch table that rest on arrival times: null when the run has none.
pub const EPOCH_UNTIMED_NULL: &[&str] = &[
    "start_s",
    "end_s",
    "resp_mean_us",
    "resp_p99_us",
    "flash_queue_mean",
    "disk_queue_mean",
    "drain_s",
    "flash_offered_load",
    "disk_offered_load",
    "flash_util_peak_1s",
    "disk_util_peak_1s",
];

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
    /// An offline-bounds run (`m`, `m+`, `c`, ...): its flash cache instead of a device.
    pub bounds: Option<BoundsRow>,
    pub timing: Timing,
    /// What a warm-up (`sim.warmup`) left out, if there was one.
    pub warmup: Option<Excluded>,
    /// The per-epoch table's epoch length, if asked for, and its epochs.
    pub epoch: Option<Every>,
    pub epochs: Vec<Epoch>,
    /// Requests and bytes the stack missed (None: an offline bound, which counts pages only).
    pub misses: Option<IoMisses>,
}

/// An offline-bounds run: what the algorithm did, and the flash's and stack's parameters.
#[derive(Debug, Clone)]
pub struct BoundsRow {
    pub bounds: Bounds,
    /// The device preset the flash was built from.
    pub preset: String,
    pub device_params: Vec<(String, String)>,
    pub stack_params: Vec<(String, String)>,
    /// The simulated flash's physical and user pages.
    pub physical_pages: u64,
    pub user_pages: u64,
}

/// The shortest trace span over which an offline bound's EPBPD is given (1 h): erasures per
/// block *per day* extrapolate the trace to a day, and over a shorter span (tencent's sample
/// spans 1 s at 1 s resolution, which gave 10^5-10^7) that rate is mostly the extrapolation.
/// The same floor as the `span` requirement of `python/fcsim/reports/testable.py`. Shorter,
/// the row's `epbpd` is null and `epbpd_null_reason` says why.
pub const EPBPD_MIN_SPAN_NS: u64 = 3_600_000_000_000;

/// Why an offline bound's EPBPD over `duration_ns` is null, if it is.
pub fn epbpd_null_reason(duration_ns: u64) -> Option<String> {
    if duration_ns == 0 {
        Some("the trace has no timestamps".into())
    } else if duration_ns < EPBPD_MIN_SPAN_NS {
        Some(format!("the trace spans {:.0} s, under the 1 h needed for a rate per day", duration_ns as f64 / 1e9))
    } else {
        None
    }
}

/// The WFUE weights reported (offline-bounds Fig. 9).
pub const WFUE_ALPHAS: [(f64, &str); 2] = [(0.2, "wfue_0.2"), (0.8, "wfue_0.8")];

impl BoundsRow {
    /// The device columns (§3.1's metrics): flash traffic, erasures, EPBPD over the trace's
    /// duration (null without timestamps or over a span under [`EPBPD_MIN_SPAN_NS`]), FUE
    /// (read hits on flash per flash write: a write-buffer hit is served from RAM, not flash);
    /// no timing (the bounds model none).
    fn device_columns(&self) -> Vec<(&'static str, Value)> {
        let b = &self.bounds;
        let f = &b.flash;
        let writes = f.host_writes + f.cf_writes;
        let days = b.duration_ns as f64 / 86_400e9;
        let mut v = vec![
            ("flash_page_reads", Value::Int(f.read_hits + f.cf_writes)),
            ("flash_page_writes", Value::Int(writes)),
            ("gc_page_writes", Value::Int(f.cf_writes)),
            ("erasures", Value::Int(f.erasures)),
            ("write_amplification", ratio(writes, f.host_writes)),
            (
                "epbpd",
                if epbpd_null_reason(b.duration_ns).is_none() {
                    Value::Float(f.erasures as f64 / f64::from(b.shape.containers) / days)
                } else {
                    Value::Null
                },
            ),
            ("fue", ratio(f.read_hits, writes)),
        ];
        v.extend(DEVICE_COLUMNS[7..].iter().map(|n| (*n, Value::Null)));
        v
    }

    /// The columns after the documented ones.
    fn extra_columns(&self) -> Vec<(String, Value)> {
        let b = &self.bounds;
        let f = &b.flash;
        let rhr = (b.reads > 0).then(|| b.read_hits() as f64 / b.reads as f64);
        let r = &b.reference;
        let ref_rhr = (b.reads > 0).then(|| r.read_hits as f64 / b.reads as f64);
        let mut v: Vec<(String, Value)> = vec![
            ("stack".into(), Value::Str("offline-bounds".into())),
            ("duration_s".into(), Value::Float(b.duration_ns as f64 / 1e9)),
            ("epbpd_null_reason".into(), epbpd_null_reason(b.duration_ns).map_or(Value::Null, Value::Str)),
            ("device_physical_pages".into(), Value::Int(self.physical_pages)),
            ("device_user_pages".into(), Value::Int(self.user_pages)),
            ("device_op_actual".into(), Value::Float(self.physical_pages as f64 / self.user_pages as f64 - 1.0)),
            ("dram_pages".into(), Value::Int(b.dram.pages)),
            ("dram_read_hits".into(), Value::Int(b.dram.read_hits)),
            ("flash_read_hits".into(), Value::Int(f.read_hits)),
            ("buffer_hits".into(), Value::Int(f.buffer_hits)),
            ("host_page_writes".into(), Value::Int(f.host_writes)),
            ("container_pages".into(), Value::Int(u64::from(b.shape.container_pages))),
            ("containers".into(), Value::Int(u64::from(b.shape.containers))),
            ("write_buffer".into(), Value::Int(u64::from(b.shape.write_buffer))),
            ("skipped_insertions".into(), Value::Int(b.skipped)),
            ("mplus_read_hit_ratio".into(), opt_f(ref_rhr)),
            ("mplus_erasures".into(), Value::Int(r.erasures)),
        ];
        for (alpha, name) in WFUE_ALPHAS {
            // WFUE = α·RHR_A/RHR_M+ + (1−α)·(E_M+ − E_A)/E_M+ (§3.1).
            let w = rhr
                .zip(ref_rhr.filter(|x| *x > 0.0))
                .filter(|_| r.erasures > 0)
                .map(|(a, m)| alpha * a / m + (1.0 - alpha) * (r.erasures as f64 - f.erasures as f64) / r.erasures as f64);
            v.push((name.into(), opt_f(w)));
        }
        if let Some(q) = &b.queue {
            v.push(("queue_hits".into(), Value::Int(q.queue_hits)));
            v.push(("versions".into(), Value::Int(q.versions)));
        }
        if let Some(c) = &b.containers {
            v.push(("wasted_cf".into(), Value::Int(c.wasted_cf)));
            v.push(("cf_dropped".into(), Value::Int(c.cf_dropped)));
            v.push(("cf_trimmed".into(), Value::Int(c.cf_trimmed)));
            v.push(("evict_pending".into(), Value::Int(c.evict_pending)));
        }
        if let Some(q) = &b.quota {
            v.push(("quota_erasures".into(), Value::Float(q.budget)));
            v.push(("quota_unthrottled_erasures".into(), Value::Int(q.unthrottled)));
            v.push(("quota_reuse".into(), Value::Int(u64::from(q.threshold.reuse))));
            v.push(("quota_leftover".into(), Value::Int(q.threshold.leftover)));
            v.push(("quota_allowed".into(), Value::Int(q.threshold.allowed)));
            v.push(("quota_replays".into(), Value::Int(u64::from(q.replays))));
        }
        for (k, val) in &self.device_params {
            v.push((format!("device_{k}"), Value::Str(val.clone())));
        }
        for (k, val) in &self.stack_params {
            v.push((format!("stack_{k}"), Value::Str(val.clone())));
        }
        v
    }
}

/// The `saturated` column of a row with a device. At the trace's times (an open loop), whether
/// some server (a flash chip, a disk) was offered more work in some second than it can do in a
/// second ([`DeviceRow::saturated`]), so that a queue, and the response, grew with the run; the
/// end-of-run flush is not offered work. Bursts shorter than a second are the
/// `mostly_queueing` column's ([`DeviceRow::mostly_queueing`], in open and closed loops alike).
///
/// A closed loop (`sim.queue_depth` = N) is saturated by construction, so the column is true,
/// not null: the papers' closed-loop runs (the dynamic paper's §V; LCR's tencent at QD 8 and 32,
/// an fcsim variant) give no think time, and fcsim's loop (`Arrivals::Closed` in sim.rs) issues
/// the next request the instant one completes. So N requests are in the system (the cache and
/// the devices behind it) at every instant of the run, it is never idle, and the host offers
/// exactly what the system completes: its throughput at concurrency N, its capacity there. The
/// papers name no saturation measure; this is fcsim's choice. Unlike an open loop's, the
/// response does not grow with the run: by Little's law it is N over the throughput, and no
/// request waits behind more than N − 1 others (and the GC and flushes they cause); the load
/// columns (`flash_util_peak_1s`, `flash_queue_mean`, the disk's) say how the work was spread
/// over the servers. Null without arrival times ([`Timing::UntimedTrace`]).
fn saturated(timing: Timing, d: &DeviceRow) -> Value {
    match timing {
        Timing::Trace => Value::Bool(d.saturated()),
        Timing::ClosedLoop => Value::Bool(true),
        Timing::UntimedTrace => Value::Null,
    }
}

fn opt_f(v: Option<f64>) -> Value {
    v.map_or(Value::Null, Value::Float)
}

fn us(v: Option<f64>) -> Value {
    opt_f(v.map(|ns| ns / 1000.0))
}

/// Why a row's DWPD (and flash write rates and EPBPD) are null, if they are: a run without the
/// trace's own times (no timestamps, or a closed loop's simulated ones), or a span of no length.
pub fn dwpd_null_reason(timing: Timing, duration_ns: u64) -> Option<String> {
    match timing {
        Timing::UntimedTrace => Some("the trace has no timestamps, so there is no time to rate the writes by".into()),
        Timing::ClosedLoop => Some("a closed loop (sim.queue_depth) runs at the simulated system's pace, not the trace's times".into()),
        Timing::Trace if duration_ns == 0 => Some("the trace's requests all arrive at one time (a span of 0 s)".into()),
        Timing::Trace => None,
    }
}

impl DeviceRow {
    /// The flash write rates of a row with a device: host writes to the flash (a flash cache's
    /// programs, `cache_writes`) and NAND writes (host writes and GC copies, after the device's
    /// write amplification), in MB (10^6 B) per second of trace time (`duration_s`, first to
    /// last arrival) and in drive writes per day (pages written / the drive's user pages / days
    /// of trace time), as (`flash_write_mb_s`, `nand_write_mb_s`, `dwpd`, `nand_dwpd`); nulls
    /// with the reason ([`dwpd_null_reason`]) when the run has no trace time.
    fn write_rates(&self, timing: Timing, page_size: u32) -> ([Value; 4], Value) {
        if let Some(why) = dwpd_null_reason(timing, self.duration_ns) {
            return ([Value::Null, Value::Null, Value::Null, Value::Null], Value::Str(why));
        }
        let (host, nand) = (self.host_page_writes as f64, (self.host_page_writes + self.gc_page_copies) as f64);
        let (s, days) = (self.duration_ns as f64 / 1e9, self.duration_ns as f64 / 86_400e9);
        let mb_s = |pages: f64| Value::Float(pages * f64::from(page_size) / 1e6 / s);
        let dwpd = |pages: f64| if self.user_pages > 0 { Value::Float(pages / self.user_pages as f64 / days) } else { Value::Null };
        ([mb_s(host), mb_s(nand), dwpd(host), dwpd(nand)], Value::Null)
    }

    /// Whether more work arrived at one of the devices' servers (a flash chip, a disk) in some
    /// second than it can do in a second ([`crate::load`]).
    pub fn saturated(&self) -> bool {
        self.load.saturated() || self.ssd.as_ref().is_some_and(|s| s.disk_load.saturated())
    }

    /// Whether the ops of one of the devices (the flash, the disks) waited behind earlier
    /// requests' work longer than they were served ([`crate::load`], "Saturation and queueing").
    pub fn mostly_queueing(&self) -> bool {
        self.load.mostly_queueing() || self.ssd.as_ref().is_some_and(|s| s.disk_load.mostly_queueing())
    }

    /// Device columns in the documented order, then the wear and per-chip extras. EPBPD is a
    /// rate per day of the trace's time, null where the DWPD is ([`dwpd_null_reason`]): under a
    /// closed loop the days would be the simulated system's, at its own pace.
    fn columns(&self, timing: Timing) -> Vec<(&'static str, Value)> {
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
                if dwpd_null_reason(timing, self.duration_ns).is_none() && self.blocks > 0 {
                    Value::Float(self.erasures as f64 / self.blocks as f64 / days)
                } else {
                    Value::Null
                },
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

impl SplitRow {
    /// The split's columns: the drive and cache sizes, the GC victims' measured utilisation U,
    /// eq. 5's latency for the run's own miss ratio and U (null without GC), and for a dynamic
    /// run each stretch's spare share, training flag, predicted latency and mean response.
    fn columns(&self, c: &Counters, d: &DeviceRow) -> Vec<(&'static str, Value)> {
        let u = (d.erasures > 0).then(|| d.gc_page_copies as f64 / (d.erasures as f64 * self.model.pages_per_block));
        let mr = (c.accesses > 0).then(|| 1.0 - c.hits as f64 / c.accesses as f64);
        let model = u.zip(mr).map(|(u, mr)| self.model.latency(mr, u));
        let mut v = vec![
            ("split", Value::Str(self.mode.clone())),
            ("ssd_physical_pages", Value::Int(self.physical_pages)),
            ("cache_pages", Value::Int(self.cache_pages)),
            ("gc_victim_utilisation", opt_f(u)),
            ("model_latency_us", us(model)),
        ];
        if let Some(log) = &self.log {
            let each = |f: &dyn Fn(&crate::stack::split::Stretch) -> f64| Value::List(log.stretches.iter().map(f).collect());
            v.extend([
                ("split_resizes", Value::Int(log.resizes)),
                ("split_trainings", Value::Int(log.trainings)),
                ("split_u", Value::List(log.u.clone())),
                ("split_spares", each(&|s| s.spare)),
                ("split_training", each(&|s| f64::from(u8::from(s.training)))),
                ("split_predicted_us", each(&|s| s.predicted_ns / 1000.0)),
                ("split_resp_mean_us", each(&|s| s.resp_mean_ns / 1000.0)),
                ("split_decisions", Value::Int(log.decisions)),
                ("split_stretch_requests", each(&|s| s.requests)),
                ("split_stretch_u", each(&|s| s.u)),
                ("split_reached", each(&|s| s.reached)),
                ("split_pick_paper", each(&|s| s.pick_paper)),
                ("split_pick_request", each(&|s| s.pick_request)),
                ("split_train_requests", Value::Int(log.cost.requests)),
                ("split_train_host_writes", Value::Int(log.cost.host_writes)),
                ("split_train_writebacks", Value::Int(log.cost.writebacks)),
                ("split_train_time_s", Value::Float(log.cost.time_ns as f64 / 1e9)),
            ]);
        }
        v
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
            (
                "device".into(),
                match (&self.device, &self.bounds) {
                    (Some(d), _) => Value::Str(d.preset.clone()),
                    (None, Some(b)) => Value::Str(b.preset.clone()),
                    (None, None) => Value::Null,
                },
            ),
            (
                "device_state".into(),
                match (&self.device, &self.bounds) {
                    (Some(d), _) => Value::Str(d.state.clone()),
                    // The bounds start from an empty flash cache (`device.fill`/`steady` refused).
                    (None, Some(_)) => Value::Str("fresh".into()),
                    (None, None) => Value::Null,
                },
            ),
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
        match (&self.device, &self.bounds) {
            (Some(d), _) => v.extend(d.columns(self.timing).into_iter().map(|(n, x)| (n.to_string(), x))),
            (None, Some(b)) => v.extend(b.device_columns().into_iter().map(|(n, x)| (n.to_string(), x))),
            (None, None) => v.extend(DEVICE_COLUMNS.iter().map(|n| (n.to_string(), Value::Null))),
        }
        v.push(("sim_seconds".into(), Value::Float(self.sim_seconds)));
        // The loop's speed: the warm-up's requests were simulated in `sim_seconds` too.
        let simulated = c.requests + self.warmup.map_or(0, |w| w.requests);
        let rps = if self.sim_seconds > 0.0 { Value::Float(simulated as f64 / self.sim_seconds) } else { Value::Null };
        // Named for the wall clock so it cannot be read as the simulated IOPS (`throughput_iops`).
        v.push(("requests_per_wall_s".into(), rps));
        v.push(("bad_lines".into(), Value::Int(self.bad_lines)));
        v.push(("read_hits_dirty".into(), Value::Int(c.read_hits_dirty)));
        v.push(("write_hits_dirty".into(), Value::Int(c.write_hits_dirty)));
        v.push(("dirty_eviction_share".into(), ratio(c.dirty_evictions, c.evictions)));
        v.push(("time_scale".into(), Value::Float(self.time_scale)));
        v.push(("queue_depth".into(), Value::Int(u64::from(self.queue_depth))));
        v.push(("timing".into(), Value::Str(self.timing.name().into())));
        let w = self.warmup.as_ref();
        v.push(("warmup".into(), w.map_or(Value::Null, |w| Value::Str(w.warmup.to_string()))));
        v.push(("warmup_requests".into(), w.map_or(Value::Null, |w| Value::Int(w.requests))));
        v.push(("warmup_s".into(), w.map_or(Value::Null, |w| Value::Float(w.ns as f64 / 1e9))));
        v.push(("epoch".into(), self.epoch.map_or(Value::Null, |e| Value::Str(e.to_string()))));
        let m = self.misses.as_ref();
        v.push(("io_miss_ratio".into(), m.map_or(Value::Null, |m| ratio(m.miss_requests, m.requests))));
        v.push(("byte_miss_ratio".into(), m.map_or(Value::Null, |m| ratio(m.miss_bytes, m.bytes))));
        for (k, val) in &self.params {
            v.push((format!("param_{k}"), Value::Str(val.clone())));
        }
        if let Some(b) = &self.bounds {
            v.extend(b.extra_columns());
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
            v.push(("load_balance_epochs".into(), Value::Int(d.balance_epochs)));
            v.push(("chip_busy_s".into(), Value::List(d.chip_busy_ns.iter().map(|&b| b as f64 / 1e9).collect())));
            v.push(("device_setup_s".into(), Value::Float(d.setup_seconds)));
            v.push(("duration_s".into(), Value::Float(d.duration_ns as f64 / 1e9)));
            v.push(("device_physical_pages".into(), Value::Int(d.physical_pages)));
            v.push(("device_user_pages".into(), Value::Int(d.user_pages)));
            v.push(("device_op_actual".into(), Value::Float(d.op_actual)));
            v.push(("flash_util_peak_1s".into(), Value::Float(d.load.peak[0])));
            v.push(("flash_util_peak_60s".into(), Value::Float(d.load.peak[1])));
            v.push(("flash_queue_mean".into(), opt_f(d.load.mean_in_system(d.duration_ns + d.drain_ns))));
            v.push(("flash_queueing_ratio".into(), opt_f(d.load.queueing_ratio())));
            v.push(("saturated".into(), saturated(self.timing, d)));
            v.push((
                "mostly_queueing".into(),
                if self.timing == Timing::UntimedTrace { Value::Null } else { Value::Bool(d.mostly_queueing()) },
            ));
            v.push(("drain_s".into(), Value::Float(d.drain_ns as f64 / 1e9)));
            // What the host got: measured requests (and their page bytes) over the simulated
            // span from the first arrival to the last completion of arrival work.
            let span_s = (d.duration_ns + d.drain_ns) as f64 / 1e9;
            let per_s = |x: f64| if span_s > 0.0 { Value::Float(x / span_s) } else { Value::Null };
            v.push(("throughput_iops".into(), per_s(c.requests as f64)));
            v.push(("throughput_mb_s".into(), per_s(c.accesses as f64 * f64::from(self.page_size) / 1e6)));
            let ([host_mb_s, nand_mb_s, dwpd, nand_dwpd], why) = d.write_rates(self.timing, self.page_size);
            v.push(("flash_write_mb_s".into(), host_mb_s));
            v.push(("nand_write_mb_s".into(), nand_mb_s));
            v.push(("dwpd".into(), dwpd));
            v.push(("nand_dwpd".into(), nand_dwpd));
            v.push(("dwpd_null_reason".into(), why));
            v.push(("flush_pages".into(), Value::Int(d.flush_pages)));
            v.push(("flush_s".into(), Value::Float(d.flush_ns as f64 / 1e9)));
            for (k, val) in &d.params {
                v.push((format!("device_{k}"), Value::Str(val.clone())));
            }
            if let Some(s) = &d.ssd {
                v.push(("stack".into(), Value::Str("ssd-cache".into())));
                v.push(("write_mode".into(), Value::Str(s.write_mode.into())));
                v.push(("admission".into(), Value::Str(s.admission.into())));
                v.push(("cache_writes".into(), Value::Int(s.stats.cache_writes)));
                v.push(("read_hit_flash_reads".into(), Value::Int(s.stats.read_hit_reads)));
                v.push(("invalidations".into(), Value::Int(c.invalidations)));
                let l = &s.disk_load;
                v.push(("disk".into(), Value::Str(s.disk.into())));
                v.push(("disks".into(), Value::Int(s.disks)));
                v.push(("disk_reads".into(), Value::Int(s.disk_reads)));
                v.push(("disk_writes".into(), Value::Int(s.disk_writes)));
                v.push(("disk_accesses".into(), Value::Int(l.ops)));
                v.push(("disk_busy_s".into(), Value::Float(l.busy_ns as f64 / 1e9)));
                v.push(("disk_util_peak_1s".into(), Value::Float(l.peak[0])));
                v.push(("disk_util_peak_60s".into(), Value::Float(l.peak[1])));
                v.push(("disk_queue_mean".into(), opt_f(l.mean_in_system(d.duration_ns + d.drain_ns))));
                v.push(("disk_queueing_ratio".into(), opt_f(l.queueing_ratio())));
                // Disk-head time (positioning + transfer) per access of arrival work, and its
                // peak per window of `stack.dt_window_s` over the window (crate::device::disk).
                let arrival_ops = l.ops - l.flush.ops;
                v.push(("dt_mean_ms".into(), opt_f((arrival_ops > 0).then(|| l.arrival_busy_ns() as f64 / arrival_ops as f64 / 1e6))));
                v.push(("peak_dt".into(), Value::Float(s.dt_peak)));
                v.push(("dram_pages".into(), Value::Int(s.dram_pages)));
                v.push(("dram_accesses".into(), Value::Int(s.dram.accesses)));
                v.push(("dram_hits".into(), Value::Int(s.dram.hits)));
                v.push(("dram_read_hits".into(), Value::Int(s.dram.read_hits)));
                for (k, val) in &s.stack_params {
                    v.push((format!("stack_{k}"), Value::Str(val.clone())));
                }
                for (k, val) in &s.admit_params {
                    v.push((format!("admit_{k}"), Value::Str(val.clone())));
                }
                if let Some(b) = &s.budget {
                    // Writes no admission can decline: write hits update the cached copy in a
                    // write-through or write-back cache (a write-around cache takes no write).
                    let floor = if s.write_mode == "around" { Some(0.0) } else { b.dwpd(c.write_hits) };
                    v.push(("budget_dwpd".into(), Value::Float(b.target_dwpd)));
                    v.push(("achieved_dwpd".into(), opt_f(b.achieved_dwpd())));
                    v.push(("peak_window_dwpd".into(), opt_f(b.peak_dwpd)));
                    v.push(("budget_floor_dwpd".into(), opt_f(floor)));
                    let why = b.unmeetable(floor);
                    v.push(("budget_unmeetable".into(), Value::Bool(why.is_some())));
                    v.push(("budget_unmeetable_reason".into(), why.map_or(Value::Null, Value::Str)));
                    v.push(("budget_windows".into(), Value::Int(b.windows)));
                    v.push(("budget_knob".into(), Value::Float(b.knob)));
                }
                if let Some(sp) = &s.split {
                    v.extend(sp.columns(c, d).into_iter().map(|(n, x)| (n.to_string(), x)));
                }
            }
        }
        if self.timing == Timing::UntimedTrace {
            for (name, x) in &mut v {
                if UNTIMED_NULL.contains(&name.as_str()) {
                    *x = Value::Null;
                }
            }
        }
        v
    }
}

/// The mean number of ops in a device over an epoch of `span_ns` and the `drain_ns` after it
/// in which its arrival work completed (Little's law), and its mean server's offered load (the
/// arrival work submitted over the epoch's length; the end-of-run flush is not offered), from
/// a load over the epoch.
fn queue_and_load(l: Option<Summary>, span_ns: u64, drain_ns: u64) -> (Value, Value) {
    match l {
        Some(l) if span_ns > 0 => (
            opt_f(l.mean_in_system(span_ns + drain_ns)),
            Value::Float(l.arrival_busy_ns() as f64 / (span_ns as f64 * l.servers.max(1) as f64)),
        ),
        _ => (Value::Null, Value::Null),
    }
}

impl ResultRow {
    /// The per-epoch table (`--epoch`) as rows of (column, value) pairs, each led by the run's
    /// identifying columns (trace, policy, size_pages, device, time_scale, queue_depth) so that
    /// several runs' tables concatenate. Empty without epochs.
    pub fn epoch_columns(&self) -> Vec<Vec<(String, Value)>> {
        let device = match (&self.device, &self.bounds) {
            (Some(d), _) => Value::Str(d.preset.clone()),
            _ => Value::Null,
        };
        self.epochs
            .iter()
            .map(|e| {
                let c = &e.counters;
                let span = e.end_ns - e.start_ns;
                let f = e.flash;
                let int = |x: Option<u64>| x.map_or(Value::Null, Value::Int);
                let (flash_queue, flash_load) = queue_and_load(e.loads.flash, span, e.drain_ns);
                let (disk_queue, disk_load) = queue_and_load(e.loads.disk, span, e.drain_ns);
                let mut v: Vec<(String, Value)> = vec![
                    ("trace".into(), Value::Str(self.trace.clone())),
                    ("policy".into(), Value::Str(self.policy.clone())),
                    ("size_pages".into(), Value::Int(self.size_pages)),
                    ("device".into(), device.clone()),
                    ("time_scale".into(), Value::Float(self.time_scale)),
                    ("queue_depth".into(), Value::Int(u64::from(self.queue_depth))),
                    ("epoch".into(), Value::Int(e.index)),
                    ("start_s".into(), Value::Float(e.start_ns as f64 / 1e9)),
                    ("end_s".into(), Value::Float(e.end_ns as f64 / 1e9)),
                    ("requests".into(), Value::Int(e.requests)),
                    ("accesses".into(), Value::Int(c.accesses)),
                    ("reads".into(), Value::Int(c.reads)),
                    ("writes".into(), Value::Int(c.writes)),
                    ("hits".into(), Value::Int(c.hits)),
                    ("read_hits".into(), Value::Int(c.read_hits)),
                    ("write_hits".into(), Value::Int(c.write_hits)),
                    ("misses".into(), Value::Int(c.accesses - c.hits)),
                    ("hit_ratio".into(), ratio(c.hits, c.accesses)),
                    ("read_hit_ratio".into(), ratio(c.read_hits, c.reads)),
                    ("dirty_evictions".into(), Value::Int(c.dirty_evictions)),
                    ("backing_reads".into(), Value::Int(c.backing_reads)),
                    ("backing_writes".into(), Value::Int(c.backing_writes)),
                    ("host_page_reads".into(), int(f.map(|f| f.host_reads))),
                    ("host_page_writes".into(), int(f.map(|f| f.host_writes))),
                    ("flash_page_writes".into(), int(f.map(|f| f.host_writes + f.gc_copies))),
                    ("gc_page_writes".into(), int(f.map(|f| f.gc_copies))),
                    ("erasures".into(), int(f.map(|f| f.erasures))),
                    ("resp_mean_us".into(), us(e.resp_mean_ns)),
                    ("resp_p99_us".into(), us(e.resp_p99_ns)),
                    ("flash_queue_mean".into(), flash_queue),
                    ("disk_queue_mean".into(), disk_queue),
                    ("drain_s".into(), Value::Float(e.drain_ns as f64 / 1e9)),
                    ("flash_busy_s".into(), e.loads.flash.map_or(Value::Null, |l| Value::Float(l.busy_ns as f64 / 1e9))),
                    ("disk_busy_s".into(), e.loads.disk.map_or(Value::Null, |l| Value::Float(l.busy_ns as f64 / 1e9))),
                    ("flash_offered_load".into(), flash_load),
                    ("disk_offered_load".into(), disk_load),
                    // The busiest server's busiest second of the epoch (a second open across the
                    // epoch's end counts in both): above 1, the epoch saw a saturated server.
                    ("flash_util_peak_1s".into(), e.loads.flash.map_or(Value::Null, |l| Value::Float(l.epoch_peak[0]))),
                    ("disk_util_peak_1s".into(), e.loads.disk.map_or(Value::Null, |l| Value::Float(l.epoch_peak[0]))),
                ];
                if self.timing == Timing::UntimedTrace {
                    for (name, x) in &mut v {
                        if EPOCH_UNTIMED_NULL.contains(&name.as_str()) {
                            *x = Value::Null;
                        }
                    }
                }
                v
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_queue_and_offered_load() {
        // Two servers over a 2 s epoch: 3 s of sojourns is 1.5 ops in the system on average
        // (Little's law); 1 s of work submitted is a quarter of what the two could do.
        let l = Summary { servers: 2, ops: 10, busy_ns: 1_000_000_000, sojourn_ns: 3_000_000_000, ..Summary::default() };
        assert_eq!(queue_and_load(Some(l), 2_000_000_000, 0), (Value::Float(1.5), Value::Float(0.25)));
        // Ops that completed 1 s after the epoch's end: the queue is over 3 s; the offered
        // load is still over the epoch's 2 s, less the 0.5 s of it that was the end-of-run flush.
        let f = Summary { flush: crate::load::Flush { ops: 2, busy_ns: 500_000_000, end: 0 }, ..l };
        assert_eq!(queue_and_load(Some(f), 2_000_000_000, 1_000_000_000), (Value::Float(1.0), Value::Float(0.125)));
        // No load reported, or an epoch of no length: null.
        assert_eq!(queue_and_load(None, 2_000_000_000, 0), (Value::Null, Value::Null));
        assert_eq!(queue_and_load(Some(l), 0, 0), (Value::Null, Value::Null));
    }
}
