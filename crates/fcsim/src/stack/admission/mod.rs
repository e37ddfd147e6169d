//! The admission seam (issue 46): whether a missed page may enter a tier, decided apart from
//! eviction, before the miss reaches the tier's policy. A tier has one slot
//! ([`super::Tier::admission`]); empty (the default, `stack.admit=all`), it costs one
//! predictable branch per access and the policy alone decides, as before.
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
//! Admission inside a policy (LARC's ghost queue, MIN's bypass) stays the policy's; Pannier's
//! credits and M_T's quota stay in [`crate::offline`]'s replay (see its module docs).
//!
//! Adding one: a file here implementing [`Admission`] with its `INFO`, and one line in
//! [`ADMISSIONS`]; `--set stack.admit=NAME` then picks it.

mod writes;

use crate::error::{Error, Result};
use crate::policy::Policy;

/// An admission policy: whether a page the tier does not hold may enter it.
pub trait Admission: Send {
    /// A read or write (`write`) of `key`, which the tier does not hold, is about to reach
    /// `policy`; returns whether the page may enter. Declined, the access bypasses the tier.
    /// The tier guarantees `policy` does not hold `key`; the implementation must not change the
    /// policy (it may read it: [`Policy::victim`]).
    fn admit(&mut self, key: u64, write: bool, policy: &dyn Policy) -> bool;
}

/// One row of the admission registry.
pub struct AdmissionInfo {
    /// `stack.admit=NAME`.
    pub name: &'static str,
    pub description: &'static str,
    /// Where it comes from (paper and section).
    pub source: &'static str,
    pub make: fn() -> Box<dyn Admission>,
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

/// The registry: one line per admission policy (`all`, admitting every page, is the empty slot).
pub static ADMISSIONS: &[AdmissionInfo] = &[writes::INFO];

/// The admission policy named `name`.
pub fn admission_by_name(name: &str) -> Result<&'static AdmissionInfo> {
    ADMISSIONS.iter().find(|a| a.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
        let names: Vec<&str> = ADMISSIONS.iter().map(|a| a.name).collect();
        Error::config(format!("stack.admit={name}: expected all (every miss may enter) or {}", names.join(", ")))
    })
}
