//! Reading ahead: a pass reads its trace, and splits each request into pages, on a second
//! thread a few batches ahead of the thread that simulates, so that reading (decompression,
//! text parsing, a file's copy from the kernel) overlaps the simulation instead of adding to it.
//!
//! The reader thread hands over batches of [`BATCH`] requests with its progress after the
//! batch and what ended the trace early, if anything; it checks each request against the page
//! splitter ([`PageSplitter::pages`]), which the simulating thread applies again (a shift and a
//! test: cheaper than handing the page ranges over from one core to the other). Three batches
//! circulate (one simulated, one ready, one being read), so the reader is at most two batches
//! ahead and nothing is allocated per batch once they have grown.
//!
//! **Same results, same errors.** The requests come in trace order, unchanged. A bad record
//! and a request the splitter refuses are located by the reader right after the `next_batch`
//! that returned them (file and line, or byte, as without the thread), and the error reaches the
//! simulating thread after the requests before it: the loop returns it where it would have
//! failed by itself (a refused request after its arrival, a bad record after the batch). When the
//! simulation stops early (an error, or `progress` saying stop), the reader thread stops at its
//! next hand-over, and the pass returns once it has.

use super::{Progress, TraceReader, PROGRESS_EVERY};
use crate::error::{Error, Result};
use crate::request::{HostRequest, PageSplitter};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Requests per batch handed over (128 KiB of them). A hand-over costs the simulating thread a
/// few microseconds when the reader thread has to be woken; batches of 1,024 and of 16,384
/// requests were as fast (within 2%, LRU and FIFO at 1% and 10% of the 5M-request zipf `.fct`
/// trace, medians of 10 interleaved runs).
pub const BATCH: usize = 4096;

/// Batches in flight between the two threads.
const IN_FLIGHT: usize = 3;

/// Requests read ahead.
#[derive(Debug, Default)]
pub struct Batch {
    /// The requests; when the splitter refuses one, it is the last, and `error` says where.
    pub requests: Vec<HostRequest>,
    /// The reader's progress ([`TraceReader::progress`]) once this batch was read.
    pub progress: (u64, u64),
    /// What ended the trace: the splitter's refusal of the last request (located), or a bad
    /// record after the batch's requests. `None` with no requests: the trace's end.
    pub error: Option<Error>,
}

impl Batch {
    /// The error of a batch whose last request the splitter refused (its location in the
    /// trace). Any other batch has none, and gets [`Error::Interrupted`].
    pub fn take_error(&mut self) -> Error {
        self.error.take().unwrap_or(Error::Interrupted)
    }
}

/// The simulating thread's end: [`Feed::next`] gives the next batch.
#[derive(Debug)]
pub struct Feed {
    full: Receiver<Batch>,
    free: SyncSender<Batch>,
}

impl Feed {
    /// Replaces `batch` (done with) by the next one read. At the end of the trace (or once the
    /// reader thread has stopped) `batch` comes back empty.
    pub fn next(&mut self, batch: &mut Batch) {
        let done = std::mem::take(batch);
        // The reader thread may have stopped (after its last batch); the buffer is then dropped.
        let _ = self.free.send(done);
        if let Ok(b) = self.full.recv() {
            *batch = b;
        }
    }

    /// After the `n`th request: every [`PROGRESS_EVERY`] requests, calls `progress` with the
    /// reader's progress as of `batch`; [`Error::Interrupted`] when it says stop (as
    /// [`super::report`]).
    #[inline]
    pub fn report(n: u64, batch: &Batch, progress: &mut Option<Progress<'_>>) -> Result<()> {
        if n % PROGRESS_EVERY == 0 {
            if let Some(p) = progress.as_mut() {
                if !p(batch.progress.0, batch.progress.1) {
                    return Err(Error::Interrupted);
                }
            }
        }
        Ok(())
    }
}

/// Runs `simulate` with a [`Feed`] of `reader`'s requests split by `splitter`, read on a
/// second thread; returns what `simulate` returns once the reader thread has stopped.
pub fn read_ahead<T>(reader: &mut dyn TraceReader, splitter: PageSplitter, simulate: impl FnOnce(&mut Feed) -> Result<T>) -> Result<T> {
    let (free_tx, free_rx) = sync_channel::<Batch>(IN_FLIGHT);
    let (full_tx, full_rx) = sync_channel::<Batch>(IN_FLIGHT);
    for _ in 0..IN_FLIGHT - 1 {
        let _ = free_tx.send(Batch { requests: Vec::with_capacity(BATCH), ..Batch::default() });
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("fcsim-read".into())
            .spawn_scoped(s, move || read(reader, splitter, &free_rx, &full_tx))
            .map_err(|e| Error::config(format!("could not start the thread that reads the trace: {e}")))?;
        let mut feed = Feed { full: full_rx, free: free_tx };
        simulate(&mut feed)
        // `feed` is dropped here: a reader thread still reading stops at its next hand-over.
    })
}

/// The reader thread: fills the batches it is given until the trace ends, fails, or the
/// simulating thread stops taking them.
fn read(reader: &mut dyn TraceReader, splitter: PageSplitter, free: &Receiver<Batch>, full: &SyncSender<Batch>) {
    let mut more = Vec::new();
    while let Ok(mut b) = free.recv() {
        b.error = None;
        let end = fill(reader, splitter, &mut b, &mut more);
        b.progress = reader.progress();
        if full.send(b).is_err() || end {
            return;
        }
    }
}

/// Reads into `b` until it holds [`BATCH`] requests or the trace ends or fails (then true): a
/// reader of batches fills it in one call, a reader of one request at a time a request a call.
fn fill(reader: &mut dyn TraceReader, splitter: PageSplitter, b: &mut Batch, more: &mut Vec<HostRequest>) -> bool {
    b.requests.reserve(BATCH);
    let read = reader.next_batch(&mut b.requests);
    if let Some(end) = check(reader, splitter, b, 0, read) {
        return end;
    }
    while b.requests.len() < BATCH {
        let read = reader.next_batch(more);
        let from = b.requests.len();
        b.requests.extend_from_slice(more);
        if let Some(end) = check(reader, splitter, b, from, read) {
            return end;
        }
    }
    false
}

/// Checks the requests `b.requests[from..]` that one `next_batch` returned (`read` its result):
/// `Some(true)` if the trace ends with them (its end, a bad record, or a request the splitter
/// refuses, the requests after which are dropped), else `None`.
fn check(reader: &dyn TraceReader, splitter: PageSplitter, b: &mut Batch, from: usize, read: Result<()>) -> Option<bool> {
    let last = b.requests.len().wrapping_sub(1);
    let refused = b.requests[from..].iter().enumerate().find_map(|(k, r)| splitter.pages(r).err().map(|m| (from + k, m)));
    if let Some((j, m)) = refused {
        b.error = Some(reader.error_in_batch(last - j, m.to_string()));
        b.requests.truncate(j + 1);
        return Some(true);
    }
    if let Err(e) = read {
        b.error = Some(e);
        return Some(true);
    }
    (b.requests.len() == from).then_some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{KeyUnit, Op};

    /// Requests 0, 1, ... (time = index); the one at `refuse` addresses a volume the splitter
    /// refuses, the one at `bad` is a bad record. Batches of `batch` requests, or one a call.
    struct Numbered {
        n: u64,
        total: u64,
        refuse: u64,
        bad: u64,
        batch: bool,
    }

    impl TraceReader for Numbered {
        fn next_request(&mut self) -> Result<Option<HostRequest>> {
            if self.n == self.total {
                return Ok(None);
            }
            if self.n == self.bad {
                return Err(Error::config(format!("bad record {}", self.n)));
            }
            let volume = if self.n == self.refuse { u32::MAX } else { 0 };
            let r = HostRequest { time_ns: self.n, volume, offset: 4096 * self.n, len: 4096, op: Op::Read };
            self.n += 1;
            Ok(Some(r))
        }
        fn format(&self) -> &'static str {
            "numbered"
        }
        fn progress(&self) -> (u64, u64) {
            (self.n, self.total)
        }
        fn error_at_last(&self, message: String) -> Error {
            self.error_in_batch(0, message)
        }
        fn next_batch(&mut self, out: &mut Vec<HostRequest>) -> Result<()> {
            out.clear();
            while out.len() < if self.batch { out.capacity().max(1) } else { 1 } {
                match self.next_request()? {
                    Some(r) => out.push(r),
                    None => break,
                }
            }
            Ok(())
        }
        fn error_in_batch(&self, back: usize, message: String) -> Error {
            Error::config(format!("request {}: {message}", self.n - 1 - back as u64))
        }
    }

    /// Every request's time, and the error that ended the pass, as the loop sees them.
    fn pass(mut reader: Numbered, stop_after: Option<usize>) -> (Vec<u64>, Option<String>, u64) {
        let splitter = PageSplitter::new(4096, KeyUnit::Bytes);
        let mut seen = Vec::new();
        let r = read_ahead(&mut reader, splitter, |feed| {
            let mut b = Batch::default();
            loop {
                feed.next(&mut b);
                for j in 0..b.requests.len() {
                    if splitter.pages(&b.requests[j]).is_err() {
                        return Err(b.take_error());
                    }
                    seen.push(b.requests[j].time_ns);
                    if stop_after == Some(seen.len()) {
                        return Err(Error::Interrupted);
                    }
                }
                if let Some(e) = b.error.take() {
                    return Err(e);
                }
                if b.requests.is_empty() {
                    return Ok(());
                }
            }
        });
        (seen, r.err().map(|e| e.to_string()), reader.n)
    }

    #[test]
    fn requests_and_errors_arrive_as_without_the_thread() {
        for batch in [true, false] {
            let n = |refuse, bad| Numbered { n: 0, total: 3 * BATCH as u64 + 17, refuse, bad, batch };
            let all: Vec<u64> = (0..3 * BATCH as u64 + 17).collect();
            assert_eq!(pass(n(u64::MAX, u64::MAX), None), (all.clone(), None, all.len() as u64));
            // A refused request: the ones before it, then its own location.
            let (seen, err, _) = pass(n(BATCH as u64 + 5, u64::MAX), None);
            assert_eq!(seen, all[..BATCH + 5]);
            assert!(err.is_some_and(|e| e.contains(&format!("request {}: volume", BATCH + 5))), "batch {batch}");
            // A bad record: the requests before it, then its error.
            let (seen, err, _) = pass(n(u64::MAX, 2 * BATCH as u64 + 1), None);
            assert_eq!(seen, all[..2 * BATCH + 1]);
            assert_eq!(err.as_deref(), Some(format!("bad record {}", 2 * BATCH + 1).as_str()));
        }
    }

    #[test]
    fn a_pass_that_stops_early_stops_the_reader() {
        // The reader is at most the batches in flight ahead of the request the pass stopped at.
        let long = Numbered { n: 0, total: 1 << 40, refuse: u64::MAX, bad: u64::MAX, batch: true };
        let (seen, err, read) = pass(long, Some(10));
        assert_eq!((seen.len(), err.as_deref()), (10, Some(Error::Interrupted.to_string().as_str())));
        assert!(read <= 2 * (IN_FLIGHT * BATCH) as u64, "read {read}");
    }
}
