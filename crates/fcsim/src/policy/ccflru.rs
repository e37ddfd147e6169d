//! CCF-LRU, cold-clean-first LRU: Li, Jin, Su, Cui, Yue, "CCF-LRU: a new buffer replacement
//! algorithm for flash memory", IEEE TCE 55(3), 2009; as the GASA paper describes it (§II.B,
//! Fig. 4).
//!
//! Four page classes (cold clean, hot clean, cold dirty, hot dirty) in two LRU lists: the cold
//! clean list (CL) holds the cold clean pages, the mixed list (ML) all others, with LRU-WSR's
//! cold flag. A page read for the first time enters CL; written for the first time, it enters
//! ML (dirty, hot: LRU-WSR admits pages without the cold flag). A hit in CL moves the page to
//! ML's MRU end, hot (clean, or dirty if the hit is a write); a hit in ML moves it to ML's MRU
//! end and clears its cold flag. A victim is CL's LRU page (cold clean first). If CL is empty,
//! ML is scanned from its LRU end: a cold dirty page is the victim; a hot dirty page gets its
//! cold flag set and a second chance at ML's MRU end (LRU-WSR); a hot clean page becomes cold
//! clean and moves to CL's MRU end, so CL again holds the next victims. ML never holds a cold
//! clean page. A scan thus evicts a cold dirty page rather than a hot clean one (which becomes
//! the next victim instead), and delays hot dirty pages by a second chance.
//!
//! Vague in the paper, chosen here:
//! - a hot clean page demoted to CL during a scan is not the victim of that scan: the scan goes
//!   on through ML to a cold dirty page ("if there are no cold clean pages, cold dirty pages
//!   are preferentially chosen"), and the demoted pages are the next victims, in demotion order,
//!   ahead of every ML page; if the scan demotes every page of ML (ML held only hot clean
//!   pages), CL's LRU page, the first one demoted, is the victim;
//! - a new page written for the first time enters ML hot, as LRU-WSR admits pages (GASA:
//!   "uses the cold-detection mechanism of LRU-WSR");
//! - a write hit in CL moves the page to ML dirty and hot;
//! - every miss is admitted. Finding a victim takes at most one pass over ML plus one page.

use super::list::{each_dirty, move_to, take, take_node, touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "ccf-lru",
    description: "cold-clean-first LRU: cold clean list first, then LRU-WSR over the mixed list",
    source: "Li et al., IEEE TCE 2009; GASA §II.B Fig. 4",
    offline: false,
    needs_view: false,
    params: &[],
    make: |cap, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(CcfLru::new(cap))) },
};

const CL: u8 = 0;
const ML: u8 = 1;
/// `Node::count` holds the cold flag; it is read only in ML (every page of CL is cold clean).
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

    /// The page to evict: CL's LRU page; if CL is empty, ML is scanned from its LRU end (see the
    /// module docs): hot clean pages move to CL as cold clean, hot dirty pages get a second
    /// chance, and the first cold dirty page is the victim.
    fn victim(&mut self) -> u32 {
        if let Some(v) = self.q[CL as usize].back() {
            return v;
        }
        while let Some(b) = self.q[ML as usize].back() {
            let n = self.arena.node_mut(b);
            if n.count == COLD {
                debug_assert!(n.dirty, "ML holds no cold clean page");
                return b;
            }
            n.count = COLD;
            if n.dirty {
                self.q[ML as usize].move_to_front(&mut self.arena, b);
            } else {
                move_to(&mut self.arena, &mut self.q, b, CL);
            }
        }
        // ML held only hot clean pages, all now in CL: the first one demoted goes.
        self.q[CL as usize].back().expect("a full cache has pages")
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

    /// Keys of list `l`, MRU first.
    fn keys(p: &CcfLru, l: u8) -> Vec<u64> {
        p.q[l as usize].iter(&p.arena).map(|i| p.arena.node(i).key).collect()
    }

    #[test]
    fn gasa_fig4() {
        // GASA Fig. 4: cold clean pages sit in their own list and go first; then cold dirty
        // pages; hot dirty pages get a second chance. Capacity 4 (lists MRU first):
        // 1 2 (reads) → CL [2 1]; 3w 4w → ML [4 3] (hot dirty).
        // 5 (read miss): CL's LRU 1 goes. CL [5 2].
        // 2 (hit in CL) → ML hot clean: ML [2 4 3], CL [5]. 6: CL's 5 goes. CL [6].
        // 6 (hit) → ML hot clean: ML [6 2 4 3], CL []. 7: CL is empty, scan ML from its LRU
        // end: 3 hot dirty → cold, ML's MRU end (ML [3 6 2 4]); 4 likewise (ML [4 3 6 2]);
        // 2 hot clean → cold clean, to CL (CL [2]); 6 likewise (CL [6 2]); 3 is cold dirty →
        // victim. ML [4], CL [7 6 2] after 7 enters.
        let mut p = CcfLru::new(4);
        let t = trace(&mut p, "1 2 3w 4w 5 2 6 6 7");
        assert_eq!(t[4].1, [1]);
        assert_eq!(t[6].1, [5]);
        assert_eq!(t[8].1, [3]);
        assert_eq!((keys(&p, CL), keys(&p, ML)), (vec![7, 6, 2], vec![4]));
        // 8: CL's LRU page is 2, demoted by the scan: it goes before 7 (newer in CL) and before
        // ML's cold dirty 4. (Before the fix 2 and 6 stayed cold in ML and 7 went here.)
        assert_eq!(trace(&mut p, "8")[0].1, [2]);
        // 4w (hit): hot dirty, ML [4]. 8 (hit in CL) → ML hot clean: ML [8 4], CL [7 6].
        // 9: CL's LRU 6 (demoted) goes. CL [9 7]. 7 and 9 hit → ML [9 7 8 4], CL [].
        // 10: scan: 4 hot dirty → cold, ML [4 9 7 8]; 8, 7, 9 hot clean → CL [9 7 8]; 4 is
        // cold dirty → victim. 11: CL's LRU 8 (the first demoted) goes.
        let t = trace(&mut p, "4w 8 9 7 9 10 11");
        assert_eq!(t[2].1, [6]);
        assert_eq!(t[5].1, [4]);
        assert_eq!(t[6].1, [8]);
        assert_eq!((keys(&p, CL), keys(&p, ML)), (vec![11, 10, 9, 7], vec![]));
    }

    #[test]
    fn hot_clean_in_ml_is_demoted_to_cl() {
        // Capacity 4 (lists MRU first). 1 (read) → CL [1]; 1 (hit) → ML [1] hot clean;
        // 2w → ML [2 1] hot dirty; 3, 3 → ML [3 2 1] (3 hot clean), CL []; 4w → ML [4 3 2 1].
        let mut p = CcfLru::new(4);
        let t = trace(&mut p, "1 1 2w 3 3 4w");
        assert!(t.iter().all(|(_, ev)| ev.is_empty()));
        assert_eq!((keys(&p, CL), keys(&p, ML)), (vec![], vec![4, 3, 2, 1]));
        // 5 (read miss, full): CL is empty, scan ML from its LRU end:
        //   1 hot clean → cold clean, moved to CL (CL [1], ML [4 3 2]), not evicted;
        //   2 hot dirty → cold, second chance at ML's MRU end (ML [2 4 3]);
        //   3 hot clean → cold clean, to CL's MRU end (CL [3 1], ML [2 4]);
        //   4 hot dirty → cold, ML's MRU end (ML [4 2]);
        //   2 is cold dirty → victim (written back).
        // (Before the fix 1 and 3 stayed in ML as cold and 1 went here.)
        let mut ev = Vec::new();
        let a = Access { key: 5, write: false, index: 6, next: crate::request::NEVER, time: 0 };
        assert_eq!(p.access(&a, &mut ev), Outcome::Miss { admitted: true });
        assert_eq!(ev, [Evicted { key: 2, dirty: true }]);
        assert_eq!((keys(&p, CL), keys(&p, ML)), (vec![5, 3, 1], vec![4]));
        // 6: CL's LRU page is 1, the first page demoted: cold clean, it goes ahead of ML's cold
        // dirty 4 and of 5 (newer in CL); clean, so nothing is written back.
        let a = Access { key: 6, index: 7, ..a };
        ev.clear();
        p.access(&a, &mut ev);
        assert_eq!(ev, [Evicted { key: 1, dirty: false }]);
        // 3 (hit in CL): a demoted page referenced again is hot clean in ML again (ML [3 4],
        // CL [6 5]). 7: CL's LRU 5 goes; 8: CL's LRU 6 goes; ML's pages stay.
        let t = trace(&mut p, "3 7 8");
        assert!(t[0].0);
        assert_eq!((t[1].1.clone(), t[2].1.clone()), (vec![5], vec![6]));
        assert_eq!((keys(&p, CL), keys(&p, ML)), (vec![8, 7], vec![3, 4]));
    }

    #[test]
    fn ml_of_hot_clean_pages_only() {
        // Capacity 2: 1 1 2 2 → ML [2 1], both hot clean, CL []. 3: the scan moves 1 then 2 to
        // CL (CL [2 1]) and finds no cold dirty page; CL's LRU 1 (the first demoted) goes.
        let mut p = CcfLru::new(2);
        let t = trace(&mut p, "1 1 2 2 3");
        assert_eq!(t[4].1, [1]);
        assert_eq!((keys(&p, CL), keys(&p, ML)), (vec![3, 2], vec![]));
    }
}
