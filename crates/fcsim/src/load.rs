//! The load on one server (a disk, a flash chip): the work it did, how many ops it held on
//! average, how long they waited behind other requests' work, and its busiest windows of
//! offered work, so that a response time is never read without the load it was measured under.
//!
//! **Offered load** in a window of simulated time is the service time of the ops that *arrive*
//! in it over the window's length. Busy time (work served) can never exceed 100% of a window;
//! offered load can: above 1, more work arrived in the window than the server can do in it, and
//! by its end a queue of at least (load − 1) × window had built up. So the peak offered load over
//! a window is the measure of saturation ([`Load::saturated`]: above 1 over some second; see
//! also "Saturation and queueing" below).
//!
//! **Saturation and queueing.** Two flags tell a reader whether a row's response times are
//! mostly queueing behind the load rather than service; each has its own column, because they
//! say different things about the run:
//!
//! 1. *Saturated* ([`Summary::saturated`], the row's `saturated`): a second's offered load above
//!    1 (above). More work arrived at some server in some second than it can do in a second, so
//!    a queue grew over that second, and with more such seconds, over the run.
//! 2. *Mostly queueing* ([`Summary::mostly_queueing`], the row's `mostly_queueing`), for bursts
//!    shorter than a second, which rule 1 averages with the quiet around them (85 requests in
//!    100 ms at one disk queue for hundreds of ms and leave the second at half a second's
//!    work). A shorter window only moves the blind spot to bursts shorter than it, and a window
//!    short enough for every burst is filled by one request's own pages (64 pages on 8 chips
//!    queue 8 deep on an idle drive). So the queue is measured instead. An op's time in the
//!    device is its service, its wait behind its own request's earlier ops, and its wait behind
//!    work submitted for *earlier requests* (`behind`, recorded by the server: the part of the
//!    wait before the server was free of what was queued when the op's request first reached
//!    it, see [`Load::record`]). Only the last is load: it is zero on an idle device whatever
//!    the request's size, and grows without bound as arrivals over any stretch, however short,
//!    approach the server's rate. Rule 2 holds when the device's ops of arrival work waited
//!    behind earlier requests longer than they were served, summed over its servers:
//!    Σ behind > Σ service ([`Summary::queueing_ratio`] > 1), i.e. more of an op's time in the
//!    device went to the load than to its own service: "mostly queueing", the warning's own
//!    words, with no constant fitted to a trace. For scale (not used by the rule): an open-loop
//!    FIFO server with Poisson arrivals and mean service S waits ρS/(1 − ρ) on average with
//!    exponential service and ρS/(2(1 − ρ)) with constant service, so rule 2 holds there from a
//!    utilisation of 1/2 and 2/3 respectively, below the capacity rule 1 is about. Requests that
//!    arrive at the same instant are still different requests (the loop starts a request at
//!    each [`crate::device::Backing::advance`]).
//!
//! A closed loop is saturated by construction and says so without these rules (see
//! `saturated` in `metrics.rs`).
//!
//! Windows are aligned to multiples of their length ([`WINDOWS_NS`]: 1 s and 60 s), not
//! sliding: a burst that straddles a boundary is split between two windows, so the peak can
//! understate a sliding window's by up to half. A window counts at its full length, also the
//! last, partial one, and one longer than the whole run: a 1 s run's 60 s peak is its work over
//! 60 s. An op counts in the window of its arrival, also when it is submitted ahead of the
//! loop's clock (a flash cache programs a page when its disk read completes, which behind a
//! queued disk can be minutes ahead): windows from the clock's on stay open, each later one in
//! a map, and a window is final once the clock has passed it ([`Load::advance`]). So the map
//! holds only the windows that work was submitted ahead into; an op for a window the clock has
//! passed (none: ops arrive at or after the clock) counts in the clock's.
//!
//! **Mean number in the system** (queued or in service) over a span is, by Little's law, the sum
//! of the ops' sojourn times (completion − arrival) over the span's length; the sum is kept
//! here, the span is the caller's. An op's sojourn counts when it is submitted. Each op's
//! sojourn lies between the first arrival and the latest completion ([`Load::last_end`]), so
//! over a span that covers both the mean is a time average of the number in the system and
//! never exceeds the ops counted; a span that ends at the last *arrival* (the old choice) can
//! be far shorter than the time the ops held the server (arrivals compressed by
//! `sim.time_scale`, a burst at the very end), and the quotient then counts each op many
//! times over.
//!
//! **The end-of-run flush** ([`Load::begin_flush`]) is not arrival work: the dirty pages a cache
//! holds when the trace ends are written back at the last arrival's time, all at once, by the
//! simulator and not by the workload (the GASA paper counts them as flash writes, and so does
//! fcsim, but no host offered them in that second). So from `begin_flush` on an op counts in
//! the work done (`ops`, `busy_ns`) and in [`Flush`], and not in the windows of offered load,
//! the sojourns or `last_end`: the flush can neither make a run look saturated nor lengthen its
//! queue.
//!
//! Recording an op in the clock's window is O(1) with no allocation; one submitted ahead is a map
//! update.

use std::collections::BTreeMap;

/// The windows of the peak offered load, ns: 1 s and 60 s.
pub const WINDOWS_NS: [u64; 2] = [1_000_000_000, 60_000_000_000];

/// One window length's running peak.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Window {
    /// Index of the clock's window (time / length).
    index: u64,
    /// Work that arrived in the clock's window, ns.
    work: u64,
    /// Work that arrives in later windows (submitted ahead of the clock), by window index.
    later: BTreeMap<u64, u64>,
    /// The most work that arrived in any finished window, ns.
    peak: u64,
    /// The most work that arrived in a window finished since the last [`Load::mark_epoch`], ns.
    epoch_peak: u64,
}

impl Window {
    /// The most work in a window still open: the clock's, or one that work was submitted ahead
    /// into.
    fn open_work(&self) -> u64 {
        self.work.max(self.later.values().copied().max().unwrap_or(0))
    }
}

/// The end-of-run flush's share of a server's work ([`Load::begin_flush`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flush {
    /// Ops served for the flush.
    pub ops: u64,
    /// Time spent serving them, ns.
    pub busy_ns: u64,
    /// The latest completion of one of them, ns (0: none).
    pub end: u64,
}

/// The load on one server since it was created or last [`Load::reset`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Load {
    /// Ops served, the flush's included.
    pub ops: u64,
    /// Time spent serving them, ns, the flush's included.
    pub busy_ns: u64,
    /// Sum of the sojourn times (completion − arrival) of the ops of arrival work (not the
    /// flush's), ns.
    pub sojourn_ns: u128,
    /// Sum of the waits of the ops of arrival work behind work submitted for earlier requests
    /// (the part of their queueing that is load, not their own request's other ops), ns.
    pub behind_ns: u128,
    /// The latest completion of an op of arrival work, ns (0: none).
    pub last_end: u64,
    /// The end-of-run flush's ops, once [`Load::begin_flush`] is called.
    pub flush: Flush,
    /// Whether [`Load::record`] counts ops as the flush's.
    flushing: bool,
    windows: [Window; WINDOWS_NS.len()],
    /// An arrival before this time falls in every window's clock window (the least of their
    /// ends; 0 until the first record or advance computes it): [`Load::record`]'s common case,
    /// with no division.
    open_until: u64,
}

impl Load {
    /// An op that arrived at `arrival` and held the server from `start` to `end`
    /// (`arrival <= start <= end`), `behind` ns of its wait behind work submitted for earlier
    /// requests (`behind <= start - arrival`; the server knows which work that is): arrival
    /// work, or the flush's once [`Load::begin_flush`] was called.
    #[inline]
    pub fn record(&mut self, arrival: u64, start: u64, end: u64, behind: u64) {
        // `open_until` is 0 while flushing, so the flush takes the cold path.
        if arrival < self.open_until {
            let work = self.count(arrival, start, end, behind);
            for w in &mut self.windows {
                w.work += work;
            }
        } else if self.flushing {
            self.record_flush(start, end);
        } else {
            self.record_arrival(arrival, start, end, behind);
        }
    }

    /// [`Load::record`] of arrival work off its common case: in each window, the clock's if the
    /// arrival falls there, else a later window's entry.
    #[cold]
    fn record_arrival(&mut self, arrival: u64, start: u64, end: u64, behind: u64) {
        let work = self.count(arrival, start, end, behind);
        for (w, len) in self.windows.iter_mut().zip(WINDOWS_NS) {
            let i = arrival / len;
            if i <= w.index {
                w.work += work;
            } else {
                *w.later.entry(i).or_insert(0) += work;
            }
        }
        self.set_open_until();
    }

    /// Counts an op of arrival work (ops, busy time, sojourn, wait behind earlier requests,
    /// latest completion); returns its work, for the caller's windows.
    #[inline]
    fn count(&mut self, arrival: u64, start: u64, end: u64, behind: u64) -> u64 {
        let work = end - start;
        self.ops += 1;
        self.busy_ns += work;
        self.sojourn_ns += u128::from(end - arrival);
        self.behind_ns += u128::from(behind);
        self.last_end = self.last_end.max(end);
        work
    }

    /// An op of the end-of-run flush that held the server from `start` to `end`: work done, not
    /// offered load, and no sojourn.
    #[cold]
    pub fn record_flush(&mut self, start: u64, end: u64) {
        self.ops += 1;
        self.busy_ns += end - start;
        self.flush.ops += 1;
        self.flush.busy_ns += end - start;
        self.flush.end = self.flush.end.max(end);
    }

    /// The end-of-run flush begins: every op [`Load::record`] sees from now on is the flush's.
    pub fn begin_flush(&mut self) {
        self.flushing = true;
        self.open_until = 0;
    }

    fn set_open_until(&mut self) {
        if self.flushing {
            return;
        }
        self.open_until = self.windows.iter().zip(WINDOWS_NS).map(|(w, len)| (w.index + 1).saturating_mul(len)).min().unwrap_or(0);
    }

    /// No op will arrive before `clock` any more: the windows before its are final.
    pub fn advance(&mut self, clock: u64) {
        for (w, len) in self.windows.iter_mut().zip(WINDOWS_NS) {
            let c = clock / len;
            if c <= w.index {
                continue;
            }
            w.epoch_peak = w.epoch_peak.max(w.work);
            while let Some(e) = w.later.first_entry() {
                if *e.key() >= c {
                    break;
                }
                w.epoch_peak = w.epoch_peak.max(e.remove());
            }
            w.peak = w.peak.max(w.epoch_peak);
            w.work = w.later.remove(&c).unwrap_or(0);
            w.index = c;
        }
        self.set_open_until();
    }

    /// The peak offered load over windows of `WINDOWS_NS[i]`: the most work that arrived in one
    /// window over its length (above 1: more than the server could do in it).
    pub fn peak(&self, i: usize) -> f64 {
        let w = &self.windows[i];
        w.peak.max(w.open_work()) as f64 / WINDOWS_NS[i] as f64
    }

    /// Whether more work arrived in some second than the server can do in a second.
    pub fn saturated(&self) -> bool {
        self.peak(0) > 1.0
    }

    /// [`Load::peak`] over the windows finished since the last [`Load::mark_epoch`] and those
    /// still open (the clock's, and any that work was submitted ahead into): an epoch's busiest
    /// window. A window open across an epoch's end counts in both epochs, so the most of the
    /// epochs' peaks is the run's [`Load::peak`].
    pub fn epoch_peak(&self, i: usize) -> f64 {
        let w = &self.windows[i];
        w.epoch_peak.max(w.open_work()) as f64 / WINDOWS_NS[i] as f64
    }

    /// An epoch ends: [`Load::epoch_peak`] starts again from the windows still open.
    pub fn mark_epoch(&mut self) {
        for w in &mut self.windows {
            w.epoch_peak = 0;
        }
    }

    /// Forgets everything (after a warm-up).
    pub fn reset(&mut self) {
        *self = Load::default();
    }

    /// The loads of several servers seen as one device: work and sojourns add up, the peaks are
    /// the busiest server's (a saturated server queues its ops however idle the others are).
    pub fn combine<'a>(loads: impl IntoIterator<Item = &'a Load>) -> Summary {
        let mut s = Summary::default();
        for l in loads {
            s.servers += 1;
            s.ops += l.ops;
            s.busy_ns += l.busy_ns;
            s.sojourn_ns += l.sojourn_ns;
            s.behind_ns += l.behind_ns;
            s.last_end = s.last_end.max(l.last_end);
            s.flush.ops += l.flush.ops;
            s.flush.busy_ns += l.flush.busy_ns;
            s.flush.end = s.flush.end.max(l.flush.end);
            for (p, i) in s.peak.iter_mut().zip(0..) {
                *p = p.max(l.peak(i));
            }
            for (p, i) in s.epoch_peak.iter_mut().zip(0..) {
                *p = p.max(l.epoch_peak(i));
            }
        }
        s
    }
}

/// The peak, over aligned windows of one length chosen by the caller, of the work that arrived
/// in a window over its length: [`Load`]'s offered load with a window of any length, summed
/// over all the servers that record into it (a disk array's disk-head time per window, the
/// backend load of Baleen's "Peak DT"; see [`crate::device::disk`]). The same conventions as
/// [`Load`]'s windows: aligned to multiples of the length, a window counts at its full length
/// (also the last, partial one), work submitted ahead of the clock waits in a map for its
/// window, and a window is final once [`WindowPeak::advance`] has passed it. Recording in the
/// clock's window is O(1) without allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowPeak {
    len: u64,
    w: Window,
}

impl WindowPeak {
    /// Windows of `len_ns` (at least 1).
    pub fn new(len_ns: u64) -> Self {
        WindowPeak { len: len_ns.max(1), w: Window::default() }
    }

    /// The window length, ns.
    pub fn len_ns(&self) -> u64 {
        self.len
    }

    /// `work` ns that arrived at `arrival`: in the clock's window, or a later one's entry (an
    /// arrival before the clock's window counts in it).
    #[inline]
    pub fn record(&mut self, arrival: u64, work: u64) {
        let i = arrival / self.len;
        if i <= self.w.index {
            self.w.work += work;
        } else {
            *self.w.later.entry(i).or_insert(0) += work;
        }
    }

    /// No work arrives before `clock` any more: the windows before its are final.
    #[inline]
    pub fn advance(&mut self, clock: u64) {
        let c = clock / self.len;
        if c <= self.w.index {
            return;
        }
        let w = &mut self.w;
        w.peak = w.peak.max(w.work);
        while let Some(e) = w.later.first_entry() {
            if *e.key() >= c {
                break;
            }
            w.peak = w.peak.max(e.remove());
        }
        w.work = w.later.remove(&c).unwrap_or(0);
        w.index = c;
    }

    /// The most work that arrived in one window (finished or still open) over its length.
    pub fn peak(&self) -> f64 {
        self.w.peak.max(self.w.open_work()) as f64 / self.len as f64
    }

    /// Forgets the work recorded (after a warm-up); the clock's window stays.
    pub fn reset(&mut self) {
        let index = self.w.index;
        self.w = Window { index, ..Window::default() };
    }
}

/// The load of a device of one or more servers ([`Load::combine`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Summary {
    pub servers: u64,
    /// Ops and work, the end-of-run flush's included.
    pub ops: u64,
    pub busy_ns: u64,
    /// Sojourns of the ops of arrival work, and their waits behind earlier requests' work.
    pub sojourn_ns: u128,
    pub behind_ns: u128,
    /// The latest completion of an op of arrival work on any server, ns (0: none).
    pub last_end: u64,
    /// The end-of-run flush over all servers: ops and work summed, the latest completion.
    pub flush: Flush,
    /// The busiest server's peak offered load per window of [`WINDOWS_NS`].
    pub peak: [f64; WINDOWS_NS.len()],
    /// The same since the last epoch mark ([`Load::epoch_peak`]).
    pub epoch_peak: [f64; WINDOWS_NS.len()],
}

impl Summary {
    /// Mean number of ops in the device (queued or in service) over `span_ns` (Little's law); a
    /// time average, at most `ops`, when the span covers the first arrival and
    /// [`Summary::last_end`].
    pub fn mean_in_system(&self, span_ns: u64) -> Option<f64> {
        (span_ns > 0).then(|| self.sojourn_ns as f64 / span_ns as f64)
    }

    /// The work of arrival work: the busy time less the end-of-run flush's, ns.
    pub fn arrival_busy_ns(&self) -> u64 {
        self.busy_ns - self.flush.busy_ns
    }

    /// The ops' mean wait behind earlier requests' work over their mean service (arrival work;
    /// None without any): above 1 they queued behind the load longer than they were served.
    pub fn queueing_ratio(&self) -> Option<f64> {
        let busy = self.arrival_busy_ns();
        (busy > 0).then(|| self.behind_ns as f64 / busy as f64)
    }

    /// Whether some server got more work in some second than it can do in a second (rule 1 of
    /// the module's "Saturation").
    pub fn saturated(&self) -> bool {
        self.peak[0] > 1.0
    }

    /// Whether the device's ops waited behind earlier requests' work longer than they were
    /// served ([`Summary::queueing_ratio`] above 1: rule 2 of the module's "Saturation").
    pub fn mostly_queueing(&self) -> bool {
        self.queueing_ratio().is_some_and(|r| r > 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000 * MS;

    #[test]
    fn a_window_peak_of_any_length() {
        // 10 s windows. At clock 0: 2 s of work now, 3 s submitted ahead into window 1 (12 s).
        let mut p = WindowPeak::new(10 * S);
        p.record(0, 2 * S);
        p.record(12 * S, 3 * S);
        // Both windows are open: the peak is the larger, 3 s over 10 s.
        assert_eq!(p.peak(), 0.3);
        // The clock reaches window 1 (15 s): window 0 is final (2 s); 1.5 s more arrive in 1.
        p.advance(15 * S);
        p.record(15 * S, 1500 * MS);
        assert_eq!(p.peak(), 0.45);
        // Window 3 at 35 s: window 1 is final at 4.5 s; window 3 holds 1 s.
        p.advance(35 * S);
        p.record(35 * S, S);
        assert_eq!(p.peak(), 0.45);
        // A warm-up's end forgets it; the clock's window stays.
        p.reset();
        assert_eq!(p.peak(), 0.0);
        p.record(36 * S, S);
        assert_eq!((p.peak(), p.len_ns()), (0.1, 10 * S));
    }

    #[test]
    fn peaks_sojourns_and_saturation() {
        let mut l = Load::default();
        // Second 0: two 300 ms ops arrive together; the second waits 300 ms for the first.
        l.record(0, 0, 300 * MS, 0);
        l.record(0, 300 * MS, 600 * MS, 0);
        // Second 2: 1.2 s of work arrives (four 300 ms ops back to back from 2 s).
        for k in 0..4 {
            l.record(2 * S, 2 * S + k * 300 * MS, 2 * S + (k + 1) * 300 * MS, 0);
        }
        assert_eq!((l.ops, l.busy_ns), (6, 1800 * MS));
        // Sojourns: 300 + 600 ms, then 300 + 600 + 900 + 1200 ms = 3.9 s.
        assert_eq!(l.sojourn_ns, u128::from(3900 * MS));
        // Busiest second: 1.2 s of work; the one minute so far: 1.8 s of work over 60 s.
        assert_eq!((l.peak(0), l.peak(1)), (1.2, 0.03));
        assert!(l.saturated());
        let s = Load::combine([&l, &Load::default()]);
        assert_eq!((s.servers, s.ops, s.peak), (2, 6, [1.2, 0.03]));
        // Over a 4 s span, 3.9 s of sojourns: 0.975 ops in the system on average.
        assert_eq!(s.mean_in_system(4 * S), Some(0.975));
        l.reset();
        assert_eq!(l, Load::default());
        assert!(!l.saturated());
    }

    #[test]
    fn an_epochs_peak_is_its_own_busiest_window() {
        let mut l = Load::default();
        // Epoch 1 (seconds 0-1): 1.5 s of work arrives in second 0.
        l.record(0, 0, 1500 * MS, 0);
        l.advance(S);
        l.record(S, 1500 * MS, 1800 * MS, 0);
        assert_eq!(l.epoch_peak(0), 1.5);
        l.mark_epoch();
        // Epoch 2 (from second 1): the open second's 0.3 s counts in it too, then 0.5 s in second 2.
        assert_eq!(l.epoch_peak(0), 0.3);
        l.advance(2 * S);
        l.record(2 * S, 2 * S, 2 * S + 500 * MS, 0);
        l.advance(3 * S);
        assert_eq!((l.epoch_peak(0), l.peak(0)), (0.5, 1.5));
        // Work submitted ahead counts in the epoch that sees it, until its window finishes.
        l.mark_epoch();
        l.record(10 * S, 10 * S, 10 * S + 700 * MS, 0);
        assert_eq!(l.epoch_peak(0), 0.7);
        let s = Load::combine([&l]);
        assert_eq!((s.epoch_peak[0], s.peak[0]), (0.7, 1.5));
    }

    #[test]
    fn work_submitted_ahead_counts_in_its_own_window() {
        // At clock 0: an op arriving 100 s ahead (a program after a queued disk read) and one
        // now, 600 ms each. Each second has 0.6 s of work: no saturation, whatever the order.
        let mut l = Load::default();
        l.advance(0);
        l.record(100 * S, 100 * S, 100 * S + 600 * MS, 0);
        l.record(0, 0, 600 * MS, 0);
        assert_eq!((l.peak(0), l.sojourn_ns), (0.6, u128::from(1200 * MS)));
        // The clock reaches second 100; another 600 ms arrives there: 1.2 s in that second.
        l.advance(100 * S);
        l.record(100 * S, 100 * S + 600 * MS, 101 * S + 200 * MS, 0);
        assert_eq!(l.peak(0), 1.2);
        assert!(l.saturated());
        // Both minutes hold work: the first 0.6 s, the second 1.2 s.
        assert_eq!(l.peak(1), 1.2 / 60.0);
    }

    #[test]
    fn the_flush_is_work_done_but_not_offered_nor_queued() {
        let mut l = Load::default();
        // One request: 300 ms of work arriving at 0, done at 300 ms.
        l.record(0, 0, 300 * MS, 0);
        l.advance(0);
        // The end-of-run flush at the last arrival (0): 5 s of writes back to back, which
        // as arrival work would be 5.3x a second's work and 5 s of queue.
        l.begin_flush();
        for k in 0..10 {
            l.record(0, 300 * MS + k * 500 * MS, 800 * MS + k * 500 * MS, 0);
        }
        assert_eq!((l.ops, l.busy_ns), (11, 5300 * MS));
        assert_eq!(l.flush, Flush { ops: 10, busy_ns: 5000 * MS, end: 5300 * MS });
        assert_eq!((l.peak(0), l.sojourn_ns, l.last_end), (0.3, u128::from(300 * MS), 300 * MS));
        assert!(!l.saturated());
        let s = Load::combine([&l]);
        assert_eq!((s.arrival_busy_ns(), s.flush.end, s.last_end), (300 * MS, 5300 * MS, 300 * MS));
        assert!(!s.saturated());
        l.reset();
        assert_eq!(l, Load::default());
    }

    #[test]
    fn queueing_behind_the_load_longer_than_service_is_mostly_queueing() {
        // A 100 ms burst in a quiet second: 20 requests of one 10 ms op each, 5 ms apart, on one
        // server. The second holds 0.2 s of work (not saturated), but the k-th op waits 5k ms
        // behind the ops before it: 950 ms of waiting for 200 ms of service (mostly queueing).
        let mut l = Load::default();
        let mut free = 0;
        for k in 0..20 {
            let (t, start) = (k * 5 * MS, free.max(k * 5 * MS));
            free = start + 10 * MS;
            l.record(t, start, free, start - t);
        }
        assert_eq!((l.peak(0), l.behind_ns), (0.2, u128::from(950 * MS)));
        assert!(!l.saturated());
        let s = Load::combine([&l]);
        assert_eq!(s.queueing_ratio(), Some(4.75));
        assert!(s.mostly_queueing() && !s.saturated());
        // Spread over the second (one every 50 ms) nothing waits: neither rule.
        let mut l = Load::default();
        for k in 0..20 {
            l.record(k * 50 * MS, k * 50 * MS, k * 50 * MS + 10 * MS, 0);
        }
        let s = Load::combine([&l]);
        assert_eq!(s.queueing_ratio(), Some(0.0));
        assert!(!s.mostly_queueing());
        assert_eq!(Load::combine([&Load::default()]).queueing_ratio(), None);
    }

    #[test]
    fn a_full_second_is_not_saturation() {
        let mut l = Load::default();
        l.record(0, 0, S, 0);
        l.record(S + 1, S + 1, S + 2, 0);
        assert_eq!(l.peak(0), 1.0);
        assert!(!l.saturated());
    }
}
