//! GASA, ghost-buffer-assisted and self-tuning algorithm: Li, Feng, Hua, Xia, Wang, "GASA: A New
//! Page Replacement Algorithm for NAND Flash Memory" (`gasa-ghost-buffer-page-replacement.txt`),
//! §III, Fig. 7 (GASA_Access) and Fig. 8 (GASA_Alloc).
//!
//! Three LRU lists: CL (cold clean pages), ML (hot clean, cold dirty and hot dirty pages) and GL
//! (ghosts: ids of evicted pages). A hit (in CL or ML) sets the page's hot flag and moves it to
//! ML's MRU end; if its ghost flag is set, the ghost target GS grows by 1 (at most GSMAX) and the
//! flag is cleared. A miss allocates a slot (Fig. 8); a page found in GL leaves GL and enters ML
//! with its hot and ghost flags set; any other read miss enters CL, any other write miss ML
//! (dirty, cold). Allocation with the buffer full: CL's LRU page is the victim; if CL is empty,
//! ML is scanned from its LRU end: the first page without the hot flag is the victim; a hot
//! page met on the way loses its flag and moves to CL's MRU end if clean, ML's MRU end if dirty;
//! if the scan finds none, it starts again (CL is then not empty, or ML holds a cold page). A
//! victim whose ghost flag is still set shrinks GS by GSMAX / (GSMAX − GS + 1) (at least GSMIN);
//! its id enters GL's MRU end and GL is trimmed to GS ids.
//!
//! GSMIN and GSMAX are `gasa.gsmin` and `gasa.gsmax` (10% and 100% of the buffer, §III.C). Vague
//! in the paper, chosen here: GS is real-valued and starts at GSMIN; GL keeps ⌊GS⌋ ids; a write
//! hit dirties the page like any write (it stays in ML).

use super::list::{each_dirty, move_to, take, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "gasa",
    description: "ghost-assisted, self-tuning: cold clean pages first, a ghost list finds hot ones",
    source: "GASA §III, Fig. 7-8",
    offline: false,
    needs_view: false,
    params: &["gsmin", "gsmax"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let gsmin: f64 = p.take("gasa", "gsmin", 0.1, "a fraction of the buffer")?;
        let gsmax: f64 = p.take("gasa", "gsmax", 1.0, "a fraction of the buffer")?;
        if !(gsmin >= 0.0 && gsmax >= gsmin && gsmax.is_finite()) {
            return Err(Error::config("gasa: expected 0 <= gsmin <= gsmax"));
        }
        Ok(Box::new(Gasa::new(cap, gsmin, gsmax)))
    },
};

const CL: u8 = 0;
const ML: u8 = 1;
const GL: u8 = 2;
/// Flags in `Node::count`.
const HOT: u32 = 1;
const GHOST: u32 = 2;

#[derive(Debug)]
pub struct Gasa {
    arena: Arena,
    q: [List; 3],
    capacity: usize,
    gs: f64,
    gsmin: f64,
    gsmax: f64,
}

impl Gasa {
    pub fn new(capacity: usize, gsmin: f64, gsmax: f64) -> Self {
        let c = capacity as f64;
        Gasa {
            arena: Arena::with_capacity(capacity + (gsmax * c) as usize + 1),
            q: [List::default(); 3],
            capacity,
            gs: gsmin * c,
            gsmin: gsmin * c,
            gsmax: gsmax * c,
        }
    }

    fn resident(&self) -> usize {
        self.q[CL as usize].len() + self.q[ML as usize].len()
    }

    fn move_to(&mut self, i: u32, to: u8) {
        move_to(&mut self.arena, &mut self.q, i, to);
    }

    /// Fig. 8: frees a slot when the buffer is full.
    fn alloc(&mut self, evicted: &mut Vec<Evicted>) {
        if self.resident() < self.capacity {
            return;
        }
        let victim = loop {
            if let Some(v) = self.q[CL as usize].back() {
                break v;
            }
            let mut found = None;
            for _ in 0..self.q[ML as usize].len() {
                let Some(p) = self.q[ML as usize].back() else { break };
                let n = self.arena.node_mut(p);
                if n.count & HOT == 0 {
                    found = Some(p);
                    break;
                }
                n.count &= !HOT;
                let to = if n.dirty { ML } else { CL };
                self.move_to(p, to);
            }
            if let Some(v) = found {
                break v;
            }
        };
        let n = *self.arena.node(victim);
        if n.count & GHOST != 0 {
            self.gs = (self.gs - self.gsmax / (self.gsmax - self.gs + 1.0)).max(self.gsmin);
        }
        evicted.push(Evicted { key: n.key, dirty: n.dirty });
        // The victim's node becomes its ghost at GL's MRU end; GL is trimmed to GS ids.
        self.move_to(victim, GL);
        let g = self.arena.node_mut(victim);
        g.dirty = false;
        g.count = 0;
        while self.q[GL as usize].len() > self.gs as usize {
            if let Some(old) = self.q[GL as usize].pop_back(&mut self.arena) {
                self.arena.release(old);
            }
        }
    }
}

impl Policy for Gasa {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let found = self.arena.get(a.key);
        if let Some(i) = found.filter(|&i| self.arena.node(i).tag != GL) {
            let n = self.arena.node_mut(i);
            let was = n.dirty;
            n.dirty |= a.write;
            n.count |= HOT;
            if n.count & GHOST != 0 {
                n.count &= !GHOST;
                self.gs = (self.gs + 1.0).min(self.gsmax);
            }
            self.move_to(i, ML);
            return Outcome::Hit { dirty: was };
        }
        if let Some(g) = found {
            self.q[GL as usize].unlink(&mut self.arena, g);
            self.arena.release(g);
        }
        self.alloc(evicted);
        let ghost_hit = found.is_some();
        let (tag, flags) = match (ghost_hit, a.write) {
            (true, _) => (ML, HOT | GHOST),
            (false, false) => (CL, 0),
            (false, true) => (ML, 0),
        };
        let i = self.arena.alloc(a.key, tag, a.write);
        self.arena.node_mut(i).count = flags;
        self.q[tag as usize].push_front(&mut self.arena, i);
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let n = take(&mut self.arena, &mut self.q, key)?;
        (n.tag != GL).then_some(n.dirty)
    }

    fn len(&self) -> usize {
        self.resident()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, &self.q[..2], f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    fn keys(p: &Gasa, l: u8) -> Vec<u64> {
        p.q[l as usize].iter(&p.arena).map(|i| p.arena.node(i).key).collect()
    }

    #[test]
    fn hand_traced() {
        // Buffer of 4 with GSMIN = GSMAX = 100%, so GS stays 4 ghosts.
        // 1 2 3 (reads) enter CL: CL [3 2 1]. 4w enters ML (cold dirty): ML [4].
        // 5 (read miss, full): CL's LRU 1 goes; ghost 1. CL [5 3 2], GL [1].
        // 1 (read miss, in GL): leaves GL; allocation evicts CL's LRU 2 (ghost 2); 1 enters ML
        // hot with its ghost flag: ML [1 4], GL [2].
        // 3 (hit in CL): hot, to ML: ML [3 1 4], CL [5].
        // 1 (hit, ghost flag set): GS would grow, capped at GSMAX = 4; flag cleared.
        // 6 (read miss): CL's LRU 5 goes: CL [6], GL [5 2].
        // 7 (read miss): CL's 6 goes: CL [7], GL [6 5 2].
        // 8w (write miss): CL's 7 goes, GL [7 6 5 2]; 8 enters ML cold dirty: ML [8 1 3 4].
        // 9 (read miss): CL empty: scan ML from the LRU end: 4 is cold → victim (dirty).
        let mut p = Gasa::new(4, 1.0, 1.0);
        let t = trace(&mut p, "1 2 3 4w 5 1 3 1 6 7 8w 9");
        let evicted: Vec<Vec<u64>> = t.iter().map(|x| x.1.clone()).collect();
        assert_eq!(evicted[4], [1]);
        assert_eq!(evicted[5], [2]);
        assert!(t[6].0 && t[7].0);
        assert_eq!((evicted[8].clone(), evicted[9].clone(), evicted[10].clone()), (vec![5], vec![6], vec![7]));
        assert_eq!(evicted[11], [4]);
        assert_eq!(keys(&p, GL), [4, 7, 6, 5]); // trimmed to GS = 4
                                                // 10 (read miss): CL [9]'s 9 goes first.
        assert_eq!(trace(&mut p, "10")[0].1, [9]);
        // Now CL [10]; make CL empty by hitting 10: ML [10 8 1 3]; all but 8 hot.
        // 11: scan from the LRU end: 3 hot clean → cold, to CL; 1 hot clean → CL; 8 is cold
        // dirty → victim.
        trace(&mut p, "10");
        assert_eq!(trace(&mut p, "11")[0].1, [8]);
        assert_eq!(keys(&p, CL), [11, 1, 3]);
    }

    #[test]
    fn ghost_size_learns() {
        // GSMIN 25% of 4 = 1, GSMAX 100% = 4. A ghost hit that is referenced again grows GS by 1.
        let mut p = Gasa::new(4, 0.25, 1.0);
        trace(&mut p, "1 2 3 4 5"); // 1 evicted, ghost [1]
        trace(&mut p, "1 1"); // ghost hit, then hit with the ghost flag: GS 1 → 2
        assert_eq!(p.gs, 2.0);
        // A victim whose ghost flag is still set shrinks GS. The ghost hit on 1 evicted 2; 2 is
        // read again: a ghost hit (3 goes), 2 enters ML hot with its flag. CL [5 4], ML [2 1].
        trace(&mut p, "2");
        assert!(p.arena.get(2).is_some_and(|i| p.arena.node(i).count & GHOST != 0));
        // Hits on 4 and 5 empty CL: ML [5 4 2 1]. Miss on 7: the scan finds only hot pages, all
        // clean, so each loses its flag and moves to CL: CL [5 4 2 1]; the second round evicts
        // 1. Miss on 8 evicts 2, its ghost flag still set: GS = max(1, 2 − 4 / (4 − 2 + 1)) = 1.
        let t = trace(&mut p, "4 5 7 8");
        assert_eq!((t[2].1.clone(), t[3].1.clone()), (vec![1], vec![2]));
        assert_eq!(p.gs, 1.0);
    }
}
