//! How the renewal clone cuts a block of pages due together into reuse requests
//! ([`super::renewal`], `cut`): a sequence of lengths drawn independently from the original's
//! reuse request lengths (of the block's op and of the bin of the request that last referenced
//! the piece's first page: *Reuse requests* there), *conditioned on tiling the block exactly*.
//!
//! **Why.** A block is pages that come back together: mostly the pages of one or a few earlier
//! requests, whose lengths are the original's. Cut by lengths drawn one after another and the
//! last cut short at the block's end (the cut before model format 6), a short block took a long
//! length's draw as one request of the block's length, and a long block ended on a stub. Not
//! cutting at all (`ablate=requests`) overshoots the other way: a block is then one request,
//! however many of the original's it held.
//!
//! **The rule.** With f the lengths' shares, the lengths of a block of L pages are a sequence
//! m1, m2, ... drawn from f independently and conditioned on m1 + m2 + ... = L: the partition a
//! renewal process of lengths f gives, seen through a window that starts and ends at request
//! boundaries. It is drawn length by length: the first with probability f(m) z(L - m) / z(L),
//! where z(l) is the probability that the partial sums of independent draws from f hit l
//! (z(0) = 1, z(l) = Σ f(m) z(l - m); z is at most 1, and tends to 1 / mean where f is not
//! periodic), then the rest of the block the same way, each piece with the f of its own first
//! page's bin (the rest of the block is taken to be tiled by that f: an approximation where the
//! pages of a block came from requests of different bins). A block of a length no sequence of
//! f's lengths sums to (z(L) = 0: f has no one-page requests and L is not a sum of its lengths;
//! or so unlikely a sum that z(L) underflows) is cut as before, by a length drawn from f, cut
//! short.
//!
//! The rule is fcsim's choice: the model keeps the reuse request lengths, not how the
//! original's requests sat in blocks (which a trace does not say: a block is the clone's). What
//! it buys over the cut short (seed 1, with the lengths by bin and the clone's mean held, as
//! the generator runs them; requests of the original, cut short, tiled): cloudphysics' writes
//! 66,898, 77,525 and 64,486, its reads of one page 0.9%, 24.5% and 14.0% of its reads;
//! arc_P12's requests 547,147, 603,126 and 580,853; diskmon and tencent within 3% either way.

/// The original's reuse request lengths of one op, and how likely a sequence of them is to
/// tile each block length.
#[derive(Debug, Clone)]
pub struct Tiling {
    /// Lengths (pages, at least 1) and their shares, the commonest first (a draw stops sooner).
    lengths: Vec<(u64, f64)>,
    /// `z[l]`: the probability that the partial sums of independent lengths hit `l`, worked out
    /// up to the longest block cut so far.
    z: Vec<f64>,
}

impl Tiling {
    /// The tiling of the lengths `pairs` (length, count; the counts of a length given twice are
    /// added); `None` without any.
    pub fn new(pairs: &[(u64, u64)]) -> Option<Tiling> {
        let mut counts = std::collections::BTreeMap::<u64, f64>::new();
        for &(m, c) in pairs.iter().filter(|p| p.0 > 0 && p.1 > 0) {
            *counts.entry(m).or_default() += c as f64;
        }
        let total: f64 = counts.values().sum();
        if total == 0.0 {
            return None;
        }
        let mut lengths: Vec<(u64, f64)> = counts.into_iter().map(|(m, c)| (m, c / total)).collect();
        lengths.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Some(Tiling { lengths, z: vec![1.0] })
    }

    /// `z` up to `l`.
    fn extend(&mut self, l: usize) {
        while self.z.len() <= l {
            let at = self.z.len() as u64;
            let z: f64 = self.lengths.iter().filter(|&&(m, _)| m <= at).map(|&(m, f)| f * self.z[(at - m) as usize]).sum();
            self.z.push(z);
        }
    }

    /// A length drawn from f regardless of the block, cut short at its `l` pages, for a uniform
    /// `u` in [0, 1): the cut before model format 6 (which drew without replacement), which a
    /// paper profile keeps. Its lengths are the donor's rescaled, and its mean size is held by
    /// drawing two and taking the longer or shorter; conditioned on tiling, a block too short
    /// for the lengths the table's mean asks for was cut into still shorter pieces
    /// (dynamic-msnfs' mean size 4.6% under over seeds 1-5; cut short, 1.0% under).
    pub fn cut_short(&self, l: u64, u: f64) -> u64 {
        let mut acc = 0.0;
        for &(m, f) in &self.lengths {
            acc += f;
            if u < acc {
                return m.min(l);
            }
        }
        self.lengths.last().map_or(l, |&(m, _)| m.min(l))
    }

    /// The first request's length of a block of `l` ≥ 1 pages, for a uniform `u` in [0, 1).
    pub fn draw(&mut self, l: u64, u: f64) -> u64 {
        self.extend(l as usize);
        let zl = self.z[l as usize];
        if zl <= 0.0 {
            // No sequence of the lengths tiles the block.
            return self.cut_short(l, u);
        }
        let (target, mut acc, mut last) = (u * zl, 0.0, l);
        for &(m, f) in &self.lengths {
            if m <= l {
                let w = f * self.z[(l - m) as usize];
                if w > 0.0 {
                    acc += w;
                    last = m;
                    if target < acc {
                        return m;
                    }
                }
            }
        }
        // Rounding left `acc` a hair under z(l): the last length that tiles.
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Every way to write `l` as an ordered sum of the lengths, with its probability under
    /// independent draws.
    fn compositions(lengths: &[(u64, f64)], l: u64) -> Vec<(Vec<u64>, f64)> {
        if l == 0 {
            return vec![(Vec::new(), 1.0)];
        }
        let mut out = Vec::new();
        for &(m, f) in lengths.iter().filter(|&&(m, _)| m <= l) {
            for (mut rest, p) in compositions(lengths, l - m) {
                rest.insert(0, m);
                out.push((rest, f * p));
            }
        }
        out
    }

    #[test]
    fn a_block_is_cut_as_its_compositions_weigh_by_hand() {
        // Lengths 1 (1/2), 2 (1/4), 4 (1/4). z: 1, 1/2, 1/2, 3/8, 9/16 (by hand: z(3) = 1/2 z(2)
        // + 1/4 z(1) = 3/8; z(4) = 1/2 z(3) + 1/4 z(2) + 1/4 = 3/16 + 1/8 + 1/4).
        let mut t = Tiling::new(&[(1, 2), (2, 1), (4, 1)]).unwrap();
        t.extend(4);
        let want = [1.0, 0.5, 0.5, 0.375, 0.5625];
        for (l, (&z, &w)) in t.z.iter().zip(&want).enumerate() {
            assert!((z - w).abs() < 1e-12, "z({l}) = {z}, by hand {w}");
        }
        // A block of 4: one request of 4 with (1/4) / (9/16) = 4/9, against 1/4 unconditioned.
        let n = 90_000;
        let mut rng = StdRng::seed_from_u64(1);
        let whole = (0..n).filter(|_| t.draw(4, rng.gen()) == 4).count();
        assert!((whole as f64 / n as f64 - 4.0 / 9.0).abs() < 0.01, "{whole} of {n}");
    }

    #[test]
    fn cut_length_by_length_a_block_gets_each_composition_with_its_conditioned_probability() {
        // Every composition of 6 of lengths 1, 2, 3, 5 (shares 0.4, 0.3, 0.2, 0.1), drawn length
        // by length, against its weight over z(6), all of them.
        let pairs = [(1, 4), (2, 3), (3, 2), (5, 1)];
        let mut t = Tiling::new(&pairs).unwrap();
        let lengths = t.lengths.clone();
        let all = compositions(&lengths, 6);
        let z: f64 = all.iter().map(|c| c.1).sum();
        let n = 200_000;
        let mut rng = StdRng::seed_from_u64(2);
        let mut seen = std::collections::HashMap::<Vec<u64>, u64>::new();
        for _ in 0..n {
            let (mut left, mut cut) = (6, Vec::new());
            while left > 0 {
                let m = t.draw(left, rng.gen());
                cut.push(m);
                left -= m;
            }
            *seen.entry(cut).or_default() += 1;
        }
        assert_eq!(seen.len(), all.len(), "every composition, and only those");
        for (c, p) in &all {
            let want = p / z;
            let got = seen[c] as f64 / n as f64;
            assert!((got - want).abs() < 4.0 * (want / n as f64).sqrt() + 1e-4, "{c:?}: {got} against {want}");
        }
    }

    #[test]
    fn a_block_no_lengths_tile_is_cut_as_before() {
        // Lengths 2 and 4 only: a block of 3 has no tiling; its first length is a drawn one cut
        // short at 3. A block of 1 is one page.
        let mut t = Tiling::new(&[(2, 1), (4, 1)]).unwrap();
        assert_eq!(t.draw(3, 0.1), 2);
        assert_eq!(t.draw(3, 0.9), 3);
        assert_eq!(t.draw(1, 0.5), 1);
        // A block of 6 takes 2 or 4, each tiling.
        assert!((0..100).all(|k| [2, 4].contains(&t.draw(6, k as f64 / 100.0))));
        assert!(Tiling::new(&[]).is_none());
        // A length given twice is one length.
        assert_eq!(Tiling::new(&[(2, 1), (4, 1), (2, 2)]).unwrap().lengths, [(2, 0.75), (4, 0.25)]);
        assert!(Tiling::new(&[(3, 0)]).is_none());
    }
}
