//! PT-LRU, probabilistic triplicate LRU: Cui, Wu, Wang, Duan, "PT-LRU: a probabilistic page
//! replacement algorithm for NAND flash-based consumer electronics", IEEE TCE 60(4), 2014; as
//! the GASA paper describes it (§II.B, Fig. 5).
//!
//! Three LRU lists: LC (cold clean), LD (cold dirty) and LH (hot: clean or dirty). A page read
//! for the first time enters LC; it moves to LH when referenced again or written (a page
//! written for the first time enters LH). A victim is LC's LRU page; if LC is empty, with
//! probability `pt-lru.p` (default 0.8, seeded by `pt-lru.seed`) LD's LRU page, if LD has any;
//! otherwise LH is scanned from its LRU end: the first clean page is the victim, and the dirty
//! pages passed on the way move to LD's MRU end (become cold dirty). If LH holds no clean page,
//! LD's LRU page goes.
//!
//! Vague in the paper, chosen here: "a modest number of hot dirty pages are moved to LD" is
//! the dirty pages between LH's LRU end and its first clean page; a hit in LD moves the page
//! back to LH (hot again).

use super::list::{each_dirty, move_to, take, take_node, touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pt-lru",
    description: "probabilistic triplicate LRU: cold clean first, then cold dirty with probability p",
    source: "Cui et al., IEEE TCE 2014; GASA §II.B Fig. 5",
    offline: false,
    needs_view: false,
    params: &["p", "seed"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let prob: f64 = p.take("pt-lru", "p", 0.8, "a probability in [0, 1]")?;
        if !(0.0..=1.0).contains(&prob) {
            return Err(Error::config(format!("pt-lru.p={prob}: expected a probability in [0, 1]")));
        }
        let seed: u64 = p.take("pt-lru", "seed", 42, "an unsigned integer")?;
        Ok(Box::new(PtLru::new(cap, prob, seed)))
    },
};

const LC: u8 = 0;
const LD: u8 = 1;
const LH: u8 = 2;

#[derive(Debug)]
pub struct PtLru {
    arena: Arena,
    q: [List; 3],
    capacity: usize,
    p: f64,
    rng: StdRng,
}

impl PtLru {
    pub fn new(capacity: usize, p: f64, seed: u64) -> Self {
        PtLru { arena: Arena::with_capacity(capacity), q: [List::default(); 3], capacity, p, rng: StdRng::seed_from_u64(seed) }
    }

    fn move_to(&mut self, i: u32, to: u8) {
        move_to(&mut self.arena, &mut self.q, i, to);
    }

    fn victim(&mut self) -> u32 {
        if let Some(v) = self.q[LC as usize].back() {
            return v;
        }
        if !self.q[LD as usize].is_empty() && self.rng.gen_bool(self.p) {
            return self.q[LD as usize].back().expect("not empty");
        }
        while let Some(b) = self.q[LH as usize].back() {
            if !self.arena.node(b).dirty {
                return b;
            }
            self.move_to(b, LD);
        }
        self.q[LD as usize].back().expect("a full cache has pages")
    }
}

impl Policy for PtLru {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        if let Some(i) = self.arena.get(a.key) {
            let was = touch(&mut self.arena, i, a.write);
            self.move_to(i, LH);
            return Outcome::Hit { dirty: was };
        }
        if self.len() >= self.capacity {
            let v = self.victim();
            let n = take_node(&mut self.arena, &mut self.q, v);
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
        }
        let tag = if a.write { LH } else { LC };
        let i = self.arena.alloc(a.key, tag, a.write);
        self.q[tag as usize].push_front(&mut self.arena, i);
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        take(&mut self.arena, &mut self.q, key).map(|n| n.dirty)
    }

    fn len(&self) -> usize {
        self.q.iter().map(|l| l.len()).sum()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, &self.q, f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    fn keys(p: &PtLru, l: u8) -> Vec<u64> {
        p.q[l as usize].iter(&p.arena).map(|i| p.arena.node(i).key).collect()
    }

    #[test]
    fn gasa_fig5() {
        // GASA Fig. 5, capacity 4, with p = 1 (LD first when LC is empty) and p = 0 (LH first).
        // 1 2 (reads) → LC [2 1]; 3w → LH; 2 (hit) → LH [2 3]; 4w → LH [4 2 3]; LC [1].
        // 5: LC's 1 goes. LC [5]. 5 (hit) → LH [5 4 2 3], LC [].
        let warm = "1 2 3w 2 4w 5 5";
        let mut p = PtLru::new(4, 0.0, 1);
        let t = trace(&mut p, warm);
        assert_eq!(t[5].1, [1]);
        // 6 with p = 0: scan LH from the LRU end: 3 is dirty → LD; 2 is clean → victim.
        assert_eq!(trace(&mut p, "6")[0].1, [2]);
        assert_eq!(keys(&p, LD), [3]);
        assert_eq!(keys(&p, LC), [6]);
        // With p = 1 and LC empty, LD's LRU page goes first.
        let mut q = PtLru::new(4, 1.0, 1);
        trace(&mut q, warm);
        trace(&mut q, "6 6"); // 2 evicted, 3 to LD; 6 hit → LH [6 5 4], LD [3], LC []
        assert_eq!(trace(&mut q, "7")[0].1, [3]);
        // Same seed, same choices.
        let run = |seed| {
            let mut r = PtLru::new(8, 0.5, seed);
            trace(&mut r, "1w 2w 3 3 4w 5 5 6w 7 7 8w 9 10w 11 11 12 2w 13").into_iter().map(|x| x.1).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
    }
}
