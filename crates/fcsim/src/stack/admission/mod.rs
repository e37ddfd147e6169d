//! The admission layer (issues 46 and 43): whether a missed page may enter a flash-cache tier,
//! decided apart from eviction, before the miss reaches the tier's policy, so that any eviction
//! policy runs with any admission policy. A tier has one slot ([`super::Tier::admission`]);
//! empty (the default, `--admit all`), it costs one predictable branch per access and the
//! policy alone decides, as before.
//!
//! With an admission policy in the slot, each read or write access of a page the tier does not
//! hold is offered to it first ([`Admission::admit`]); declined, the access bypasses the tier:
//! a read is served by the backing store, a write is written to it, both counted as the tier's
//! backing reads and writes, and the policy never sees the page (no insertion, no eviction). A
//! page the tier holds always goes to the policy (a hit). Whether the tier holds the page is
//! the policy's [`Policy::contains`]; where the policy does not say, the backing store's
//! ([`crate::device::Backing::holds`]: a flash cache's slots mirror its tier); the stack builds
//! an admission slot only over a backing that answers. An admission policy that compares the
//! candidate with the page it would displace reads [`Policy::victim`].
//!
//! Each admission has parameters ([`ParamInfo`], `--set admit.KEY=V`, range-checked before the
//! run) and may name one of them its knob ([`AdmissionInfo::knob`]): the one number a budget
//! controller or a Pareto sweep turns ([`Admission::knob`], [`Admission::set_knob`]); a larger
//! knob admits more.
//!
//! Admission inside a policy (LARC's ghost queue, MIN's bypass) stays the policy's; Pannier's
//! credits and M_T's quota stay in [`crate::offline`]'s replay (see its module docs).
//!
//! Adding one: a file here implementing [`Admission`] with its `INFO`, and one line in
//! [`ADMISSIONS`]; `--admit NAME` (or `--set stack.admit=NAME`) then picks it.

pub mod dram_reads;
pub mod ml;
pub mod opt;
mod random;
mod second_hit;
mod tinylfu;
pub mod trees;
pub mod writes;

use crate::error::{compact, Error, Result};
use crate::policy::{Access, Policy};

/// An admission policy: whether a page the tier does not hold may enter it.
pub trait Admission: Send {
    /// The access `a` (its `key`, `write`: the host wrote it, `index`, `next`: the index of the
    /// page's next access when the run knows the future, else [`crate::request::NEVER`], and
    /// `time`) of a page the tier does not hold is about to reach `policy`; returns whether the
    /// page may enter. Declined, the access bypasses the tier. The tier guarantees `policy` does
    /// not hold `a.key`; the implementation must not change the policy (it may read it:
    /// [`Policy::victim`]).
    fn admit(&mut self, a: &Access, policy: &dyn Policy) -> bool;
    /// The access `a` of a page the tier holds (a hit), before the policy sees it: what an
    /// admission that counts every access (TinyLFU's sketch) or tunes itself by hits (LARC's
    /// ghost queue) reads. The default ignores it.
    #[inline]
    fn hit(&mut self, a: &Access) {
        let _ = a;
    }
    /// `key` left the tier or was never let in, by a trim or (in a write-around tier) a write
    /// that invalidates it: anything remembered of it may be dropped. The default ignores it.
    #[inline]
    fn forget(&mut self, key: u64) {
        let _ = key;
    }
    /// Sees every read or write access `a` of the tier (held or not, under any write mode),
    /// before the tier decides anything about it: an admission that keeps each page's history
    /// (`ml`) updates it here. The default does nothing.
    fn observe(&mut self, a: &Access) {
        let _ = a;
    }
    /// Whether the tier is a victim cache of the DRAM tier above it (`dram-reads`): a read miss
    /// from above that the tier does not hold bypasses it without being offered (the page enters
    /// DRAM only), and a page DRAM evicts clean is offered instead ([`super::Tier::offer_clean`]).
    /// The default (false) keeps the tier an inclusive cache of DRAM's misses.
    fn victim_cache(&self) -> bool {
        false
    }
    /// The DRAM tier above read `key`, which it holds (a read hit there). The default ignores it.
    #[inline]
    fn above_read(&mut self, key: u64) {
        let _ = key;
    }
    /// The DRAM tier above evicted `key` (clean or dirty), after the page was offered to this
    /// tier. The default ignores it.
    #[inline]
    fn above_evicted(&mut self, key: u64) {
        let _ = key;
    }
    /// For a learned admission (`ml`): page accesses before `index` are its training part, whose
    /// `next` is opt's plan (the labels); the rest are evaluated. Called by the run before the
    /// first access. The default ignores it.
    fn set_split(&mut self, index: u64) {
        let _ = index;
    }
    /// The current value of the knob ([`AdmissionInfo::knob`]), if the admission has one.
    fn knob(&self) -> Option<f64> {
        None
    }
    /// Sets the knob to `v` (clamped by the implementation to its parameter's range); a larger
    /// knob admits more. Does nothing where there is no knob (the default).
    fn set_knob(&mut self, v: f64) {
        let _ = v;
    }
}

/// One parameter of an admission policy: `--set admit.NAME=V`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamInfo {
    pub name: &'static str,
    pub default: f64,
    /// The range accepted, both ends included.
    pub lo: f64,
    pub hi: f64,
    pub meaning: &'static str,
    /// Words the value may be given as instead of a number: the i-th word is the value i
    /// (`admit.ghost=larc`); empty for a plain number.
    pub words: &'static [&'static str],
}

impl ParamInfo {
    /// A numeric parameter.
    pub const fn num(name: &'static str, default: f64, lo: f64, hi: f64, meaning: &'static str) -> ParamInfo {
        ParamInfo { name, default, lo, hi, meaning, words: &[] }
    }

    /// The value `s` gives this parameter, or one line naming the key, the value and the range.
    fn parse(&self, s: &str) -> Result<f64> {
        let s = s.trim();
        if let Some(i) = self.words.iter().position(|w| w.eq_ignore_ascii_case(s)) {
            return Ok(i as f64);
        }
        match s.parse::<f64>() {
            Ok(v) if v >= self.lo && v <= self.hi => Ok(v),
            _ => Err(Error::config(format!("admit.{}={s}: expected {}", self.name, self.expected()))),
        }
    }

    /// What the parameter takes, in words.
    pub fn expected(&self) -> String {
        if self.words.is_empty() {
            format!("{} in [{}, {}]", self.meaning, compact(self.lo), compact(self.hi))
        } else {
            format!("{} ({})", self.meaning, self.words.join(" or "))
        }
    }

    /// `v` as the row shows it: the word for a worded parameter, else the number.
    pub fn show(&self, v: f64) -> String {
        self.words.get(v as usize).map_or_else(|| compact(v), |w| (*w).to_string())
    }
}

/// What an admission policy is built from: its parameters' values (in the order of
/// [`AdmissionInfo::params`]) and what the stack knows of the tier.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmitParams {
    pub values: Vec<(&'static str, f64)>,
    /// The flash-cache tier's capacity in pages.
    pub capacity: usize,
    /// Pages of a DRAM tier over the flash-cache tier (0: none).
    pub dram_pages: usize,
}

impl AdmitParams {
    /// The value of parameter `name` (a name of the admission's [`AdmissionInfo::params`]).
    pub fn get(&self, name: &str) -> f64 {
        self.values.iter().find(|(n, _)| *n == name).map_or_else(|| panic!("admission parameter {name} not declared"), |p| p.1)
    }
}

/// One row of the admission registry.
pub struct AdmissionInfo {
    /// `--admit NAME`, `stack.admit=NAME`.
    pub name: &'static str,
    pub description: &'static str,
    /// Where it comes from (paper and section).
    pub source: &'static str,
    /// Its parameters (`--set admit.KEY=V`).
    pub params: &'static [ParamInfo],
    /// The parameter a budget controller or a Pareto sweep turns, if any (larger admits more).
    pub knob: Option<&'static str>,
    /// Why a write budget's controller may not turn the knob during a run, if it may not (the
    /// rest of the sentence after "--admit NAME"); None: it may ([`crate::stack::budget`]).
    pub unbudgeted: Option<&'static str>,
    pub make: fn(&AdmitParams) -> Result<Box<dyn Admission>>,
}

impl AdmissionInfo {
    /// The values of `given` (`admit.KEY` without the prefix, as text), each checked against
    /// its parameter's range, the rest defaulted; one line for an unknown key or a bad value.
    pub fn values(&self, given: &std::collections::BTreeMap<String, String>) -> Result<Vec<(&'static str, f64)>> {
        if let Some(k) = given.keys().find(|k| !self.params.iter().any(|p| p.name == k.as_str())) {
            let names: Vec<&str> = self.params.iter().map(|p| p.name).collect();
            let takes = if names.is_empty() { "it takes none".to_string() } else { format!("it takes {}", names.join(", ")) };
            return Err(Error::config(format!("unknown parameter admit.{k} of admission {}: {takes}", self.name)));
        }
        self.params.iter().map(|p| Ok((p.name, given.get(p.name).map_or(Ok(p.default), |s| p.parse(s))?))).collect()
    }
}

impl PartialEq for AdmissionInfo {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl std::fmt::Debug for AdmissionInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// `all`: every miss may enter (the empty slot); listed with the registry by [`admissions`].
pub const ALL: AdmissionInfo = AdmissionInfo {
    name: "all",
    description: "every miss may enter (the tier's policy alone decides); the default",
    source: "fcsim: no admission layer",
    params: &[],
    knob: None,
    unbudgeted: None,
    make: |_| Err(Error::config("admission all is the empty slot: nothing to build")),
};

/// The registry: one line per admission policy (`all`, admitting every page, is the empty slot).
pub static ADMISSIONS: &[AdmissionInfo] =
    &[writes::INFO, second_hit::INFO, random::INFO, tinylfu::INFO, opt::INFO, ml::INFO, dram_reads::INFO];

/// Every admission a run may name: [`ALL`], then the registry.
pub fn admissions() -> impl Iterator<Item = &'static AdmissionInfo> {
    std::iter::once(&ALL).chain(ADMISSIONS.iter())
}

/// The admission policy named `name` (None for `all`, the empty slot).
pub fn admission_by_name(name: &str) -> Result<Option<&'static AdmissionInfo>> {
    if name.trim().eq_ignore_ascii_case(ALL.name) {
        return Ok(None);
    }
    ADMISSIONS.iter().find(|a| a.name.eq_ignore_ascii_case(name.trim())).map(Some).ok_or_else(|| {
        let names: Vec<&str> = admissions().map(|a| a.name).collect();
        Error::config(format!("stack.admit={name}: unknown admission; registered: {} (see fcsim admissions)", names.join(", ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_range_checked_and_named() {
        const P: &[ParamInfo] = &[
            ParamInfo::num("p", 0.5, 0.0, 1.0, "a probability"),
            ParamInfo { words: &["fixed", "larc"], ..ParamInfo::num("ghost", 0.0, 0.0, 1.0, "the ghost queue") },
        ];
        let info = AdmissionInfo { params: P, knob: Some("p"), ..writes::INFO };
        let given = |kv: &[(&str, &str)]| kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(info.values(&given(&[])).unwrap(), vec![("p", 0.5), ("ghost", 0.0)]);
        assert_eq!(info.values(&given(&[("p", "0.25"), ("ghost", "LARC")])).unwrap(), vec![("p", 0.25), ("ghost", 1.0)]);
        let e = info.values(&given(&[("p", "1.5")])).unwrap_err().to_string();
        assert!(e.contains("admit.p=1.5: expected a probability in [0, 1]"), "{e}");
        let e = info.values(&given(&[("q", "1")])).unwrap_err().to_string();
        assert!(e.contains("unknown parameter admit.q of admission writes: it takes p, ghost"), "{e}");
        assert_eq!(P[1].show(1.0), "larc");
        assert!(admission_by_name("all").unwrap().is_none());
        assert!(admission_by_name("nope")
            .unwrap_err()
            .to_string()
            .contains("stack.admit=nope: unknown admission; registered: all, writes"));
    }
}
