//! The clone's LRU stack of pages with order statistics: the page at stack depth d, and the
//! nearest page of a given last op (read or write) to a depth, in O(log M).
//!
//! As in [`crate::mrc::StackDistances`], each touch takes the next time slot and a page's live
//! slot is its most recent touch; depth d is the d-th live slot from the newest. Two bitsets
//! mark live slots and live slots whose page was last written; a Fenwick tree over blocks of
//! eight 64-slot words counts both (popcount counts within a block). A request's pages are
//! touched in one call ([`Stack::touch_range`]): they were usually touched together before,
//! so their old slots share words and are cleared a word at a time, and their new slots are
//! consecutive and set a word at a time; the tree is updated once per block the request
//! changes, not once per page. When the slots run out the live ones are renumbered in order,
//! in place (doubling the capacity when they fill half of it), and any page deeper than
//! `limit` is forgotten (its next touch is a first access). A paper profile's hot pages are
//! marked on their slots ([`Stack::mark`]), so the nearest hot page to a depth is found a word
//! of slots at a time. Nothing allocates per touch: only a doubled capacity and a page number
//! past the table grow the arrays.

/// The bit sets of a word, by index.
const LIVE: usize = 0;
/// Words per block of the tree.
const BLOCK: usize = 8;
const WRITTEN: usize = 1;
const HEAD: usize = 2;
const TAIL: usize = 3;

/// No slot: the page is new or forgotten.
const NONE: u32 = u32::MAX;

#[derive(Debug)]
pub struct Stack {
    /// Per 64-slot word, side by side in one cache line: live slots, slots whose page was last
    /// written, slots whose touch was the first page of a request, and the last page.
    bits: Vec<[u64; 4]>,
    /// Fenwick tree over blocks of [`BLOCK`] words: `[live, written]` slots per block, 1-based
    /// (small enough to stay in cache; a block's words are counted with popcount).
    tree: Vec<[u32; 2]>,
    slot_page: Vec<u32>,
    page_slot: Vec<u32>,
    /// Per 64-slot word, two marks per slot (a paper profile's per-op hot pages, set by the
    /// caller with [`Stack::mark`] after each touch); empty unless [`Stack::keep_marks`].
    marks: Vec<[u64; 2]>,
    next: usize,
    count: usize,
    writes: usize,
    limit: usize,
    /// Pending tree deltas of one word (the word, live delta, written delta): one for the old
    /// slots a request's touches clear, one for the new slots they set.
    pending: [(usize, i32, i32); 2],
}

impl Stack {
    /// A stack sized for about `pages` pages that keeps at most `limit` of them.
    pub fn new(pages: usize, limit: usize) -> Stack {
        let cap = (2 * pages.max(1)).next_power_of_two().max(1 << 12);
        let words = cap / 64;
        Stack {
            bits: vec![[0; 4]; words],
            tree: vec![[0; 2]; words / BLOCK + 1],
            slot_page: vec![0; cap],
            page_slot: Vec::with_capacity(pages + pages / 8 + 64),
            marks: Vec::new(),
            next: 0,
            count: 0,
            writes: 0,
            limit: limit.max(1),
            pending: [(usize::MAX, 0, 0); 2],
        }
    }

    /// Pages held.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Bytes held by the arrays (for the memory bound's test).
    pub fn bytes(&self) -> usize {
        32 * self.bits.len() + 16 * self.marks.len() + 8 * self.tree.len() + 4 * self.slot_page.len() + 4 * self.page_slot.capacity()
    }

    /// Keeps two marks per slot ([`Stack::mark`], [`Stack::nearest_marked`]).
    pub fn keep_marks(&mut self) {
        self.marks = vec![[0; 2]; self.bits.len()];
    }

    /// Sets mark `m` (0 or 1) on page `page`'s slot, if the page is held: it stays on that
    /// slot until the page is touched again (a new slot starts unmarked).
    #[inline]
    pub fn mark(&mut self, page: u32, m: usize) {
        let s = self.slot_of(u64::from(page));
        if s != NONE {
            self.marks[s as usize / 64][m] |= 1 << (s % 64);
        }
    }

    #[inline]
    fn add(&mut self, word: usize, live: i32, written: i32) {
        let mut i = word / BLOCK + 1;
        while i < self.tree.len() {
            let n = &mut self.tree[i];
            n[0] = n[0].wrapping_add_signed(live);
            n[1] = n[1].wrapping_add_signed(written);
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn delta(&mut self, k: usize, word: usize, live: i32, written: i32) {
        let word = word / BLOCK * BLOCK;
        if self.pending[k].0 != word {
            self.flush_one(k);
            self.pending[k] = (word, 0, 0);
        }
        self.pending[k].1 += live;
        self.pending[k].2 += written;
    }

    #[inline]
    fn flush_one(&mut self, k: usize) {
        let (w, l, wr) = self.pending[k];
        if w != usize::MAX && (l != 0 || wr != 0) {
            self.add(w, l, wr);
        }
        self.pending[k] = (usize::MAX, 0, 0);
    }

    #[inline]
    fn flush(&mut self) {
        self.flush_one(0);
        self.flush_one(1);
    }

    /// Touches `page` by a write (`write`) or a read: it becomes the most recent page; `head`
    /// marks the first page of a request. Call [`Stack::done`] after the last page of a request.
    /// Returns whether the page was new (never touched, or forgotten).
    #[inline]
    pub fn touch(&mut self, page: u32, write: bool, head: bool, tail: bool) -> bool {
        let p = page as usize;
        if p >= self.page_slot.len() {
            self.page_slot.resize(p + 1, NONE);
        }
        let old = self.page_slot[p];
        if old != NONE {
            let s = old as usize;
            let (w, bit) = (s / 64, 1u64 << (s % 64));
            let was_written = self.bits[w][WRITTEN] & bit != 0;
            self.bits[w][LIVE] &= !bit;
            self.bits[w][WRITTEN] &= !bit;
            self.count -= 1;
            self.writes -= usize::from(was_written);
            self.delta(0, w, -1, -i32::from(was_written));
        }
        if self.next == self.slot_page.len() {
            self.flush();
            self.compact();
        }
        let s = self.next;
        self.next += 1;
        let (w, bit) = (s / 64, 1u64 << (s % 64));
        self.bits[w][LIVE] |= bit;
        if write {
            self.bits[w][WRITTEN] |= bit;
        }
        if head {
            self.bits[w][HEAD] |= bit;
        } else {
            self.bits[w][HEAD] &= !bit;
        }
        if tail {
            self.bits[w][TAIL] |= bit;
        } else {
            self.bits[w][TAIL] &= !bit;
        }
        self.count += 1;
        self.writes += usize::from(write);
        self.slot_page[s] = page;
        self.page_slot[p] = s as u32;
        self.delta(1, w, 1, i32::from(write));
        old == NONE
    }

    /// The slot of page `p` (a read of its entry, to bring it into cache ahead of a touch).
    #[inline]
    pub fn slot_of(&self, p: u64) -> u32 {
        self.page_slot.get(p as usize).copied().unwrap_or(NONE)
    }

    /// Touches the `k` pages `first..first + k` of one request in order, by a write (`write`)
    /// or a read, and ends the request (as [`Stack::touch`] on each page, then
    /// [`Stack::done`]). Returns how many of them were new. The request's new slots are
    /// consecutive, so their bits are set a word at a time; its pages' old slots are cleared a
    /// word at a time while they share one (a request touched together before).
    #[inline]
    pub fn touch_range(&mut self, first: u32, k: usize, write: bool) -> u64 {
        let (f, s0) = (first as usize, self.next);
        if k == 0 {
            return 0;
        }
        if s0 + k > self.slot_page.len() {
            // The slots run out within the request: page by page, compacting on the way.
            let mut new = 0;
            for i in 0..k {
                new += u64::from(self.touch(first + i as u32, write, i == 0, i == k - 1));
            }
            self.done();
            return new;
        }
        if f + k > self.page_slot.len() {
            self.page_slot.resize(f + k, NONE);
        }
        let mut new = 0u64;
        let (mut word, mut mask) = (usize::MAX, 0u64);
        for i in 0..k {
            let old = self.page_slot[f + i];
            self.page_slot[f + i] = (s0 + i) as u32;
            self.slot_page[s0 + i] = first + i as u32;
            if old == NONE {
                new += 1;
                continue;
            }
            let w = old as usize / 64;
            if w != word {
                if word != usize::MAX {
                    self.clear(word, mask);
                }
                (word, mask) = (w, 0);
            }
            mask |= 1 << (old % 64);
        }
        if word != usize::MAX {
            self.clear(word, mask);
        }
        // The new slots, word by word: never used since the last compaction, so all clear.
        let end = s0 + k;
        let mut s = s0;
        while s < end {
            let (w, b) = (s / 64, s % 64);
            let n = (64 - b).min(end - s);
            let m = (u64::MAX >> (64 - n)) << b;
            self.bits[w][LIVE] |= m;
            if write {
                self.bits[w][WRITTEN] |= m;
            }
            self.delta(1, w, n as i32, if write { n as i32 } else { 0 });
            s += n;
        }
        self.bits[s0 / 64][HEAD] |= 1 << (s0 % 64);
        self.bits[(end - 1) / 64][TAIL] |= 1 << ((end - 1) % 64);
        self.next = end;
        self.count += k;
        self.writes += if write { k } else { 0 };
        self.flush();
        new
    }

    /// Clears the live slots `mask` of word `w` (pages touched again).
    #[inline]
    fn clear(&mut self, w: usize, mask: u64) {
        let written = (self.bits[w][WRITTEN] & mask).count_ones();
        let live = mask.count_ones();
        self.bits[w][LIVE] &= !mask;
        self.bits[w][WRITTEN] &= !mask;
        self.count -= live as usize;
        self.writes -= written as usize;
        self.delta(0, w, -(live as i32), -(written as i32));
    }

    /// Ends a request's touches (applies the pending counts).
    #[inline]
    pub fn done(&mut self) {
        self.flush();
    }

    /// Slots of kind `k` (0 live, 1 written, 2 live and not written) in a word.
    #[inline]
    fn word_bits(&self, w: usize, k: usize) -> u64 {
        match k {
            0 => self.bits[w][LIVE],
            1 => self.bits[w][WRITTEN],
            _ => self.bits[w][LIVE] & !self.bits[w][WRITTEN],
        }
    }

    #[inline]
    fn node(&self, i: usize, k: usize) -> u32 {
        let n = self.tree[i];
        match k {
            0 => n[0],
            1 => n[1],
            _ => n[0] - n[1],
        }
    }

    /// The slot of the `q`-th (1-based, oldest first) slot of kind `k`; `q` must be at most
    /// the number of such slots.
    fn select(&self, mut q: u32, k: usize) -> usize {
        let n = self.tree.len() - 1;
        let mut pos = 0;
        let mut step = 1usize << n.ilog2();
        while step > 0 {
            let next = pos + step;
            if next <= n && self.node(next, k) < q {
                q -= self.node(next, k);
                pos = next;
            }
            step >>= 1;
        }
        // The q-th set bit of block `pos`: its word, then the bit.
        let mut w = pos * BLOCK;
        loop {
            let c = self.word_bits(w, k).count_ones();
            if c >= q {
                break;
            }
            q -= c;
            w += 1;
        }
        let pos = w;
        let mut bits = self.word_bits(pos, k);
        let mut base = 0;
        loop {
            let c = (bits & 0xff).count_ones();
            if c >= q {
                break;
            }
            q -= c;
            bits >>= 8;
            base += 8;
        }
        for _ in 1..q {
            bits &= bits - 1;
        }
        pos * 64 + base + bits.trailing_zeros() as usize
    }

    /// Slots of kind `k` at positions ≤ `slot`.
    fn rank(&self, slot: usize, k: usize) -> u32 {
        let word = slot / 64;
        let mut i = word / BLOCK;
        let mut s = 0;
        while i > 0 {
            s += self.node(i, k);
            i &= i - 1;
        }
        for w in word / BLOCK * BLOCK..word {
            s += self.word_bits(w, k).count_ones();
        }
        let mask = u64::MAX >> (63 - slot % 64);
        s + (self.word_bits(word, k) & mask).count_ones()
    }

    /// The page at depth `d` (1 = most recent) if its last touch was a write exactly when
    /// `written`, else the nearest page of that kind: the next deeper one when `deeper`, the
    /// next shallower otherwise (the other when there is none on that side). `None` when the
    /// stack is shallower than `d` or holds no page of that kind.
    /// `at` 1 takes the first page of the request that last touched that page instead, 2 its
    /// last page (when it is within a few words of slots).
    pub fn find(&self, d: u64, written: bool, deeper: bool, at: u8) -> Option<u32> {
        self.find_slot(d, written, deeper).map(|s| {
            self.slot_page[match at {
                1 => self.head_of(s),
                2 => self.tail_of(s),
                _ => s,
            }]
        })
    }

    /// The page nearest to depth `d` whose slot has mark `m`, in slots, searched a word of 64
    /// slots at a time outward: the word holding depth d, then the pair of words k words to
    /// either side (k up to `radius`); the first word or pair that holds a marked page gives
    /// its nearest one (the shallower one of two equally near in the first word, the one in
    /// the deeper word of a pair unless the other is strictly nearer). `None` when none is
    /// within the radius, or when the stack is shallower than `d`.
    pub fn nearest_marked(&self, d: u64, radius: usize, m: usize) -> Option<u32> {
        if d == 0 || d > self.count as u64 {
            return None;
        }
        let s = self.select((self.count as u64 - d + 1) as u32, 0);
        let (w0, b) = (s / 64, s % 64);
        let marked = |w: usize| self.bits[w][LIVE] & self.marks[w][m];
        let c = marked(w0);
        if c != 0 {
            // The nearest set bit to b; the lower of two equally near.
            let below = c & ((1u64 << b) - 1);
            let above = c & !((1u64 << b) - 1);
            let lo = (below != 0).then(|| 63 - below.leading_zeros() as usize);
            let hi = (above != 0).then(|| above.trailing_zeros() as usize);
            let bit = match (lo, hi) {
                (Some(l), Some(h)) => {
                    if b - l <= h - b {
                        l
                    } else {
                        h
                    }
                }
                (Some(l), None) => l,
                (None, Some(h)) => h,
                (None, None) => unreachable!("c != 0"),
            };
            return Some(self.slot_page[w0 * 64 + bit]);
        }
        for k in 1..=radius {
            let mut best: Option<(usize, usize)> = None;
            if let Some(w) = w0.checked_sub(k) {
                let c = marked(w);
                if c != 0 {
                    let slot = w * 64 + 63 - c.leading_zeros() as usize;
                    best = Some((s - slot, slot));
                }
            }
            let w = w0 + k;
            if w < self.bits.len() {
                let c = marked(w);
                if c != 0 {
                    let slot = w * 64 + c.trailing_zeros() as usize;
                    if best.map_or(true, |(dist, _)| slot - s < dist) {
                        best = Some((slot - s, slot));
                    }
                }
            }
            if let Some((_, slot)) = best {
                return Some(self.slot_page[slot]);
            }
        }
        None
    }

    /// The live slot at or after `s` that was the last page of its request, if one is within a
    /// few words; else `s`.
    fn tail_of(&self, s: usize) -> usize {
        let mut mask = u64::MAX << (s % 64);
        for w in (s / 64..self.bits.len()).take(8) {
            let bits = self.bits[w][TAIL] & self.bits[w][LIVE] & mask;
            if bits != 0 {
                return w * 64 + bits.trailing_zeros() as usize;
            }
            mask = u64::MAX;
        }
        s
    }

    /// The live slot at or before `s` that was the first page of its request, if one is
    /// within a few words; else `s`.
    fn head_of(&self, s: usize) -> usize {
        let mut w = s / 64;
        let mut mask = u64::MAX >> (63 - s % 64);
        for _ in 0..8 {
            let bits = self.bits[w][HEAD] & self.bits[w][LIVE] & mask;
            if bits != 0 {
                return w * 64 + 63 - bits.leading_zeros() as usize;
            }
            if w == 0 {
                break;
            }
            w -= 1;
            mask = u64::MAX;
        }
        s
    }

    fn find_slot(&self, d: u64, written: bool, deeper: bool) -> Option<usize> {
        if d == 0 || d > self.count as u64 {
            return None;
        }
        let q = (self.count as u64 - d + 1) as u32;
        let s = self.select(q, 0);
        let is_written = self.bits[s / 64][WRITTEN] & (1 << (s % 64)) != 0;
        if is_written == written {
            return Some(s);
        }
        let k = if written { 1 } else { 2 };
        let total = if written { self.writes } else { self.count - self.writes } as u32;
        if total == 0 {
            return None;
        }
        // Kind-k slots older than s: r; the deeper neighbour is the r-th, the shallower the
        // (r + 1)-th.
        let r = self.rank(s, k);
        let pick = match (r >= 1, r < total) {
            (true, true) => {
                if deeper {
                    r
                } else {
                    r + 1
                }
            }
            (true, false) => r,
            _ => r + 1,
        };
        Some(self.select(pick, k))
    }

    /// Renumbers the live slots 0..count in order, forgetting the oldest beyond `limit`, and
    /// doubles the capacity when the kept slots fill more than half of it.
    fn compact(&mut self) {
        let forget = self.count.saturating_sub(self.limit);
        let keep = self.count - forget;
        let mut cap = self.slot_page.len();
        if 2 * keep > cap {
            cap *= 2;
        }
        let words = cap / 64;
        let marked = !self.marks.is_empty();
        let (mut j, mut seen, mut writes) = (0usize, 0usize, 0usize);
        // In place: the new slot j never passes the old slot, so a word is read (and cleared)
        // before any slot is moved into it.
        for w in 0..self.bits.len() {
            let old = std::mem::take(&mut self.bits[w]);
            let old_marks = if marked { std::mem::take(&mut self.marks[w]) } else { [0; 2] };
            let mut live = old[LIVE];
            while live != 0 {
                let b = live.trailing_zeros() as usize;
                live &= live - 1;
                let page = self.slot_page[w * 64 + b];
                seen += 1;
                if seen <= forget {
                    self.page_slot[page as usize] = NONE;
                    continue;
                }
                let (nw, nb) = (j / 64, j % 64);
                let bits = &mut self.bits[nw];
                bits[LIVE] |= 1 << nb;
                for k in [WRITTEN, HEAD, TAIL] {
                    bits[k] |= (old[k] >> b & 1) << nb;
                }
                if marked {
                    for (new, old) in self.marks[nw].iter_mut().zip(old_marks) {
                        *new |= (old >> b & 1) << nb;
                    }
                }
                writes += (old[WRITTEN] >> b & 1) as usize;
                self.slot_page[j] = page;
                self.page_slot[page as usize] = j as u32;
                j += 1;
            }
        }
        self.slot_page.resize(cap, 0);
        self.bits.resize(words, [0; 4]);
        if marked {
            self.marks.resize(words, [0; 2]);
        }
        let blocks = words / BLOCK;
        self.tree.clear();
        self.tree.resize(blocks + 1, [0; 2]);
        for i in 1..=blocks {
            for b in &self.bits[(i - 1) * BLOCK..i * BLOCK] {
                self.tree[i][0] += b[LIVE].count_ones();
                self.tree[i][1] += b[WRITTEN].count_ones();
            }
            let parent = i + (i & i.wrapping_neg());
            if parent <= blocks {
                let n = self.tree[i];
                self.tree[parent][0] += n[0];
                self.tree[parent][1] += n[1];
            }
        }
        self.next = keep;
        self.count = keep;
        self.writes = writes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stack as a plain list, newest first.
    fn naive(touches: &[(u32, bool)]) -> Vec<(u32, bool)> {
        let mut v: Vec<(u32, bool)> = Vec::new();
        for &(p, w) in touches {
            v.retain(|x| x.0 != p);
            v.insert(0, (p, w));
        }
        v
    }

    #[test]
    fn depths_match_a_list_through_compactions() {
        let mut s = Stack::new(10, usize::MAX);
        let mut touches = Vec::new();
        let mut x = 7u64;
        for i in 0..20_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let page = ((x >> 33) % 300) as u32;
            let write = (x >> 20) & 3 == 0;
            s.touch(page, write, true, true);
            if i % 3 == 0 {
                s.done();
            }
            touches.push((page, write));
        }
        s.done();
        let list = naive(&touches);
        assert_eq!(s.len(), list.len());
        for d in 1..=list.len() {
            let (page, w) = list[d - 1];
            assert_eq!(s.find(d as u64, w, true, 0), Some(page), "depth {d}");
            // The other kind: the nearest deeper page of that kind, else the shallower one.
            let want = list[d..].iter().find(|x| x.1 != w).or_else(|| list[..d].iter().rev().find(|x| x.1 != w)).map(|x| x.0);
            assert_eq!(s.find(d as u64, !w, true, 0), want, "depth {d}, other kind");
            let want = list[..d].iter().rev().find(|x| x.1 != w).or_else(|| list[d..].iter().find(|x| x.1 != w)).map(|x| x.0);
            assert_eq!(s.find(d as u64, !w, false, 0), want, "depth {d}, other kind, shallower");
        }
        assert_eq!(s.find(list.len() as u64 + 1, false, true, 0), None);
    }

    #[test]
    fn the_nearest_marked_page_is_the_nearest_wanted_page_of_a_scan() {
        // Marks on pages divisible by 7 (mark 0) or 5 (mark 1), set after each touch as the
        // generator does; compared with a scan of every live slot outward, word pair by word
        // pair, through compactions.
        let mut s = Stack::new(10, usize::MAX);
        s.keep_marks();
        let mut x = 11u64;
        for i in 0..30_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let first = ((x >> 33) % 2000) as u32;
            let k = 1 + (x >> 20) as usize % 4;
            s.touch_range(first, k, (x >> 40) & 1 == 1);
            for p in first..first + k as u32 {
                for (m, div) in [(0, 7), (1, 5)] {
                    if p % div == 0 {
                        s.mark(p, m);
                    }
                }
            }
            if i % 997 != 0 {
                continue;
            }
            for d in (1..=s.len() as u64).step_by(37) {
                for (m, div) in [(0usize, 7u32), (1, 5)] {
                    let slot = s.select((s.count as u64 - d + 1) as u32, 0);
                    let w0 = slot / 64;
                    let mut want = None;
                    'rings: for r in 0..=3usize {
                        let mut best: Option<(usize, u32)> = None;
                        for w in [w0.checked_sub(r), (r > 0).then_some(w0 + r)].into_iter().flatten().filter(|&w| w < s.bits.len()) {
                            for b in 0..64 {
                                let t = w * 64 + b;
                                if s.bits[w][LIVE] >> b & 1 == 1
                                    && s.slot_page[t] % div == 0
                                    && best.map_or(true, |(e, _)| t.abs_diff(slot) < e)
                                {
                                    best = Some((t.abs_diff(slot), s.slot_page[t]));
                                }
                            }
                        }
                        if let Some(b) = best {
                            want = Some(b.1);
                            break 'rings;
                        }
                    }
                    assert_eq!(s.nearest_marked(d, 3, m), want, "touch {i}, depth {d}, mark {m}");
                }
            }
        }
    }

    #[test]
    fn pages_deeper_than_the_limit_are_forgotten() {
        let mut s = Stack::new(10, 100);
        for p in 0..10_000u32 {
            s.touch(p, false, true, true);
        }
        s.done();
        assert!(s.len() <= 4096 + 100, "{}", s.len());
        // The newest pages are kept in order.
        assert_eq!(s.find(1, false, true, 0), Some(9999));
        assert_eq!(s.find(100, false, true, 0), Some(9900));
    }
}
