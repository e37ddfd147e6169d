//! `--admit random`: admits each miss with probability p, independently (CacheLib's random
//! admission: B. Berg et al., "The CacheLib Caching Engine: Design and Experiences at Scale",
//! OSDI 2020, §4.2, its flash admission policies; the probability is what its dynamic random
//! admission turns to hold a write rate, as fcsim's budget controller does with the knob).
//!
//! Chosen: one draw per miss offered (a page the tier holds draws nothing), from rand's
//! `SmallRng` seeded with `admit.seed` (default 42, fcsim's default seed; `--seeds N` varies it
//! as it varies every seeded component). The knob is p: a larger p admits more.

use super::{Admission, AdmissionInfo, ParamInfo};
use crate::policy::{Access, Policy};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub const INFO: AdmissionInfo = AdmissionInfo {
    name: "random",
    description: "admits each miss with probability p",
    source: "Berg et al., OSDI 2020 (CacheLib) §4.2",
    params: &[
        ParamInfo::num("p", 0.5, 0.0, 1.0, "the probability of admitting a miss"),
        ParamInfo::num("seed", 42.0, 0.0, 9_007_199_254_740_992.0, "the seed of the draws (a whole number)"),
    ],
    knob: Some("p"),
    unbudgeted: None,
    make: |p| Ok(Box::new(Random { p: p.get("p"), rng: SmallRng::seed_from_u64(p.get("seed") as u64) })),
};

#[derive(Debug)]
pub struct Random {
    p: f64,
    rng: SmallRng,
}

impl Admission for Random {
    #[inline]
    fn admit(&mut self, _a: &Access, _policy: &dyn Policy) -> bool {
        self.rng.gen::<f64>() < self.p
    }

    fn knob(&self) -> Option<f64> {
        Some(self.p)
    }

    fn set_knob(&mut self, v: f64) {
        self.p = v.clamp(0.0, 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::admission::AdmitParams;

    fn make(p: f64, seed: f64) -> Box<dyn super::super::Admission> {
        (INFO.make)(&AdmitParams { values: vec![("p", p), ("seed", seed)], capacity: 4, dram_pages: 0 }).unwrap()
    }

    #[test]
    fn p_zero_and_one_are_exact_and_a_seed_repeats() {
        let lru = crate::policy::build("lru", 4, Default::default()).unwrap().0;
        let a = |k| Access { key: k, write: false, index: k, next: crate::request::NEVER, time: 0 };
        // p = 0 never admits and p = 1 always does (a draw in [0, 1) is never < 0, always < 1).
        let (mut never, mut always) = (make(0.0, 42.0), make(1.0, 42.0));
        assert!((0..1000).all(|k| !never.admit(&a(k), &*lru) && always.admit(&a(k), &*lru)));
        // The same seed draws the same decisions; p = 0.3 admits about 30% of 10^4 misses (a
        // binomial's 4.4 standard deviations either side: 2,800 to 3,200).
        let draws = |seed| {
            let mut r = make(0.3, seed);
            (0..10_000).map(|k| r.admit(&a(k), &*lru)).collect::<Vec<bool>>()
        };
        assert_eq!(draws(7.0), draws(7.0));
        assert_ne!(draws(7.0), draws(8.0));
        let n = draws(7.0).iter().filter(|x| **x).count();
        assert!((2800..=3200).contains(&n), "{n}");
        let mut r = make(0.3, 1.0);
        r.set_knob(2.0);
        assert_eq!(r.knob(), Some(1.0));
    }
}
