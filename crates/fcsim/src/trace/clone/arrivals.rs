//! Bursty arrivals: a conservative binary cascade fitted level by level (see the module docs of
//! [`super`]). The fit splits the trace's span in halves, quarters, ... down to about a
//! microsecond and records, at each level and for each order of magnitude (power of two) of a
//! parent interval's count, the distribution of the share of its arrivals that fall in its
//! first half. Generation splits a count the same way, depth first, so arrivals come out in
//! time order with a stack of one node per level.

use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Quantiles kept per (level, count class).
pub const QUANTILES: usize = 16;
/// Samples a (level, class) needs for its own quantiles; fewer fall back to a neighbour.
const MIN_SAMPLES: usize = 8;
/// Levels end where an interval is shorter than this (ns).
const FINEST_NS: f64 = 1000.0;
/// The profile's level: at most 2^12 steps.
pub const PROFILE_LEVEL: usize = 12;
/// The deepest level fitted.
const MAX_LEVELS: usize = 48;

/// The class that holds a level's samples of every count.
pub const POOLED: usize = 63;

/// Class of a parent count n ≥ 2: floor(log2 n) - 1.
#[inline]
fn class(n: u64) -> usize {
    (63 - n.leading_zeros()) as usize - 1
}

/// The fitted cascade: the root interval's length and count, and per level and count class
/// the quantiles of the first half's share (empty where the trace had too few samples).
#[derive(Debug, Clone, PartialEq)]
pub struct Cascade {
    pub root_ns: f64,
    /// Arrivals in each of the span's 2^k equal steps (k the profile's level, at most
    /// [`PROFILE_LEVEL`]): the rate over time, replayed.
    pub profile: Vec<u64>,
    /// `levels[l][c]`: sorted quantiles, or empty.
    pub levels: Vec<Vec<Vec<f32>>>,
}

impl Cascade {
    /// Fits the cascade to arrival times (any order); `None` with fewer than two distinct times.
    pub fn fit(times: &mut [u64]) -> Option<Cascade> {
        times.sort_unstable();
        let (t0, t1) = (*times.first()?, *times.last()?);
        if t1 == t0 {
            return None;
        }
        let n = times.len() as u64;
        // One mean gap past the last arrival, so that it falls inside the root.
        let root_ns = (t1 - t0) as f64 * n as f64 / (n - 1) as f64;
        let depth = ((root_ns / FINEST_NS).log2().ceil().max(1.0) as usize).min(MAX_LEVELS);
        let leaf = |t: u64| -> u64 {
            let x = ((t - t0) as f64 / root_ns * (1u64 << depth) as f64) as u64;
            x.min((1u64 << depth) - 1)
        };
        let idx: Vec<u64> = times.iter().map(|&t| leaf(t)).collect();
        let mut levels = Vec::with_capacity(depth);
        for l in 0..depth {
            let shift = depth - l;
            let mut samples: Vec<Vec<f32>> = Vec::new();
            let mut i = 0;
            while i < idx.len() {
                let parent = idx[i] >> shift;
                let (mut total, mut left) = (0u64, 0u64);
                while i < idx.len() && idx[i] >> shift == parent {
                    total += 1;
                    left += u64::from((idx[i] >> (shift - 1)) & 1 == 0);
                    i += 1;
                }
                if total >= 2 {
                    let c = class(total);
                    if samples.len() <= c {
                        samples.resize(c + 1, Vec::new());
                    }
                    samples[c].push(left as f32 / total as f32);
                }
            }
            let quantiles = |s: &mut Vec<f32>| -> Vec<f32> {
                s.sort_unstable_by(f32::total_cmp);
                (0..QUANTILES).map(|k| s[(k * (s.len() - 1) + (QUANTILES - 1) / 2) / (QUANTILES - 1)]).collect()
            };
            let mut all: Vec<f32> = samples.iter().flatten().copied().collect();
            let mut q: Vec<Vec<f32>> =
                samples.into_iter().map(|mut s| if s.len() < MIN_SAMPLES { Vec::new() } else { quantiles(&mut s) }).collect();
            // Every class's samples together, as class POOLED: what a class with too few
            // samples draws from (the coarsest levels have one to a few intervals).
            if !all.is_empty() {
                q.resize(POOLED + 1, Vec::new());
                q[POOLED] = quantiles(&mut all);
            }
            levels.push(q);
        }
        let top = PROFILE_LEVEL.min(depth);
        let mut profile = vec![0u64; 1 << top];
        for &x in &idx {
            profile[(x >> (depth - top)) as usize] += 1;
        }
        Some(Cascade { root_ns, profile, levels })
    }

    /// The quantiles for a level and count class: its own, else the level's pooled ones, else
    /// those of the nearest level with any (coarser levels first); a fair split if none.
    fn lookup(&self, level: usize, c: usize) -> Option<(usize, usize)> {
        let near = |l: usize| -> Option<(usize, usize)> {
            let row = &self.levels[l];
            [c, POOLED].into_iter().find(|&k| row.get(k).is_some_and(|q| !q.is_empty())).map(|k| (l, k))
        };
        let n = self.levels.len();
        (0..n).flat_map(|k| [level.checked_sub(k), Some(level + k)]).flatten().filter(|&l| l < n).find_map(near)
    }
}

/// One interval waiting to be split: its start, level and count.
#[derive(Debug, Clone, Copy)]
struct Node {
    start: f64,
    level: u32,
    count: u64,
}

/// Streams arrival times of a [`Cascade`]: its profile's steps in order, each split by the
/// cascade's levels below it; after the last step the profile starts again, at a random step
/// (seeded), one profile's span later.
///
/// The split goes down the first half of each interval at once and keeps only the second
/// halves that hold arrivals on its stack: the same draws, in the same order, as splitting
/// every interval and visiting both halves.
///
/// Arrivals draw from their own generator ([`SmallRng`], rand's xoshiro256++), seeded from the
/// clone's seed, not from the stream the pages draw from: a split is one 64-bit draw (its top
/// bits pick the share from the level's table, its low 32 bits round the count), where the
/// clone's ChaCha stream took two (the share interpolated between quantiles per split).
#[derive(Debug)]
pub struct Arrivals {
    rng: SmallRng,
    /// Per level × [`POOLED`] + count class: the row of `shares` to draw the share from (row 0
    /// is a fair split, every entry 1/2).
    table: Vec<u32>,
    /// The quantile rows the table points at, precomputed: entry k is the share interpolated
    /// between the 16 quantiles at (k + 1/2) / [`SHARES`] of the way (the midpoint of the k-th
    /// of [`SHARES`] equal slices of the draw).
    shares: Vec<[f32; SHARES]>,
    /// Levels fitted.
    levels: u32,
    /// An interval's length per level (ns).
    len: Vec<f64>,
    /// Arrivals per step of the profile.
    profile: Vec<u64>,
    root_ns: f64,
    stack: Vec<Node>,
    /// The leaf being emitted, all of its arrivals at its start: its start and the arrivals left.
    tied: (f64, u64),
    /// The profile's level, how many steps of this pass are done, the pass's first step and
    /// start time.
    top: u32,
    done: usize,
    pass: (usize, f64),
}

/// Entries of a precomputed share row (a power of two: a draw's top bits index it).
pub const SHARES: usize = 64;
/// Mixed into the clone's seed for the arrivals' generator, so that its stream is not the
/// pages' (the two generators would otherwise start from the same expanded seed).
const SALT: u64 = 0x6172_7269_7661_6c73;

impl Arrivals {
    /// The arrival process of `cascade`, its draws seeded from `seed` (the clone's).
    pub fn new(cascade: Cascade, seed: u64) -> Arrivals {
        let levels = cascade.levels.len();
        let mut shares: Vec<[f32; SHARES]> = vec![[0.5; SHARES]];
        let mut index: Vec<((usize, usize), u32)> = Vec::new();
        let mut table = Vec::with_capacity(levels * POOLED);
        for l in 0..levels {
            for c in 0..POOLED {
                table.push(match cascade.lookup(l, c) {
                    Some(at) => match index.iter().find(|e| e.0 == at) {
                        Some(e) => e.1,
                        None => {
                            let q = &cascade.levels[at.0][at.1];
                            let row = std::array::from_fn(|k| {
                                let x = (k as f64 + 0.5) / SHARES as f64 * (QUANTILES - 1) as f64;
                                let (i, f) = (x as usize, x.fract());
                                let hi = q[(i + 1).min(QUANTILES - 1)];
                                (f64::from(q[i]) * (1.0 - f) + f64::from(hi) * f) as f32
                            });
                            shares.push(row);
                            index.push((at, shares.len() as u32 - 1));
                            shares.len() as u32 - 1
                        }
                    },
                    None => 0,
                });
            }
        }
        let len = (0..levels.max(PROFILE_LEVEL) + 1).map(|l| cascade.root_ns / (1u64 << l) as f64).collect();
        let top = cascade.profile.len().trailing_zeros();
        Arrivals {
            rng: SmallRng::seed_from_u64(seed ^ SALT),
            table,
            shares,
            levels: levels as u32,
            len,
            profile: cascade.profile,
            root_ns: cascade.root_ns,
            stack: Vec::with_capacity(64),
            tied: (0.0, 0),
            top,
            done: 0,
            pass: (0, 0.0),
        }
    }

    /// The next arrival time (ns), non-decreasing.
    #[inline]
    pub fn next(&mut self) -> f64 {
        if self.tied.1 > 0 {
            self.tied.1 -= 1;
            return self.tied.0;
        }
        loop {
            let mut node = match self.stack.pop() {
                Some(n) => n,
                None => {
                    let p = &self.profile;
                    if self.done == p.len() {
                        self.pass = (self.rng.gen_range(0..p.len()), self.pass.1 + self.root_ns);
                        self.done = 0;
                    }
                    let k = (self.pass.0 + self.done) % p.len();
                    self.done += 1;
                    let step = self.len[self.top as usize];
                    Node { start: self.pass.1 + (self.done - 1) as f64 * step, level: self.top, count: p[k] }
                }
            };
            while node.count > 0 {
                let len = self.len[node.level as usize];
                if node.count == 1 {
                    // A leaf of one arrival: uniform in its interval.
                    return node.start + self.rng.gen::<f64>() * len;
                }
                if node.level + 1 >= self.levels {
                    // The finest level: its arrivals share its start.
                    self.tied = (node.start, node.count - 1);
                    return node.start;
                }
                let c = class(node.count).min(POOLED - 1);
                let row = self.table[node.level as usize * POOLED + c] as usize;
                let r = self.rng.next_u64();
                let share = f64::from(self.shares[row][(r >> (64 - SHARES.trailing_zeros())) as usize]);
                let u = (r & 0xffff_ffff) as f64 * (1.0 / 4_294_967_296.0);
                let left = ((node.count as f64 * share + u) as u64).min(node.count);
                let level = node.level + 1;
                if left < node.count {
                    self.stack.push(Node { start: node.start + len / 2.0, level, count: node.count - left });
                }
                node = Node { start: node.start, level, count: left };
            }
        }
    }
}

/// Arrival times per block passed between the threads.
const BLOCK: usize = 4096;
/// Blocks in flight: filled and waiting, plus the one being filled.
const BLOCKS: usize = 4;
/// Times drawn inline, on the clone's thread, before the thread starts: a clone shorter than
/// this starts none. The thread draws up to [`BLOCKS`] + 1 blocks ahead of the clone, and a
/// renewal clone without `length=` does not know its count: a clone of 10,000 requests (a 10x
/// clone of a 1,000-request trace) had its thread draw about 30,000 times, and the thread's
/// start and the draws wasted were a fifth of its CPU time.
const INLINE: u64 = 1 << 16;

/// The arrival times of an [`Arrivals`], produced in blocks of [`BLOCK`] on a thread of their
/// own while the clone's thread works out pages: the same times, in the same order, as calling
/// [`Arrivals::next`] inline (the arrivals draw from their own generator). Two bounded
/// channels carry the blocks: filled ones to the clone, spent ones back to be filled again, so
/// nothing is allocated after the first [`BLOCKS`] + 1. The first [`INLINE`] times are drawn
/// inline, as asked for; the thread starts at the next one (a generator only read for its pages,
/// or a short clone, starts none) and stops after `count` times, or when the clone is dropped
/// (its channels close).
#[derive(Debug)]
pub struct Stream {
    /// The process and the count, until the thread starts with them.
    pending: Option<(Arrivals, u64)>,
    full: Option<Receiver<Vec<f64>>>,
    spent: Option<SyncSender<Vec<f64>>>,
    block: Vec<f64>,
    at: usize,
    pass_ns: f64,
    /// Times still to draw inline before the thread starts.
    inline: u64,
}

impl Stream {
    /// A stream of the first `count` times of `arrivals`.
    pub fn new(arrivals: Arrivals, count: u64) -> Stream {
        let pass_ns = arrivals.root_ns;
        Stream { pending: Some((arrivals, count)), full: None, spent: None, block: Vec::new(), at: 0, pass_ns, inline: INLINE }
    }

    /// The length of one pass over the fitted profile (ns): the times repeat its shape after it.
    pub fn pass_ns(&self) -> f64 {
        self.pass_ns
    }

    fn start(&mut self) -> Result<(), String> {
        let Some((mut arrivals, count)) = self.pending.take() else { return Ok(()) };
        let (fill, full) = sync_channel::<Vec<f64>>(BLOCKS);
        let (spent, empty) = sync_channel::<Vec<f64>>(BLOCKS + 2);
        for _ in 0..=BLOCKS {
            // Never blocks: the channel holds more than the buffers that exist.
            let _ = spent.send(Vec::with_capacity(BLOCK));
        }
        std::thread::Builder::new()
            .name("fcsim-clone-arrivals".into())
            .spawn(move || {
                let mut left = count;
                while left > 0 {
                    let Ok(mut b) = empty.recv() else { return };
                    let n = left.min(BLOCK as u64) as usize;
                    b.clear();
                    b.extend((0..n).map(|_| arrivals.next()));
                    left -= n as u64;
                    if fill.send(b).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| format!("cannot start the thread that draws arrival times: {e}"))?;
        (self.full, self.spent) = (Some(full), Some(spent));
        Ok(())
    }

    /// The next arrival time (ns); an error past the `count` the stream was made with, or when
    /// its thread cannot start.
    #[inline]
    pub fn next(&mut self) -> Result<f64, String> {
        if self.at == self.block.len() {
            if let Some((arrivals, count)) = self.pending.as_mut().filter(|_| self.inline > 0) {
                // The same times as the thread's, in the same order: it goes on from here.
                if *count == 0 {
                    return Err("no arrival time left (past the clone's length)".into());
                }
                *count -= 1;
                self.inline -= 1;
                return Ok(arrivals.next());
            }
            self.start()?;
            let done = std::mem::take(&mut self.block);
            if let (true, Some(s)) = (done.capacity() > 0, &self.spent) {
                let _ = s.send(done);
            }
            let next = self.full.as_ref().and_then(|f| f.recv().ok());
            self.block = next.ok_or("no arrival time left (past the clone's length)")?;
            self.at = 0;
        }
        self.at += 1;
        Ok(self.block[self.at - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fitted_cascade_keeps_the_count_order_and_span() {
        // Bursts: 100 arrivals within 1 ms every 10 s, for 100 s.
        let mut times: Vec<u64> = (0..10u64).flat_map(|b| (0..100u64).map(move |k| b * 10_000_000_000 + k * 10_000)).collect();
        let c = Cascade::fit(&mut times).unwrap();
        let mut a = Arrivals::new(c, 1);
        let v: Vec<f64> = (0..1000).map(|_| a.next()).collect();
        assert_eq!(v.len(), 1000);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
        // Still bursty: most 1 s bins are empty.
        let mut bins = [0u32; 101];
        for t in &v {
            bins[(*t / 1e9) as usize] += 1;
        }
        assert!(bins.iter().filter(|&&b| b == 0).count() > 70, "{bins:?}");
        // The threaded stream gives the same times, and stops after its count.
        let c = Cascade::fit(&mut times).unwrap();
        let mut s = Stream::new(Arrivals::new(c, 1), 5000);
        let w: Vec<f64> = (0..1000).map(|_| s.next().unwrap()).collect();
        assert_eq!(v, w);
        assert_eq!((1000..5000).filter_map(|_| s.next().ok()).count(), 4000);
        assert!(s.next().is_err());
        // Past the times drawn inline, the thread goes on with the same sequence, and stops at
        // its count.
        let n = INLINE as usize + 3 * BLOCK + 5;
        let mut a = Arrivals::new(Cascade::fit(&mut times).unwrap(), 2);
        let v: Vec<f64> = (0..n).map(|_| a.next()).collect();
        let mut s = Stream::new(Arrivals::new(Cascade::fit(&mut times).unwrap(), 2), n as u64);
        let w: Vec<f64> = (0..n).map(|_| s.next().unwrap()).collect();
        assert!(v == w, "the stream's times differ from the inline ones");
        assert!(s.next().is_err());
    }
}
