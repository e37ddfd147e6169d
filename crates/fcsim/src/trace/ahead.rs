//! Reading ahead: a pass reads its trace, and splits each request into pages, on a second
//! thread a few batches ahead of the thread that simulates, so that reading (decompression,
//! text parsing, generating) overlaps the simulation instead of adding to it. A reader whose
//! requests cost less to read than to hand from one core to another (an uncompressed `.fct`
//! file: [`TraceReader::read_ahead`]) is read on the simulating thread, by the same batches.
//!
//! The reader thread hands over batches of [`BATCH`] requests with its progress after the
//! batch and what ended the trace early, if anything; it checks each request against the page
//! splitter ([`PageSplitter::pages`]), which the simulating thread applies again (a shift:
//! cheaper than handing the page ranges over from one core to the other; without the check
//! unless the batch ends in an error, [`Requests::may_refuse`]). Three batches
//! circulate (one simulated, one ready, one being read), so the reader is at most two batches
//! ahead and nothing is allocated per batch once they have grown.
//!
//! **Same results, same errors.** The requests come in trace order, unchanged. A bad record
//! and a request the splitter refuses are located by the reader as it reads them (file and
//! line, or byte, as without the thread), and the error reaches the simulating thread after the
//! requests before it: the loop returns it where it would have failed by itself (a refused
//! request after its arrival, a bad record after the requests before it). When the simulation
//! stops early (an error, or `progress` saying stop), the reader thread stops before its next
//! request, and the pass returns once it has.

use super::{Progress, TraceReader, PROGRESS_EVERY};
use crate::error::{Error, Result};
use crate::request::{HostRequest, PageSplitter};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Requests per batch handed over (128 KiB of them). A hand-over costs the simulating thread a
/// few microseconds when the reader thread has to be woken; batches of 1,024 and of 16,384
/// requests were as fast (within 2%, LRU and FIFO at 1% and 10% of the 5M-request zipf `.fct`
/// trace, medians of 10 interleaved runs).
pub const BATCH: usize = 4096;

/// Batches in flight between the two threads.
const IN_FLIGHT: usize = 3;

/// Requests per batch read on the simulating thread: 16 KiB of them, which stay in the L1
/// cache while the loop takes them.
const INLINE_BATCH: usize = 512;

/// Requests read ahead.
#[derive(Debug, Default)]
struct Batch {
    /// The requests; when the splitter refuses one, it is the last, and `error` says where.
    requests: Vec<HostRequest>,
    /// The reader's progress ([`TraceReader::progress`]) once this batch was read.
    progress: (u64, u64),
    /// What ended the trace: the splitter's refusal of the last request (located), or a bad
    /// record after the batch's requests. `None` with no requests: the trace's end.
    error: Option<Error>,
    /// The requests, read by one [`TraceReader::next_batch`] on the simulating thread, were not
    /// checked against the splitter: the caller splits each with the check, and a refused one
    /// is located then ([`Requests::refused`]), by the reader, which has not moved since.
    unchecked: bool,
}

/// The simulating thread's end of a pass: the requests in trace order, by batches.
#[derive(Debug)]
pub struct Feed<'r> {
    supply: Supply<'r>,
    batch: Batch,
}

/// Where a [`Feed`]'s batches come from.
enum Supply<'r> {
    /// The reader thread, which stops reading when `stop` is set (the feed dropped).
    Thread { full: Receiver<Batch>, free: SyncSender<Batch>, stop: &'r AtomicBool },
    /// The reader itself, on this thread, by batches of [`INLINE_BATCH`] requests checked
    /// against `splitter`; `ended` once it has said the trace ended.
    Inline { reader: &'r mut dyn TraceReader, splitter: PageSplitter, ended: bool },
}

impl Drop for Feed<'_> {
    /// A pass that ends early (an error, or progress saying stop) stops the reader thread
    /// between two requests, rather than after a batch of them (which a reader of one volume
    /// of a trace, or of many bad lines, may take long to fill).
    fn drop(&mut self) {
        if let Supply::Thread { stop, .. } = &self.supply {
            stop.store(true, Ordering::Relaxed);
        }
    }
}

impl std::fmt::Debug for Supply<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Supply::Thread { .. } => "Thread",
            Supply::Inline { .. } => "Inline",
        })
    }
}

/// A batch of requests from [`Feed::next_batch`], in trace order.
pub struct Requests<'a> {
    pub requests: &'a [HostRequest],
    error: &'a mut Option<Error>,
    progress: (u64, u64),
    /// For an unchecked batch ([`Batch::unchecked`]): the reader that read it and the splitter,
    /// to find and locate a refused request.
    locate: Option<(&'a dyn TraceReader, PageSplitter)>,
}

impl std::fmt::Debug for Requests<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Requests").field("requests", &self.requests.len()).field("unchecked", &self.locate.is_some()).finish()
    }
}

impl Requests<'_> {
    /// The error for the first request of this batch that the page splitter refuses (the last,
    /// in a checked batch): its location in the trace, found when the request was read, or, in
    /// an unchecked batch, now, by the reader that read it.
    #[cold]
    pub fn refused(&mut self) -> Error {
        if let Some((reader, splitter)) = self.locate {
            let last = self.requests.len().wrapping_sub(1);
            if let Some((j, m)) = self.requests.iter().enumerate().find_map(|(j, r)| splitter.pages(r).err().map(|m| (j, m))) {
                return reader.error_in_batch(last - j, m.to_string());
            }
        }
        self.error.take().unwrap_or(Error::Interrupted)
    }

    /// Whether a request of this batch may be one the page splitter refuses: false when the
    /// batch was checked and ended in nothing, so that every request in it was split and
    /// accepted as it was read, and the caller may split them without the check
    /// ([`PageSplitter::pages_unchecked`]).
    #[inline]
    pub fn may_refuse(&self) -> bool {
        self.error.is_some() | self.locate.is_some()
    }

    /// After the `n`th request of the pass: every [`PROGRESS_EVERY`] requests, calls `progress`
    /// with the reader's progress as of this batch; [`Error::Interrupted`] when it says stop
    /// (as [`super::report`]).
    #[inline]
    pub fn report(&self, n: u64, progress: &mut Option<Progress<'_>>) -> Result<()> {
        if n % PROGRESS_EVERY == 0 {
            if let Some(p) = progress.as_mut() {
                if !p(self.progress.0, self.progress.1) {
                    return Err(Error::Interrupted);
                }
            }
        }
        Ok(())
    }
}

impl Feed<'_> {
    /// The next batch of requests, `Ok(None)` at the end of the trace; `Err` for a bad record
    /// after the requests before it (which came in the batch before). A request the page
    /// splitter refuses ends its batch: the caller splits each request
    /// ([`PageSplitter::pages`]) and returns [`Requests::refused`] for the one refused.
    #[inline]
    pub fn next_batch(&mut self) -> Result<Option<Requests<'_>>> {
        if !self.refill()? {
            return Ok(None);
        }
        let Batch { requests, progress, error, unchecked } = &mut self.batch;
        let locate = match &self.supply {
            Supply::Inline { reader, splitter, .. } if *unchecked => Some((&**reader as &dyn TraceReader, *splitter)),
            _ => None,
        };
        Ok(Some(Requests { requests, error, progress: *progress, locate }))
    }

    /// The batch at hand is done: its bad record's error if it ended in one, else the next
    /// batch (false when there is none: the trace's end, or the reader thread has stopped).
    fn refill(&mut self) -> Result<bool> {
        if let Some(e) = self.batch.error.take() {
            return Err(e);
        }
        match &mut self.supply {
            Supply::Thread { full, free, .. } => {
                let done = std::mem::take(&mut self.batch);
                // The reader thread may have stopped (after its last batch); the buffer is then dropped.
                let _ = free.send(done);
                if let Ok(b) = full.recv() {
                    self.batch = b;
                }
            }
            Supply::Inline { reader, splitter, ended } => {
                self.batch.requests.clear();
                if !*ended {
                    *ended = fill(&mut **reader, *splitter, &mut self.batch, INLINE_BATCH, &AtomicBool::new(false), true);
                    self.batch.progress = reader.progress();
                }
            }
        }
        if self.batch.requests.is_empty() {
            // A bad record before any request of the batch, or the end.
            return self.batch.error.take().map_or(Ok(false), Err);
        }
        Ok(true)
    }
}

/// Runs `simulate` with a [`Feed`] of `reader`'s requests split by `splitter`: read on a
/// second thread if `thread` and the reader says it is worth it ([`TraceReader::read_ahead`]),
/// else on this one, by the same batches. Returns what `simulate` returns, once the reader
/// thread (if any) has stopped.
pub fn read_ahead<T>(
    reader: &mut dyn TraceReader,
    splitter: PageSplitter,
    thread: bool,
    simulate: impl FnOnce(&mut Feed) -> Result<T>,
) -> Result<T> {
    if !(thread && reader.read_ahead()) {
        let batch = Batch { requests: Vec::with_capacity(INLINE_BATCH), ..Batch::default() };
        return simulate(&mut Feed { supply: Supply::Inline { reader, splitter, ended: false }, batch });
    }
    let (free_tx, free_rx) = sync_channel::<Batch>(IN_FLIGHT);
    let (full_tx, full_rx) = sync_channel::<Batch>(IN_FLIGHT);
    for _ in 0..IN_FLIGHT - 1 {
        let _ = free_tx.send(Batch { requests: Vec::with_capacity(BATCH), ..Batch::default() });
    }
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let stopped = &stop;
        std::thread::Builder::new()
            .name("fcsim-read".into())
            .spawn_scoped(s, move || read(reader, splitter, &free_rx, &full_tx, stopped))
            .map_err(|e| Error::config(format!("could not start the thread that reads the trace: {e}")))?;
        let supply = Supply::Thread { full: full_rx, free: free_tx, stop: stopped };
        simulate(&mut Feed { supply, batch: Batch::default() })
        // The feed is dropped here: a reader thread still reading stops at its next hand-over.
    })
}

/// The reader thread: fills the batches it is given until the trace ends, fails, or the
/// simulating thread stops taking them.
fn read(reader: &mut dyn TraceReader, splitter: PageSplitter, free: &Receiver<Batch>, full: &SyncSender<Batch>, stop: &AtomicBool) {
    while let Ok(mut b) = free.recv() {
        b.error = None;
        let end = fill(reader, splitter, &mut b, BATCH, stop, false);
        b.progress = reader.progress();
        if full.send(b).is_err() || end {
            return;
        }
    }
}

/// Reads into `b` (emptied first) until it holds `size` requests or the trace ends or fails
/// (then true), or `stop` is set: a reader of batches fills it in one call (at most its
/// capacity, `size`), a reader of one request at a time a request a call. Each request is
/// checked against the splitter as it is read, so that a refused one is located while the
/// reader is still at it; except, with `later` (the simulating thread reads, and the reader
/// stays where it is until the batch is done), the requests of one call of more than one
/// request, which are left unchecked ([`Batch::unchecked`]): the caller's split checks each
/// anyway, and the check here was one more pass over them (about 15 instructions a request).
fn fill(reader: &mut dyn TraceReader, splitter: PageSplitter, b: &mut Batch, size: usize, stop: &AtomicBool, later: bool) -> bool {
    b.requests.clear();
    b.requests.reserve(size);
    let read = reader.next_batch(&mut b.requests);
    let last = b.requests.len().wrapping_sub(1);
    b.unchecked = later && b.requests.len() > 1;
    // One test per request; the refused request, if any, is looked for only then.
    if !b.unchecked && b.requests.iter().any(|r| splitter.pages(r).is_err()) {
        if let Some((j, m)) = b.requests.iter().enumerate().find_map(|(j, r)| splitter.pages(r).err().map(|m| (j, m))) {
            b.error = Some(reader.error_in_batch(last - j, m.to_string()));
            b.requests.truncate(j + 1);
            return true;
        }
    }
    if let Err(e) = read {
        b.error = Some(e);
        return true;
    }
    if b.requests.len() != 1 {
        return b.requests.is_empty();
    }
    while b.requests.len() < size && !stop.load(Ordering::Relaxed) {
        match reader.next_request() {
            Ok(Some(r)) => {
                b.requests.push(r);
                if let Err(m) = splitter.pages(&r) {
                    b.error = Some(reader.error_at_last(m.to_string()));
                    return true;
                }
            }
            Ok(None) => return true,
            Err(e) => {
                b.error = Some(e);
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{KeyUnit, Op};

    /// Requests 0, 1, ... (time = index); the one at `refuse` addresses a volume the splitter
    /// refuses, the one at `bad` is a bad record. Batches of `batch` requests, or one a call;
    /// read on a second thread if `thread`.
    struct Numbered {
        n: u64,
        total: u64,
        refuse: u64,
        bad: u64,
        batch: bool,
        thread: bool,
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
        fn read_ahead(&self) -> bool {
            self.thread
        }
    }

    /// Every request's time, and the error that ended the pass, as the loop sees them; and how
    /// many requests the reader read.
    fn pass(mut reader: Numbered, stop_after: Option<usize>) -> (Vec<u64>, Option<String>, u64) {
        let mut seen = Vec::new();
        let splitter = PageSplitter::new(4096, KeyUnit::Bytes);
        let r = read_ahead(&mut reader, splitter, true, |feed| {
            while let Some(mut batch) = feed.next_batch()? {
                for r in batch.requests {
                    let Ok((first, n)) = splitter.pages(r) else { return Err(batch.refused()) };
                    assert_eq!((first, n), (r.time_ns, 1));
                    seen.push(r.time_ns);
                    if stop_after == Some(seen.len()) {
                        return Err(Error::Interrupted);
                    }
                }
            }
            Ok(())
        });
        (seen, r.err().map(|e| e.to_string()), reader.n)
    }

    #[test]
    fn requests_and_errors_arrive_as_without_the_thread() {
        for (batch, thread) in [(true, true), (false, true), (true, false), (false, false)] {
            let n = |refuse, bad| Numbered { n: 0, total: 3 * BATCH as u64 + 17, refuse, bad, batch, thread };
            let all: Vec<u64> = (0..3 * BATCH as u64 + 17).collect();
            assert_eq!(pass(n(u64::MAX, u64::MAX), None), (all.clone(), None, all.len() as u64));
            // A refused request: the ones before it, then its own location.
            let (seen, err, _) = pass(n(BATCH as u64 + 5, u64::MAX), None);
            assert_eq!(seen, all[..BATCH + 5]);
            assert!(err.as_ref().is_some_and(|e| e.contains(&format!("request {}: volume", BATCH + 5))), "{batch} {thread}: {err:?}");
            // A bad record: the requests before it, then its error.
            let (seen, err, _) = pass(n(u64::MAX, 2 * BATCH as u64 + 1), None);
            assert_eq!(seen, all[..2 * BATCH + 1]);
            assert_eq!(err.as_deref(), Some(format!("bad record {}", 2 * BATCH + 1).as_str()));
        }
    }

    #[test]
    fn a_pass_that_stops_early_stops_the_reader() {
        // The reader is at most the batches in flight ahead of the request the pass stopped at.
        let long = Numbered { n: 0, total: 1 << 40, refuse: u64::MAX, bad: u64::MAX, batch: true, thread: true };
        let (seen, err, read) = pass(long, Some(10));
        assert_eq!((seen.len(), err.as_deref()), (10, Some(Error::Interrupted.to_string().as_str())));
        assert!(read <= 2 * (IN_FLIGHT * BATCH) as u64, "read {read}");
    }
}
