//! Miss-ratio curves of a trace: its page accesses fed, in one pass, to a curve builder of
//! [`crate::mrc`]. Trims are skipped (see [`crate::mrc`] on why no one-pass curve is exact with
//! them).

use crate::error::{Error, Result};
use crate::mrc::{Mrc, StackDistances};
use crate::request::{Op, PageSplitter};
use crate::trace::{self, fct, TraceOptions, TraceReader};

/// Opens `trace` for a curve of `page_size`-byte pages.
pub fn open(trace: &str, opts: &TraceOptions, page_size: u32) -> Result<Box<dyn TraceReader>> {
    if page_size == 0 {
        return Err(Error::config("page size must be positive"));
    }
    trace::open(trace, opts)
}

/// Calls `access` with every read or write page access of `reader`, in order. `progress` is
/// called every 2^16 requests with (done, total) in the reader's unit; false stops the pass
/// with [`Error::Interrupted`].
pub fn feed(
    reader: &mut dyn TraceReader,
    page_size: u32,
    progress: &mut dyn FnMut(u64, u64) -> bool,
    access: &mut dyn FnMut(u64),
) -> Result<()> {
    let splitter = PageSplitter::new(page_size, reader.key_unit());
    let mut n = 0u64;
    while let Some(r) = reader.next_request()? {
        if r.op != Op::Trim {
            let (first, count) = splitter.pages(&r);
            (first..first + count).for_each(&mut *access);
        }
        n += 1;
        if n % (1 << 16) == 0 {
            let (done, total) = reader.progress();
            if !progress(done, total) {
                return Err(Error::Interrupted);
            }
        }
    }
    Ok(())
}

/// The exact LRU MRC of a trace.
pub fn exact(trace: &str, opts: &TraceOptions, page_size: u32, progress: &mut dyn FnMut(u64, u64) -> bool) -> Result<Mrc> {
    let mut reader = open(trace, opts, page_size)?;
    // A .fct header knows the number of distinct pages.
    let pages = match reader.format() == fct::FORMAT.name && opts.volume.is_none() {
        true => fct::read_header(std::path::Path::new(trace)).map_or(0, |h| h.unique_pages as usize),
        false => 0,
    };
    let mut sd = StackDistances::with_pages(pages);
    feed(reader.as_mut(), page_size, progress, &mut |key| {
        sd.access(key);
    })?;
    Ok(sd.finish())
}
