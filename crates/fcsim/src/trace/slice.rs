//! Trace slices: `trace.skip=N` drops the first N requests of any trace, `trace.take=M` keeps at
//! most the next M. [`super::open`] takes both keys out of the format's options and wraps the
//! opened reader, so every reader (a file of any format, a generator, a clone) is sliced the same
//! way, after its own selection (`--volume`, skipped bad lines): request i of the slice is
//! request skip + i of the trace as read without the keys.
//!
//! Every pass opens the trace with the same options, so each pass sees the same slice: the
//! working set that a percent size resolves against is the slice's, and an offline policy's
//! next accesses are the slice's (a `.fct` file's stored column, which is the whole file's, is
//! not used).

use super::text::parse_u64;
use super::TraceReader;
use crate::error::{Error, Result};
use crate::request::{HostRequest, KeyUnit};
use std::collections::BTreeMap;

/// The requests kept of a trace: skip the first `skip`, then keep at most `take`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slice {
    pub skip: u64,
    pub take: Option<u64>,
}

impl Slice {
    /// Takes `skip` and `take` out of a trace's options; `None` when neither is given. A value
    /// that is not a whole number, or `take=0` (an empty slice), is an error naming the key.
    pub fn take_from(params: &mut BTreeMap<String, String>) -> Result<Option<Slice>> {
        let (skip, take) = (params.remove("skip"), params.remove("take"));
        if skip.is_none() && take.is_none() {
            return Ok(None);
        }
        let skip = match skip {
            None => 0,
            Some(v) => parse_u64(&v, "trace.skip (a number of requests, 0 or more)").map_err(Error::config)?,
        };
        let take = match take {
            None => None,
            Some(v) => match parse_u64(&v, "trace.take (a number of requests, 1 or more)").map_err(Error::config)? {
                0 => return Err(Error::config("trace.take=0: expected a number of requests, 1 or more (a slice holds at least one)")),
                n => Some(n),
            },
        };
        Ok(Some(Slice { skip, take }))
    }
}

/// A reader of a [`Slice`] of another.
pub struct Sliced {
    inner: Box<dyn TraceReader>,
    slice: Slice,
    /// Requests still to skip, still to keep (`u64::MAX` without `take`), and returned.
    to_skip: u64,
    left: u64,
    kept: u64,
    /// Requests read past the last one returned by the last batch (cut by `take`), which
    /// [`TraceReader::error_in_batch`] counts back over.
    cut: usize,
}

impl std::fmt::Debug for Sliced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sliced({:?} of a {} trace)", self.slice, self.inner.format())
    }
}

impl Sliced {
    pub fn new(inner: Box<dyn TraceReader>, slice: Slice) -> Sliced {
        Sliced { inner, slice, to_skip: slice.skip, left: slice.take.unwrap_or(u64::MAX), kept: 0, cut: 0 }
    }

    /// The trace ended before the slice's first request.
    fn too_short(&self) -> Error {
        let read = self.slice.skip - self.to_skip;
        Error::config(format!(
            "trace.skip={}: expected fewer requests than the trace has ({read}), so that the slice holds at least one",
            self.slice.skip
        ))
    }
}

impl TraceReader for Sliced {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        self.cut = 0;
        if self.left == 0 {
            return Ok(None);
        }
        while self.to_skip > 0 {
            match self.inner.next_request()? {
                Some(_) => self.to_skip -= 1,
                None => return Err(self.too_short()),
            }
        }
        match self.inner.next_request()? {
            Some(r) => {
                self.left -= 1;
                self.kept += 1;
                Ok(Some(r))
            }
            None if self.kept == 0 => Err(self.too_short()),
            None => Ok(None),
        }
    }

    fn next_batch(&mut self, out: &mut Vec<HostRequest>) -> Result<()> {
        self.cut = 0;
        loop {
            if self.left == 0 {
                out.clear();
                return Ok(());
            }
            let read = self.inner.next_batch(out);
            let n = out.len();
            let skipped = (self.to_skip.min(n as u64)) as usize;
            self.to_skip -= skipped as u64;
            out.drain(..skipped);
            let keep = (self.left.min(out.len() as u64)) as usize;
            self.cut = out.len() - keep;
            out.truncate(keep);
            self.left -= keep as u64;
            self.kept += keep as u64;
            match read {
                // A bad record past the slice's end is not read by a pass one request at a time.
                Err(_) if self.left == 0 => return Ok(()),
                Err(e) => return Err(e),
                Ok(()) if n == 0 && self.kept == 0 => return Err(self.too_short()),
                Ok(()) if n == 0 || !out.is_empty() => return Ok(()),
                Ok(()) => {}
            }
        }
    }

    fn error_in_batch(&self, back: usize, message: String) -> Error {
        self.inner.error_in_batch(back + self.cut, message)
    }

    fn error_at_last(&self, message: String) -> Error {
        match self.cut {
            0 => self.inner.error_at_last(message),
            cut => self.inner.error_in_batch(cut, message),
        }
    }

    fn format(&self) -> &'static str {
        self.inner.format()
    }

    fn key_unit(&self) -> KeyUnit {
        self.inner.key_unit()
    }

    fn bad_lines(&self) -> u64 {
        self.inner.bad_lines()
    }

    fn timed(&self) -> bool {
        self.inner.timed()
    }

    fn repeats_ns(&self) -> Option<u64> {
        self.inner.repeats_ns()
    }

    fn progress(&self) -> (u64, u64) {
        self.inner.progress()
    }

    /// A stored column is the whole trace's: a pass over the slice computes its own.
    fn next_access_column(&mut self, _page_size: u32) -> Result<Option<Vec<u64>>> {
        Ok(None)
    }

    fn read_ahead(&self) -> bool {
        self.inner.read_ahead()
    }

    fn skip_count_checks(&mut self) {
        self.inner.skip_count_checks();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;
    use crate::trace::{open, TraceOptions};

    fn all(r: &mut dyn TraceReader) -> Result<Vec<HostRequest>> {
        let mut v = Vec::new();
        while let Some(x) = r.next_request()? {
            v.push(x);
        }
        Ok(v)
    }

    fn with(params: &[(&str, &str)]) -> TraceOptions {
        let params = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        TraceOptions { params, ..TraceOptions::default() }
    }

    const SPEC: &str = "synth:zipf,requests=1000,pages=200,write=0.3,seed=5";

    #[test]
    fn a_slice_is_exactly_the_requests_of_the_original_in_its_range() {
        let whole = all(open(SPEC, &TraceOptions::default()).unwrap().as_mut()).unwrap();
        assert_eq!(whole.len(), 1000);
        for (skip, take, range) in [
            (Some("0"), Some("1000"), 0..1000),
            (Some("250"), None, 250..1000),
            (None, Some("10"), 0..10),
            (Some("400"), Some("123"), 400..523),
            (Some("999"), Some("5"), 999..1000),
            (Some("10"), Some("5000"), 10..1000),
        ] {
            let mut p = vec![];
            p.extend(skip.map(|v| ("skip", v)));
            p.extend(take.map(|v| ("take", v)));
            let got = all(open(SPEC, &with(&p)).unwrap().as_mut()).unwrap();
            assert_eq!(got, whole[range.clone()], "{p:?}");
        }
    }

    /// A reader of `n` one-page requests in batches of `batch`, with a bad record at `bad`.
    struct Batches {
        n: u64,
        at: u64,
        batch: u64,
        bad: Option<u64>,
    }

    impl TraceReader for Batches {
        fn next_request(&mut self) -> Result<Option<HostRequest>> {
            if Some(self.at) == self.bad {
                return Err(Error::config(format!("bad record {}", self.at)));
            }
            if self.at == self.n {
                return Ok(None);
            }
            self.at += 1;
            Ok(Some(HostRequest { time_ns: self.at - 1, volume: 0, offset: (self.at - 1) * 4096, len: 4096, op: Op::Read }))
        }
        fn next_batch(&mut self, out: &mut Vec<HostRequest>) -> Result<()> {
            out.clear();
            while (out.len() as u64) < self.batch {
                match self.next_request()? {
                    Some(r) => out.push(r),
                    None => break,
                }
            }
            Ok(())
        }
        fn error_in_batch(&self, back: usize, message: String) -> Error {
            Error::config(format!("{message} at {}", self.at - 1 - back as u64))
        }
        fn format(&self) -> &'static str {
            "test"
        }
        fn progress(&self) -> (u64, u64) {
            (self.at, self.n)
        }
        fn error_at_last(&self, message: String) -> Error {
            self.error_in_batch(0, message)
        }
    }

    fn batches(r: &mut dyn TraceReader) -> Result<Vec<u64>> {
        let (mut v, mut out) = (Vec::new(), Vec::new());
        loop {
            let got = r.next_batch(&mut out);
            v.extend(out.iter().map(|x| x.time_ns));
            got?;
            if out.is_empty() {
                return Ok(v);
            }
        }
    }

    #[test]
    fn batches_are_sliced_as_single_requests_are() {
        let make = |bad| Box::new(Batches { n: 100, at: 0, batch: 7, bad }) as Box<dyn TraceReader>;
        let mut s = Sliced::new(make(None), Slice { skip: 30, take: Some(25) });
        assert_eq!(batches(&mut s).unwrap(), (30..55).collect::<Vec<_>>());
        // Batches of 7 from record 0: the first returned is 30..35 (28..35 read), then 35..42,
        // 42..49, and 49..55 of the 49..56 read: the last one returned is 54.
        let mut s = Sliced::new(make(None), Slice { skip: 30, take: Some(25) });
        let mut out = Vec::new();
        for first in [30, 35, 42, 49] {
            s.next_batch(&mut out).unwrap();
            assert_eq!(out[0].time_ns, first);
        }
        assert_eq!(out.len(), 6);
        assert_eq!(s.error_at_last("refused".into()).to_string(), "refused at 54");
        assert_eq!(s.error_in_batch(2, "refused".into()).to_string(), "refused at 52");
        // A bad record after the slice is never reached; one inside it is an error after the
        // requests before it.
        let mut s = Sliced::new(make(Some(60)), Slice { skip: 30, take: Some(25) });
        assert_eq!(batches(&mut s).unwrap().len(), 25);
        let mut s = Sliced::new(make(Some(40)), Slice { skip: 30, take: Some(25) });
        assert_eq!(batches(&mut s).unwrap_err().to_string(), "bad record 40");
        let mut s = Sliced::new(make(Some(40)), Slice { skip: 30, take: Some(25) });
        assert_eq!(all(&mut s).unwrap_err().to_string(), "bad record 40");
        // Skipping the whole trace leaves nothing to read: an error, in both ways of reading.
        let mut s = Sliced::new(make(None), Slice { skip: 100, take: None });
        assert!(batches(&mut s).unwrap_err().to_string().starts_with("trace.skip=100: expected fewer requests than the trace has (100)"));
        let mut s = Sliced::new(make(None), Slice { skip: 100, take: None });
        assert!(all(&mut s).unwrap_err().to_string().starts_with("trace.skip=100"));
    }

    #[test]
    fn bad_values_name_the_key() {
        let err = |p: &[(&str, &str)]| open(SPEC, &with(p)).err().unwrap().to_string();
        assert_eq!(err(&[("skip", "-1")]), "expected trace.skip (a number of requests, 0 or more), found '-1'");
        assert_eq!(err(&[("take", "ten")]), "expected trace.take (a number of requests, 1 or more), found 'ten'");
        assert_eq!(err(&[("take", "0")]), "trace.take=0: expected a number of requests, 1 or more (a slice holds at least one)");
    }
}
