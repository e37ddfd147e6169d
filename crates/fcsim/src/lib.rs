//! # fcsim — FlashCacheSim core
//!
//! A trace-driven simulator of caches on and in front of NAND flash. Data flows one way:
//!
//! 1. [`trace`]: a reader per format turns a trace file (plain, gzip, zstd or xz) into
//!    [`request::HostRequest`]s — time in ns, byte offset and length, op, volume. fcsim's own
//!    binary format ([`trace::fct`]) reads at memory speed; [`trace::synth`] generates seeded
//!    synthetic traces.
//! 2. [`request::PageSplitter`]: a host request becomes the page accesses it touches.
//! 3. [`stack::Tier`]: a [`policy::Policy`] (picked by name from [`policy::POLICIES`]) decides
//!    hits, admissions and victims; the tier is write-back and write-allocate and counts what
//!    reaches the backing store.
//! 4. [`device`]: optionally, a flash SSD behind the tier (geometry, page-mapped FTL, GC,
//!    per-chip timing): read misses and write-backs become flash ops with completion times.
//! 5. [`metrics`]: counters, device statistics and response times become one
//!    [`metrics::ResultRow`] per (trace, configuration).
//!
//! [`mrc`] computes exact LRU miss-ratio curves for all sizes in one pass.
//!
//! [`sim::simulate`] is the one loop that drives these stages. Configuration is validated
//! ([`config`]) before the first request; every failure is an [`error::Error`] that names the
//! file and line, or the option, that caused it.

pub mod config;
pub mod device;
pub mod error;
pub mod metrics;
pub mod mrc;
pub mod policy;
pub mod request;
pub mod sim;
pub mod stack;
pub mod trace;

pub use config::{SimConfig, SizeSpec};
pub use error::{Error, Result};
pub use metrics::{ResultRow, Value};
pub use sim::simulate;
pub use trace::TraceOptions;
