//! Replacement policies and their registry.
//!
//! A policy decides, for one cache tier counted in pages, whether an access hits, whether a
//! missed page is admitted, and which pages leave to make room. It tracks clean/dirty state
//! itself, because flash-aware policies choose victims by it. Adding a policy takes one file
//! here and one line in [`POLICIES`]; the CLI and Python pick it by name.

mod arc;
mod ccflru;
mod cflru;
mod clock;
mod fifo;
mod gasa;
mod gcar;
pub mod heap;
mod larc;
mod lcr;
mod lfu;
mod lirs;
pub mod list;
mod lru;
mod lruwsr;
mod min;
mod mq;
mod none;
mod ptlru;
mod s3fifo;
mod sieve;
mod slru;
mod twoq;
mod window;

use crate::error::{Error, Result};
use crate::params::{Params, UsedParams};
use crate::view::DeviceView;
use std::collections::BTreeMap;

pub use lru::Lru;

/// One page access as a policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub key: u64,
    /// The host wrote this page. With a write-back tier the page becomes dirty.
    pub write: bool,
    /// 0-based index of this access in page-access order.
    pub index: u64,
    /// Index of the next access to the same key, or [`crate::request::NEVER`]; only offline
    /// policies may look at it, and it is [`crate::request::NEVER`] unless they asked for it.
    pub next: u64,
    /// Arrival time of the host request, ns (what a device-aware policy asks the view about).
    pub time: u64,
}

/// A page that left the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    pub key: u64,
    /// The page was modified since it was admitted: the tier writes it back.
    pub dirty: bool,
}

/// What happened to an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The page was resident; `dirty`: it was dirty before this access (GASA Fig. 11 splits
    /// hits by it).
    Hit { dirty: bool },
    /// The page was not resident. `admitted` says whether it is resident now.
    Miss { admitted: bool },
}

/// The contract between a cache tier and its replacement policy.
///
/// The tier guarantees: `capacity` ≥ 1 page; keys are arbitrary `u64`s; `evicted` is empty when
/// [`Policy::access`] is called. The policy guarantees: at most `capacity` pages are resident
/// after every call; every page that stops being resident during `access` is pushed to
/// `evicted` with its dirty flag (in eviction order); a write that hits or is admitted leaves the
/// page dirty; it never allocates per access in steady state.
pub trait Policy: Send {
    /// Processes one access. See the trait docs for the contract.
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome;
    /// Processes one access of a tier over a device, with the device's read-only view (chip of
    /// a page, chip load, chip in GC) for choosing victims. Device-aware policies override it;
    /// the default ignores the view.
    fn access_on(&mut self, a: &Access, view: &dyn DeviceView, evicted: &mut Vec<Evicted>) -> Outcome {
        let _ = view;
        self.access(a, evicted)
    }
    /// Drops `key` if resident (trim, invalidation); returns its dirty flag if it was.
    fn remove(&mut self, key: u64) -> Option<bool>;
    /// Number of resident pages.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Calls `f` with every resident dirty page (the end-of-run flush).
    fn for_each_dirty(&self, f: &mut dyn FnMut(u64));
    /// Changes the capacity to `capacity` ≥ 1 pages; when it shrinks below the resident pages,
    /// the policy's victims leave (pushed to `evicted` in eviction order). Returns false, doing
    /// nothing, if the policy cannot change its size (the default).
    fn resize(&mut self, capacity: usize, evicted: &mut Vec<Evicted>) -> bool {
        let _ = (capacity, evicted);
        false
    }
    /// A hint that `key` is accessed soon: the policy may read (never change) what that access
    /// will read first, so its memory loads overlap the accesses before it. No decision depends
    /// on it. The default does nothing.
    #[inline]
    fn preload(&self, key: u64) {
        let _ = key;
    }
    /// Whether [`Policy::preload`] does anything (the loop then calls it; else never). Policies
    /// for which the extra loads did not pay leave it false: at 10% of the zipf trace CLOCK
    /// and SIEVE were 4% and 9% slower with them, FIFO no faster (LRU 1.12x, ARC 1.08x and
    /// SLRU 1.04x faster).
    fn preloads(&self) -> bool {
        false
    }
    /// Whether `key` is resident now, read without changing anything (no hit counted, no order
    /// moved): what an admission policy asks before a miss reaches the policy
    /// ([`crate::stack::admission`]). None where the policy does not say (the default; a policy
    /// that keeps ghosts in its index must tell them from residents to answer).
    fn contains(&self, key: u64) -> Option<bool> {
        let _ = key;
        None
    }
    /// The page the policy would evict if a page were admitted now, read without evicting it;
    /// None while it has room, or where it does not say (the default). An admission policy
    /// may compare the candidate with it (TinyLFU does).
    fn victim(&self) -> Option<u64> {
        None
    }
    /// This policy as the [`Lru`] it is, taken out (an empty LRU of one page left in its
    /// place), or None for every other policy (the default): a tier holds an LRU by value, so
    /// that the loop calls its access directly ([`crate::stack::Tier`]).
    fn take_lru(&mut self) -> Option<Lru> {
        None
    }
}

/// One row of the registry.
#[derive(Clone, Copy)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// Where the policy comes from (paper and section).
    pub source: &'static str,
    /// The policy reads each access's next-access index (offline); the loop computes them.
    pub offline: bool,
    /// The policy chooses victims by the device's view (chip loads, chips in GC): it runs only
    /// as a buffer over a flash device, never silently without the view.
    pub needs_view: bool,
    /// Names of its parameters.
    pub params: &'static [&'static str],
    pub make: fn(usize, &mut Params) -> Result<Box<dyn Policy>>,
}

impl std::fmt::Debug for PolicyInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The registry: one line per policy.
pub static POLICIES: &[PolicyInfo] = &[
    lru::INFO,
    fifo::INFO,
    lfu::INFO,
    clock::INFO,
    twoq::INFO,
    arc::INFO,
    lirs::INFO,
    mq::INFO,
    s3fifo::INFO,
    sieve::INFO,
    slru::INFO,
    min::INFO,
    larc::INFO,
    cflru::INFO,
    lruwsr::INFO,
    ccflru::INFO,
    ptlru::INFO,
    gasa::INFO,
    gcar::INFO,
    lcr::INFO,
    none::INFO,
];

/// The online policy named `name`, for `what` (a miniature simulation), which cannot give a
/// policy each access's next access: an offline one is refused in one line.
pub fn online_by_name(name: &str, what: &str) -> Result<&'static PolicyInfo> {
    let info = policy_by_name(name)?;
    if info.offline {
        return Err(Error::config(format!("{what} runs online policies; '{}' needs each access's next access (use fcsim run)", info.name)));
    }
    Ok(info)
}

pub fn policy_by_name(name: &str) -> Result<&'static PolicyInfo> {
    POLICIES.iter().find(|p| p.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
        let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
        Error::config(format!("unknown policy '{name}'; registered: {}", names.join(", ")))
    })
}

/// Builds a policy by name with `capacity` pages; returns it with the parameters it used.
pub fn build(name: &str, capacity: usize, params: BTreeMap<String, String>) -> Result<(Box<dyn Policy>, UsedParams)> {
    let info = policy_by_name(name)?;
    if capacity == 0 {
        return Err(Error::config("cache size must be at least one page"));
    }
    let mut p = Params::new(params);
    let policy = (info.make)(capacity, &mut p)?;
    Ok((policy, p.finish(info.name, info.params)?))
}

#[cfg(test)]
pub(crate) mod testing {
    //! Drives a policy through a string of accesses, for hand-traced tests.
    use super::*;

    /// Runs `keys` (a trailing `w` marks a write, e.g. "3w") and returns, per access, whether it
    /// hit and the keys it evicted.
    pub fn trace(p: &mut dyn Policy, accesses: &str) -> Vec<(bool, Vec<u64>)> {
        run(p, accesses, None)
    }

    /// [`trace`] over a device view.
    pub fn trace_on(p: &mut dyn Policy, accesses: &str, view: &dyn DeviceView) -> Vec<(bool, Vec<u64>)> {
        run(p, accesses, Some(view))
    }

    fn run(p: &mut dyn Policy, accesses: &str, view: Option<&dyn DeviceView>) -> Vec<(bool, Vec<u64>)> {
        let mut out = Vec::new();
        let mut ev = Vec::new();
        for (i, tok) in accesses.split_whitespace().enumerate() {
            let write = tok.ends_with('w');
            let key: u64 = tok.trim_end_matches('w').parse().expect("key");
            ev.clear();
            let a = Access { key, write, index: i as u64, next: crate::request::NEVER, time: 0 };
            let o = match view {
                Some(v) => p.access_on(&a, v, &mut ev),
                None => p.access(&a, &mut ev),
            };
            out.push((matches!(o, Outcome::Hit { .. }), ev.iter().map(|e| e.key).collect()));
        }
        out
    }

    /// A device view for tests: page k is on chip k mod chips; each chip's L_chip is fixed.
    pub struct FixedView {
        pub loads_us: Vec<u64>,
        pub in_gc: Vec<bool>,
    }

    impl DeviceView for FixedView {
        fn chips(&self) -> u32 {
            self.loads_us.len() as u32
        }
        fn chip_of(&self, page: u64) -> u32 {
            (page % self.loads_us.len() as u64) as u32
        }
        fn load(&self, chip: u32, _: u64) -> crate::view::ChipLoad {
            crate::view::ChipLoad { gc: self.in_gc[chip as usize], ..Default::default() }
        }
        fn read_ns(&self) -> u64 {
            25_000
        }
        fn write_ns(&self) -> u64 {
            200_000
        }
        fn l_chip(&self, chip: u32, _: u64) -> u64 {
            self.loads_us[chip as usize] * 1000
        }
    }
}
