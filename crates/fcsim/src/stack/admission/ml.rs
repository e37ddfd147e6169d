//! `--admit ml`: a learned admission in the spirit of Baleen (Wong et al., "Baleen: ML
//! Admission & Prefetching for Flash Caches", USENIX FAST '24; title and venue as its simulator
//! BCacheSim's artifact gives them): gradient-boosted trees over the page's access history,
//! trained to imitate an offline optimal admission, deciding each miss in the core.
//!
//! **Split.** The model is trained on the first `admit.train` of the trace's requests (default
//! 0.3) and decides on the rest. The run makes the training part its warm-up (`sim.warmup`, in
//! requests; a warm-up of one's own is refused), so every counter of the row counts the
//! evaluated part only, and the row names the split (`admit_train`, and the warm-up's
//! requests). During the training part the admission admits what its teacher admits (below), so
//! the cache the evaluated part starts from is a good one, not an empty one.
//!
//! **Labels** (what the trees learn): whether `opt` at share 1 ([`super::opt`]: M+, MIN's
//! residencies that absorb a read hit) holds the page past this access, which is Baleen's choice
//! (its ML admission learns from its OPT's decisions). The run passes opt's plan as the
//! next-access column; this admission reads it only for accesses before the split (as labels
//! and as the teacher's decisions), never after: from the split on, a decision depends on the
//! page's history alone.
//!
//! **Features**, per page access, computed by [`Admission::observe`] from every read and write
//! the tier sees (hits too) before the access is counted in them (Baleen's are counts of the
//! block's accesses in recent windows, the op and the request's size; fcsim has no namespace
//! or user metadata):
//! - 0: the access is a write;
//! - 1: its position in its request's pages (the pages of the same request before it: a
//!   request is split into consecutive pages at one arrival time; the admission sees pages,
//!   not requests, so this stands for the request's size);
//! - 2, 3: the page's reads and writes so far;
//! - 4, 5, 6: its accesses in the current and previous window of 2^10, 2^13 and 2^16 page
//!   accesses (tumbling windows: a sliding count at half the memory);
//! - 7: page accesses since its last access (2^40 if none);
//! - 8: seconds since its last access (1e9 if none).
//!
//! **Knob** `admit.level` (default 0.5): a miss is admitted when the model's score (the
//! predicted chance that opt admits it) is at least 1 − level, so a larger level admits more.
//! `admit.seed` seeds the trainer's bagging (different seeds give the spread the tests report);
//! `admit.trees` and `admit.depth` size the ensemble ([`super::trees`]).
//!
//! The trainer is fcsim's own ([`super::trees`], no Python in the run); fcsim[ml] (LightGBM)
//! is not needed to run it.

use super::trees::{Ensemble, Train};
use super::{Admission, AdmissionInfo, AdmitParams, ParamInfo};
use crate::policy::{Access, Policy};
use crate::request::NEVER;
use rustc_hash::FxHashMap;

pub const INFO: AdmissionInfo = AdmissionInfo {
    name: "ml",
    description: "learned admission (Baleen's spirit): boosted trees over the page's access history, trained on the \
                  first admit.train of the requests to imitate opt, deciding each later miss in the core",
    source: "Baleen (FAST'24) ML admission; labels from opt (offline-bounds §3.2 M+)",
    params: &[
        ParamInfo::num("level", 0.5, 0.0, 1.0, "admits a miss the model scores at least 1 - level"),
        ParamInfo::num("train", 0.3, 0.05, 0.9, "the share of the requests trained on (the row's warm-up)"),
        ParamInfo::num("seed", 1.0, 0.0, 4_294_967_295.0, "the trainer's bagging seed"),
        ParamInfo::num("trees", 40.0, 1.0, 500.0, "trees in the ensemble"),
        ParamInfo::num("depth", 5.0, 1.0, 10.0, "the depth of each tree"),
    ],
    knob: Some("level"),
    unbudgeted: Some(
        "trains on the first admit.train of the requests, a warm-up the row leaves out, and a write budget is held from the run's start and cannot restart after it; sweep admit.level instead (fcsim pareto)",
    ),
    make: |p: &AdmitParams| Ok(Box::new(Ml::new(p))),
};

/// Features per access.
pub const FEATURES: usize = 9;
/// The windows' sizes, as powers of two of page accesses.
const WINDOWS: [u32; 3] = [10, 13, 16];

/// One page's history.
#[derive(Debug, Clone, Copy, Default)]
struct History {
    last_index: u64,
    last_time: u64,
    reads: u32,
    writes: u32,
    /// Per window: its id, the accesses in it and in the one before.
    win: [(u64, u32, u32); 3],
}

#[derive(Debug)]
pub struct Ml {
    level: f64,
    train: Train,
    pages: FxHashMap<u64, History>,
    /// The previous access's key, time and position in its request.
    prev: (u64, u64, u32),
    /// The index of the first evaluated page access (none before the run says).
    split: u64,
    rows: Vec<f32>,
    labels: Vec<bool>,
    model: Option<Ensemble>,
    /// The current access's features.
    x: [f32; FEATURES],
}

impl Ml {
    pub fn new(p: &AdmitParams) -> Self {
        Ml {
            level: p.get("level"),
            train: Train { trees: p.get("trees") as usize, depth: p.get("depth") as usize, seed: p.get("seed") as u64 },
            pages: FxHashMap::default(),
            prev: (u64::MAX, 0, 0),
            split: u64::MAX,
            rows: Vec::new(),
            labels: Vec::new(),
            model: None,
            x: [0.0; FEATURES],
        }
    }

    /// The trained model, once the split has passed.
    pub fn model(&self) -> Option<&Ensemble> {
        self.model.as_ref()
    }

    /// The features of `a` from the page's history `h` (None: never seen) and its position in
    /// its request `run`.
    fn features(a: &Access, h: Option<&History>, run: u32) -> [f32; FEATURES] {
        let mut x = [0.0f32; FEATURES];
        x[0] = f32::from(u8::from(a.write));
        x[1] = run as f32;
        match h {
            None => {
                x[7] = (1u64 << 40) as f32;
                x[8] = 1e9;
            }
            Some(h) => {
                x[2] = h.reads as f32;
                x[3] = h.writes as f32;
                for (w, &bits) in WINDOWS.iter().enumerate() {
                    let (id, cur, prev) = h.win[w];
                    let now = a.index >> bits;
                    x[4 + w] = if now == id {
                        (cur + prev) as f32
                    } else if now == id + 1 {
                        cur as f32
                    } else {
                        0.0
                    };
                }
                x[7] = (a.index - h.last_index) as f32;
                x[8] = (a.time.saturating_sub(h.last_time) as f64 / 1e9) as f32;
            }
        }
        x
    }
}

impl Admission for Ml {
    fn observe(&mut self, a: &Access) {
        let run = if a.time == self.prev.1 && a.key == self.prev.0.wrapping_add(1) { self.prev.2 + 1 } else { 0 };
        self.prev = (a.key, a.time, run);
        let h = self.pages.get(&a.key).copied();
        self.x = Ml::features(a, h.as_ref(), run);
        if a.index < self.split {
            self.rows.extend_from_slice(&self.x);
            self.labels.push(a.next != NEVER);
        } else if self.model.is_none() {
            self.model = Some(Ensemble::train(&self.rows, FEATURES, &self.labels, self.train));
            self.rows = Vec::new();
            self.labels = Vec::new();
        }
        let mut h = h.unwrap_or_default();
        if a.write {
            h.writes += 1;
        } else {
            h.reads += 1;
        }
        for (w, &bits) in WINDOWS.iter().enumerate() {
            let now = a.index >> bits;
            let (id, cur, _) = h.win[w];
            h.win[w] = if now == id {
                (id, cur + 1, h.win[w].2)
            } else if now == id + 1 {
                (now, 1, cur)
            } else {
                (now, 1, 0)
            };
        }
        h.last_index = a.index;
        h.last_time = a.time;
        self.pages.insert(a.key, h);
    }

    fn set_split(&mut self, index: u64) {
        self.split = index;
    }

    #[inline]
    fn admit(&mut self, a: &Access, _policy: &dyn Policy) -> bool {
        match &self.model {
            // The training part: the teacher's decision (opt's plan, in `next`).
            None => a.index < self.split && a.next != NEVER,
            Some(m) => m.predict(&self.x) >= 1.0 - self.level,
        }
    }

    fn knob(&self) -> Option<f64> {
        Some(self.level)
    }

    fn set_knob(&mut self, v: f64) {
        self.level = v.clamp(0.0, 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ml(level: f64) -> Ml {
        let values = INFO.params.iter().map(|p| (p.name, if p.name == "level" { level } else { p.default })).collect();
        Ml::new(&AdmitParams { values, capacity: 8, dram_pages: 0 })
    }

    #[test]
    fn features_hand_traced() {
        // Page 7 read at index 0 (t = 0), written at 1 (t = 1 s); page 8 read at 2 (t = 1 s)
        // right after 7 at the same time: the second page of a request (position 1).
        let mut m = ml(0.5);
        let acc = |key, write, index, time| Access { key, write, index, next: NEVER, time };
        m.observe(&acc(7, false, 0, 0));
        // Never seen: no counts, the "none" gaps.
        assert_eq!(m.x, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, (1u64 << 40) as f32, 1e9]);
        m.observe(&acc(7, true, 1, 1_000_000_000));
        // A write, first page of its request; one read before, in every window; 1 access and
        // 1 s since.
        assert_eq!(m.x, [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        m.observe(&acc(8, false, 2, 1_000_000_000));
        assert_eq!(m.x[1], 1.0);
        // 7 again at index 1500: the 2^10 window moved on by one (its count is the previous
        // window's, 2); the larger ones still hold both accesses.
        m.observe(&acc(7, false, 1500, 2_000_000_000));
        assert_eq!(&m.x[2..9], &[1.0, 1.0, 2.0, 2.0, 2.0, 1499.0, 1.0]);
    }

    /// Access `i` of a pattern: even ones read one of 4 hot pages (read again 8 accesses on,
    /// so opt keeps them), odd ones a page never seen before nor after (opt does not).
    fn pattern(i: u64) -> Access {
        let hot = i % 2 == 0;
        Access { key: if hot { i / 2 % 4 } else { 1000 + i }, write: false, index: i, next: if hot { i + 8 } else { NEVER }, time: i }
    }

    #[test]
    fn the_teacher_decides_before_the_split_and_the_model_after() {
        // Before the split, `next` (opt's plan) is both label and decision.
        let policy = crate::policy::build("lru", 4, Default::default()).unwrap().0;
        let trained = |last: Access| {
            let mut m = ml(0.5);
            m.set_split(400);
            for i in 0..400 {
                let a = pattern(i);
                m.observe(&a);
                assert_eq!(m.admit(&a, &*policy), a.next != NEVER);
            }
            assert!(m.model().is_none());
            m.observe(&last);
            assert!(m.model().is_some());
            m.admit(&last, &*policy)
        };
        // After it `next` is not read: a hot page is admitted and a new one is not, whatever
        // `next` says (the model learnt that pages seen 8 accesses ago come back, new ones not).
        for next in [NEVER, 500] {
            assert!(trained(Access { next, ..pattern(400) }));
            assert!(!trained(Access { next, ..pattern(401) }));
        }
    }
}
