//! LIRS: Jiang & Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement Policy
//! to Improve Buffer Cache Performance", SIGMETRICS'02, §3–4 (Fig. 2–3 cases).
//!
//! Pages are LIR (low inter-reference recency, always cached, L_lirs = c − L_hirs of them) or HIR
//! (L_hirs = `lirs.hir` × c, default 1%, at least one page, resident in the list Q). The stack S
//! orders recently seen pages (LIR, resident HIR and non-resident HIR) by recency; its bottom
//! is always LIR ("stack pruning" removes HIR entries from the bottom).
//! - A hit on an LIR page moves it to the top of S (then prune).
//! - A hit on a resident HIR page in S turns it LIR; the bottom LIR page of S becomes a
//!   resident HIR page at the end of Q (then prune).
//! - A hit on a resident HIR page not in S moves it to the end of Q and the top of S.
//! - A miss evicts the HIR page at the front of Q (when the cache is full); the missed page, if
//!   it is in S (non-resident HIR), becomes LIR and the bottom LIR page goes to Q as above;
//!   otherwise it becomes a resident HIR page (top of S, end of Q). Until the LIR set is full,
//!   missed pages become LIR.
//!
//! Where the paper is silent or libCacheSim differs:
//! - S is bounded: when it holds more than `lirs.stack` × c entries (default 2), the
//!   non-resident HIR entries that became non-resident longest ago are dropped from it, as
//!   libCacheSim does (the paper leaves S unbounded; its §5 discusses the cost).
//! - A one-page cache has no room for LIR pages (L_hirs is at least one page): every page
//!   stays HIR, which makes it a one-page LRU.
//! - On a hit on a resident HIR page not in S, libCacheSim also demotes the bottom LIR page to
//!   Q when the LIR set is full (which pushes an HIR page out of the cache). The paper does not;
//!   `lirs.q_hit_demotes=true` does, and gives libCacheSim's misses exactly.

use super::list::{Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::{Error, Result};
use crate::params::Params;
use rustc_hash::FxHashSet;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "lirs",
    description: "LIRS (LIR set + HIR queue by inter-reference recency)",
    source: "Jiang & Zhang, SIGMETRICS'02, §3-4",
    offline: false,
    needs_view: false,
    params: &["hir", "stack", "q_hit_demotes"],
    make: |cap, p: &mut Params| -> Result<Box<dyn Policy>> {
        let hir: f64 = p.take("lirs", "hir", 0.01, "a share of the cache in (0, 1)")?;
        let stack: f64 = p.take("lirs", "stack", 2.0, "a multiple of the cache size, ≥ 1")?;
        let q_hit_demotes = p.take("lirs", "q_hit_demotes", false, "true or false")?;
        if !(hir > 0.0 && hir < 1.0 && stack >= 1.0 && stack.is_finite()) {
            return Err(Error::config("lirs: hir must be in (0, 1) and stack ≥ 1"));
        }
        Ok(Box::new(Lirs::new(cap, hir, stack, q_hit_demotes)))
    },
};

/// Tag bits of an S entry.
const LIR: u8 = 1;
const RESIDENT: u8 = 2;

#[derive(Debug)]
pub struct Lirs {
    /// Stack S (top at the front).
    s: Arena,
    s_list: List,
    /// Resident HIR pages (end of Q at the front; the front of Q, evicted first, at the back).
    q: Arena,
    q_list: List,
    /// Non-resident HIR entries of S, in the order they became non-resident.
    nh: Arena,
    nh_list: List,
    dirty: FxHashSet<u64>,
    capacity: usize,
    lir_limit: usize,
    hir_limit: usize,
    stack_limit: usize,
    lirs: usize,
    q_hit_demotes: bool,
}

impl Lirs {
    pub fn new(capacity: usize, hir: f64, stack: f64, q_hit_demotes: bool) -> Self {
        let hir_limit = ((capacity as f64 * hir) as usize).max(1).min(capacity);
        Lirs {
            s: Arena::with_capacity(2 * capacity),
            s_list: List::default(),
            q: Arena::with_capacity(hir_limit + 1),
            q_list: List::default(),
            nh: Arena::with_capacity(capacity),
            nh_list: List::default(),
            dirty: FxHashSet::default(),
            capacity,
            lir_limit: capacity - hir_limit,
            hir_limit,
            stack_limit: (capacity as f64 * stack) as usize,
            lirs: 0,
            q_hit_demotes,
        }
    }

    fn resident(&self) -> usize {
        self.lirs + self.q_list.len()
    }

    fn evicted(&mut self, key: u64, evicted: &mut Vec<Evicted>) {
        evicted.push(Evicted { key, dirty: self.dirty.remove(&key) });
    }

    /// Removes HIR entries from the bottom of S (never its top).
    fn prune(&mut self) {
        while let Some(b) = self.s_list.back() {
            let n = *self.s.node(b);
            if n.tag & LIR != 0 || Some(b) == self.s_list.front() {
                break;
            }
            if n.tag & RESIDENT == 0 {
                if let Some(i) = self.nh.get(n.key) {
                    self.nh_list.unlink(&mut self.nh, i);
                    self.nh.release(i);
                }
            }
            self.s_list.unlink(&mut self.s, b);
            self.s.release(b);
        }
    }

    /// Evicts the HIR page at the front of Q; its S entry, if any, becomes non-resident.
    fn evict_hir(&mut self, evicted: &mut Vec<Evicted>) {
        let Some(z) = self.q_list.pop_back(&mut self.q) else { return };
        let key = self.q.release(z).key;
        if let Some(i) = self.s.get(key) {
            self.s.node_mut(i).tag &= !RESIDENT;
            let j = self.nh.alloc(key, 0, false);
            self.nh_list.push_front(&mut self.nh, j);
        }
        self.evicted(key, evicted);
    }

    /// Moves the bottom LIR page of S to the end of Q as a resident HIR page, then prunes.
    fn demote_lir(&mut self, evicted: &mut Vec<Evicted>) {
        if self.lirs == 0 {
            return;
        }
        let Some(b) = self.s_list.back() else { return };
        self.s_list.unlink(&mut self.s, b);
        let key = self.s.release(b).key;
        self.lirs -= 1;
        if self.q_list.len() >= self.hir_limit {
            self.evict_hir(evicted);
        }
        let i = self.q.alloc(key, 0, false);
        self.q_list.push_front(&mut self.q, i);
        self.prune();
    }

    /// Drops the oldest non-resident entries while S is over its bound.
    fn limit_stack(&mut self) {
        while self.s_list.len() > self.stack_limit {
            let Some(o) = self.nh_list.pop_back(&mut self.nh) else { break };
            let key = self.nh.release(o).key;
            if let Some(i) = self.s.get(key) {
                self.s_list.unlink(&mut self.s, i);
                self.s.release(i);
            }
        }
    }

    fn push_s(&mut self, key: u64, tag: u8) {
        let i = self.s.alloc(key, tag, false);
        self.s_list.push_front(&mut self.s, i);
    }

    fn push_q(&mut self, key: u64) {
        let i = self.q.alloc(key, 0, false);
        self.q_list.push_front(&mut self.q, i);
    }

    fn lookup(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let key = a.key;
        let s = self.s.get(key);
        let q = self.q.get(key);
        if let Some(i) = s {
            self.s_list.move_to_front(&mut self.s, i);
            let tag = self.s.node(i).tag;
            if tag & LIR != 0 {
                self.prune();
                return Outcome::Hit { dirty: false };
            }
            if tag & RESIDENT != 0 && self.lir_limit == 0 {
                // A one-page cache has no LIR set: the page stays HIR.
                if let Some(j) = q {
                    self.q_list.move_to_front(&mut self.q, j);
                }
                return Outcome::Hit { dirty: false };
            }
            if tag & RESIDENT != 0 {
                // Resident HIR in S: becomes LIR; it leaves Q.
                if let Some(j) = q {
                    self.q_list.unlink(&mut self.q, j);
                    self.q.release(j);
                }
                if self.lirs >= self.lir_limit {
                    self.demote_lir(evicted);
                }
                self.s.node_mut(i).tag = LIR | RESIDENT;
                self.lirs += 1;
                return Outcome::Hit { dirty: false };
            }
            // Non-resident HIR in S: a miss; the page becomes LIR.
            if let Some(j) = self.nh.get(key) {
                self.nh_list.unlink(&mut self.nh, j);
                self.nh.release(j);
            }
            if self.resident() >= self.capacity {
                self.evict_hir(evicted);
            }
            if self.lir_limit == 0 {
                self.s.node_mut(i).tag = RESIDENT;
                self.push_q(key);
                return Outcome::Miss { admitted: true };
            }
            if self.lirs >= self.lir_limit {
                self.demote_lir(evicted);
            }
            self.s.node_mut(i).tag = LIR | RESIDENT;
            self.lirs += 1;
            return Outcome::Miss { admitted: true };
        }
        if let Some(j) = q {
            // Resident HIR not in S: to the end of Q and the top of S.
            self.q_list.move_to_front(&mut self.q, j);
            if self.q_hit_demotes && self.lirs >= self.lir_limit {
                self.demote_lir(evicted);
            }
            self.push_s(key, RESIDENT);
            return Outcome::Hit { dirty: false };
        }
        // A page in neither S nor Q.
        if self.resident() >= self.capacity {
            self.evict_hir(evicted);
        }
        if self.lirs < self.lir_limit {
            self.push_s(key, LIR | RESIDENT);
            self.lirs += 1;
        } else {
            if self.q_list.len() >= self.hir_limit {
                self.evict_hir(evicted);
            }
            self.push_s(key, RESIDENT);
            self.push_q(key);
        }
        Outcome::Miss { admitted: true }
    }
}

impl Policy for Lirs {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        let o = match self.lookup(a, evicted) {
            Outcome::Hit { .. } => Outcome::Hit { dirty: self.dirty.contains(&a.key) },
            miss => miss,
        };
        if a.write {
            self.dirty.insert(a.key);
        }
        self.limit_stack();
        o
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        let mut resident = false;
        if let Some(i) = self.s.get(key) {
            let tag = self.s.node(i).tag;
            self.s_list.unlink(&mut self.s, i);
            self.s.release(i);
            if tag & LIR != 0 {
                self.lirs -= 1;
                resident = true;
                self.prune();
            } else if tag & RESIDENT == 0 {
                if let Some(j) = self.nh.get(key) {
                    self.nh_list.unlink(&mut self.nh, j);
                    self.nh.release(j);
                }
            }
        }
        if let Some(j) = self.q.get(key) {
            self.q_list.unlink(&mut self.q, j);
            self.q.release(j);
            resident = true;
        }
        resident.then(|| self.dirty.remove(&key))
    }

    fn len(&self) -> usize {
        self.resident()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        for &k in &self.dirty {
            f(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn hand_traced() {
        // c = 3: L_hirs = 1, L_lirs = 2. S top first; "n" marks a non-resident entry.
        // 1, 2 miss → LIR: S [2 1]. 3 miss → resident HIR: S [3 2 1], Q [3].
        // 4 miss: Q's front 3 is evicted (non-resident in S); 4 is resident HIR:
        //   S [4 3n 2 1], Q [4].
        // 3 miss (non-resident HIR in S): Q's front 4 is evicted; 3 becomes LIR and the bottom
        //   LIR 1 goes to Q: S [3 4n 2], Q [1].
        // 2 hit (LIR): S [2 3 4n], pruned to [2 3].
        // 1 hit (resident HIR not in S): end of Q, top of S: S [1 2 3], Q [1].
        let mut p = Lirs::new(3, 0.01, 2.0, false);
        let t = trace(&mut p, "1 2 3 4 3 2 1");
        let hits: Vec<bool> = t.iter().map(|x| x.0).collect();
        assert_eq!(hits, [false, false, false, false, false, true, true]);
        assert_eq!(t[3].1, [3]);
        assert_eq!(t[4].1, [4]);
        let s: Vec<u64> = p.s_list.iter(&p.s).map(|i| p.s.node(i).key).collect();
        assert_eq!(s, [1, 2, 3]);
        assert_eq!((p.lirs, p.q_list.len()), (2, 1));
    }
}
