//! Statistics of a trace (`fcsim trace info`): one streaming pass.

use super::{Progress, TraceReader};
use crate::error::Result;
use crate::mem;
use crate::request::{HostRequest, KeyUnit, Op, PageSplitter};
use rustc_hash::{FxHashMap, FxHashSet};

/// Counts of one volume.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VolumeStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
}

/// Locality as the GASA paper states it (Table II, "p% of total number of unique pages are
/// accessed by a% of total number of accesses"): the hottest `pages` share of an op's unique
/// pages gets the `accesses` share of its page accesses, at the point where the two add up to
/// one (the smallest k of the pages sorted by count, hottest first, whose accesses reach
/// 1 − k/n). One number for any trace: 0.5/0.5 for uniform counts, 0.2/0.8 for the 80-20 rule.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Locality {
    pub pages: f64,
    pub accesses: f64,
}

impl Locality {
    /// From per-page access counts (zeros ignored); `None` when there are none.
    pub fn of(counts: impl Iterator<Item = u32>) -> Option<Locality> {
        let mut c: Vec<u64> = counts.filter(|&x| x > 0).map(u64::from).collect();
        if c.is_empty() {
            return None;
        }
        c.sort_unstable_by(|a, b| b.cmp(a));
        let (n, total) = (c.len() as u128, c.iter().sum::<u64>() as u128);
        let mut sum = 0u128;
        for (k, &x) in (1u128..).zip(&c) {
            sum += u128::from(x);
            // sum / total >= 1 - k / n, in integers
            if sum * n >= total * (n - k) {
                return Some(Locality { pages: k as f64 / n as f64, accesses: sum as f64 / total as f64 });
            }
        }
        unreachable!("the last page reaches every access")
    }
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
    /// Locality of the read and of the write page accesses (`None` without reads, writes).
    pub read_locality: Option<Locality>,
    pub write_locality: Option<Locality>,
    /// Read page accesses of a page accessed (read or written) before: the reads a cache could
    /// hit; and those of them that are their page's second access, which an admission that
    /// declines a page's first miss (second-hit) can never hit.
    pub read_rereads: u64,
    pub read_second_refs: u64,
    /// Pages read or written exactly once (trims not counted): what an admission filter can
    /// decline at no loss.
    pub once_pages: u64,
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
    /// Read and write accesses of every page touched (a trimmed page counts neither).
    pages: FxHashMap<u64, [u32; 2]>,
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
            pages: FxHashMap::default(),
            sizes: FxHashMap::default(),
            volumes: FxHashMap::default(),
        }
    }

    /// Counts `r`, the request `reader` returned last; `Err` when the page splitter refuses it
    /// (see [`PageSplitter::pages`]) or its pages do not fit in memory.
    pub fn add(&mut self, r: &HostRequest, reader: &dyn TraceReader) -> Result<()> {
        let (first, n) = self.splitter.pages(r).map_err(|m| reader.error_at_last(m.to_string()))?;
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
        i.page_accesses += n;
        let v = self.volumes.entry(r.volume).or_default();
        v.requests += 1;
        let slot = match r.op {
            Op::Read => Some(0),
            Op::Write => Some(1),
            Op::Trim => None,
        };
        for k in first..first + n {
            mem::reserve_map(&mut self.pages, "the table of the trace's pages")?;
            let c = self.pages.entry(k).or_default();
            if slot == Some(0) {
                let before = u64::from(c[0]) + u64::from(c[1]);
                i.read_rereads += u64::from(before >= 1);
                i.read_second_refs += u64::from(before == 1);
            }
            if let Some(s) = slot {
                c[s] = c[s].saturating_add(1);
            }
        }
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
        *self.sizes.entry(u64::from(r.len).next_power_of_two()).or_default() += 1;
        Ok(())
    }

    /// The statistics, for a reader that skipped `bad_lines` and whose requests are `timed`.
    pub fn finish(mut self, bad_lines: u64, timed: bool) -> TraceInfo {
        self.info.timed = timed;
        if self.info.requests == 0 {
            self.info.time_min_ns = 0;
        }
        self.info.unique_pages = self.pages.len() as u64;
        self.info.once_pages = self.pages.values().filter(|c| u64::from(c[0]) + u64::from(c[1]) == 1).count() as u64;
        self.info.read_locality = Locality::of(self.pages.values().map(|c| c[0]));
        self.info.write_locality = Locality::of(self.pages.values().map(|c| c[1]));
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
pub fn trace_info(reader: &mut dyn TraceReader, page_size: u32, mut progress: Option<Progress<'_>>) -> Result<TraceInfo> {
    let mut b = InfoBuilder::new(reader.format(), page_size, reader.key_unit());
    let mut n = 0u64;
    while let Some(r) = reader.next_request()? {
        b.add(&r, reader)?;
        n += 1;
        super::report(n, reader, &mut progress)?;
    }
    Ok(b.finish(reader.bad_lines(), reader.timed()))
}

/// The number of distinct pages `reader`'s requests touch (a trimmed page counts, as in
/// [`TraceInfo::unique_pages`]): one pass that keeps the set of pages alone, for a percent
/// size. A request the page splitter refuses fails here as in [`trace_info`].
pub fn unique_pages(reader: &mut dyn TraceReader, page_size: u32, mut progress: Option<Progress<'_>>) -> Result<u64> {
    let splitter = PageSplitter::new(page_size, reader.key_unit());
    let mut pages = FxHashSet::default();
    let mut n = 0u64;
    while let Some(r) = reader.next_request()? {
        let (first, k) = splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
        for p in first..first + k {
            mem::reserve_set(&mut pages, "the table of the trace's pages")?;
            pages.insert(p);
        }
        n += 1;
        super::report(n, reader, &mut progress)?;
    }
    Ok(pages.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locality_is_where_page_and_access_shares_add_to_one() {
        // 2 of 10 pages get 16 accesses each, 8 pages one each: 20% of the pages get 80%.
        let counts = [16, 16, 1, 1, 1, 1, 0, 1, 1, 1, 1];
        let l = Locality::of(counts.iter().copied()).unwrap();
        assert_eq!((l.pages, l.accesses), (0.2, 0.8));
        // Uniform counts: half the pages get half the accesses.
        let l = Locality::of([3; 8].into_iter()).unwrap();
        assert_eq!((l.pages, l.accesses), (0.5, 0.5));
        assert_eq!(Locality::of([0, 0].into_iter()), None);
    }

    #[test]
    fn rereads_second_references_and_pages_seen_once() {
        // Pages (one request each, 4 KiB): r1 w2 r2 r1 r1 r3. Reads of a page seen before: r2
        // (its 2nd access, after w2), r1 at 3 (its 2nd), r1 at 4 (its 3rd): 3, two of them
        // second references. Page 3 is seen once.
        let mut b = InfoBuilder::new("t", 4096, KeyUnit::Bytes);
        let reader = super::super::open("synth:uniform,requests=1,pages=1,iops=0", &super::super::TraceOptions::default()).unwrap();
        for (t, (op, page)) in
            [(Op::Read, 1u64), (Op::Write, 2), (Op::Read, 2), (Op::Read, 1), (Op::Read, 1), (Op::Read, 3)].into_iter().enumerate()
        {
            let r = HostRequest { time_ns: t as u64, offset: page * 4096, len: 4096, op, volume: 0 };
            b.add(&r, reader.as_ref()).unwrap();
        }
        let i = b.finish(0, true);
        assert_eq!((i.read_rereads, i.read_second_refs, i.once_pages, i.unique_pages), (3, 2, 1, 3));
    }

    #[test]
    fn the_count_only_pass_finds_the_working_set_trace_info_finds() {
        let opts = super::super::TraceOptions::default();
        for spec in ["synth:zipf,alpha=0.8,requests=3000,pages=900,seed=5,iops=0", "synth:uniform,requests=500,pages=4000,seed=2,iops=0"] {
            for page_size in [512, 4096, 65536] {
                let full = trace_info(super::super::open(spec, &opts).unwrap().as_mut(), page_size, None).unwrap().unique_pages;
                let count = unique_pages(super::super::open(spec, &opts).unwrap().as_mut(), page_size, None).unwrap();
                assert_eq!(count, full, "{spec} at {page_size} B");
            }
        }
    }
}
