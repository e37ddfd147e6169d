//! The trace statistics of a fidelity report (`fcsim trace compare`, issue 26): one streaming
//! pass that measures what a clone of a trace must reproduce — its LRU miss-ratio curve (exact
//! stack distances), request sizes and read/write shares, sequential runs, and the burstiness
//! of its arrivals at several time scales. The LRU write-back measures (dirty evictions, read
//! hits on dirty pages) need cache sizes known only after this pass; `crate::fidelity` runs
//! them and compares two traces.
//!
//! Memory is that of the stack-distance structure (O(working set)) plus one entry per volume;
//! nothing grows with the number of requests: arrival counts per time bin are kept as running
//! sums (the count of the open bin, the sum and the sum of squares of the closed ones) per bin
//! width, never as a list of timestamps.
//!
//! Definitions (every one is also in the README's `trace compare` section):
//!
//! - **Arrival times** are taken as the running maximum of the request times (a request stamped
//!   earlier than one before it arrives with it), so that gaps are never negative and bins are
//!   filled in order; [`super::info::TraceInfo::out_of_order`] counts such requests. The time
//!   resolution is the gcd of the non-zero differences between consecutive recorded times.
//! - **Fano factor at width w**: the time from the first request is cut into bins
//!   `[k·w, (k+1)·w)`; the bin holding the last request is partial and left out, so the bins are
//!   the K = ⌊span / w⌋ whole ones (empty ones included). Fano = population variance / mean of
//!   the K counts. Not applicable with fewer than [`MIN_BINS`] whole bins, or when the trace's
//!   timestamps are coarser than w, or, for a clone whose arrivals repeat its original's time
//!   shape pass after pass ([`super::TraceReader::repeats_ns`]; a paper profile longer than its
//!   donor), with fewer than [`MIN_BINS`] bins in one pass: at such a width every bin holds
//!   about one pass's count, so the variance is the repetition's, not the original's (a profile
//!   whose pass lasts 1 s has a Fano factor near 0 at 1 s, whatever its donor's).
//! - **Inter-arrival CV**: population standard deviation / mean of the requests − 1 gaps; not
//!   applicable when the timestamps are coarser than the mean gap.
//! - **Sequential**: a request is sequential when its offset is where the previous request of
//!   the same volume (any op) ended (offset + length). The first request of a volume is not.
//!   Shares are over reads, writes, and both; trims are not counted but do end where they end.

use super::{Progress, TraceReader};
use crate::error::Result;
use crate::mrc::{Mrc, StackDistances};
use crate::request::{HostRequest, KeyUnit, Op, PageSplitter};
use rustc_hash::FxHashMap;

/// Bin widths of the Fano factors, in ns, with their labels.
pub const FANO_WIDTHS: [(u64, &str); 3] = [(10_000_000, "10ms"), (1_000_000_000, "1s"), (60_000_000_000, "60s")];

/// Whole bins a Fano factor needs: with fewer, its variance is too rough to mean anything.
pub const MIN_BINS: u64 = 10;

/// A measure of a trace: a number, or why it has none ("untimed", "no writes", ...).
pub type Measure = std::result::Result<f64, String>;

/// Arrival counts per bin of one width, as running sums.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bins {
    pub width_ns: u64,
    /// Index of the open bin and its count.
    current: u64,
    count: u64,
    /// Closed (whole) bins, the sum of their counts and of their squared counts.
    pub closed: u64,
    pub sum: u64,
    pub sum_sq: u128,
}

impl Bins {
    pub fn new(width_ns: u64) -> Self {
        Bins { width_ns, ..Bins::default() }
    }

    /// Counts a request arriving `since` ns after the first one (never less than the last's).
    #[inline]
    pub fn add(&mut self, since: u64) {
        let k = since / self.width_ns;
        if k > self.current {
            self.sum += self.count;
            self.sum_sq += u128::from(self.count) * u128::from(self.count);
            // The open bin, then the empty ones up to k.
            self.closed += k - self.current;
            self.current = k;
            self.count = 0;
        }
        self.count += 1;
    }

    /// Variance / mean of the whole bins' counts; `resolution_ns` is the trace's time
    /// resolution (0: unknown, every gap was 0).
    pub fn fano(&self, resolution_ns: u64) -> Measure {
        if resolution_ns > self.width_ns {
            return Err(format!("timestamps resolve {} only", duration(resolution_ns)));
        }
        if self.closed < MIN_BINS {
            return Err(format!("span < {MIN_BINS} bins"));
        }
        let (k, s) = (u128::from(self.closed), u128::from(self.sum));
        // var / mean = (k·Σc² − (Σc)²) / (k·Σc); Σc > 0 (the first bin holds the first request).
        let num = (k * self.sum_sq).saturating_sub(s * s);
        Ok(num as f64 / (k * s) as f64)
    }
}

/// `ns` as a short duration: "1 s", "10 ms", "100 ns".
pub fn duration(ns: u64) -> String {
    match ns {
        n if n >= 1_000_000_000 && n % 1_000_000_000 == 0 => format!("{} s", n / 1_000_000_000),
        n if n >= 1_000_000_000 => format!("{:.3} s", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.3} ms", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.3} us", n as f64 / 1e3),
        n => format!("{n} ns"),
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn share(part: u64, whole: u64, none: &str) -> Measure {
    if whole == 0 {
        return Err(none.to_string());
    }
    Ok(part as f64 / whole as f64)
}

/// What one pass measures of a trace.
#[derive(Debug, Clone, Default)]
pub struct TraceStats {
    pub format: String,
    pub page_size: u32,
    pub timed: bool,
    pub object_keys: bool,
    pub requests: u64,
    /// Reads, writes and trims: requests, bytes, pages, sequential requests (by op index).
    pub ops: [u64; 3],
    pub bytes: [u64; 3],
    pub pages: [u64; 3],
    pub sequential: [u64; 3],
    pub first_ns: u64,
    /// Arrival of the last request (the running maximum of the times).
    pub last_ns: u64,
    /// The earliest time in the trace (the latest is `last_ns`).
    pub min_ns: u64,
    /// The time resolution: gcd of the non-zero differences between consecutive request times
    /// as recorded (0 when there are none).
    pub resolution_ns: u64,
    /// The time of the request before, as recorded.
    prev_ns: u64,
    /// Gaps between arrivals: count, mean and sum of squared deviations (Welford).
    pub gaps: u64,
    pub gap_mean: f64,
    pub gap_m2: f64,
    pub bins: [Bins; 3],
    /// The length of a pass of a clone whose arrivals repeat (ns; [`super::TraceReader::repeats_ns`]).
    pub repeats_ns: Option<u64>,
    /// The exact LRU curve of the read and write page accesses (trims skipped, as
    /// [`crate::mrc`] does).
    pub mrc: Mrc,
    /// Distinct pages read or written (the working set of the curve).
    pub working_set: u64,
    pub bad_lines: u64,
}

impl TraceStats {
    const UNTIMED: &'static str = "untimed";

    /// Latest time − earliest (as `fcsim trace info` reports it).
    pub fn span_ns(&self) -> Measure {
        self.time()?;
        Ok((self.last_ns - self.min_ns) as f64)
    }

    fn time(&self) -> std::result::Result<(), String> {
        match self.timed {
            true => Ok(()),
            false => Err(Self::UNTIMED.into()),
        }
    }

    /// Mean request size in bytes of op `op` (0 read, 1 write).
    pub fn mean_size(&self, op: usize) -> Measure {
        if self.object_keys {
            return Err("object ids".into());
        }
        share(self.bytes[op], self.ops[op], ["no reads", "no writes"][op])
    }

    /// Writes over reads and writes, in requests.
    pub fn write_share_requests(&self) -> Measure {
        share(self.ops[1], self.ops[0] + self.ops[1], "no reads or writes")
    }

    /// Written pages over read and written pages (page accesses).
    pub fn write_share_pages(&self) -> Measure {
        share(self.pages[1], self.pages[0] + self.pages[1], "no reads or writes")
    }

    /// Sequential share of op `op` (0 read, 1 write), or of both with `None`.
    pub fn sequential_share(&self, op: Option<usize>) -> Measure {
        if self.object_keys {
            return Err("object ids".into());
        }
        match op {
            Some(o) => share(self.sequential[o], self.ops[o], ["no reads", "no writes"][o]),
            None => share(self.sequential[0] + self.sequential[1], self.ops[0] + self.ops[1], "no reads or writes"),
        }
    }

    /// Fano factor of the arrival counts in bins of `FANO_WIDTHS[i]`.
    pub fn fano(&self, i: usize) -> Measure {
        self.time()?;
        if let Some(pass) = self.repeats_ns.filter(|&p| self.bins[i].width_ns.saturating_mul(MIN_BINS) > p) {
            return Err(format!("arrivals repeat every {}: fewer than {MIN_BINS} bins a pass", duration(pass)));
        }
        self.bins[i].fano(self.resolution_ns)
    }

    /// Coefficient of variation of the inter-arrival times.
    pub fn interarrival_cv(&self) -> Measure {
        self.time()?;
        if self.gaps == 0 {
            return Err("one request".into());
        }
        if self.resolution_ns as f64 > self.gap_mean {
            return Err(format!("timestamps resolve {} only", duration(self.resolution_ns)));
        }
        if self.gap_mean <= 0.0 {
            return Err("all arrivals at one time".into());
        }
        Ok((self.gap_m2 / self.gaps as f64).sqrt() / self.gap_mean)
    }

    /// Cache size in pages at `share` of the working set: rounded half away from zero, as a
    /// percent `--size` is, and at least one page.
    pub fn pages_at(&self, share: f64) -> u64 {
        ((self.working_set as f64 * share).round() as u64).max(1)
    }

    /// LRU miss ratio at `share` of the working set.
    pub fn miss_ratio_at(&self, share: f64) -> Measure {
        if self.mrc.accesses == 0 {
            return Err("no reads or writes".into());
        }
        Ok(self.mrc.miss_ratio(self.pages_at(share)))
    }
}

/// Accumulates [`TraceStats`] one request at a time.
#[derive(Debug)]
pub struct StatsBuilder {
    stats: TraceStats,
    splitter: PageSplitter,
    sd: StackDistances,
    /// Where each volume's last request ended.
    ends: FxHashMap<u32, u64>,
}

impl StatsBuilder {
    pub fn new(format: &str, page_size: u32, unit: KeyUnit) -> Self {
        let stats = TraceStats {
            format: format.to_string(),
            page_size,
            object_keys: unit == KeyUnit::Object,
            bins: FANO_WIDTHS.map(|(w, _)| Bins::new(w)),
            ..TraceStats::default()
        };
        StatsBuilder { stats, splitter: PageSplitter::new(page_size, unit), sd: StackDistances::new(), ends: FxHashMap::default() }
    }

    /// Counts `r`, the request `reader` returned last; `Err` when the page splitter refuses it
    /// or the stack-distance structure cannot grow.
    pub fn add(&mut self, r: &HostRequest, reader: &dyn TraceReader) -> Result<()> {
        let (first, n) = self.splitter.pages(r).map_err(|m| reader.error_at_last(m.to_string()))?;
        let s = &mut self.stats;
        let op = r.op as usize;
        // Arrivals, at the running maximum of the times.
        s.min_ns = s.min_ns.min(r.time_ns);
        if s.requests == 0 {
            s.first_ns = r.time_ns;
            s.last_ns = r.time_ns;
            s.min_ns = r.time_ns;
        } else {
            let t = r.time_ns.max(s.last_ns);
            let gap = t - s.last_ns;
            s.last_ns = t;
            let step = r.time_ns.abs_diff(s.prev_ns);
            if step > 0 && s.resolution_ns != 1 {
                s.resolution_ns = gcd(s.resolution_ns, step);
            }
            s.gaps += 1;
            let delta = gap as f64 - s.gap_mean;
            s.gap_mean += delta / s.gaps as f64;
            s.gap_m2 += delta * (gap as f64 - s.gap_mean);
        }
        let since = s.last_ns - s.first_ns;
        for b in &mut s.bins {
            b.add(since);
        }
        s.prev_ns = r.time_ns;
        s.requests += 1;
        s.ops[op] += 1;
        s.bytes[op] += u64::from(r.len);
        s.pages[op] += n;
        // Sequential runs, per volume; the map grows only with a new volume.
        let end = r.offset.saturating_add(u64::from(r.len));
        match self.ends.get_mut(&r.volume) {
            Some(e) => {
                s.sequential[op] += u64::from(*e == r.offset);
                *e = end;
            }
            None => {
                crate::mem::reserve_map(&mut self.ends, "the table of the trace's volumes")?;
                self.ends.insert(r.volume, end);
            }
        }
        if r.op != Op::Trim {
            for k in first..first + n {
                self.sd.access(k)?;
            }
        }
        Ok(())
    }

    pub fn finish(mut self, bad_lines: u64, timed: bool) -> TraceStats {
        self.stats.timed = timed;
        self.stats.bad_lines = bad_lines;
        self.stats.working_set = self.sd.pages() as u64;
        self.stats.mrc = self.sd.finish();
        self.stats
    }
}

/// Reads a whole trace and returns its statistics.
pub fn trace_stats(reader: &mut dyn TraceReader, page_size: u32, mut progress: Option<Progress<'_>>) -> Result<TraceStats> {
    let mut b = StatsBuilder::new(reader.format(), page_size, reader.key_unit());
    let mut n = 0u64;
    while let Some(r) = reader.next_request()? {
        b.add(&r, reader)?;
        n += 1;
        super::report(n, reader, &mut progress)?;
    }
    let mut stats = b.finish(reader.bad_lines(), reader.timed());
    stats.repeats_ns = reader.repeats_ns();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{open_bytes, TraceOptions};
    use std::sync::Arc;

    /// The statistics of a DiskSim trace given as lines `time_ms volume sector sectors op`
    /// (op 1 read, 0 write).
    fn stats(lines: &str) -> TraceStats {
        let opts = TraceOptions { format: Some("disksim".into()), ..TraceOptions::default() };
        let mut r = open_bytes("t.disksim", Arc::from(lines.as_bytes()), &opts).unwrap();
        trace_stats(r.as_mut(), 4096, None).unwrap()
    }

    #[test]
    fn fano_of_a_constructed_arrival_pattern() {
        // Counts 1, 3, 0, 0, 4, 2, 2, 0, 3, 5 in ten 1 s bins, then one request in an 11th,
        // partial bin (left out). Mean 2, population variance (1+1+4+4+4+0+0+4+1+9)/10 = 2.8,
        // Fano 1.4.
        let counts = [1u64, 3, 0, 0, 4, 2, 2, 0, 3, 5];
        let mut b = Bins::new(1_000_000_000);
        for (k, &c) in counts.iter().enumerate() {
            for j in 0..c {
                b.add(k as u64 * 1_000_000_000 + j * 1000);
            }
        }
        b.add(10_500_000_000);
        assert_eq!((b.closed, b.sum, b.sum_sq), (10, 20, 68));
        assert!((b.fano(1).unwrap() - 1.4).abs() < 1e-12);
        // Evenly spaced arrivals: every bin holds the same count, variance 0.
        let mut even = Bins::new(10);
        (0..100).for_each(|i| even.add(i * 5));
        assert_eq!(even.fano(5).unwrap(), 0.0);
        // Nine whole bins are too few; timestamps coarser than the bins mean nothing.
        let mut short = Bins::new(10);
        (0..91).for_each(|i| short.add(i));
        assert_eq!(short.fano(1).unwrap_err(), "span < 10 bins");
        assert_eq!(b.fano(2_000_000_000).unwrap_err(), "timestamps resolve 2 s only");
    }

    #[test]
    fn sequential_share_sizes_and_gaps_of_a_tiny_trace() {
        // DiskSim: time (ms), device, sector (512 B), sectors, 1 = read / 0 = write.
        let s = stats(
            "0 0 0 8 1\n\
             1 0 8 8 1\n\
             3 1 100 16 0\n\
             3 0 16 8 0\n\
             7 1 116 8 1\n\
             8 0 0 8 0\n",
        );
        // Volume 0: [0,8) read, [8,16) read (sequential), [16,24) write (sequential),
        // [0,8) write (not). Volume 1: [100,116) write (first), [116,124) read (sequential).
        assert_eq!((s.ops, s.sequential), ([3, 3, 0], [2, 1, 0]));
        assert_eq!(s.sequential_share(Some(0)).unwrap(), 2.0 / 3.0);
        assert_eq!(s.sequential_share(Some(1)).unwrap(), 1.0 / 3.0);
        assert_eq!(s.sequential_share(None).unwrap(), 0.5);
        // Reads of 4, 4, 4 KiB; writes of 8, 4, 4 KiB.
        assert_eq!(s.mean_size(0).unwrap(), 4096.0);
        assert_eq!(s.mean_size(1).unwrap(), 16384.0 / 3.0);
        assert_eq!(s.write_share_requests().unwrap(), 0.5);
        // Pages (8 sectors each): reads 1 + 1 + 2 (sectors 116..124 straddle pages 14 and 15),
        // writes 3 (sectors 100..116 touch pages 12 to 14) + 1 + 1.
        assert_eq!(s.pages, [4, 5, 0]);
        // Gaps 1, 2, 0, 4, 1 ms: mean 1.6 ms, population variance 1.84 ms², resolution 1 ms.
        assert_eq!(s.resolution_ns, 1_000_000);
        let cv = s.interarrival_cv().unwrap();
        assert!((cv - 1.84f64.sqrt() / 1.6).abs() < 1e-9, "{cv}");
        assert_eq!(s.span_ns().unwrap(), 8e6);
        // 8 ms span: under ten bins at every width.
        assert!(s.fano(0).is_err());
    }

    #[test]
    fn an_out_of_order_request_arrives_with_the_one_before_it() {
        // Times 5, 3, 9 ms: arrivals 5, 5, 9 (gaps 0 and 4 ms); the span is 9 − 3 = 6 ms; the
        // recorded times step by 2 and 6 ms, so they resolve 2 ms.
        let s = stats("5 0 0 8 1\n3 0 8 8 1\n9 0 16 8 1\n");
        assert_eq!((s.gaps, s.gap_mean, s.resolution_ns), (2, 2e6, 2_000_000));
        assert_eq!(s.span_ns().unwrap(), 6e6);
        // All at one time: no gap to take a CV of.
        let s = stats("7 0 0 8 1\n7 0 8 8 1\n");
        assert_eq!(s.interarrival_cv().unwrap_err(), "all arrivals at one time");
    }

    #[test]
    fn a_profile_repeating_its_donor_has_no_fano_factor_at_a_pass_or_above() {
        // lcr-ts_0 borrows its arrivals from a 1,000-request excerpt of msr hm_0, stretched to
        // 1,000 requests/s (its default rate): one pass of about a second. 20,000 requests (of a
        // profile of 20,000 pages: scale 0.2) run about 20 passes; at 10 ms a pass holds about
        // 100 bins, at 1 s about one.
        let mut r = crate::trace::open("synth:profile=lcr-ts_0,scale=0.2,requests=20000", &TraceOptions::default()).unwrap();
        let pass = r.repeats_ns().expect("a timed clone repeats its donor's shape");
        assert!((0.5e9..2e9).contains(&(pass as f64)), "a pass of {pass} ns");
        let s = trace_stats(r.as_mut(), 4096, None).unwrap();
        assert!(s.fano(0).unwrap() > 0.0);
        let why = s.fano(1).unwrap_err();
        assert!(why.starts_with("arrivals repeat every ") && why.ends_with("fewer than 10 bins a pass"), "{why}");
        // A real trace does not repeat: its 1 s Fano factor is measured where it has the bins.
        assert_eq!(stats("0 0 0 8 1\n").repeats_ns, None);
    }

    #[test]
    fn curve_and_working_set_follow_the_page_accesses() {
        // Pages 0, 1, 0, 0: stack distances cold, cold, 2, 1. Working set 2 pages, so 50% is
        // one page, where only the distance-1 access hits (3 misses of 4); at 100%, two pages,
        // both re-accesses hit (2 of 4).
        let s = stats("0 0 0 8 1\n1 0 8 8 0\n2 0 0 8 1\n3 0 0 8 0\n");
        assert_eq!(s.working_set, 2);
        assert_eq!(s.pages_at(0.5), 1);
        assert_eq!(s.miss_ratio_at(0.5).unwrap(), 0.75);
        assert_eq!(s.miss_ratio_at(1.0).unwrap(), 0.5);
    }

    #[test]
    fn poisson_arrivals_have_fano_and_cv_near_one_and_a_scan_is_sequential() {
        // 200,000 Poisson arrivals at 2,000/s: 100 s, 100 whole 1 s bins of mean 2,000. The
        // sample Fano factor of Poisson counts is 1 with standard error sqrt(2/99) = 0.14.
        let mut r = crate::trace::open("synth:scan,requests=200000,pages=1000000,iops=2000", &TraceOptions::default()).unwrap();
        let s = trace_stats(r.as_mut(), 4096, None).unwrap();
        assert_eq!(s.bins[1].closed, 99, "span just under 100 s");
        for i in 0..2 {
            let f = s.fano(i).unwrap();
            assert!((0.6..1.4).contains(&f), "fano {i}: {f}");
        }
        let cv = s.interarrival_cv().unwrap();
        assert!((0.98..1.02).contains(&cv), "{cv}");
        // A scan of one-page requests: every request but the first starts where the last ended.
        assert_eq!(s.sequential[0], 199_999);
    }

    #[test]
    fn an_untimed_trace_has_no_time_measures() {
        let s = TraceStats { requests: 3, ops: [3, 0, 0], ..TraceStats::default() };
        assert_eq!(s.span_ns().unwrap_err(), "untimed");
        assert_eq!(s.fano(1).unwrap_err(), "untimed");
        assert_eq!(s.interarrival_cv().unwrap_err(), "untimed");
        assert_eq!(s.mean_size(1).unwrap_err(), "no writes");
    }
}
