//! Gradient-boosted decision trees for the `ml` admission ([`super::ml`]): a small trainer and
//! the evaluator the admission calls per miss, in the core (no Python per request).
//!
//! The method is the textbook one LightGBM implements (J. H. Friedman, "Greedy Function
//! Approximation: A Gradient Boosting Machine", Annals of Statistics 29(5), 2001, with the
//! second-order leaf values and split gain of XGBoost, T. Chen and C. Guestrin, KDD '16,
//! eq. 5-7): binary log-loss, each tree fitted to the gradients and hessians of the current
//! scores on histograms of quantile bins, grown level by level to a depth, leaf values
//! −G/(H+λ) scaled by a learning rate, rows bagged per tree by a seeded generator.
//!
//! fcsim's choices where the method leaves them: at most 32 bins per feature (quantile cuts
//! of the training rows), λ = 1, learning rate 0.1, a bagging share of 0.8, at least 20 rows
//! per leaf, no split that gains less than 1e-6. A row goes left when its feature is at most
//! the split's threshold (LightGBM's numerical `<=` rule).

/// One node: a split (`feature`, `threshold`, children) or a leaf (`feature == LEAF`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Node {
    feature: u16,
    threshold: f32,
    left: u32,
    right: u32,
    value: f32,
}

const LEAF: u16 = u16::MAX;

/// A trained ensemble: the base score and the trees (flat node arrays).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ensemble {
    base: f32,
    trees: Vec<Vec<Node>>,
}

/// How to train.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Train {
    pub trees: usize,
    pub depth: usize,
    pub seed: u64,
}

/// SplitMix64: the bagging draws.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const BINS: usize = 32;
const LAMBDA: f64 = 1.0;
const RATE: f64 = 0.1;
const BAG: f64 = 0.8;
const MIN_LEAF: usize = 20;

impl Ensemble {
    /// The model's probability that `x` is positive.
    #[inline]
    pub fn predict(&self, x: &[f32]) -> f64 {
        let s = self.base + self.trees.iter().map(|t| leaf(t, x)).sum::<f32>();
        1.0 / (1.0 + (-f64::from(s)).exp())
    }

    pub fn trees(&self) -> usize {
        self.trees.len()
    }

    /// Trains on `rows` (each `features` long, row-major) with labels `y`.
    pub fn train(rows: &[f32], features: usize, y: &[bool], cfg: Train) -> Ensemble {
        let n = y.len();
        debug_assert_eq!(rows.len(), n * features);
        let positives = y.iter().filter(|&&v| v).count() as f64;
        let p = ((positives + 0.5) / (n as f64 + 1.0)).clamp(1e-6, 1.0 - 1e-6);
        let base = (p / (1.0 - p)).ln();
        if n == 0 {
            return Ensemble { base: base as f32, trees: Vec::new() };
        }
        // Quantile cuts per feature, and each row's bin.
        let mut cuts: Vec<Vec<f32>> = Vec::with_capacity(features);
        let mut bins = vec![0u8; n * features];
        let mut col: Vec<f32> = Vec::with_capacity(n);
        for f in 0..features {
            col.clear();
            col.extend((0..n).map(|r| rows[r * features + f]));
            col.sort_unstable_by(f32::total_cmp);
            let mut c: Vec<f32> = (1..BINS).map(|b| col[(b * n / BINS).min(n - 1)]).collect();
            c.dedup();
            for r in 0..n {
                bins[r * features + f] = c.partition_point(|&t| t < rows[r * features + f]) as u8;
            }
            cuts.push(c);
        }
        let mut score = vec![base; n];
        let (mut g, mut h) = (vec![0f64; n], vec![0f64; n]);
        let mut state = cfg.seed;
        let mut trees = Vec::with_capacity(cfg.trees);
        let mut idx: Vec<u32> = Vec::with_capacity(n);
        for _ in 0..cfg.trees {
            for r in 0..n {
                let q = 1.0 / (1.0 + (-score[r]).exp());
                g[r] = q - f64::from(u8::from(y[r]));
                h[r] = (q * (1.0 - q)).max(1e-12);
            }
            idx.clear();
            idx.extend((0..n as u32).filter(|_| (splitmix(&mut state) >> 11) as f64 / (1u64 << 53) as f64 <= BAG));
            let tree = grow(&bins, features, &cuts, &g, &h, &mut idx, cfg.depth);
            for (r, s) in score.iter_mut().enumerate() {
                *s += f64::from(leaf(&tree, &rows[r * features..(r + 1) * features]));
            }
            trees.push(tree);
        }
        Ensemble { base: base as f32, trees }
    }
}

/// The leaf value `x` reaches in `tree`.
#[inline]
fn leaf(tree: &[Node], x: &[f32]) -> f32 {
    let mut i = 0usize;
    loop {
        let n = &tree[i];
        if n.feature == LEAF {
            return n.value;
        }
        i = if x[n.feature as usize] <= n.threshold { n.left } else { n.right } as usize;
    }
}

/// Grows one tree on the rows `idx` (reordered in place into the nodes' segments).
fn grow(bins: &[u8], features: usize, cuts: &[Vec<f32>], g: &[f64], h: &[f64], idx: &mut [u32], depth: usize) -> Vec<Node> {
    let mut nodes = vec![Node { feature: LEAF, threshold: 0.0, left: 0, right: 0, value: 0.0 }];
    // (node, segment start, end, depth)
    let mut open = vec![(0usize, 0usize, idx.len(), 0usize)];
    let mut hist = vec![(0f64, 0f64, 0usize); features * BINS];
    while let Some((node, lo, hi, d)) = open.pop() {
        let seg = &idx[lo..hi];
        let (gs, hs) = seg.iter().fold((0.0, 0.0), |(a, b), &r| (a + g[r as usize], b + h[r as usize]));
        nodes[node].value = (-gs / (hs + LAMBDA) * RATE) as f32;
        if d >= depth || seg.len() < 2 * MIN_LEAF {
            continue;
        }
        hist.iter_mut().for_each(|e| *e = (0.0, 0.0, 0));
        for &r in seg {
            let r = r as usize;
            for f in 0..features {
                let e = &mut hist[f * BINS + bins[r * features + f] as usize];
                e.0 += g[r];
                e.1 += h[r];
                e.2 += 1;
            }
        }
        let parent = gs * gs / (hs + LAMBDA);
        let mut best: Option<(f64, usize, usize)> = None;
        for (f, c) in cuts.iter().enumerate() {
            let (mut gl, mut hl, mut nl) = (0.0, 0.0, 0usize);
            for k in 0..c.len() {
                let e = hist[f * BINS + k];
                gl += e.0;
                hl += e.1;
                nl += e.2;
                let nr = seg.len() - nl;
                if nl < MIN_LEAF || nr < MIN_LEAF {
                    continue;
                }
                let (gr, hr) = (gs - gl, hs - hl);
                let gain = gl * gl / (hl + LAMBDA) + gr * gr / (hr + LAMBDA) - parent;
                if gain > 1e-6 && best.map_or(true, |b| gain > b.0) {
                    best = Some((gain, f, k));
                }
            }
        }
        let Some((_, f, k)) = best else { continue };
        // Partition the segment: bins ≤ k to the left.
        let seg = &mut idx[lo..hi];
        let mut split = 0;
        for i in 0..seg.len() {
            if (bins[seg[i] as usize * features + f] as usize) <= k {
                seg.swap(i, split);
                split += 1;
            }
        }
        let (l, r) = (nodes.len(), nodes.len() + 1);
        nodes.push(Node { feature: LEAF, threshold: 0.0, left: 0, right: 0, value: 0.0 });
        nodes.push(Node { feature: LEAF, threshold: 0.0, left: 0, right: 0, value: 0.0 });
        nodes[node] = Node { feature: f as u16, threshold: cuts[f][k], left: l as u32, right: r as u32, value: 0.0 };
        open.push((l, lo, lo + split, d + 1));
        open.push((r, lo + split, hi, d + 1));
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_a_threshold_and_an_interaction() {
        // Two features; the label is x0 > 5 and x1 ≤ 2 (600 rows on a grid). One split cannot
        // say it; depth 2 can: the ensemble scores the positive corner high and the rest low.
        let (mut rows, mut y) = (Vec::new(), Vec::new());
        for i in 0..600u32 {
            let (a, b) = ((i % 10) as f32, (i / 10 % 6) as f32);
            rows.extend([a, b]);
            y.push(a > 5.0 && b <= 2.0);
        }
        let m = Ensemble::train(&rows, 2, &y, Train { trees: 60, depth: 2, seed: 7 });
        assert_eq!(m.trees(), 60);
        assert!(m.predict(&[8.0, 1.0]) > 0.9, "{}", m.predict(&[8.0, 1.0]));
        assert!(m.predict(&[8.0, 4.0]) < 0.1 && m.predict(&[2.0, 1.0]) < 0.1);
        // Same seed, same model; another seed bags other rows.
        assert_eq!(m, Ensemble::train(&rows, 2, &y, Train { trees: 60, depth: 2, seed: 7 }));
        assert_ne!(m, Ensemble::train(&rows, 2, &y, Train { trees: 60, depth: 2, seed: 8 }));
    }

    #[test]
    fn a_hand_built_tree_is_walked_by_the_le_rule() {
        // base 0; one tree: x0 ≤ 1.5 → leaf +2, else leaf −2. x0 = 1.5 goes left (≤).
        let leaf = |v| Node { feature: LEAF, threshold: 0.0, left: 0, right: 0, value: v };
        let root = Node { feature: 0, threshold: 1.5, left: 1, right: 2, value: 0.0 };
        let m = Ensemble { base: 0.0, trees: vec![vec![root, leaf(2.0), leaf(-2.0)]] };
        let sig = |s: f64| 1.0 / (1.0 + (-s).exp());
        assert!((m.predict(&[1.5]) - sig(2.0)).abs() < 1e-9);
        assert!((m.predict(&[1.6]) - sig(-2.0)).abs() < 1e-9);
    }
}
