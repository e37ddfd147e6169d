//! Statistics of a trace (`fcsim trace info`): one streaming pass.

use super::TraceReader;
use crate::error::Result;
use crate::request::{HostRequest, KeyUnit, Op, PageSplitter};
use rustc_hash::{FxHashMap, FxHashSet};

/// Counts of one volume.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VolumeStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
}

/// What `fcsim trace info` reports.
#[derive(Debug, Clone, Default)]
pub struct TraceInfo {
    pub format: String,
    pub page_size: u32,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub page_accesses: u64,
    pub read_pages: u64,
    pub write_pages: u64,
    /// Distinct page keys touched (the working-set size in pages).
    pub unique_pages: u64,
    pub bytes: u64,
    pub time_first_ns: u64,
    pub time_last_ns: u64,
    pub time_min_ns: u64,
    pub time_max_ns: u64,
    /// Requests whose time is earlier than the previous request's.
    pub out_of_order: u64,
    /// Request-size histogram: (upper bound in bytes, a power of two; count).
    pub size_histogram: Vec<(u64, u64)>,
    /// Per-volume counts, by volume id.
    pub volumes: Vec<(u32, VolumeStats)>,
    pub bad_lines: u64,
    pub object_keys: bool,
    /// Whether the trace carries arrival times ([`super::TraceReader::timed`]); without them the
    /// time fields count requests.
    pub timed: bool,
}

impl TraceInfo {
    /// Time span: max minus min timestamp, in ns.
    pub fn span_ns(&self) -> u64 {
        self.time_max_ns - self.time_min_ns
    }
}

/// Accumulates [`TraceInfo`] one request at a time.
#[derive(Debug)]
pub struct InfoBuilder {
    info: TraceInfo,
    splitter: PageSplitter,
    pages: FxHashSet<u64>,
    sizes: FxHashMap<u64, u64>,
    volumes: FxHashMap<u32, VolumeStats>,
}

impl InfoBuilder {
    pub fn new(format: &str, page_size: u32, unit: KeyUnit) -> Self {
        let info = TraceInfo {
            format: format.to_string(),
            page_size,
            time_min_ns: u64::MAX,
            object_keys: unit == KeyUnit::Object,
            ..TraceInfo::default()
        };
        InfoBuilder {
            info,
            splitter: PageSplitter::new(page_size, unit),
            pages: FxHashSet::default(),
            sizes: FxHashMap::default(),
            volumes: FxHashMap::default(),
        }
    }

    pub fn add(&mut self, r: &HostRequest) {
        let i = &mut self.info;
        if i.requests == 0 {
            i.time_first_ns = r.time_ns;
        } else if r.time_ns < i.time_last_ns {
            i.out_of_order += 1;
        }
        i.requests += 1;
        i.time_last_ns = r.time_ns;
        i.time_min_ns = i.time_min_ns.min(r.time_ns);
        i.time_max_ns = i.time_max_ns.max(r.time_ns);
        i.bytes += u64::from(r.len);
        let (first, n) = self.splitter.pages(r);
        i.page_accesses += n;
        let v = self.volumes.entry(r.volume).or_default();
        v.requests += 1;
        match r.op {
            Op::Read => {
                i.reads += 1;
                i.read_pages += n;
                v.reads += 1;
            }
            Op::Write => {
                i.writes += 1;
                i.write_pages += n;
                v.writes += 1;
            }
            Op::Trim => i.trims += 1,
        }
        for k in first..first + n {
            self.pages.insert(k);
        }
        *self.sizes.entry(u64::from(r.len).next_power_of_two()).or_default() += 1;
    }

    /// The statistics, for a reader that skipped `bad_lines` and whose requests are `timed`.
    pub fn finish(mut self, bad_lines: u64, timed: bool) -> TraceInfo {
        self.info.timed = timed;
        if self.info.requests == 0 {
            self.info.time_min_ns = 0;
        }
        self.info.unique_pages = self.pages.len() as u64;
        self.info.bad_lines = bad_lines;
        let mut sizes: Vec<_> = self.sizes.into_iter().collect();
        sizes.sort_unstable();
        self.info.size_histogram = sizes;
        let mut vols: Vec<_> = self.volumes.into_iter().collect();
        vols.sort_unstable_by_key(|v| v.0);
        self.info.volumes = vols;
        self.info
    }
}

/// Reads a whole trace and returns its statistics.
pub fn trace_info(reader: &mut dyn TraceReader, page_size: u32) -> Result<TraceInfo> {
    let mut b = InfoBuilder::new(reader.format(), page_size, reader.key_unit());
    while let Some(r) = reader.next_request()? {
        b.add(&r);
    }
    Ok(b.finish(reader.bad_lines(), reader.timed()))
}
