//! A cache stack as a value (issue 46): the top tier the trace's pages enter, everything below it
//! (a backing store, which may hold further tiers), and a controller slot, owned together. The
//! loop ([`crate::sim::Run`]) is handed a `&mut Stack`; nothing is swapped in or out of it, so
//! one request stream can feed several stacks (each with its own [`crate::sim::Run`]).
//!
//! Which tier the row reports is the stack's to say ([`Stack::measured`]): the top tier, or, for
//! a DRAM tier in front of a flash cache, the flash tier below it ([`Lower`]). Its counters fill
//! the row and the per-epoch table, and its fullness ends a `full` warm-up.

use super::control::Controller;
use super::{Below, SsdCache, Tier};
use crate::device::{Buffer, Flash, NoDevice, Store};

/// A built stack: `tier` over `below`, with an optional controller.
pub struct Stack<B> {
    /// The tier the trace's pages enter.
    pub tier: Tier,
    /// What is below it: devices, and any lower tier.
    pub below: B,
    /// A controller acting on the stack as it runs ([`super::control`]), if any.
    pub controller: Option<Box<dyn Controller<B>>>,
}

impl<B> std::fmt::Debug for Stack<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stack").field("tier", &self.tier).field("controller", &self.controller.is_some()).finish()
    }
}

impl<B: Lower> Stack<B> {
    /// `tier` over `below`, no controller.
    pub fn new(tier: Tier, below: B) -> Self {
        Stack { tier, below, controller: None }
    }

    /// The tier the row measures: the tier below the top one if there is one ([`Lower`]), else
    /// the top one.
    pub fn measured(&self) -> &Tier {
        self.below.lower().unwrap_or(&self.tier)
    }

    /// Hits of the whole stack so far: the top tier's and the tier below it, if there is one (a
    /// DRAM tier's hits never reach the flash cache below it).
    #[inline]
    pub fn hits(&self) -> u64 {
        self.tier.counters.hits + self.below.lower().map_or(0, |t| t.counters.hits)
    }
}

/// What a stack's top tier sits on, as the row sees it: a tier below the top one, if it holds
/// one, is the tier measured ([`Stack::measured`]). Every backing a stack shape uses implements
/// it; the default says there is none.
pub trait Lower {
    /// The tier this holds (the next tier down), if any.
    fn lower(&self) -> Option<&Tier> {
        None
    }
}

impl Lower for NoDevice {}
impl Lower for Flash {}
impl Lower for SsdCache {}

impl<B> Lower for Below<B> {
    fn lower(&self) -> Option<&Tier> {
        Some(&self.tier)
    }
}

impl<S: Store + Lower> Lower for Buffer<S> {
    fn lower(&self) -> Option<&Tier> {
        self.store.lower()
    }
}
