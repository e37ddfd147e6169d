//! A uniformly random order of a multiset, drawn one item at a time: item `i` is in the urn
//! `counts[i]` times, and each draw takes one of the balls left, every ball equally likely. A
//! Fenwick tree over the counts finds the drawn ball's item in O(log n); building it is O(n).
//! The tree is padded to a power of two with nodes that are never taken, so the search has
//! no branch on the tree's end (a draw costs a few conditional moves, not mispredictions).

use rand::Rng;

use crate::error::{Error, Result};

#[derive(Debug, Clone)]
pub struct Urn {
    /// 1-based Fenwick tree: `tree[i]` sums the counts of items `i - lowbit(i) .. i` (0-based);
    /// past the items, up to twice the search's first step, [`u64::MAX`] (never taken).
    tree: Vec<u64>,
    /// Items.
    n: usize,
    left: u64,
}

impl Urn {
    /// The urn of `counts`, or an error when its tree cannot be allocated.
    pub fn new(counts: &[u64]) -> Result<Urn> {
        let mut urn = Urn { tree: Vec::new(), n: 0, left: 0 };
        urn.refill(counts)?;
        Ok(urn)
    }

    /// Puts `counts` balls back (the urn of `counts` again), reusing the tree's memory when it
    /// has as many items as before.
    pub fn refill(&mut self, counts: &[u64]) -> Result<()> {
        let n = counts.len();
        let padded = 2 * Urn::first_step(n) + 1;
        self.tree.clear();
        self.tree
            .try_reserve_exact(padded)
            .map_err(|_| Error::config(format!("synth: an urn of {n} items needs {} bytes, which could not be allocated", 8 * padded)))?;
        self.tree.push(0);
        self.tree.extend_from_slice(counts);
        for i in 1..=n {
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                self.tree[j] += self.tree[i];
            }
        }
        self.tree.resize(padded, u64::MAX);
        self.n = n;
        self.left = counts.iter().sum();
        Ok(())
    }

    /// The search's first step: the highest power of two up to `n` (1 for an empty urn).
    fn first_step(n: usize) -> usize {
        1 << n.max(1).ilog2()
    }

    /// Takes one ball and returns its item, or `None` when the urn is empty.
    pub fn draw<R: Rng>(&mut self, rng: &mut R) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        let n = self.n;
        let mut u = rng.gen_range(0..self.left);
        let mut pos = 0;
        let mut step = Urn::first_step(n);
        while step > 0 {
            // Padding nodes (past n) hold u64::MAX, never at most u.
            // All ones when the node is taken: a mask, so the compiler emits no branch.
            let t = self.tree[pos + step];
            let take = u64::from(t <= u).wrapping_neg();
            u -= t & take;
            pos += step & take as usize;
            step >>= 1;
        }
        // `pos` items have prefix sum <= u, so the ball is in item `pos` (0-based).
        let mut i = pos + 1;
        while i <= n {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
        self.left -= 1;
        Some(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn draws_every_ball_exactly_once() {
        let counts = [3, 0, 1, 5, 2, 0, 7];
        let mut urn = Urn::new(&counts).unwrap();
        let mut rng = StdRng::seed_from_u64(1);
        let mut seen = [0u64; 7];
        while let Some(i) = urn.draw(&mut rng) {
            seen[i] += 1;
        }
        assert_eq!(seen, counts);
        assert_eq!(urn.draw(&mut rng), None);
    }

    #[test]
    fn draws_in_proportion_to_the_balls_left() {
        // The first draw of 9:1 picks item 0 about 90% of the time.
        let mut rng = StdRng::seed_from_u64(2);
        let first = (0..10_000).filter(|_| Urn::new(&[9, 1]).unwrap().draw(&mut rng) == Some(0)).count();
        assert!((8800..9200).contains(&first), "{first}");
    }
}
