//! The load on one server (a disk, a flash chip): the work it did, how many ops it held on
//! average, and its busiest windows of offered work, so that a response time is never read
//! without the load it was measured under.
//!
//! **Offered load** in a window of simulated time is the service time of the ops that *arrive*
//! in it over the window's length. Busy time (work served) can never exceed 100% of a window;
//! offered load can: above 1, more work arrived in the window than the server can do in it, and
//! by its end a queue of at least (load − 1) × window had built up. So the peak offered load over
//! a window is the measure of saturation ([`Load::saturated`]: above 1 over some second).
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
//! here, the span is the caller's. An op's sojourn counts when it is submitted.
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

/// The load on one server since it was created or last [`Load::reset`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Load {
    /// Ops served.
    pub ops: u64,
    /// Time spent serving them, ns.
    pub busy_ns: u64,
    /// Sum of their sojourn times (completion − arrival), ns.
    pub sojourn_ns: u128,
    windows: [Window; WINDOWS_NS.len()],
    /// An arrival before this time falls in every window's clock window (the least of their
    /// ends; 0 until the first record or advance computes it): [`Load::record`]'s common case,
    /// with no division.
    open_until: u64,
}

impl Load {
    /// An op that arrived at `arrival` and held the server from `start` to `end`
    /// (`arrival <= start <= end`).
    #[inline]
    pub fn record(&mut self, arrival: u64, start: u64, end: u64) {
        let work = end - start;
        self.ops += 1;
        self.busy_ns += work;
        self.sojourn_ns += u128::from(end - arrival);
        if arrival < self.open_until {
            for w in &mut self.windows {
                w.work += work;
            }
        } else {
            self.record_ahead(arrival, work);
        }
    }

    /// [`Load::record`]'s work for an arrival at or past `open_until`: in each window, the
    /// clock's if it falls there, else a later window's entry.
    #[cold]
    fn record_ahead(&mut self, arrival: u64, work: u64) {
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

    fn set_open_until(&mut self) {
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

/// The load of a device of one or more servers ([`Load::combine`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Summary {
    pub servers: u64,
    pub ops: u64,
    pub busy_ns: u64,
    pub sojourn_ns: u128,
    /// The busiest server's peak offered load per window of [`WINDOWS_NS`].
    pub peak: [f64; WINDOWS_NS.len()],
    /// The same since the last epoch mark ([`Load::epoch_peak`]).
    pub epoch_peak: [f64; WINDOWS_NS.len()],
}

impl Summary {
    /// Mean number of ops in the device (queued or in service) over `span_ns` (Little's law).
    pub fn mean_in_system(&self, span_ns: u64) -> Option<f64> {
        (span_ns > 0).then(|| self.sojourn_ns as f64 / span_ns as f64)
    }

    /// Whether some server got more work in some second than it can do in a second.
    pub fn saturated(&self) -> bool {
        self.peak[0] > 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000 * MS;

    #[test]
    fn peaks_sojourns_and_saturation() {
        let mut l = Load::default();
        // Second 0: two 300 ms ops arrive together; the second waits 300 ms for the first.
        l.record(0, 0, 300 * MS);
        l.record(0, 300 * MS, 600 * MS);
        // Second 2: 1.2 s of work arrives (four 300 ms ops back to back from 2 s).
        for k in 0..4 {
            l.record(2 * S, 2 * S + k * 300 * MS, 2 * S + (k + 1) * 300 * MS);
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
        l.record(0, 0, 1500 * MS);
        l.advance(S);
        l.record(S, 1500 * MS, 1800 * MS);
        assert_eq!(l.epoch_peak(0), 1.5);
        l.mark_epoch();
        // Epoch 2 (from second 1): the open second's 0.3 s counts in it too, then 0.5 s in second 2.
        assert_eq!(l.epoch_peak(0), 0.3);
        l.advance(2 * S);
        l.record(2 * S, 2 * S, 2 * S + 500 * MS);
        l.advance(3 * S);
        assert_eq!((l.epoch_peak(0), l.peak(0)), (0.5, 1.5));
        // Work submitted ahead counts in the epoch that sees it, until its window finishes.
        l.mark_epoch();
        l.record(10 * S, 10 * S, 10 * S + 700 * MS);
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
        l.record(100 * S, 100 * S, 100 * S + 600 * MS);
        l.record(0, 0, 600 * MS);
        assert_eq!((l.peak(0), l.sojourn_ns), (0.6, u128::from(1200 * MS)));
        // The clock reaches second 100; another 600 ms arrives there: 1.2 s in that second.
        l.advance(100 * S);
        l.record(100 * S, 100 * S + 600 * MS, 101 * S + 200 * MS);
        assert_eq!(l.peak(0), 1.2);
        assert!(l.saturated());
        // Both minutes hold work: the first 0.6 s, the second 1.2 s.
        assert_eq!(l.peak(1), 1.2 / 60.0);
    }

    #[test]
    fn a_full_second_is_not_saturation() {
        let mut l = Load::default();
        l.record(0, 0, S);
        l.record(S + 1, S + 1, S + 2);
        assert_eq!(l.peak(0), 1.0);
        assert!(!l.saturated());
    }
}
