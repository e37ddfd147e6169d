//! The renewal clone's calendar ([`super::renewal`]): the pages due at each tick of a clock that
//! only moves forward. A binary heap of every pending page cost 74% of the generator's time at
//! 10x cloudphysics (its sift-down's loads miss the cache: millions of entries); this is a
//! two-level timing wheel (G. Varghese, T. Lauck, "Hashed and Hierarchical Timing Wheels: Data
//! Structures for the Efficient Implementation of a Timer Facility", SOSP '87): the current
//! window of 2^12 ticks has a list per tick, the next 2^12 - 1 windows a list each (moved into
//! the ticks' lists when the clock enters the window), and anything further (2^24 ticks and
//! more ahead) a heap. Windows of 2^16 ticks made the lists' headers 3 MiB, out of cache: a
//! push read a header that missed it, and a clone of a short trace, built again and again,
//! spent a tenth of its time mapping and zeroing them (2^12: 1.10x to 1.39x the rate at 10x on
//! msr, cloudphysics and arc_P2; 2^14: 1.01x to 1.17x; the summary bits below need 2^12 or
//! more). A bit per
//! list says whether it holds entries, and a bit per 64-list word whether that word has any
//! set, so the next tick with pages due is found in a few word reads, however empty the
//! calendar (a scan of the lists' words, 2,048 of them at 2^16 ticks a window, when the calendar held little, cost a
//! third of a mostly-new clone's time). Entries are [`Run`]s: pages in a row due at one tick
//! (a request's pages that drew the same gap: one entry, not one per page, cut the entries a
//! clone of cloudphysics pushes and moves several-fold). A page of an entry that has since been
//! rescheduled is stale, and the caller drops it (the calendar cannot tell).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const BITS: u32 = 12;
const SPAN: usize = 1 << BITS;
const MASK: u64 = SPAN as u64 - 1;
/// Entries a list keeps room for once emptied.
const KEEP: usize = 64;

/// `count` pages from `page` (page numbers in a row), due at one tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Run {
    pub page: u32,
    pub count: u32,
}

/// Pages due, by tick.
#[derive(Debug)]
pub struct Calendar {
    /// The window (tick >> 16) the ticks' lists are of.
    window: u64,
    ticks: Vec<Vec<Run>>,
    tick_bits: Bits,
    windows: Vec<Vec<(u64, Run)>>,
    window_bits: Bits,
    far: BinaryHeap<Reverse<(u64, Run)>>,
}

/// A bit per list (2^12), and a bit per word of them (whether the word has any set).
#[derive(Debug)]
struct Bits {
    words: Vec<u64>,
    summary: Vec<u64>,
}

impl Bits {
    fn new() -> Bits {
        Bits { words: vec![0; SPAN / 64], summary: vec![0; SPAN / 64 / 64] }
    }

    #[inline]
    fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    #[inline]
    fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
        self.summary[i / 4096] |= 1 << (i / 64 % 64);
    }

    #[inline]
    fn clear(&mut self, i: usize) {
        let w = &mut self.words[i / 64];
        *w &= !(1 << (i % 64));
        if *w == 0 {
            self.summary[i / 4096] &= !(1 << (i / 64 % 64));
        }
    }

    /// Whether no bit is set.
    #[inline]
    fn is_empty(&self) -> bool {
        self.summary.iter().all(|&s| s == 0)
    }

    /// The first set bit at or after `from`, below `end`.
    fn next(&self, from: usize, end: usize) -> Option<usize> {
        if from >= end {
            return None;
        }
        // The word of `from`, then the next word with any bit set, by the summary.
        let w = self.words[from / 64] >> (from % 64);
        if w != 0 {
            let at = from + w.trailing_zeros() as usize;
            return (at < end).then_some(at);
        }
        let mut word = from / 64 + 1;
        while word < SPAN / 64 {
            let s = self.summary[word / 64] >> (word % 64);
            if s != 0 {
                let found = word + s.trailing_zeros() as usize;
                let at = found * 64 + self.words[found].trailing_zeros() as usize;
                return (at < end).then_some(at);
            }
            word = (word / 64 + 1) * 64;
        }
        None
    }
}

impl Default for Calendar {
    fn default() -> Calendar {
        Calendar {
            window: 0,
            ticks: vec![Vec::new(); SPAN],
            tick_bits: Bits::new(),
            windows: vec![Vec::new(); SPAN],
            window_bits: Bits::new(),
            far: BinaryHeap::new(),
        }
    }
}

impl Calendar {
    /// Puts `count` pages from `page` at tick `due`, which is not before the clock's window.
    #[inline]
    pub fn push(&mut self, due: u64, page: u32, count: u32) {
        self.push_run(due, Run { page, count });
    }

    #[inline]
    fn push_run(&mut self, due: u64, run: Run) {
        let w = due >> BITS;
        if w == self.window {
            let i = (due & MASK) as usize;
            self.ticks[i].push(run);
            self.tick_bits.set(i);
        } else if w - self.window < SPAN as u64 {
            let i = (w & MASK) as usize;
            self.windows[i].push((due, run));
            self.window_bits.set(i);
        } else {
            self.far.push(Reverse((due, run)));
        }
    }

    /// Moves the clock's window to that of tick `t` (not before it), the entries of the windows
    /// passed (none, if the caller never jumps past a tick [`Calendar::next`] gave) and of `t`'s
    /// into the ticks' lists.
    fn enter(&mut self, t: u64) {
        let target = t >> BITS;
        while self.window < target {
            // Nothing held in the windows' lists: every window before the far heap's first (or
            // the target) has no entry, so the clock goes to the one before it at once (a
            // profile's clock may jump by more windows than a walk could pass).
            if self.window_bits.is_empty() {
                let next = self.far.peek().map_or(target, |r| (r.0 .0 >> BITS).min(target));
                self.window = self.window.max(next - 1);
            }
            self.window += 1;
            let i = (self.window & MASK) as usize;
            if self.window_bits.get(i) {
                self.window_bits.clear(i);
                let mut moved = std::mem::take(&mut self.windows[i]);
                for &(due, run) in &moved {
                    self.push_run(due, run);
                }
                // A list keeps a small capacity for its next window; a large one is freed, so
                // that the lists do not each grow to the most they ever held (a long clone's
                // memory would follow its length).
                if moved.capacity() <= KEEP {
                    moved.clear();
                    self.windows[i] = moved;
                }
            }
            while let Some(&Reverse((due, run))) = self.far.peek() {
                if due >> BITS > self.window {
                    break;
                }
                self.far.pop();
                self.push_run(due, run);
            }
        }
    }

    /// Appends the entries due at tick `t` (stale pages included) to `out`. An empty `out`
    /// takes the tick's list whole (its buffer swapped, not copied).
    pub fn take(&mut self, t: u64, out: &mut Vec<Run>) {
        self.enter(t);
        let i = (t & MASK) as usize;
        if self.tick_bits.get(i) {
            self.tick_bits.clear(i);
            if out.is_empty() {
                std::mem::swap(out, &mut self.ticks[i]);
            } else {
                out.append(&mut self.ticks[i]);
            }
            if self.ticks[i].capacity() > KEEP {
                self.ticks[i] = Vec::new();
            }
        }
    }

    /// The entries held for tick `t` of the clock's window (none for a tick of a later window:
    /// they are not in its list yet). To read ahead of [`Calendar::take`].
    #[inline]
    pub fn peek(&self, t: u64) -> &[Run] {
        if t >> BITS == self.window {
            &self.ticks[(t & MASK) as usize]
        } else {
            &[]
        }
    }

    /// A tick after `t` at which pages may be due and before which none are (`u64::MAX`: none
    /// at all): the next tick of this window with entries, else the start of the next window
    /// with any.
    pub fn next(&self, t: u64) -> u64 {
        if t >> BITS == self.window {
            let from = (t & MASK) as usize + 1;
            if let Some(i) = self.tick_bits.next(from, SPAN) {
                return (self.window << BITS) | i as u64;
            }
        }
        let start = ((self.window + 1) & MASK) as usize;
        let ahead = self.window_bits.next(start, SPAN).or_else(|| self.window_bits.next(0, start));
        let near = ahead.map_or(u64::MAX, |i| {
            let w = self.window + ((i as u64).wrapping_sub(self.window) & MASK);
            w << BITS
        });
        let far = self.far.peek().map_or(u64::MAX, |r| (r.0 .0 >> BITS) << BITS);
        near.min(far).max(t + 1)
    }

    /// Bytes held (lists and heap).
    pub fn bytes(&self) -> usize {
        let lists: usize = self.ticks.iter().map(|v| 8 * v.capacity() + 24).sum::<usize>()
            + self.windows.iter().map(|v| 16 * v.capacity() + 24).sum::<usize>();
        let bits = |b: &Bits| 8 * (b.words.len() + b.summary.len());
        lists + 16 * self.far.capacity() + bits(&self.tick_bits) + bits(&self.window_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_calendar_gives_what_a_heap_gives_tick_by_tick() {
        // Random gaps from 1 to past the far horizon, runs of 1 to 4 pages; at each tick with
        // pages due the calendar's runs hold the heap's pages (as sets), and `next` never skips
        // a tick with pages due.
        let mut rng = StdRng::seed_from_u64(7);
        let (mut cal, mut heap) = (Calendar::default(), BinaryHeap::new());
        let mut t = 0u64;
        let push = |cal: &mut Calendar, heap: &mut BinaryHeap<Reverse<(u64, u32)>>, due: u64, page: u32, count: u32| {
            cal.push(due, page, count);
            for p in page..page + count {
                heap.push(Reverse((due, p)));
            }
        };
        for p in 0..2000u32 {
            let g = match p % 4 {
                0 => rng.gen_range(1..100),
                1 => rng.gen_range(1..70_000),
                2 => rng.gen_range(1..5_000_000),
                _ => rng.gen_range(1..(1u64 << 33)),
            };
            push(&mut cal, &mut heap, t + g, 8 * p, rng.gen_range(1..=4));
        }
        let mut out = Vec::new();
        let mut seen = 0;
        while let Some(&Reverse((d, _))) = heap.peek() {
            assert!(cal.next(t) <= d, "next({t}) = {} passes a page due at {d}", cal.next(t));
            t = cal.next(t);
            out.clear();
            cal.take(t, &mut out);
            let mut got: Vec<u32> = out.iter().flat_map(|r| r.page..r.page + r.count).collect();
            let mut want = Vec::new();
            while heap.peek().is_some_and(|r| r.0 .0 == t) {
                want.push(heap.pop().unwrap().0 .1);
            }
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "tick {t}");
            seen += got.len();
            // Reschedule some of them, as the clone does.
            for &p in got.iter().filter(|&&p| p % 3 == 0) {
                let g = rng.gen_range(1..200_000);
                push(&mut cal, &mut heap, t + g, p + 100_000, 1);
            }
        }
        assert!(seen >= 2000);
        assert_eq!(cal.next(t), u64::MAX);
    }

    #[test]
    fn a_clock_that_jumps_far_past_empty_windows_does_not_walk_them() {
        // Nothing held: a take 2^50 ticks on (2^38 windows) returns at once, empty (it walked
        // every window between; a renewal profile's budget tick can lie that far).
        let mut cal = Calendar::default();
        let mut out = Vec::new();
        cal.take(1 << 50, &mut out);
        assert!(out.is_empty());
        // A run far on (in the heap), then a jump past empty windows to its tick gives it, and
        // one still further after it (the heap's first bounds the jump, not the target).
        let t = (1u64 << 50) + 5;
        cal.push(t + (3 << 40), 7, 2);
        cal.push(t + (5 << 40), 9, 1);
        cal.take(t + (3 << 40), &mut out);
        assert_eq!(out.iter().map(|r| (r.page, r.count)).collect::<Vec<_>>(), [(7, 2)]);
        out.clear();
        // `next` gives the start of the window holding it (none is due before).
        assert_eq!(cal.next(t + (3 << 40)), (t + (5 << 40)) >> BITS << BITS);
        cal.take(t + (5 << 40), &mut out);
        assert_eq!(out.iter().map(|r| (r.page, r.count)).collect::<Vec<_>>(), [(9, 1)]);
    }

    #[test]
    fn the_next_set_bit_by_the_summary_is_the_first_by_a_scan() {
        // Bits set and cleared at random, sparse and dense; `next` from every 97th position
        // against a bit-by-bit scan.
        let mut rng = StdRng::seed_from_u64(3);
        let mut b = Bits::new();
        let mut plain = vec![false; SPAN];
        for round in 0..6 {
            for _ in 0..(1usize << (2 * round)) {
                let i = rng.gen_range(0..SPAN);
                if rng.gen_bool(0.7) {
                    b.set(i);
                    plain[i] = true;
                } else {
                    b.clear(i);
                    plain[i] = false;
                }
            }
            for from in (0..SPAN).step_by(97) {
                let end = rng.gen_range(from..=SPAN);
                let want = (from..end).find(|&i| plain[i]);
                assert_eq!(b.next(from, end), want, "round {round}, from {from} to {end}");
            }
        }
    }
}
