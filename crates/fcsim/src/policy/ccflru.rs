//! CCF-LRU, cold-clean-first LRU: Li, Jin, Su, Yang, "CCF-LRU: a new buffer replacement
//! algorithm for flash memory", IEEE TCE 55(3), 2009; as the GASA paper describes it (§II.B,
//! Fig. 4).
//!
//! Two LRU lists: the cold clean list (CL) and the mixed list (ML: hot clean, cold dirty and hot
//! dirty pages), with LRU-WSR's cold flag. A page read for the first time enters CL; written for
//! the first time, it enters ML (dirty, hot, as LRU-WSR admits pages). A hit in CL moves the page
//! to ML (hot clean); a hit in ML moves it to ML's MRU end and clears its cold flag. A victim is
//! CL's LRU page; if CL is empty, ML is scanned from its LRU end as in LRU-WSR: a cold page is
//! the victim, a hot page gets its cold flag set and a second chance at ML's MRU end, so cold
//! dirty pages go before hot dirty ones.
//!
//! Vague in the paper, chosen here: a write hit in CL moves the page to ML dirty and hot; hot
//! clean pages in ML get the same second chance as hot dirty ones (they become cold and are
//! evicted on the next pass, before any page still hot).

use super::list::{each_dirty, move_to, take, take_node, touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "ccf-lru",
    description: "cold-clean-first LRU: cold clean list first, then LRU-WSR over the mixed list",
    source: "Li et al., IEEE TCE 2009; GASA §II.B Fig. 4",
    offline: false,
    params: &[],
    make: |cap, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(CcfLru::new(cap))) },
};

const CL: u8 = 0;
const ML: u8 = 1;
/// `Node::count` holds the cold flag.
const COLD: u32 = 1;

#[derive(Debug)]
pub struct CcfLru {
    arena: Arena,
    q: [List; 2],
    capacity: usize,
}

impl CcfLru {
    pub fn new(capacity: usize) -> Self {
        CcfLru { arena: Arena::with_capacity(capacity), q: [List::default(); 2], capacity }
    }

    fn victim(&mut self) -> u32 {
        if let Some(v) = self.q[CL as usize].back() {
            return v;
        }
        loop {
            let b = self.q[ML as usize].back().expect("a full cache has pages");
            let n = self.arena.node_mut(b);
            if n.count == COLD {
                return b;
            }
            n.count = COLD;
            self.q[ML as usize].move_to_front(&mut self.arena, b);
        }
    }
}

impl Policy for CcfLru {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        if let Some(i) = self.arena.get(a.key) {
            let was = touch(&mut self.arena, i, a.write);
            self.arena.node_mut(i).count = 0;
            move_to(&mut self.arena, &mut self.q, i, ML);
            return Outcome::Hit { dirty: was };
        }
        if self.q[CL as usize].len() + self.q[ML as usize].len() >= self.capacity {
            let v = self.victim();
            let n = take_node(&mut self.arena, &mut self.q, v);
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
        }
        let tag = if a.write { ML } else { CL };
        let i = self.arena.alloc(a.key, tag, a.write);
        self.q[tag as usize].push_front(&mut self.arena, i);
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        take(&mut self.arena, &mut self.q, key).map(|n| n.dirty)
    }

    fn len(&self) -> usize {
        self.q[CL as usize].len() + self.q[ML as usize].len()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, &self.q, f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn gasa_fig4() {
        // GASA Fig. 4: cold clean pages sit in their own list and go first; then cold dirty
        // pages; hot dirty pages last. Capacity 4 (MRU first):
        // 1 2 (reads) → CL [2 1]; 3w 4w → ML [4 3] (hot dirty).
        // 5 (read miss): CL's LRU 1 goes. CL [5 2].
        // 2 (hit in CL) → ML hot clean: ML [2 4 3], CL [5]. 6: CL's 5 goes. CL [6].
        // 6 (hit) → ML: ML [6 2 4 3], CL []. 7: scan ML: 3, 4, 2, 6 are hot → cold, second
        // chance each (order 3 4 2 6 → ML [6 2 4 3] again, all cold); then 3 (cold dirty) goes.
        let mut p = CcfLru::new(4);
        let t = trace(&mut p, "1 2 3w 4w 5 2 6 6 7");
        assert_eq!(t[4].1, [1]);
        assert_eq!(t[6].1, [5]);
        assert_eq!(t[8].1, [3]);
        // 7 entered CL; the next miss takes it (cold clean first) before any ML page.
        assert_eq!(trace(&mut p, "8")[0].1, [7]);
        // 4w (hit): hot again, MRU. CL [8]. 9: CL's 8 goes; 10: CL's 9 goes.
        let t = trace(&mut p, "4w 9 10");
        assert_eq!((t[1].1.clone(), t[2].1.clone()), (vec![8], vec![9]));
        // 2 (hit in ML, cold clean there): hot, MRU. ML [2 4 6]; CL [10]. 10 hit → ML
        // [10 2 4 6], CL []. 11: scan from the LRU end: 6 is cold → victim (clean).
        let t = trace(&mut p, "2 10 11");
        assert_eq!(t[2].1, [6]);
    }
}
