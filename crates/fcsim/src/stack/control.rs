//! The controller seam: something that watches a stack run and acts on it between requests
//! (issue 46). The dynamic split of a write cache ([`super::split::Split`], the
//! dynamic-allocation paper's re-splitting by window) is the first; the write-budget controller
//! ([`super::budget::Budget`], drive writes per day, issue 43) the second.
//!
//! A controller belongs to the [`super::Stack`] it controls (so one request stream can feed
//! several stacks, each with its own). The loop ([`crate::sim::Run::step`]) calls it at four
//! points, only when the stack has one (an empty slot is one predictable branch):
//!
//! - [`Controller::before`], at each request's arrival before the devices' clocks move to it:
//!   work that can run on an idle device before then (the split's deferred write-backs);
//! - [`Controller::access`], after each read or write page access has gone through the tier;
//! - [`Controller::after`], once the request completed: it may act on the tier and what is below
//!   it (resize the tier); what it does occupies the devices, and the requests after it wait;
//! - [`Controller::end`], at the end of the run after the tier's flush: it writes back what it
//!   still holds and says how many pages.
//!
//! Adding one: a file implementing [`Controller`] for the backing it needs (the split needs a
//! flash cache's [`super::SsdCache`]), a variant of [`ControllerLog`] for what the row shows, and
//! one line where [`super::build`] fills the stack's slot from the configuration.

use super::Tier;
use crate::error::Result;

/// A controller of a stack whose top tier sits on `B`. See the module docs for when the loop
/// calls each method.
pub trait Controller<B> {
    /// At the arrival `now` of a request, before the devices' clocks reach it.
    fn before(&mut self, now: u64, below: &mut B) -> Result<()>;
    /// A read or write page access of `key` went through the tier; `Err` when the controller
    /// cannot keep up with it (out of memory).
    fn access(&mut self, key: u64) -> Result<()>;
    /// The request that arrived at `now` completed after `response_ns`; the controller may act
    /// on `tier` and `below`.
    fn after(&mut self, response_ns: u64, now: u64, tier: &mut Tier, below: &mut B) -> Result<()>;
    /// The end of the run at `t`, after the tier's flush: writes back what the controller still
    /// holds below the tier; returns how many pages.
    fn end(&mut self, t: u64, below: &mut B) -> Result<u64>;
    /// What it did, for the result row.
    fn finish(self: Box<Self>) -> ControllerLog;
}

/// What a controller leaves for the result row: one variant per controller.
#[derive(Debug, Clone, PartialEq)]
pub enum ControllerLog {
    /// The dynamic split's stretches, decisions and U table.
    Split(super::split::SplitLog),
    /// The write-budget controller's target, achieved rate and peak window.
    Budget(super::budget::BudgetLog),
}
