//! LARC, lazy adaptive replacement: Huang, Wei, Feng, Chen, Chen, "Improving flash-based disk
//! cache with lazy adaptive replacement", ACM TOS 12(2), 2016 (MSST'13: Huang, Wei, Chen, Chen,
//! Feng); the slides in `larc-lazy-adaptive-replacement.txt` ("LARC", "Self Tunning").
//!
//! The cache Q is an LRU list of C pages; the ghost queue Q_r is an LRU list of page ids whose
//! target length C_r starts at 0.1·C. A hit moves the page to Q's MRU end. A miss on a page whose
//! id is in Q_r removes the id and admits the page into Q (evicting Q's LRU page if Q is full);
//! a miss on any other page only records its id at Q_r's MRU end. While Q is not full every
//! miss is admitted. After each access C_r adapts: on a hit C_r −= C / (C − C_r), on a miss
//! C_r += C / C_r, then C_r is kept within [0.1·C, 0.9·C].
//!
//! Where the slides are vague, fcsim chooses (and the slides' 12-access example, the test
//! below, agrees):
//! - C_r is updated first; Q_r is trimmed to ⌊C_r⌋ ids (at least one) only when an id is added
//!   to it, dropping its LRU ids. A shrinking C_r does not trim Q_r by itself.
//! - A page evicted from Q does not enter Q_r.
//! - C_r is updated on every access, also while Q is filling.
//! - Writes (`larc.writes`): the slides say nothing of writes. `filter` (the default) applies
//!   the ghost filter to reads and writes alike, so a declined write goes to the disk only;
//!   `admit` admits every write miss (as a cache that takes writes must hold the new data, the
//!   ghost filter judging only reads). Either way a write updates C_r as any access does. In
//!   write-around mode the tier never shows LARC a write (the write invalidates the cached
//!   copy), so the choice matters in write-through and write-back only.

use super::list::{each_dirty, touch, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "larc",
    description: "lazy adaptive replacement: LRU cache admitting a page on its second miss within a self-tuning ghost queue",
    source: "Huang et al., ACM TOS 12(2) 2016; LARC slides",
    offline: false,
    needs_view: false,
    params: &["writes"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let writes: String = p.take("larc", "writes", "filter".to_string(), "filter or admit")?;
        let admit_writes = match writes.as_str() {
            "filter" => false,
            "admit" => true,
            w => return Err(Error::config(format!("larc.writes={w}: expected filter or admit"))),
        };
        Ok(Box::new(Larc { admit_writes, ..Larc::new(cap) }))
    },
};

const Q: u8 = 0;
const QR: u8 = 1;

#[derive(Debug)]
pub struct Larc {
    arena: Arena,
    q: List,
    qr: List,
    c: f64,
    cr: f64,
    capacity: usize,
    /// Every write miss admitted (`larc.writes=admit`), not only those the ghost queue passes.
    admit_writes: bool,
}

impl Larc {
    pub fn new(capacity: usize) -> Self {
        let c = capacity as f64;
        Larc {
            arena: Arena::with_capacity(2 * capacity),
            q: List::default(),
            qr: List::default(),
            c,
            cr: 0.1 * c,
            capacity,
            admit_writes: false,
        }
    }

    fn adapt(&mut self, hit: bool) {
        let (c, cr) = (self.c, self.cr);
        let next = if hit { cr - c / (c - cr) } else { cr + c / cr };
        self.cr = next.clamp(0.1 * c, 0.9 * c);
    }
}

impl Policy for Larc {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let found = self.arena.get(a.key);
        if let Some(i) = found {
            if self.arena.node(i).tag == Q {
                self.q.move_to_front(&mut self.arena, i);
                let was = touch(&mut self.arena, i, a.write);
                self.adapt(true);
                return Outcome::Hit { dirty: was };
            }
        }
        self.adapt(false);
        let full = self.q.len() >= self.capacity;
        match found {
            // A miss on a page not remembered, with Q full: remember its id only.
            None if full && !(a.write && self.admit_writes) => {
                let i = self.arena.alloc(a.key, QR, false);
                self.qr.push_front(&mut self.arena, i);
                let keep = (self.cr as usize).max(1);
                while self.qr.len() > keep {
                    if let Some(g) = self.qr.pop_back(&mut self.arena) {
                        self.arena.release(g);
                    }
                }
                Outcome::Miss { admitted: false }
            }
            // A second miss within the ghost window (or Q not yet full, or an admitted write):
            // admit.
            _ => {
                if let Some(g) = found {
                    self.qr.unlink(&mut self.arena, g);
                    self.arena.release(g);
                }
                if full {
                    if let Some(v) = self.q.pop_back(&mut self.arena) {
                        let n = self.arena.release(v);
                        evicted.push(Evicted { key: n.key, dirty: n.dirty });
                    }
                }
                let i = self.arena.alloc(a.key, Q, a.write);
                self.q.push_front(&mut self.arena, i);
                Outcome::Miss { admitted: true }
            }
        }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let i = self.arena.get(key)?;
        let tag = self.arena.node(i).tag;
        if tag == Q {
            self.q.unlink(&mut self.arena, i);
        } else {
            self.qr.unlink(&mut self.arena, i);
        }
        let n = self.arena.release(i);
        (tag == Q).then_some(n.dirty)
    }

    fn len(&self) -> usize {
        self.q.len()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, std::slice::from_ref(&self.q), f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::lru::Lru;
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn slides_example() {
        // The slides' table: C = 4, Q = [0 1 2 3] (MRU first), then 1 5 3 4 3 1 0 4 0 3 6 1.
        //   1 hit. 5 miss, not in Q_r: only its id is kept (C_r 0.4 → 3.6). 3 hit (C_r → 0.4).
        //   4 miss: id kept, Q_r [4 5]. 3, 1, 0 hit. 4 miss, in Q_r: admitted, Q's LRU page 2
        //   replaced, Q_r [5]. 0, 3 hit. 6 miss: id kept, Q_r [6 5]. 1 hit.
        // LARC: 8 hits, 1 replacement. LRU on the same accesses: 6 hits, 6 replacements.
        let warm = "3 2 1 0";
        let run = "1 5 3 4 3 1 0 4 0 3 6 1";
        let mut p = Larc::new(4);
        trace(&mut p, warm);
        let t = trace(&mut p, run);
        assert_eq!(t.iter().filter(|x| x.0).count(), 8);
        let replaced: Vec<u64> = t.iter().flat_map(|x| x.1.clone()).collect();
        assert_eq!(replaced, [2]);
        let q: Vec<u64> = p.q.iter(&p.arena).map(|i| p.arena.node(i).key).collect();
        assert_eq!(q, [1, 3, 0, 4]);
        let qr: Vec<u64> = p.qr.iter(&p.arena).map(|i| p.arena.node(i).key).collect();
        assert_eq!(qr, [6, 5]);
        let mut lru = Lru::new(4);
        trace(&mut lru, warm);
        let t = trace(&mut lru, run);
        assert_eq!(t.iter().filter(|x| x.0).count(), 6);
        assert_eq!(t.iter().map(|x| x.1.len()).sum::<usize>(), 6);
    }

    #[test]
    fn writes_filtered_or_admitted() {
        // C = 2, Q filled by 0 and 1 (Q = [1 0]). Then a write miss on 2:
        //   filter: 2 is not in Q_r, so only its id is kept; nothing is replaced.
        //   admit: 2 is admitted dirty, Q's LRU page 0 replaced (Q = [2 1]).
        // A read miss on 3 goes through the ghost filter either way: its id is kept.
        for (admit, replaced, q) in [(false, vec![], vec![1, 0]), (true, vec![0], vec![2, 1])] {
            let mut p = Larc { admit_writes: admit, ..Larc::new(2) };
            trace(&mut p, "0 1");
            let t = trace(&mut p, "2w 3");
            assert_eq!((t[0].1.clone(), t[1].1.clone()), (replaced, vec![]));
            let keys: Vec<u64> = p.q.iter(&p.arena).map(|i| p.arena.node(i).key).collect();
            assert_eq!(keys, q);
            let qr: Vec<u64> = p.qr.iter(&p.arena).map(|i| p.arena.node(i).key).collect();
            assert_eq!(qr.first(), Some(&3));
        }
    }

    #[test]
    fn ghost_target_stays_in_bounds() {
        let mut p = Larc::new(100);
        assert_eq!(p.cr, 10.0);
        let keys: String = (0..500).map(|i| format!("{} ", (i * 7919) % 300)).collect();
        trace(&mut p, &keys);
        assert!((10.0..=90.0).contains(&p.cr));
        assert!(p.len() <= 100 && p.qr.len() <= 90);
    }
}
