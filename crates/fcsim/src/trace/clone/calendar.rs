//! The renewal clone's calendar ([`super::renewal`]): the pages due at each tick of a clock that
//! only moves forward. A binary heap of every pending page cost 74% of the generator's time at
//! 10x cloudphysics (its sift-down's loads miss the cache: millions of entries); this is a
//! two-level timing wheel (G. Varghese, T. Lauck, "Hashed and Hierarchical Timing Wheels: Data
//! Structures for the Efficient Implementation of a Timer Facility", SOSP '87): the current
//! window of 2^16 ticks has a list per tick, the next 2^16 - 1 windows a list each (moved into
//! the ticks' lists when the clock enters the window), and anything further a heap. A bit per
//! list says whether it holds entries, so the next tick with pages due is found a 64-list word
//! at a time. Entries are (due, page); an entry whose page has since been rescheduled is
//! stale, and the caller drops it (the calendar cannot tell).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const BITS: u32 = 16;
const SPAN: usize = 1 << BITS;
const MASK: u64 = SPAN as u64 - 1;
/// Entries a list keeps room for once emptied.
const KEEP: usize = 64;

/// Pages due, by tick.
#[derive(Debug)]
pub struct Calendar {
    /// The window (tick >> 16) the ticks' lists are of.
    window: u64,
    ticks: Vec<Vec<u32>>,
    tick_bits: Vec<u64>,
    windows: Vec<Vec<(u64, u32)>>,
    window_bits: Vec<u64>,
    far: BinaryHeap<Reverse<(u64, u32)>>,
}

/// The first set bit of `bits` at or after `from`, below `end`.
fn next_bit(bits: &[u64], from: usize, end: usize) -> Option<usize> {
    let mut i = from;
    while i < end {
        let w = bits[i / 64] >> (i % 64);
        if w != 0 {
            let at = i + w.trailing_zeros() as usize;
            return (at < end).then_some(at);
        }
        i = (i / 64 + 1) * 64;
    }
    None
}

impl Default for Calendar {
    fn default() -> Calendar {
        Calendar {
            window: 0,
            ticks: vec![Vec::new(); SPAN],
            tick_bits: vec![0; SPAN / 64],
            windows: vec![Vec::new(); SPAN],
            window_bits: vec![0; SPAN / 64],
            far: BinaryHeap::new(),
        }
    }
}

impl Calendar {
    /// Puts `page` at tick `due`, which is not before the clock's window.
    #[inline]
    pub fn push(&mut self, due: u64, page: u32) {
        let w = due >> BITS;
        if w == self.window {
            let i = (due & MASK) as usize;
            self.ticks[i].push(page);
            self.tick_bits[i / 64] |= 1 << (i % 64);
        } else if w - self.window < SPAN as u64 {
            let i = (w & MASK) as usize;
            self.windows[i].push((due, page));
            self.window_bits[i / 64] |= 1 << (i % 64);
        } else {
            self.far.push(Reverse((due, page)));
        }
    }

    /// Moves the clock's window to that of tick `t` (not before it), the entries of the windows
    /// passed (none, if the caller never jumps past a tick [`Calendar::next`] gave) and of `t`'s
    /// into the ticks' lists.
    fn enter(&mut self, t: u64) {
        let target = t >> BITS;
        while self.window < target {
            self.window += 1;
            let i = (self.window & MASK) as usize;
            if self.window_bits[i / 64] >> (i % 64) & 1 == 1 {
                self.window_bits[i / 64] &= !(1 << (i % 64));
                let mut moved = std::mem::take(&mut self.windows[i]);
                for &(due, page) in &moved {
                    self.push(due, page);
                }
                // A list keeps a small capacity for its next window; a large one is freed, so
                // that the lists do not each grow to the most they ever held (a long clone's
                // memory would follow its length).
                if moved.capacity() <= KEEP {
                    moved.clear();
                    self.windows[i] = moved;
                }
            }
            while let Some(&Reverse((due, page))) = self.far.peek() {
                if due >> BITS > self.window {
                    break;
                }
                self.far.pop();
                self.push(due, page);
            }
        }
    }

    /// Appends the pages due at tick `t` (entries, stale ones included) to `out`.
    pub fn take(&mut self, t: u64, out: &mut Vec<u32>) {
        self.enter(t);
        let i = (t & MASK) as usize;
        if self.tick_bits[i / 64] >> (i % 64) & 1 == 1 {
            self.tick_bits[i / 64] &= !(1 << (i % 64));
            out.append(&mut self.ticks[i]);
            if self.ticks[i].capacity() > KEEP {
                self.ticks[i] = Vec::new();
            }
        }
    }

    /// A tick after `t` at which pages may be due and before which none are (`u64::MAX`: none
    /// at all): the next tick of this window with entries, else the start of the next window
    /// with any.
    pub fn next(&self, t: u64) -> u64 {
        if t >> BITS == self.window {
            let from = (t & MASK) as usize + 1;
            if let Some(i) = next_bit(&self.tick_bits, from, SPAN) {
                return (self.window << BITS) | i as u64;
            }
        }
        let start = ((self.window + 1) & MASK) as usize;
        let ahead = next_bit(&self.window_bits, start, SPAN).or_else(|| next_bit(&self.window_bits, 0, start));
        let near = ahead.map_or(u64::MAX, |i| {
            let w = self.window + ((i as u64).wrapping_sub(self.window) & MASK);
            w << BITS
        });
        let far = self.far.peek().map_or(u64::MAX, |r| (r.0 .0 >> BITS) << BITS);
        near.min(far).max(t + 1)
    }

    /// Bytes held (lists and heap).
    pub fn bytes(&self) -> usize {
        let lists: usize = self.ticks.iter().map(|v| 4 * v.capacity() + 24).sum::<usize>()
            + self.windows.iter().map(|v| 16 * v.capacity() + 24).sum::<usize>();
        lists + 16 * self.far.capacity() + 8 * (self.tick_bits.len() + self.window_bits.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_calendar_gives_what_a_heap_gives_tick_by_tick() {
        // Random gaps from 1 to past the far horizon; at each tick with pages due the two
        // agree (as sets), and `next` never skips a tick with pages due.
        let mut rng = StdRng::seed_from_u64(7);
        let (mut cal, mut heap) = (Calendar::default(), BinaryHeap::new());
        let mut t = 0u64;
        for p in 0..2000u32 {
            let g = match p % 4 {
                0 => rng.gen_range(1..100),
                1 => rng.gen_range(1..70_000),
                2 => rng.gen_range(1..5_000_000),
                _ => rng.gen_range(1..(1u64 << 33)),
            };
            cal.push(t + g, p);
            heap.push(Reverse((t + g, p)));
        }
        let mut out = Vec::new();
        let mut seen = 0;
        while let Some(&Reverse((d, _))) = heap.peek() {
            assert!(cal.next(t) <= d, "next({t}) = {} passes a page due at {d}", cal.next(t));
            t = cal.next(t);
            out.clear();
            cal.take(t, &mut out);
            let mut want = Vec::new();
            while heap.peek().is_some_and(|r| r.0 .0 == t) {
                want.push(heap.pop().unwrap().0 .1);
            }
            out.sort_unstable();
            want.sort_unstable();
            assert_eq!(out, want, "tick {t}");
            seen += out.len();
            // Reschedule some of them, as the clone does.
            for &p in out.iter().filter(|&&p| p % 3 == 0) {
                let g = rng.gen_range(1..200_000);
                cal.push(t + g, p + 100_000);
                heap.push(Reverse((t + g, p + 100_000)));
            }
        }
        assert!(seen >= 2000);
        assert_eq!(cal.next(t), u64::MAX);
    }
}
