//! A paper profile's per-op locality, GASA Table II's ("p% of total number of unique pages are
//! accessed by a% of total number of accesses", per op; `fcsim trace info` measures it as
//! [`crate::trace::info::Locality`]), held by feedback on per-op hot sets. One mechanism, two
//! levers: the stack clone ([`super::Generator::with_locality`]) moves the reuses it draws, the
//! renewal clone ([`super::renewal::Renewal::with_locality`]) keeps or ends the pages' next
//! references. Everything it holds to comes from the table's p and a; `ablate=locality` on a
//! profile turns it off on either model ([`super::profile`]).
//!
//! **Hot sets** (both models). A page the op touches for the first time joins the op's hot set
//! while the set holds fewer than p × the op's unique pages so far: the hot pages are spread
//! over the run and over the address space, and the read and write hot sets are different
//! pages. The op is *behind* while its accesses to its hot set are fewer than a goal × its
//! accesses. The goal starts at a and is corrected every [`Locality::EVERY`] of the op's
//! accesses by half the gap between a and the measured share of the op's top p pages (the
//! most accessed, whichever they are): a few cold pages reused often can outrank hot pages that
//! joined late, and the measure, not the hot set, is what the table gives.
//!
//! **Stack lever.** While the op is behind, a reuse the stack draws on a page outside the set
//! moves to the nearest hot page of the op on the clone's stack (within [`Locality::RADIUS`]
//! words of slots, else a uniformly drawn hot page), and while it is ahead, a reuse drawn on a
//! hot page moves to a uniformly drawn page of the op outside its hot set: moved to a near
//! page, the op's cold accesses piled up on a few recent pages and outranked its own hot pages.
//!
//! **Renewal lever.** A renewal page's references are its own process: nothing is moved, the
//! hot set's share is made by which pages go on and with which op. When a page is referenced
//! and the reference it would make next is drawn (gap and op, after the profile turns the op
//! for its write share; a page that would end draws the reference it would make if it went
//! on), for that reference's op n:
//!
//! - n behind, the page hot for n: it goes on (a page that would end goes on);
//! - n behind, the page cold for n (touched by n outside its hot set): the reference is not
//!   made, the page ends. Its cold accesses are what stand between the op and its goal;
//! - n ahead, the page not hot for n but hot for the other op, which is behind: it goes on with
//!   the other op (without this, the pages kept for one op's hot set drew the other op's
//!   references too and made that op too concentrated: gasa-t3's reads p 0.17 against 0.28);
//! - n ahead, the page not hot for n: it goes on (the op's cold pages take references back);
//! - otherwise (a page new to n while n is behind, or hot for n while n is ahead) the
//!   profile's own draw: its gap or end, a page that would end going on with `more`.
//!
//! The request count is the clone's length and the new pages are paced by the requests out, so
//! the references a cold page loses go to the pages that go on: the references per page stay
//! the table's. *Cost*: the dropped references are the donor's reuses of cold pages, so the
//! profile's LRU curve and read-after-write classes drift from the donor's.
//!
//! **Room** (renewal lever, [`Locality::room`]). An op's cold pages hold at least one access
//! each (their first), so a share a on the top p of an op's U pages needs U ≤ A × (1 - a) /
//! (1 - p), A the op's page accesses over the run (the table's requests × page accesses per
//! request × the op's share). The split of new pages between the ops is the donor's and was
//! not chosen for this: gasa-t2's writes at scale 1 had about 4.0 accesses a page against the
//! 5.25 the table's 0.16/0.84 needs, and p 0.203 against 0.16. So an op's unique pages are
//! held within that bound × the share of the table's pages out so far (one page of slack):
//! a new request of an op without room is issued as the other op's, and a reference drawn with
//! an op on a page new to that op, without room, is made with the other op. Both the bound
//! and the pace come from the table's counts. *Cost*: the moved pages and references change
//! the donor's read-after-write structure (a write where the donor had a read, or the
//! reverse), and the op's pages pile onto fewer pages than the donor's split gives.
//! *Limits*: the bound is the floor (every cold page at one access); an op whose cold pages
//! are referenced more stays above its p. Writes on the reads' hot pages: a page kept alive
//! for the reads' hot set draws writes too, and its writes make it one of the writes' most
//! accessed pages: gasa-t1's writes at scale 0.05 are more concentrated than the table's
//! (0.278 against 0.31; at scale 1 0.301). Turning those writes to reads while the writes'
//! measure is over a, or while the page is cold for the writes (two variants, tried on a
//! build with other pilots) held it at 0.05 (0.291-0.293) and broke scale 1 (0.169): the
//! turned-away writes came back on other pages through the write-share turn.
//! *How close* (`examples/profile_counts.rs`, seed 42; read / write p against the table's):
//! at scale 0.05, gasa-t1 0.130 / 0.278 (0.13 / 0.31), gasa-t2 0.170 / 0.153 (0.17 / 0.16),
//! gasa-t3 0.261 / 0.111 (0.28 / 0.11); at scale 1, 0.115 / 0.301, 0.170 / 0.168, 0.258 /
//! 0.110 (without the room, 0.115 / 0.301, 0.165 / 0.203, 0.283 / 0.115: the room costs
//! gasa-t3's reads 2.5 points at scale 1, as their pages take the writes' turned new pages).
//! Without the lever
//! (`ablate=locality`) p is 0.30-0.34 on both ops of every row.
//!
//! *Left as it is*: the goal's measure counts a page with [`Locality::BUCKETS`] - 1 accesses or
//! more at that count. The stack's hot pages stay below it at the shipped scales; a renewal page
//! that goes on can pass it (gasa-t2 at scale 1: one page takes 18,554 of about 118,000
//! writes), and the measured share then reads low (0.62 against the exact 0.79), which holds
//! the goal at 1. Counting those pages exactly would change the stack profiles' output too.

/// Per-op hot sets and the counts that steer them (see the module docs).
#[derive(Debug)]
pub(super) struct Locality {
    /// Per op: the table's p and a.
    target: [(f64, f64); 2],
    /// Per op: a bit per page number, touched by the op; in the op's hot set.
    seen: [Vec<u64>; 2],
    hot: [Vec<u64>; 2],
    /// Per op: the hot pages, and the op's other pages (the stack lever draws one uniformly).
    pub(super) list: [Vec<u32>; 2],
    pub(super) cold: [Vec<u32>; 2],
    /// Per op: unique pages, accesses, accesses to its hot set.
    unique: [u64; 2],
    accesses: [u64; 2],
    on_hot: [u64; 2],
    /// Per op: accesses per page number, and pages by access count (the last bucket holds
    /// every higher count): the measured p/a.
    count: [Vec<u32>; 2],
    hist: [Vec<u64>; 2],
    /// Per op: the hot set's share of accesses the feedback holds (starts at a, moved so that
    /// the measured share of the top p pages is a).
    goal: [f64; 2],
    /// Per op: the most unique pages its p/a can reach ([`Locality::with_accesses`]).
    most: [f64; 2],
}

impl Locality {
    /// Words of stack slots searched on each side for a hot page (the stack lever).
    pub(super) const RADIUS: usize = 16;
    const BUCKETS: usize = 4096;
    /// Accesses of an op between two corrections of its goal.
    const EVERY: u64 = 1024;

    /// Hot sets for the table's `target` p/a (read, then write), sized for page numbers below
    /// about `cap` (they grow past it).
    pub(super) fn new(target: [(f64, f64); 2], cap: u64) -> Locality {
        let words = (cap / 64 + 1) as usize;
        let bits = || Vec::with_capacity(words);
        let bits32 = || Vec::with_capacity(cap as usize + 1);
        Locality {
            target,
            seen: [bits(), bits()],
            hot: [bits(), bits()],
            list: [0, 1].map(|o| Vec::with_capacity((target[o].0 * cap as f64) as usize + 1)),
            cold: [0, 1].map(|o| Vec::with_capacity(((1.0 - target[o].0) * cap as f64) as usize + 1)),
            unique: [0; 2],
            accesses: [0; 2],
            on_hot: [0; 2],
            count: [bits32(), bits32()],
            hist: [vec![0; Locality::BUCKETS], vec![0; Locality::BUCKETS]],
            goal: [target[0].1, target[1].1],
            most: [f64::INFINITY; 2],
        }
    }

    fn bit(v: &[u64], p: u64) -> bool {
        v.get((p / 64) as usize).is_some_and(|w| w >> (p % 64) & 1 == 1)
    }

    fn set(v: &mut Vec<u64>, p: u64) {
        let i = (p / 64) as usize;
        if i >= v.len() {
            v.resize(i + 1, 0);
        }
        v[i] |= 1 << (p % 64);
    }

    /// Whether page `p` is in op `o`'s hot set.
    #[inline]
    pub(super) fn is_hot(&self, o: usize, p: u64) -> bool {
        Locality::bit(&self.hot[o], p)
    }

    /// Whether op `o` has touched page `p` and it is outside the op's hot set.
    #[inline]
    pub(super) fn is_cold(&self, o: usize, p: u64) -> bool {
        Locality::bit(&self.seen[o], p) && !self.is_hot(o, p)
    }

    /// Whether op `o` has touched page `p`.
    #[inline]
    pub(super) fn is_seen(&self, o: usize, p: u64) -> bool {
        Locality::bit(&self.seen[o], p)
    }

    /// Holds each op's unique pages to what its p/a can reach with `accesses` (per op, the
    /// profile's expected page accesses of the op over its run): a share a on the top p of U
    /// pages leaves (1 - a) × A accesses to (1 - p) × U cold pages, each of which takes at
    /// least one, so U ≤ A × (1 - a) / (1 - p).
    pub(super) fn with_accesses(mut self, accesses: [f64; 2]) -> Locality {
        self.most = [0, 1].map(|o| {
            let (p, a) = self.target[o];
            if p < 1.0 {
                accesses[o] * (1.0 - a) / (1.0 - p)
            } else {
                f64::INFINITY
            }
        });
        self
    }

    /// Whether op `o` may touch one more page of its own when a share `done` of the run's new
    /// pages is out: its unique pages stay within that share of the most its p/a allows (one
    /// page of slack, so that its first page is allowed).
    #[inline]
    pub(super) fn room(&self, o: usize, done: f64) -> bool {
        (self.unique[o] + 1) as f64 <= self.most[o] * done + 1.0
    }

    /// Counts an access of op `o` to page `p`.
    #[inline]
    pub(super) fn touch(&mut self, o: usize, p: u64) {
        if !Locality::bit(&self.seen[o], p) {
            Locality::set(&mut self.seen[o], p);
            self.unique[o] += 1;
            if (self.list[o].len() as f64) < self.target[o].0 * self.unique[o] as f64 {
                Locality::set(&mut self.hot[o], p);
                self.list[o].push(p as u32);
            } else {
                self.cold[o].push(p as u32);
            }
        }
        self.accesses[o] += 1;
        self.on_hot[o] += u64::from(Locality::bit(&self.hot[o], p));
        let i = p as usize;
        if i >= self.count[o].len() {
            self.count[o].resize(i + 1, 0);
        }
        let h = &mut self.hist[o];
        let c = self.count[o][i] as usize;
        if c > 0 {
            h[c.min(Locality::BUCKETS - 1)] -= 1;
        }
        self.count[o][i] += 1;
        h[(c + 1).min(Locality::BUCKETS - 1)] += 1;
        if self.accesses[o] % Locality::EVERY == 0 {
            self.steer(o);
        }
    }

    /// Moves op `o`'s goal by half the gap between a and the measured share of accesses on the
    /// top p of its pages (the most accessed first, the last bucket's pages at its count).
    fn steer(&mut self, o: usize) {
        let (p, a) = self.target[o];
        let mut left = p * self.unique[o] as f64;
        let mut on = 0.0;
        for (c, &n) in self.hist[o].iter().enumerate().rev() {
            if left <= 0.0 {
                break;
            }
            let take = (n as f64).min(left);
            on += take * c as f64;
            left -= take;
        }
        let share = on / self.accesses[o].max(1) as f64;
        self.goal[o] = (self.goal[o] + 0.5 * (a - share)).clamp(0.0, 1.0);
    }

    /// Whether op `o`'s accesses to its hot set are behind the goal.
    #[inline]
    pub(super) fn behind(&self, o: usize) -> bool {
        (self.on_hot[o] as f64) < self.goal[o] * self.accesses[o] as f64
    }

    /// Bytes held (bitmaps, lists and counts).
    pub(super) fn bytes(&self) -> usize {
        let v = |x: &[Vec<u64>; 2]| 8 * (x[0].capacity() + x[1].capacity());
        let w = |x: &[Vec<u32>; 2]| 4 * (x[0].capacity() + x[1].capacity());
        v(&self.seen) + v(&self.hot) + w(&self.list) + w(&self.cold) + w(&self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_sets_and_the_goal_by_hand() {
        // Reads: p = 0.5, a = 0.5. Pages 0..4 first touched in order: page 0 joins (0 hot < 0.5
        // × 1 unique), page 1 does not (1 hot, not < 0.5 × 2), page 2 joins (1 < 1.5), page 3
        // does not (2, not < 2). Writes have touched nothing.
        let mut l = Locality::new([(0.5, 0.5), (0.5, 0.5)], 8);
        for p in 0..4 {
            l.touch(0, p);
        }
        assert_eq!((0..4).map(|p| l.is_hot(0, p)).collect::<Vec<_>>(), [true, false, true, false]);
        assert!(l.is_cold(0, 1) && !l.is_cold(0, 0) && !l.is_cold(1, 1));
        // Two of four accesses hot: exactly at the goal a = 0.5, so not behind.
        assert!(!l.behind(0));
        // A cold access more: 2 of 5 < 0.5 × 5, behind.
        l.touch(0, 1);
        assert!(l.behind(0));
        assert!(l.bytes() > 0);
    }

    #[test]
    fn room_by_hand() {
        // Reads p = 0.2, a = 0.8 over 10 accesses: at most 10 × 0.2 / 0.8 = 2.5 pages (its
        // cold pages, 0.8 of them, take at least one access each of the 0.2 × 10 left to
        // them). Writes p = a = 0.5: at most 10 pages.
        let mut l = Locality::new([(0.2, 0.8), (0.5, 0.5)], 8).with_accesses([10.0, 10.0]);
        // Nothing of the run's pages out: only the first page (one page of slack).
        assert!(l.room(0, 0.0));
        l.touch(0, 0);
        assert!(!l.room(0, 0.0));
        // All out: pages while U + 1 ≤ 2.5 + 1, so a second and third, not a fourth.
        assert!(l.room(0, 1.0));
        l.touch(0, 1);
        assert!(l.room(0, 1.0));
        l.touch(0, 2);
        assert!(!l.room(0, 1.0));
        // Half out: writes up to 10 × 0.5 + 1 = 6 pages.
        for p in 0..5 {
            assert!(l.room(1, 0.5), "write page {p}");
            l.touch(1, p);
        }
        assert!(l.room(1, 0.5));
        l.touch(1, 5);
        assert!(!l.room(1, 0.5));
    }
}
