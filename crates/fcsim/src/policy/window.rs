//! The machinery CFLRU, GCaR-CFLRU and LCR share: one LRU list whose last `window` pages (the
//! clean-first region of CFLRU, the destaging region of LCR) are the eviction candidates. All
//! three evict the first clean page of the window from the LRU end; when the window holds only
//! dirty pages, each policy's [`Rule`] picks one. Each policy is its own file with its rule;
//! this file implements [`Policy`] for all three.
//!
//! No page is scanned: an access costs O(1) plus, when it takes the oldest window page of a
//! chip, a walk over at most the device's chips; an eviction of a dirty page under a rule that
//! asks the device asks about the chips holding a dirty page of the window, in the order of
//! their oldest such page, until the answer is settled (the first chip not in GC; a chip of
//! load 0): at most the device's chips, whatever the cache's size.
//! The structures and the invariants they keep between calls:
//!
//! - **The window** is exactly the last min(`window`, resident) pages of the LRU list. Each
//!   node's side entry says whether it is in it (`sub != OUT`); `in_win` counts them and
//!   `boundary` is the window's MRU-most page (NIL when empty). A page leaves the window when it
//!   is hit (it moves to the MRU end), evicted or removed; the window is then refilled from the
//!   page just before `boundary`. So pages enter the window only at its MRU end, and the order
//!   in which they entered (`stamp`, increasing) is their order in the LRU list.
//! - **The window's clean pages** form one sub-list in entry order: its oldest is the first
//!   clean page of the window from the LRU end, the victim when there is one. A page's dirty
//!   flag changes only on a hit, which takes it out of the window first, so a page stays in the
//!   sub-list of its state.
//! - **The window's dirty pages** are on the sub-list of their chip, in entry order, once their
//!   chip is known; pages that entered since the last eviction that asked the device wait on a
//!   `pending` sub-list and are placed (in entry order, after every placed page of their chip,
//!   as their stamps are newer) when the next one asks.
//! - **The chips in age order**: the chips with a non-empty sub-list are linked in the order of
//!   the stamps of their oldest pages. A chip whose sub-list starts gets the newest placed page,
//!   so it goes last; a chip whose oldest page leaves moves towards the newer end, walking past
//!   the chips whose oldest page is older (at most the number of chips).
//! - **A placed page's chip** is the one the device reported at eviction: a device reports a
//!   new chip for a page a tier holds only while the tier handles an access to that page
//!   ([`DeviceView::chip_of`]), and such an access takes the page out of the window, so it is
//!   placed again after it.
//!
//! The rules read these instead of the window: the first dirty page from the LRU end is the
//! list's LRU page; "the first page of a chip satisfying P" is the oldest page of the first
//! active chip satisfying P, chips taken by the age of their oldest page; the least-loaded
//! chip's first page is the smallest (load, stamp) among them. Each chip is asked about at most
//! once per eviction, as before.

use super::list::{each_dirty, touch, up_front, Arena, List, NIL};
use super::{Access, Evicted, Outcome, Policy};
use crate::error::{Error, Result};
use crate::params::Params;
use crate::view::DeviceView;

/// How a window of dirty pages gives up its victim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The window's LRU page (CFLRU).
    Lru,
    /// The first page from the LRU end whose chip is not collecting garbage, else the LRU page
    /// (GCaR-CFLRU).
    NotInGc,
    /// The page on the chip of least L_chip, the one nearest the LRU end on a tie (LCR).
    LeastLoaded,
}

/// A node outside the window.
const OUT: u32 = u32::MAX;
/// Sub-list of the window's clean pages.
const CLEAN: u32 = 0;
/// Sub-list of the window's dirty pages whose chip is not placed yet.
const PENDING: u32 = 1;
/// Sub-list of chip c's dirty pages: `CHIP0 + c`.
const CHIP0: u32 = 2;

/// A node's place in the window: its sub-list (or [`OUT`]), its neighbours there (`prev`
/// towards the newer end) and when it entered.
#[derive(Debug, Clone, Copy)]
struct Side {
    sub: u32,
    prev: u32,
    next: u32,
    stamp: u64,
}

const OUTSIDE: Side = Side { sub: OUT, prev: NIL, next: NIL, stamp: 0 };

/// A sub-list: `head` the newest entry, `tail` the oldest.
#[derive(Debug, Clone, Copy)]
struct Sub {
    head: u32,
    tail: u32,
    /// Chip sub-lists only, while non-empty: the chips before and after this one in the age
    /// order (NIL at the ends).
    older: u32,
    newer: u32,
    /// Chip sub-lists only, while non-empty: the stamp of `tail`, so that the age order is
    /// walked in this array alone.
    oldest: u64,
}

const EMPTY_SUB: Sub = Sub { head: NIL, tail: NIL, older: NIL, newer: NIL, oldest: 0 };

#[derive(Debug)]
pub struct WindowLru {
    rule: Rule,
    arena: Arena,
    list: List,
    capacity: usize,
    /// Pages in the window when the cache holds that many, at least 1.
    window: usize,
    in_win: usize,
    boundary: u32,
    side: Vec<Side>,
    subs: Vec<Sub>,
    /// The chips whose sub-list is non-empty, linked through their [`Sub`] from `first_chip`
    /// to `last_chip` in the order of the stamps of their oldest pages.
    first_chip: u32,
    last_chip: u32,
    stamp: u64,
}

/// Reads `POLICY.window`, a fraction of the cache in (0, 1].
pub fn window_param(p: &mut Params, policy: &str, default: f64) -> Result<f64> {
    let w: f64 = p.take(policy, "window", default, "a fraction of the cache in (0, 1]")?;
    if !(w > 0.0 && w <= 1.0) {
        return Err(Error::config(format!("{policy}.window={w}: expected a fraction of the cache in (0, 1]")));
    }
    Ok(w)
}

impl WindowLru {
    /// A cache of `capacity` pages whose window is `window` × capacity pages (rounded, ≥ 1),
    /// evicting by `rule`.
    pub fn new(capacity: usize, window: f64, rule: Rule) -> Self {
        let window = ((capacity as f64 * window).round() as usize).clamp(1, capacity);
        WindowLru {
            rule,
            arena: Arena::with_capacity(capacity),
            list: List::default(),
            capacity,
            window,
            in_win: 0,
            boundary: NIL,
            side: Vec::with_capacity(up_front(capacity)),
            subs: vec![EMPTY_SUB; CHIP0 as usize],
            first_chip: NIL,
            last_chip: NIL,
            stamp: 0,
        }
    }

    /// Appends node `i` at the newer end of sub-list `s`.
    #[inline]
    fn push(&mut self, s: u32, i: u32) {
        let head = self.subs[s as usize].head;
        let e = &mut self.side[i as usize];
        e.sub = s;
        e.prev = NIL;
        e.next = head;
        if head != NIL {
            self.side[head as usize].prev = i;
        } else {
            self.subs[s as usize].tail = i;
            if s >= CHIP0 {
                // Its oldest page is the newest placed page: the chip goes last in age order.
                self.subs[s as usize].oldest = self.side[i as usize].stamp;
                self.link_chip_after(s - CHIP0, self.last_chip);
            }
        }
        self.subs[s as usize].head = i;
    }

    #[inline]
    fn chip(&mut self, c: u32) -> &mut Sub {
        &mut self.subs[(c + CHIP0) as usize]
    }

    /// Puts chip `c` in the age order right after chip `after` (NIL: first).
    #[inline]
    fn link_chip_after(&mut self, c: u32, after: u32) {
        let newer = if after == NIL { self.first_chip } else { self.chip(after).newer };
        let e = self.chip(c);
        e.older = after;
        e.newer = newer;
        if after == NIL {
            self.first_chip = c;
        } else {
            self.chip(after).newer = c;
        }
        if newer == NIL {
            self.last_chip = c;
        } else {
            self.chip(newer).older = c;
        }
    }

    /// Takes chip `c` out of the age order.
    #[inline]
    fn unlink_chip(&mut self, c: u32) {
        let Sub { older, newer, .. } = *self.chip(c);
        if older == NIL {
            self.first_chip = newer;
        } else {
            self.chip(older).newer = newer;
        }
        if newer == NIL {
            self.last_chip = older;
        } else {
            self.chip(newer).older = older;
        }
    }

    /// Takes node `i` off its sub-list.
    #[inline]
    fn unlink(&mut self, i: u32) {
        let Side { sub: s, prev, next, .. } = self.side[i as usize];
        if prev != NIL {
            self.side[prev as usize].next = next;
        } else {
            self.subs[s as usize].head = next;
        }
        if next != NIL {
            self.side[next as usize].prev = prev;
        } else {
            self.subs[s as usize].tail = prev;
        }
        if s >= CHIP0 && next == NIL {
            // The chip's oldest page left: the chip leaves the age order if it has no other,
            // else it moves towards the newer end, behind the last chip with an older page.
            let c = s - CHIP0;
            let mut after = self.chip(c).older;
            self.unlink_chip(c);
            if prev != NIL {
                let stamp = self.side[prev as usize].stamp;
                self.chip(c).oldest = stamp;
                let mut n = if after == NIL { self.first_chip } else { self.chip(after).newer };
                while n != NIL && self.chip(n).oldest < stamp {
                    after = n;
                    n = self.chip(n).newer;
                }
                self.link_chip_after(c, after);
            }
        }
        self.side[i as usize].sub = OUT;
    }

    /// Node `i`, the page just before the window in the LRU list, joins it at its MRU end.
    #[inline]
    fn enter(&mut self, i: u32) {
        if self.side.len() <= i as usize {
            self.side.resize(i as usize + 1, OUTSIDE);
        }
        self.stamp += 1;
        self.side[i as usize].stamp = self.stamp;
        let s = if self.arena.node(i).dirty { PENDING } else { CLEAN };
        self.push(s, i);
        self.in_win += 1;
        self.boundary = i;
    }

    /// Node `i` leaves the window (before it leaves its place in the LRU list), if in it.
    #[inline]
    fn leave(&mut self, i: u32) {
        if !self.side.get(i as usize).is_some_and(|e| e.sub != OUT) {
            return;
        }
        if self.boundary == i {
            // The window is the list's tail: the page after i towards the LRU end, if any, is in it.
            self.boundary = self.list.next(&self.arena, i).unwrap_or(NIL);
        }
        self.unlink(i);
        self.in_win -= 1;
    }

    /// Brings the window back to min(`window`, resident) pages from the page before it.
    #[inline]
    fn refill(&mut self) {
        while self.in_win < self.window {
            let next = if self.boundary == NIL { self.list.back() } else { self.list.prev(&self.arena, self.boundary) };
            match next {
                Some(i) => self.enter(i),
                None => break,
            }
        }
    }

    /// Places the pending dirty pages on their chips' sub-lists, oldest first.
    fn place(&mut self, view: &dyn DeviceView) {
        let need = CHIP0 as usize + view.chips() as usize;
        if self.subs.len() < need {
            self.subs.resize(need, EMPTY_SUB);
        }
        while let Some(i) = (self.subs[PENDING as usize].tail != NIL).then(|| self.subs[PENDING as usize].tail) {
            self.unlink(i);
            let chip = view.chip_of(self.arena.node(i).key);
            self.push(CHIP0 + chip, i);
        }
    }

    /// The oldest page of chip `c`'s sub-list (non-empty: `c` is active) and its stamp.
    #[inline]
    fn oldest(&self, c: u32) -> (u64, u32) {
        let i = self.subs[(c + CHIP0) as usize].tail;
        (self.side[i as usize].stamp, i)
    }

    /// The victim of a full cache: the window's first clean page from the LRU end, else the
    /// rule's dirty page.
    #[inline]
    fn victim(&mut self, view: Option<&dyn DeviceView>, t: u64) -> u32 {
        let clean = self.subs[CLEAN as usize].tail;
        if clean != NIL {
            return clean;
        }
        let lru = self.list.back().expect("a full cache holds a page");
        let Some(v) = view else { return lru };
        match self.rule {
            Rule::Lru => lru,
            Rule::NotInGc => {
                self.place(v);
                let mut c = self.first_chip;
                while c != NIL && v.in_gc(c, t) {
                    c = self.chip(c).newer;
                }
                if c == NIL {
                    lru
                } else {
                    self.oldest(c).1
                }
            }
            Rule::LeastLoaded => {
                self.place(v);
                // Chips in LRU order of their oldest page: the first of the least load wins, and
                // no chip after one with load 0 can beat it.
                let mut best: Option<(u64, u32)> = None;
                let mut c = self.first_chip;
                while c != NIL {
                    let l = v.l_chip(c, t);
                    if best.map_or(true, |(b, _)| l < b) {
                        best = Some((l, c));
                    }
                    if l == 0 {
                        break;
                    }
                    c = self.chip(c).newer;
                }
                best.map_or(lru, |(_, c)| self.oldest(c).1)
            }
        }
    }

    /// One access; when a page must go, the rule picks it from the window.
    #[inline]
    fn access_with(&mut self, a: &Access, view: Option<&dyn DeviceView>, evicted: &mut Vec<Evicted>) -> Outcome {
        if let Some(i) = self.arena.get(a.key) {
            let inside = self.side.get(i as usize).is_some_and(|e| e.sub != OUT);
            if inside {
                self.leave(i);
            }
            self.list.move_to_front(&mut self.arena, i);
            let was = touch(&mut self.arena, i, a.write);
            if inside {
                self.refill();
            }
            return Outcome::Hit { dirty: was };
        }
        if self.list.len() >= self.capacity {
            let v = self.victim(view, a.time);
            self.leave(v);
            self.list.unlink(&mut self.arena, v);
            let n = self.arena.release(v);
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
        }
        let i = self.arena.alloc(a.key, 0, a.write);
        self.list.push_front(&mut self.arena, i);
        self.refill();
        Outcome::Miss { admitted: true }
    }
}

impl Policy for WindowLru {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        self.access_with(a, None, evicted)
    }

    fn access_on(&mut self, a: &Access, view: &dyn DeviceView, evicted: &mut Vec<Evicted>) -> Outcome {
        self.access_with(a, Some(view), evicted)
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let i = self.arena.get(key)?;
        self.leave(i);
        self.list.unlink(&mut self.arena, i);
        let n = self.arena.release(i);
        self.refill();
        Some(n.dirty)
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, std::slice::from_ref(&self.list), f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::ChipLoad;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use std::cell::Cell;

    /// A device whose loads and GC flags change at every access (a function of the access's
    /// time and the chip); page k is on chip k mod `chips`. It counts the queries it answers.
    struct Churning {
        chips: u32,
        queries: Cell<u64>,
    }

    impl DeviceView for Churning {
        fn chips(&self) -> u32 {
            self.chips
        }
        fn chip_of(&self, page: u64) -> u32 {
            (page % u64::from(self.chips)) as u32
        }
        fn load(&self, chip: u32, t: u64) -> ChipLoad {
            self.queries.set(self.queries.get() + 1);
            let h = (t ^ u64::from(chip) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58;
            ChipLoad { reads: h % 3, writes: h / 3 % 3, gc: h % 5 == 0, gc_ns: 1_000_000 }
        }
        fn read_ns(&self) -> u64 {
            25_000
        }
        fn write_ns(&self) -> u64 {
            200_000
        }
    }

    /// The rules as the papers state them, by a scan of the window from the LRU end: the
    /// reference the structures must agree with, victim for victim.
    struct Scan {
        rule: Rule,
        /// MRU first: (key, dirty).
        pages: Vec<(u64, bool)>,
        capacity: usize,
        window: usize,
    }

    impl Scan {
        fn victim(&self, view: Option<&dyn DeviceView>, t: u64) -> usize {
            let n = self.pages.len();
            let win: Vec<usize> = (n - self.window.min(n)..n).rev().collect();
            if let Some(&c) = win.iter().find(|&&i| !self.pages[i].1) {
                return c;
            }
            let Some(v) = view else { return n - 1 };
            match self.rule {
                Rule::Lru => n - 1,
                Rule::NotInGc => *win.iter().find(|&&i| !v.in_gc(v.chip_of(self.pages[i].0), t)).unwrap_or(&(n - 1)),
                Rule::LeastLoaded => {
                    let mut best = (u64::MAX, n - 1);
                    for &i in &win {
                        let l = v.l_chip(v.chip_of(self.pages[i].0), t);
                        if l < best.0 {
                            best = (l, i);
                        }
                    }
                    best.1
                }
            }
        }

        fn access(&mut self, key: u64, write: bool, view: Option<&dyn DeviceView>, t: u64) -> (bool, Option<(u64, bool)>) {
            if let Some(p) = self.pages.iter().position(|x| x.0 == key) {
                let (k, d) = self.pages.remove(p);
                self.pages.insert(0, (k, d || write));
                return (true, None);
            }
            let mut out = None;
            if self.pages.len() >= self.capacity {
                out = Some(self.pages.remove(self.victim(view, t)));
            }
            self.pages.insert(0, (key, write));
            (false, out)
        }
    }

    #[test]
    fn same_victims_as_a_scan_of_the_window() {
        let mut rng = StdRng::seed_from_u64(29);
        for round in 0..300 {
            let capacity = rng.gen_range(1..40);
            let window = [0.01, 0.1, 0.3, 0.5, 1.0][round % 5];
            let rule = [Rule::Lru, Rule::NotInGc, Rule::LeastLoaded][round % 3];
            let view = Churning { chips: rng.gen_range(1..6), queries: Cell::new(0) };
            let with_view = round % 4 != 0;
            let keys = rng.gen_range(capacity as u64 + 1..3 * capacity as u64 + 3);
            let mut p = WindowLru::new(capacity, window, rule);
            let mut s = Scan { rule, pages: Vec::new(), capacity, window: p.window };
            let mut ev = Vec::new();
            for t in 0..2000u64 {
                let key = rng.gen_range(0..keys);
                if rng.gen_bool(0.03) {
                    let got = p.remove(key);
                    let want = s.pages.iter().position(|x| x.0 == key).map(|i| s.pages.remove(i).1);
                    assert_eq!(got, want);
                    continue;
                }
                let write = rng.gen_bool(0.6);
                ev.clear();
                let a = Access { key, write, index: t, next: crate::request::NEVER, time: t };
                let o = if with_view { p.access_on(&a, &view, &mut ev) } else { p.access(&a, &mut ev) };
                let (hit, out) = s.access(key, write, with_view.then_some(&view as &dyn DeviceView), t);
                let got = ev.first().map(|e| (e.key, e.dirty));
                assert_eq!((matches!(o, Outcome::Hit { .. }), got), (hit, out), "round {round}, access {t}: {rule:?} window {window}");
                assert_eq!(p.len(), s.pages.len());
                assert_eq!(p.in_win, p.window.min(p.len()));
                // The chips in age order: every chip with a placed page, oldest pages increasing.
                let (mut c, mut last, mut seen) = (p.first_chip, 0, 0);
                while c != NIL {
                    let (stamp, _) = p.oldest(c);
                    assert!(stamp > last && stamp == p.chip(c).oldest, "round {round}, access {t}: chip order");
                    (last, seen, c) = (stamp, seen + 1, p.chip(c).newer);
                }
                assert_eq!(seen, p.subs[CHIP0 as usize..].iter().filter(|x| x.head != NIL).count());
            }
        }
    }
}
