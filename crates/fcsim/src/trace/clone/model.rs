//! The clone's model: what is fitted from a trace ([`Model::fit`]), and its text file
//! ([`Model::to_text`], [`Model::parse`]). The fields are documented in [`super`].

use super::arrivals::{Cascade, QUANTILES};
use crate::error::{Error, Location, Result};
use crate::mrc::StackDistances;
use crate::request::{KeyUnit, Op, PageSplitter};
use crate::trace::{Progress, TraceReader};
use rustc_hash::FxHashMap;
use std::fmt::Write as _;
use std::path::Path;

/// The page the model counts in (bytes).
pub const PAGE: u64 = 4096;
/// Windows of the working set's growth.
pub const WINDOWS: usize = 64;
/// The fewest reads and writes a trace needs to be fitted.
pub const MIN_REQUESTS: u64 = 100;
/// First line of a model file: its format. 2 since the renewal clone's counts are final; 3 since
/// they count a page shared by two sequential requests as request structure, not as a reference
/// of the page (the renewal module's `shares_page`); 4 since they count the new requests of each
/// class by their size (the renewal module's `class_sizes`); 5 since a page's class holds its pace
/// as well as its count (the renewal module's *Pace*); 6 since they count the reuse requests by the
/// pages of the request that last referenced their first page (the renewal module's *Reuse
/// requests*). A model of an older format still clones with
/// `model=stack` (the stack counts have not changed); its renewal counts are of an earlier
/// layout and are dropped, and `model=renewal` (the default) refuses it with its format and the
/// command that fits it again.
pub const MAGIC: &str = "fcsim-clone-model 6";
/// The first line without the format number.
const MAGIC_STEM: &str = "fcsim-clone-model ";
/// The format this fcsim writes; it reads 1 to this.
pub const FORMAT: u32 = 6;
/// The most all the counts of a model file may add up to (a model of a real trace holds far
/// fewer: cloudphysics' calibrated distances about 2^50). Below it no sum of counts the
/// generators take, nor two of them added, can wrap: an edited model could otherwise make a
/// draw over a wrapped total search for ever.
pub const MAX_COUNTS: u128 = 1 << 62;
/// The most pages a model may hold: the clones number pages in 32 bits.
pub const MAX_PAGES: u64 = u32::MAX as u64;
/// The largest model file read (decompressed bytes). What a model holds is bounded but for its
/// lists of distinct request sizes and run lengths: 2 × 3 lines of 64 counts per window, 64
/// transition lines, 12 histogram lines of at most 500 bins, at most 64 arrival levels of 64
/// classes × 16 quantiles, a profile of at most 4,096 counts and the renewal section's 129,024
/// states come to under 24 MiB at 20 digits a count; the largest models fitted here (cloudphysics,
/// a 50k-request sample of tencent) take 219-428 KB. 64 MiB leaves the size and run lists
/// room for millions of distinct values while an arbitrary file is refused before it is read
/// whole into memory.
pub const MAX_MODEL_BYTES: u64 = 64 << 20;

const OPS: [&str; 2] = ["read", "write"];
/// `[prev][op]` names of the distance classes.
const CLASSES: [[&str; 2]; 2] = [["read-after-read", "write-after-read"], ["read-after-write", "write-after-write"]];

/// A word of a model file as an error quotes it: whole up to 60 characters, else its first 60
/// and its length (a file with other line endings is one line, which the error would repeat).
pub fn clip(w: &str) -> String {
    match w.char_indices().nth(60) {
        Some((end, _)) => format!("{}... ({} bytes)", &w[..end], w.len()),
        None => w.to_string(),
    }
}

/// Bin of a count d ≥ 1 with 2^k bins per power of two: exact below 2^(k+1), then each power
/// of two cut into 2^k equal bins (the stack distances here, k = 3; the renewal clone's gaps,
/// k = 2).
#[inline]
pub fn log_bin(d: u64, k: u32) -> usize {
    let exact = 2u64 << k;
    if d < exact {
        return d as usize;
    }
    let e = 63 - d.leading_zeros();
    exact as usize + (((e - k - 1) as usize) << k) + ((d >> (e - k)) & ((1 << k) - 1)) as usize
}

/// The counts a [`log_bin`] bin holds: (first, how many).
#[inline]
pub fn log_bin_range(b: usize, k: u32) -> (u64, u64) {
    let exact = 2usize << k;
    if b < exact {
        return (b as u64, 1);
    }
    let e = ((b - exact) >> k) as u32 + k + 1;
    let sub = ((b - exact) & ((1 << k) - 1)) as u64;
    (((1 << k) + sub) << (e - k), 1 << (e - k))
}

/// Bin of a stack distance d ≥ 1: exact below 16, then 8 bins per power of two.
#[inline]
pub fn bin(d: u64) -> usize {
    log_bin(d, 3)
}

/// The distances a bin holds: (first, how many).
#[inline]
pub fn bin_range(b: usize) -> (u64, u64) {
    log_bin_range(b, 3)
}

/// The stack distances of a curve by bin; bin 0 counts first accesses.
pub fn page_bins(m: &crate::mrc::Mrc) -> Vec<u64> {
    let mut v = vec![m.cold];
    for (i, &c) in m.hist.iter().enumerate() {
        let b = bin(i as u64 + 1);
        if v.len() <= b {
            v.resize(b + 1, 0);
        }
        v[b] += c;
    }
    v
}

/// An empirical distribution of integer values: (value, count), values increasing.
pub type Values = Vec<(u64, u64)>;

fn values(map: FxHashMap<u64, u64>) -> Values {
    let mut v: Values = map.into_iter().collect();
    v.sort_unstable();
    v
}

/// A fitted clone model (see the module docs of [`super`] for what each part means).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The original trace's file name.
    pub source: String,
    /// Reads and writes of the original (trims are not modelled).
    pub requests: u64,
    /// Distinct 4 KiB pages (the working set).
    pub pages: u64,
    /// Page accesses.
    pub accesses: u64,
    /// Malformed lines of the original the fit skipped (read with `skip_bad_lines`; 0 without).
    pub skipped: u64,
    /// Per op and window: run-start requests, and those whose first page is new.
    pub windows: [Vec<[u64; 2]>; 2],
    /// Per op and window: pages first touched (the working set's growth).
    pub growth: [Vec<u64>; 2],
    /// Per window (of the later run's first request): runs of op `a` followed by a run of op
    /// `b`, `transitions[w][a][b]`.
    pub transitions: Vec<[[u64; 2]; 2]>,
    /// Per op: run lengths in requests.
    pub runs: [Values; 2],
    /// Per op: `len << 12 | offset within the page` of every run's first request.
    pub sizes: [Values; 2],
    /// Per op: the same of the requests that follow on in a run (larger, in real traces).
    pub follow: [Values; 2],
    /// `[prev][op]`: stack distances of run starts by bin ([`bin`]).
    pub distances: [[Vec<u64>; 2]; 2],
    /// `[prev][op]`: of those run starts, by the same bins, how many reuse a page last touched
    /// as the first page of its request.
    pub heads: [[Vec<u64>; 2]; 2],
    /// `[prev][op]`, by the same bins: of the others, how many reuse a page last touched as the
    /// last page of its request (a request that starts where an earlier one ended, in the same
    /// page).
    pub tails: [[Vec<u64>; 2]; 2],
    /// Stack distances of every page access by bin (bin 0: first accesses): the page-level curve
    /// the calibration aims at.
    pub target: Vec<u64>,
    /// Page numbers the clone leaves free before a run that starts on a new page (calibrated).
    pub gap: u64,
    /// The arrival cascade, `None` for an untimed trace.
    pub arrivals: Option<Cascade>,
    /// The renewal clone's counts ([`super::renewal`]); `None` in a model saved before them.
    pub renewal: Option<super::renewal::Counts>,
    /// The model file's format ([`FORMAT`] for a model fitted by this fcsim).
    pub format: u32,
}

impl Model {
    /// Fits a model to every read and write of `reader`; `path` names the trace in errors.
    pub fn fit(reader: &mut dyn TraceReader, path: &Path, mut progress: Option<Progress<'_>>) -> Result<Model> {
        if reader.key_unit() == KeyUnit::Object {
            return Err(Error::trace(
                path,
                Location::File,
                "its keys are object ids, not byte addresses; a clone models byte ranges (request sizes, sequential runs)",
            ));
        }
        let splitter = PageSplitter::new(PAGE as u32, KeyUnit::Bytes);
        let mut sd = StackDistances::new();
        // Per page: its last touch was a write (bit 0), was the first page of a request (bit 1).
        let mut last: FxHashMap<u64, u8> = FxHashMap::default();
        let mut heads: [[Vec<u64>; 2]; 2] = Default::default();
        let mut tails: [[Vec<u64>; 2]; 2] = Default::default();
        let mut last_end: [Option<(u32, u64)>; 2] = [None; 2];
        let mut run = [0u64; 2];
        let mut prev_run: Option<usize> = None;
        let mut switches: Vec<(u64, usize, usize)> = Vec::new();
        let mut runs: [FxHashMap<u64, u64>; 2] = Default::default();
        let mut sizes: [FxHashMap<u64, u64>; 2] = Default::default();
        let mut follow: [FxHashMap<u64, u64>; 2] = Default::default();
        let mut distances: [[Vec<u64>; 2]; 2] = Default::default();
        // (request index, op, first page new) of each run start.
        let mut starts: Vec<(u64, u8, bool)> = Vec::new();
        // (request index, op, pages it touched first) of each request that touched any.
        let mut cold: Vec<(u64, usize, u64)> = Vec::new();
        let mut times = Vec::new();
        let (mut i, mut accesses) = (0u64, 0u64);
        let mut seen = 0u64;
        while let Some(r) = reader.next_request()? {
            seen += 1;
            crate::trace::report(seen, reader, &mut progress)?;
            let o = match r.op {
                Op::Read => 0,
                Op::Write => 1,
                Op::Trim => continue,
            };
            let end = r.offset.saturating_add(u64::from(r.len));
            let seq = run[o] > 0 && last_end[o] == Some((r.volume, r.offset));
            last_end[o] = Some((r.volume, end));
            if seq {
                run[o] += 1;
            } else {
                if run[o] > 0 {
                    *runs[o].entry(run[o]).or_default() += 1;
                }
                run[o] = 1;
                if let Some(p) = prev_run {
                    switches.push((i, p, o));
                }
                prev_run = Some(o);
            }
            let table = if seq { &mut follow[o] } else { &mut sizes[o] };
            *table.entry((u64::from(r.len) << 12) | (r.offset % PAGE)).or_default() += 1;
            let (first, n) = splitter.pages(&r).map_err(|m| reader.error_at_last(m.to_string()))?;
            let mut new_pages = 0;
            for key in first..first + n {
                let d = sd.access(key)?;
                new_pages += u64::from(d.is_none());
                let prev = last.insert(key, o as u8 | u8::from(key == first) << 1 | u8::from(key == first + n - 1) << 2);
                if key == first && !seq {
                    starts.push((i, o as u8, d.is_none()));
                    if let (Some(d), Some(p)) = (d, prev) {
                        let b = bin(d);
                        let (head, tail) = (p & 2 != 0, p & 6 == 4);
                        let c = usize::from(p & 1);
                        for (h, n) in [(&mut distances[c][o], 1), (&mut heads[c][o], u64::from(head)), (&mut tails[c][o], u64::from(tail))]
                        {
                            if h.len() <= b {
                                h.resize(b + 1, 0);
                            }
                            h[b] += n;
                        }
                    }
                }
            }
            if new_pages > 0 {
                cold.push((i, o, new_pages));
            }
            accesses += n;
            times.push(r.time_ns);
            i += 1;
        }
        for (o, &n) in run.iter().enumerate() {
            if n > 0 {
                *runs[o].entry(n).or_default() += 1;
            }
        }
        if i < MIN_REQUESTS {
            return Err(Error::trace(
                path,
                Location::File,
                format!(
                    "has {i} reads and writes as read (the part a --volume or trace.skip/take keeps, if given); a clone \
                     needs at least {MIN_REQUESTS} to fit its distributions"
                ),
            ));
        }
        let mut windows: [Vec<[u64; 2]>; 2] = [vec![[0; 2]; WINDOWS], vec![[0; 2]; WINDOWS]];
        for (k, o, new) in starts {
            let w = &mut windows[usize::from(o)][(k as usize * WINDOWS) / i as usize];
            w[0] += 1;
            w[1] += u64::from(new);
        }
        let mut transitions = vec![[[0u64; 2]; 2]; WINDOWS];
        for (k, p, o) in switches {
            transitions[(k as usize * WINDOWS) / i as usize][p][o] += 1;
        }
        let mut growth = [vec![0u64; WINDOWS], vec![0u64; WINDOWS]];
        for (k, o, n) in cold {
            growth[o][(k as usize * WINDOWS) / i as usize] += n;
        }
        let arrivals = if reader.timed() { Cascade::fit(&mut times) } else { None };
        let sd = std::mem::take(&mut sd);
        let source = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        Ok(Model {
            source,
            requests: i,
            pages: sd.pages() as u64,
            target: page_bins(&sd.finish()),
            gap: 64,
            accesses,
            skipped: reader.bad_lines(),
            windows,
            growth,
            transitions,
            runs: runs.map(values),
            sizes: sizes.map(values),
            follow: follow.map(values),
            distances,
            heads,
            tails,
            arrivals,
            renewal: None,
            format: FORMAT,
        })
    }

    /// The most pages one request of the model spans.
    pub fn max_request_pages(&self) -> u64 {
        self.sizes.iter().chain(&self.follow).flatten().map(|&(x, _)| ((x & 0xfff) + (x >> 12).max(1)).div_ceil(PAGE)).max().unwrap_or(1)
    }

    /// The largest distance in the model (pages).
    pub fn max_distance(&self) -> u64 {
        let top = self.distances.iter().flatten().filter_map(|h| h.iter().rposition(|&c| c > 0)).max();
        top.map_or(1, |b| {
            let (lo, n) = bin_range(b);
            lo + n - 1
        })
    }

    /// The model as text (see [`Model::parse`]).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{MAGIC}");
        let _ = writeln!(s, "# fitted by fcsim {}; a clone of it: synth:clone=THIS_FILE", env!("CARGO_PKG_VERSION"));
        let _ = writeln!(s, "source {}", self.source.replace(['\n', '\r'], " "));
        let _ = writeln!(s, "requests {}", self.requests);
        let _ = writeln!(s, "pages {}", self.pages);
        let _ = writeln!(s, "accesses {}", self.accesses);
        if self.skipped > 0 {
            let _ = writeln!(s, "skipped {}", self.skipped);
        }
        for (o, name) in OPS.iter().enumerate() {
            let join = |k: usize| self.windows[o].iter().map(|w| w[k].to_string()).collect::<Vec<_>>().join(" ");
            let _ = writeln!(s, "starts {name} {}", join(0));
            let _ = writeln!(s, "new {name} {}", join(1));
        }
        for (o, name) in OPS.iter().enumerate() {
            let _ = writeln!(s, "growth {name} {}", self.growth[o].iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "));
        }
        for (w, t) in self.transitions.iter().enumerate() {
            let _ = writeln!(s, "transitions {w} {} {} {} {}", t[0][0], t[0][1], t[1][0], t[1][1]);
        }
        let pairs = |v: &Values, f: &dyn Fn(u64) -> String| v.iter().map(|&(x, c)| format!("{}:{c}", f(x))).collect::<Vec<_>>().join(" ");
        for (o, name) in OPS.iter().enumerate() {
            let _ = writeln!(s, "runs {name} {}", pairs(&self.runs[o], &|x| x.to_string()));
            let _ = writeln!(s, "sizes {name} {}", pairs(&self.sizes[o], &|x| format!("{}+{}", x >> 12, x & 0xfff)));
            let _ = writeln!(s, "follow {name} {}", pairs(&self.follow[o], &|x| format!("{}+{}", x >> 12, x & 0xfff)));
        }
        for (p, row) in CLASSES.iter().enumerate() {
            for (o, name) in row.iter().enumerate() {
                let h = &self.distances[p][o];
                let bins: Vec<String> = h.iter().enumerate().filter(|(_, &c)| c > 0).map(|(b, c)| format!("{b}:{c}")).collect();
                let _ = writeln!(s, "distances {name} {}", bins.join(" "));
                for (key, h) in [("heads", &self.heads[p][o]), ("tails", &self.tails[p][o])] {
                    let bins: Vec<String> = h.iter().enumerate().filter(|(_, &c)| c > 0).map(|(b, c)| format!("{b}:{c}")).collect();
                    let _ = writeln!(s, "{key} {name} {}", bins.join(" "));
                }
            }
        }
        let t: Vec<String> = self.target.iter().enumerate().filter(|(_, &c)| c > 0).map(|(b, c)| format!("{b}:{c}")).collect();
        let _ = writeln!(s, "target {}", t.join(" "));
        let _ = writeln!(s, "gap {}", self.gap);
        if let Some(c) = &self.arrivals {
            let _ = writeln!(s, "arrivals {} {}", c.root_ns, c.levels.len());
            let _ = writeln!(s, "profile {}", c.profile.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "));
            for (l, row) in c.levels.iter().enumerate() {
                let classes: Vec<String> = row
                    .iter()
                    .enumerate()
                    .filter(|(_, q)| !q.is_empty())
                    .map(|(k, q)| format!("{k}:{}", q.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")))
                    .collect();
                let _ = writeln!(s, "level {l} {}", classes.join(" "));
            }
        }
        if let Some(r) = &self.renewal {
            r.write(&mut s);
        }
        let _ = writeln!(s, "end");
        s
    }

    /// Writes the model to `path`, atomically (through [`crate::trace::convert::AtomicFile`]: a
    /// temporary file renamed over it, never over what is not a regular file).
    pub fn save(&self, path: &Path) -> Result<()> {
        let (file, mut f) = crate::trace::convert::AtomicFile::create(path)?;
        std::io::Write::write_all(&mut f, self.to_text().as_bytes()).map_err(|e| Error::io(path, &e))?;
        drop(f);
        file.commit()
    }

    /// Whether `head` (a file's first bytes) starts a model file.
    /// Its first line that is not blank or a comment, after a UTF-8 byte-order mark, starts with
    /// the magic word `fcsim-clone-model` (any format number after it: [`Model::parse`] says
    /// which formats it reads).
    pub fn is_model(head: &[u8]) -> bool {
        let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
        let first = head.split(|&b| b == b'\n').map(|l| l.trim_ascii()).find(|l| !l.is_empty() && !l.starts_with(b"#"));
        first.is_some_and(|l| l.starts_with(MAGIC_STEM.trim_end().as_bytes()))
    }

    /// Parses a model file's text; errors name `path`, the line and what was expected.
    pub fn parse(text: &str, path: &Path) -> Result<Model> {
        let bad = |line: usize, what: String| Error::trace(path, Location::Line(line as u64), what);
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let format = match lines.next() {
            Some((n, l)) if l.starts_with(MAGIC_STEM.trim_end()) => match l.strip_prefix(MAGIC_STEM).map(|v| v.trim().parse::<u32>()) {
                Some(Ok(v @ 1..=FORMAT)) => v,
                _ => {
                    return Err(bad(
                        n,
                        format!(
                            "'{}': a model format this fcsim does not read (it reads 1 to {FORMAT}); fit it again with this fcsim: 'fcsim trace clone TRACE -o MODEL'",
                            clip(l)
                        ),
                    ))
                }
            },
            Some((n, _)) => return Err(bad(n, format!("expected '{MAGIC}': this is not a clone model (made by fcsim trace clone)"))),
            None => return Err(Error::trace(path, Location::File, "empty file: not a clone model")),
        };
        let mut m = Model {
            source: String::new(),
            requests: 0,
            pages: 0,
            accesses: 0,
            skipped: 0,
            windows: [Vec::new(), Vec::new()],
            growth: [Vec::new(), Vec::new()],
            transitions: vec![[[0; 2]; 2]; WINDOWS],
            runs: Default::default(),
            sizes: Default::default(),
            follow: Default::default(),
            distances: Default::default(),
            heads: Default::default(),
            tails: Default::default(),
            target: Vec::new(),
            gap: 64,
            arrivals: None,
            renewal: None,
            format,
        };
        // The name of each line read (its key, and its op, window, classes or state) with its
        // number: a line given again is refused (it was read over the first), and each line the
        // writer always writes must be there.
        let mut named: FxHashMap<String, usize> = FxHashMap::default();
        let mut levels_left = 0usize;
        let mut profile_due = false;
        let mut ended = false;
        // The counts of the lines so far (every number of a renewal line).
        let mut counts = 0u128;
        // The largest single count so far: (count, line, key).
        let mut top = (0u64, 0usize, "");
        for (n, line) in lines {
            if ended {
                return Err(bad(n, "text after 'end'".into()));
            }
            let mut words = line.split_whitespace();
            let key = words.next().unwrap_or("");
            let rest: Vec<&str> = words.collect();
            // Digits only, as the writer writes them (`+3` parses as a u64 too).
            let digits = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
            let num = |w: &str, what: &str| -> Result<u64> {
                w.parse::<u64>().ok().filter(|_| digits(w)).ok_or_else(|| {
                    if digits(w) {
                        bad(n, format!("{key}: {w} is past 2^64 - 1, the most a count holds; expected {what} of a trace as 'fcsim trace clone' writes it (an edited model?)"))
                    } else {
                        bad(n, format!("{key}: expected {what}, found '{}'", clip(w)))
                    }
                })
            };
            // A count (of requests, pages, accesses), added to the model's total.
            let line_counts = std::cell::Cell::new(0u128);
            let line_top = std::cell::Cell::new(0u64);
            let count = |w: &str| -> Result<u64> {
                let v = num(w, "a count")?;
                line_counts.set(line_counts.get() + u128::from(v));
                line_top.set(line_top.get().max(v));
                Ok(v)
            };
            let op = |w: Option<&&str>| -> Result<usize> {
                match w.copied() {
                    Some("read") => Ok(0),
                    Some("write") => Ok(1),
                    other => Err(bad(n, format!("{key}: expected read or write, found '{}'", other.unwrap_or("")))),
                }
            };
            let pair = |w: &str, what: &str| -> Result<(String, u64)> {
                let (a, c) = w.split_once(':').ok_or_else(|| bad(n, format!("{key}: expected {what}:COUNT, found '{}'", clip(w))))?;
                Ok((a.to_string(), count(c)?))
            };
            if profile_due && key != "profile" {
                return Err(bad(n, "expected the 'profile' line after 'arrivals'".into()));
            }
            if levels_left > 0 && key != "level" && key != "profile" {
                return Err(bad(n, format!("expected {levels_left} more 'level' lines of the arrivals")));
            }
            match key {
                "source" => m.source = rest.join(" "),
                "requests" | "pages" | "accesses" => {
                    let [v] = rest[..] else { return Err(bad(n, format!("{key}: expected one count"))) };
                    let v = count(v)?;
                    match key {
                        "requests" => m.requests = v,
                        "pages" if v > MAX_PAGES => {
                            return Err(bad(n, format!("pages: {v}; expected at most {MAX_PAGES} (clones number pages in 32 bits)")))
                        }
                        "pages" => m.pages = v,
                        _ => m.accesses = v,
                    }
                }
                "skipped" => {
                    let [v] = rest[..] else { return Err(bad(n, format!("{key}: expected one count"))) };
                    m.skipped = num(v, "a count of lines")?;
                }
                "starts" | "new" => {
                    let o = op(rest.first())?;
                    if rest.len() != WINDOWS + 1 {
                        return Err(bad(n, format!("{key}: expected read or write and {WINDOWS} counts, found {} counts", rest.len().saturating_sub(1))));
                    }
                    let w = &mut m.windows[o];
                    w.resize(WINDOWS, [0; 2]);
                    for (k, x) in rest[1..].iter().enumerate() {
                        w[k][usize::from(key == "new")] = count(x)?;
                    }
                }
                "target" => {
                    for w in &rest {
                        let (b, c) = pair(w, "BIN")?;
                        let b = num(&b, "a bin number")? as usize;
                        if b > bin(u64::MAX >> 1) {
                            return Err(bad(n, format!("target: bin {b} out of range")));
                        }
                        if m.target.len() <= b {
                            m.target.resize(b + 1, 0);
                        }
                        m.target[b] = m.target[b].saturating_add(c);
                    }
                }
                "gap" => {
                    let [g] = rest[..] else { return Err(bad(n, "gap: expected one number of pages".into())) };
                    m.gap = num(g, "a number of pages")?;
                    if m.gap > 1 << 20 {
                        return Err(bad(n, format!("gap: {} pages; expected at most 2^20", m.gap)));
                    }
                }
                "growth" => {
                    let o = op(rest.first())?;
                    if rest.len() != WINDOWS + 1 {
                        return Err(bad(n, format!("growth: expected read or write and {WINDOWS} counts, found {} counts", rest.len().saturating_sub(1))));
                    }
                    m.growth[o] = rest[1..].iter().map(|x| count(x)).collect::<Result<_>>()?;
                }
                "transitions" => {
                    if rest.len() != 5 {
                        return Err(bad(n, "transitions: expected a window and 4 counts (read-read read-write write-read write-write)".into()));
                    }
                    let w = num(rest[0], "a window")? as usize;
                    if w >= WINDOWS {
                        return Err(bad(n, format!("transitions: window {w}; expected 0 to {}", WINDOWS - 1)));
                    }
                    for (k, x) in rest[1..].iter().enumerate() {
                        m.transitions[w][k / 2][k % 2] = count(x)?;
                    }
                }
                "runs" | "sizes" | "follow" => {
                    let o = op(rest.first())?;
                    let mut v = Values::new();
                    for w in &rest[1..] {
                        let (x, c) = pair(w, if key == "runs" { "LENGTH" } else { "BYTES+OFFSET" })?;
                        let x = if key == "runs" {
                            let l = num(&x, "a run length")?;
                            if l == 0 {
                                return Err(bad(n, "runs: a run length is at least 1".into()));
                            }
                            l
                        } else {
                            let (len, off) = x.split_once('+').ok_or_else(|| bad(n, format!("sizes: expected BYTES+OFFSET:COUNT, found '{}'", clip(w))))?;
                            let (len, off) = (num(len, "a size in bytes")?, num(off, "an offset within the page")?);
                            if len > crate::request::MAX_REQUEST_BYTES || off >= PAGE {
                                return Err(bad(n, format!("sizes: '{}': a size is at most 1 GiB and an offset below {PAGE}", clip(w))));
                            }
                            len << 12 | off
                        };
                        v.push((x, c));
                    }
                    v.sort_unstable();
                    match key {
                        "runs" => m.runs[o] = v,
                        "sizes" => m.sizes[o] = v,
                        _ => m.follow[o] = v,
                    }
                }
                "distances" | "heads" | "tails" => {
                    let class = rest.first().copied().unwrap_or("");
                    let (p, o) = (0..4)
                        .map(|k| (k / 2, k % 2))
                        .find(|&(p, o)| CLASSES[p][o] == class)
                        .ok_or_else(|| bad(n, format!("distances: expected a class (read-after-read, write-after-read, read-after-write, write-after-write), found '{class}'")))?;
                    let h = match key {
                        "heads" => &mut m.heads[p][o],
                        "tails" => &mut m.tails[p][o],
                        _ => &mut m.distances[p][o],
                    };
                    for w in &rest[1..] {
                        let (b, c) = pair(w, "BIN")?;
                        let b = num(&b, "a bin number")? as usize;
                        if b == 0 || b > bin(u64::MAX >> 1) {
                            return Err(bad(n, format!("distances: bin {b} out of range")));
                        }
                        if h.len() <= b {
                            h.resize(b + 1, 0);
                        }
                        h[b] = h[b].saturating_add(c);
                    }
                }
                "arrivals" => {
                    let [root, levels] = rest[..] else {
                        return Err(bad(n, "arrivals: expected the span's length (ns) and the number of levels".into()));
                    };
                    let root_ns: f64 = root.parse().ok().filter(|x: &f64| x.is_finite() && *x > 0.0).ok_or_else(|| bad(n, format!("arrivals: expected a positive length in ns, found '{root}'")))?;
                    let levels = num(levels, "a number of levels")? as usize;
                    if levels == 0 || levels > 64 {
                        return Err(bad(n, format!("arrivals: {levels} levels; expected 1 to 64")));
                    }
                    m.arrivals = Some(Cascade { root_ns, profile: Vec::new(), levels: Vec::with_capacity(levels) });
                    levels_left = levels;
                    profile_due = true;
                }
                "profile" => {
                    let Some(c) = m.arrivals.as_mut().filter(|_| profile_due) else {
                        return Err(bad(n, "profile: belongs right after an 'arrivals' line".into()));
                    };
                    c.profile = rest.iter().map(|x| count(x)).collect::<Result<_>>()?;
                    let k = c.profile.len();
                    if !k.is_power_of_two() || k > 1 << super::arrivals::PROFILE_LEVEL || c.profile.iter().all(|&x| x == 0) {
                        return Err(bad(n, format!("profile: expected a power of two of counts, at most 2^{}, not all 0; found {k}", super::arrivals::PROFILE_LEVEL)));
                    }
                    profile_due = false;
                }
                "level" => {
                    let Some(c) = m.arrivals.as_mut().filter(|_| levels_left > 0) else {
                        return Err(bad(n, "level: a level line belongs after an 'arrivals' line, as many as it says".into()));
                    };
                    let l = rest.first().map(|w| num(w, "a level number")).transpose()?;
                    if l != Some(c.levels.len() as u64) {
                        return Err(bad(n, format!("level: expected level {}", c.levels.len())));
                    }
                    let mut row: Vec<Vec<f32>> = Vec::new();
                    for w in &rest[1..] {
                        let (k, q) = w.split_once(':').ok_or_else(|| bad(n, format!("level: expected CLASS:Q1,...,Q{QUANTILES}, found '{}'", clip(w))))?;
                        let k = num(k, "a class")? as usize;
                        if k >= 64 {
                            return Err(bad(n, format!("level: class {k} out of range (0 to 63)")));
                        }
                        let q: Vec<f32> = q
                            .split(',')
                            .map(|x| x.parse::<f32>().ok().filter(|x| (0.0..=1.0).contains(x)))
                            .collect::<Option<_>>()
                            .filter(|q: &Vec<f32>| q.len() == QUANTILES && q.windows(2).all(|w| w[0] <= w[1]))
                            .ok_or_else(|| bad(n, format!("level: class {k}: expected {QUANTILES} increasing shares in [0, 1]")))?;
                        if row.len() <= k {
                            row.resize(k + 1, Vec::new());
                        }
                        row[k] = q;
                    }
                    c.levels.push(row);
                    levels_left -= 1;
                }
                // An older format's renewal counts are of another layout: dropped unread.
                "renewal" if format < FORMAT => {}
                "renewal" => {
                    m.renewal.get_or_insert_with(Default::default).parse_line(&rest).map_err(|e| bad(n, e))?;
                    // Every number on the line, its states' and bins' indices too: a bound on
                    // its counts, added as the line is read.
                    let numbers = rest.iter().flat_map(|w| w.split([':', ',', '+'])).filter_map(|x| x.parse::<u64>().ok());
                    let (sum, top) = numbers.fold((0u128, 0u64), |(s, t), x| (s + u128::from(x), t.max(x)));
                    line_counts.set(sum);
                    line_top.set(top);
                }
                "end" => ended = true,
                _ => return Err(bad(n, format!("unknown key '{}'; expected source, requests, pages, accesses, skipped, starts, new, growth, transitions, runs, sizes, follow, distances, heads, tails, target, gap, arrivals, profile, level, renewal or end", clip(key)))),
            }
            counts += line_counts.get();
            if line_top.get() > top.0 {
                top = (line_top.get(), n, key);
            }
            if counts > MAX_COUNTS {
                // Name the largest count read so far: the one that took the sum past the bound
                // (a later line of small counts only tips it over).
                let (v, at, k) = top;
                let largest = if at == n { format!("{k} {v} on this line") } else { format!("{k} {v} on line {at}") };
                return Err(bad(
                    n,
                    format!(
                        "{key}: the model's counts add up past 2^62 by this line (the largest: {largest}); expected the counts of a trace's requests and pages as 'fcsim trace clone' writes them (an edited model?)"
                    ),
                ));
            }
            // The words that name the line: its key, and its op, window, classes or state.
            let words = match (key, rest.first().copied()) {
                ("starts" | "new" | "growth" | "transitions" | "runs" | "sizes" | "follow" | "distances" | "heads" | "tails", _) => 2,
                ("renewal", Some("class-sizes" | "reuse")) => 4,
                ("renewal", Some("new-pages" | "sizes" | "state")) => 3,
                ("renewal", _) => 2,
                _ => 1,
            };
            if !matches!(key, "level" | "end") {
                let name = line.split_whitespace().take(words).collect::<Vec<_>>().join(" ");
                if let Some(at) = named.get(&name) {
                    return Err(bad(n, format!("'{}' is given again (line {at} gave it); a model names each line once", clip(&name))));
                }
                named.insert(name, n);
            }
        }
        // A check across lines names the line it is about (the file, when that line is missing).
        let on = |name: &str| named.get(name).map_or(Location::File, |&at| Location::Line(at as u64));
        let missing = |name: String| Error::trace(path, Location::File, format!("no '{name}' line: not a complete clone model"));
        // The first window below [`WINDOWS`] with no line named `prefix` and that window.
        let gap = |prefix: &str| {
            let given: Vec<u64> = named.keys().filter_map(|k| k.strip_prefix(prefix)?.parse().ok()).collect();
            (0..WINDOWS as u64).find(|w| !given.contains(w))
        };
        for (p, o) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            let (h, t, d) = (&m.heads[p][o], &m.tails[p][o], &m.distances[p][o]);
            let at = |v: &Vec<u64>, b: usize| v.get(b).copied().unwrap_or(0);
            if (0..h.len().max(t.len())).any(|b| at(h, b) + at(t, b) > at(d, b)) {
                let class = CLASSES[p][o];
                return Err(Error::trace(
                    path,
                    on(&format!("heads {class}")),
                    format!("heads and tails {class}: a bin has more of them than distances"),
                ));
            }
        }
        if levels_left > 0 || profile_due {
            return Err(Error::trace(path, Location::File, "the arrivals end before their profile and levels: truncated"));
        }
        if !ended {
            let lines = text.lines().count();
            return Err(bad(lines.max(1), "the file ends before its 'end' line: truncated".into()));
        }
        for key in ["source", "requests", "pages", "starts", "new", "growth", "transitions", "runs", "sizes", "follow"] {
            if !named.keys().any(|k| k.split(' ').next() == Some(key)) {
                return Err(missing(key.to_string()));
            }
        }
        if let Some(w) = gap("transitions ") {
            return Err(missing(format!("transitions {w}")));
        }
        if let Some(r) = &m.renewal {
            let reuse = named.keys().any(|k| k.starts_with("renewal reuse "));
            // (`reuse` and its `reuse-sequential` are written for a trace with reuse requests
            // only: a model without them clones its blocks whole.)
            let always = ["ticks", "sequential", "sizes read", "sizes write", "shared"];
            for key in always.into_iter().chain(reuse.then_some("reuse-sequential")) {
                let name = format!("renewal {key}");
                if !named.contains_key(&name) {
                    return Err(missing(name));
                }
            }
            if let Some(w) = gap("renewal new-pages ") {
                return Err(missing(format!("renewal new-pages {w}")));
            }
            r.check().map_err(|e| {
                let key = e.split([' ', ':']).take(2).collect::<Vec<_>>().join(" ");
                Error::trace(path, on(&key), e)
            })?;
        }
        if m.requests == 0 || m.pages == 0 {
            return Err(Error::trace(path, on(if m.requests == 0 { "requests" } else { "pages" }), "requests and pages must be positive"));
        }
        let total = |o: usize| m.sizes[o].iter().map(|x| x.1).sum::<u64>();
        if total(0) + total(1) == 0 {
            return Err(Error::trace(path, on("sizes read"), "no request sizes: the sizes lines are empty"));
        }
        for (o, name) in OPS.iter().enumerate() {
            if total(o) > 0 && m.runs[o].iter().map(|x| x.1).sum::<u64>() == 0 {
                return Err(Error::trace(path, on(&format!("runs {name}")), format!("{name} requests have sizes but no run lengths")));
            }
            if m.runs[o].iter().any(|r| r.0 > 1) && m.follow[o].is_empty() {
                return Err(Error::trace(
                    path,
                    on(&format!("follow {name}")),
                    format!("{name} runs longer than one request but no 'follow' sizes"),
                ));
            }
            if m.windows[o].iter().any(|w| w[1] > w[0]) {
                return Err(Error::trace(
                    path,
                    on(&format!("new {name}")),
                    format!("new {name}: a window has more new run starts than run starts"),
                ));
            }
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_every_distance_once() {
        let mut next = 1;
        for b in 1..200 {
            let (lo, n) = bin_range(b);
            assert_eq!(lo, next, "bin {b}");
            for d in [lo, lo + n - 1] {
                assert_eq!(bin(d), b);
            }
            next = lo + n;
        }
    }
}
