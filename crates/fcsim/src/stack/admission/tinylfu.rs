//! `--admit tinylfu`: TinyLFU's admission (G. Einziger, R. Friedman and B. Manes, "TinyLFU: A
//! Highly Efficient Cache Admission Policy", ACM TOS 13(4), 2017, §3): an approximate frequency
//! of every page over a recent sample of accesses, kept in a count-min sketch that ages by the
//! "reset" operation; a missed page (the candidate) enters only if its estimated frequency is
//! above that of the page the policy would evict for it (the victim).
//!
//! The sketch: `admit.depth` rows (default 4) of `w` counters each, w the power of two at or
//! above `admit.width` x the cache's pages (default 1); a page's row-r counter is picked by a
//! 64-bit mix of its key and r. Every read or write access of the tier (hit or miss) adds the
//! page once, by the minimal (conservative) increment: only the counters at the page's current
//! minimum grow, and they stop at 15 (4-bit counters, the paper's small counters). The estimate
//! is the minimum of the page's counters. Aging: after W additions (`admit.sample` x the
//! cache's pages, default 10), every counter is halved (the paper's reset), and the count of
//! additions with it.
//!
//! Chosen where the paper leaves it to the implementation, or fcsim's setting differs:
//! - No doorkeeper (the paper's Bloom filter in front of the counters saves memory, which fcsim
//!   does not measure; without it the estimates are those of the plain sketch).
//! - The candidate is added before it is compared (its current access counts, as every access
//!   does).
//! - While the cache has room every miss is admitted (no page is displaced).
//! - The victim is [`Policy::victim`] (LRU's tail, FIFO's head, SLRU's and 2Q's next). With a
//!   policy that cannot name one (ARC's depends on the candidate, CLOCK's on a hand sweep), the
//!   candidate is compared against the least a page can count: admitted if its estimate is
//!   above 1, i.e. the sketch has seen it before within its memory.
//! - The knob is a slack s added to the candidate's estimate (default 0, the paper's rule):
//!   admitted iff f(candidate) + s > f(victim); a larger s admits more (s ≥ 15 admits all, s ≤
//!   −15 none).

use super::{Admission, AdmissionInfo, AdmitParams, ParamInfo};
use crate::error::Result;
use crate::policy::{Access, Policy};

pub const INFO: AdmissionInfo = AdmissionInfo {
    name: "tinylfu",
    description: "admits a miss whose estimated recent frequency beats the victim's (count-min sketch, halved every W accesses)",
    source: "Einziger, Friedman and Manes, ACM TOS 13(4) 2017 (TinyLFU) §3",
    params: &[
        ParamInfo::num("slack", 0.0, -16.0, 16.0, "added to the candidate's estimate before it is compared with the victim's"),
        ParamInfo::num("depth", 4.0, 1.0, 16.0, "the sketch's rows (a whole number)"),
        ParamInfo::num("width", 1.0, 0.01, 64.0, "counters per row, as a multiple of the cache's pages (rounded up to a power of two)"),
        ParamInfo::num("sample", 10.0, 0.1, 1000.0, "W, the accesses between halvings, as a multiple of the cache's pages"),
    ],
    knob: Some("slack"),
    unbudgeted: None,
    make: |p| Ok(Box::new(TinyLfu::new(p)?)),
};

/// The largest count of a 4-bit counter.
const MAX: u8 = 15;

#[derive(Debug)]
pub struct TinyLfu {
    /// `depth` rows of `width` counters, row after row.
    counters: Vec<u8>,
    depth: usize,
    mask: u64,
    /// Additions since the last halving, and W.
    added: u64,
    sample: u64,
    slack: f64,
    capacity: usize,
}

/// splitmix64's finaliser: a well-mixed 64-bit value of `x`.
#[inline]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl TinyLfu {
    pub fn new(p: &AdmitParams) -> Result<TinyLfu> {
        let c = p.capacity.max(1) as f64;
        let depth = p.get("depth").round() as usize;
        let width = ((p.get("width") * c).ceil() as u64).max(16).next_power_of_two();
        let sample = ((p.get("sample") * c).round() as u64).max(1);
        let counters = crate::mem::filled((depth as u64 * width) as usize, 0u8, "the tinylfu sketch")?;
        Ok(TinyLfu { counters, depth, mask: width - 1, added: 0, sample, slack: p.get("slack"), capacity: p.capacity })
    }

    /// The counter of `key` in row `r`.
    #[inline]
    fn cell(&self, key: u64, r: usize) -> usize {
        let h = mix(key ^ (r as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r * (self.mask as usize + 1) + (h & self.mask) as usize
    }

    /// The estimate of `key`: the least of its counters.
    pub fn estimate(&self, key: u64) -> u8 {
        (0..self.depth).map(|r| self.counters[self.cell(key, r)]).min().unwrap_or(0)
    }

    /// Adds one access of `key` (minimal increment), then halves every counter once W
    /// additions have been made.
    pub fn add(&mut self, key: u64) {
        let least = self.estimate(key);
        if least < MAX {
            for r in 0..self.depth {
                let i = self.cell(key, r);
                if self.counters[i] == least {
                    self.counters[i] += 1;
                }
            }
        }
        self.added += 1;
        if self.added >= self.sample {
            self.counters.iter_mut().for_each(|c| *c >>= 1);
            self.added /= 2;
        }
    }
}

impl Admission for TinyLfu {
    fn admit(&mut self, a: &Access, policy: &dyn Policy) -> bool {
        self.add(a.key);
        if policy.len() < self.capacity {
            return true;
        }
        let against = policy.victim().map_or(1, |v| self.estimate(v));
        f64::from(self.estimate(a.key)) + self.slack > f64::from(against)
    }

    #[inline]
    fn hit(&mut self, a: &Access) {
        self.add(a.key);
    }

    fn knob(&self) -> Option<f64> {
        Some(self.slack)
    }

    fn set_knob(&mut self, v: f64) {
        self.slack = v.clamp(INFO.params[0].lo, INFO.params[0].hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::no_device;
    use crate::request::{Op, NEVER};
    use crate::stack::Tier;

    fn params(cap: usize, sample: f64) -> AdmitParams {
        AdmitParams { values: vec![("slack", 0.0), ("depth", 4.0), ("width", 1.0), ("sample", sample)], capacity: cap, dram_pages: 0 }
    }

    #[test]
    fn the_sketch_counts_saturates_and_halves() {
        // W = 100 x 1 page = 100 additions. 20 additions of 7: its estimate stops at 15.
        let mut s = TinyLfu::new(&params(1, 100.0)).unwrap();
        (0..20).for_each(|_| s.add(7));
        assert_eq!(s.estimate(7), 15);
        // 80 more additions of other keys reach W: every counter halves (15 -> 7).
        (0..80).for_each(|k| s.add(1000 + k));
        assert_eq!(s.estimate(7), 7);
        assert_eq!(s.added, 50);
    }

    #[test]
    fn a_candidate_enters_only_if_it_beats_lrus_victim() {
        // LRU of 2, W large (no halving). 1 1 1: 1 admitted while there is room, then two hits
        // (f(1) = 3). 2 admitted (room; f(2) = 1). 3 misses with the cache full: f(3) = 1 after
        // its own access, the victim is LRU's tail 1 (f = 3): declined. 2 hit (f(2) = 2, now MRU,
        // so the tail is 1 again). 3 again: f(3) = 2, not above f(1) = 3: declined. 3 once more:
        // f(3) = 3, still not above 3: declined. 3 a fourth time: f(3) = 4 > 3: admitted,
        // replacing 1.
        let cap = 2;
        let policy = crate::policy::build("lru", cap, Default::default()).unwrap().0;
        let mut t = Tier::new(policy, cap);
        t.admission = Some(Box::new(TinyLfu::new(&params(cap, 1000.0)).unwrap()));
        let mut dev = no_device();
        let mut admitted = Vec::new();
        for k in [1, 1, 1, 2, 3, 2, 3, 3, 3] {
            let before = t.counters.insertions;
            t.access(k, Op::Read, 0, NEVER, 0, &mut dev).unwrap();
            admitted.push(t.counters.insertions > before);
        }
        assert_eq!(admitted, [true, false, false, true, false, false, false, false, true]);
        assert_eq!((t.counters.hits, t.counters.evictions), (3, 1));
    }
}
