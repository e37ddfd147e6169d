//! # fcsim — FlashCacheSim core
//!
//! A trace-driven simulator of caches on and in front of NAND flash. Data flows one way, and the
//! modules are layered so that each uses only the ones above it in this list (a test,
//! `tests/layers.rs`, fails on an import that points up or on a cycle):
//!
//! ```text
//! leaves   error · mem (fallible growth of what a trace sizes) · time (ns, the horizon, checked
//!          conversions) · params (key=value with used-value tracking) · size · histogram
//!          · load (a server's work, sojourns and busiest windows) · view (the read-only device view) · request (HostRequest, PageAccess, splitter)
//!          · mrc (miss-ratio curves from a stream of page keys: exact, SHARDS)
//! trace    a reader per format → HostRequests; synth; .fct; info; convert
//! policy   one replacement policy per file + the registry (sees the device only as a view)
//! device   flash (geometry, FTL, GC, per-chip timing), disk; the Backing/Store boundary
//! stack    cache tiers over what is below them: write modes, the flash cache over a disk; the
//!          stack as a value (its shapes and their assembly), the admission and controller seams
//! sim      the one loop: a request at a time (`Run::step`) through a stack, counters and
//!          response times
//! curves   a trace's miss-ratio curves (its page accesses fed to mrc; miniature simulations)
//! metrics  the result row, from the stack's counters and the device's statistics
//! config   SimConfig: what one run is
//! run      sizes a SimConfig for its trace, has the stack built, runs the loop, builds the row
//! fidelity a trace's measures (one pass + LRU runs) and a clone's report against its original
//! ```
//!
//! 1. [`trace`]: a reader per format turns a trace file (plain, gzip, zstd or xz) into
//!    [`request::HostRequest`]s — time in ns, byte offset and length, op, volume. fcsim's own
//!    binary format ([`trace::fct`]) reads at memory speed; [`trace::synth`] generates seeded
//!    synthetic traces.
//! 2. [`request::PageSplitter`]: a host request becomes the page accesses it touches.
//! 3. [`stack::Tier`]: a [`policy::Policy`] (picked by name from [`policy::POLICIES`]) decides
//!    hits, admissions and victims; the tier applies its write mode and counts what reaches
//!    the store below it.
//! 4. [`device`]: optionally, a flash SSD behind the tier (geometry, page-mapped FTL, GC,
//!    per-chip timing): read misses and write-backs become flash ops with completion times.
//! 5. [`sim`]: the one loop that drives these stages; [`metrics`] turns what it leaves
//!    (counters, device statistics, response times) into one [`metrics::ResultRow`] per
//!    (trace, configuration).
//!
//! [`run::simulate`] assembles a [`config::SimConfig`], validated before the first request,
//! and runs it; every failure is an [`error::Error`] that names the file and line, or the
//! option, that caused it. [`curves`] computes a trace's LRU miss-ratio curve for all sizes in
//! one pass (exact, or estimated by SHARDS from a sample of the pages), and any online policy's
//! miss ratios at many sizes from miniature simulations on that sample.

/// The core's revision for what it caches: the SHA-256 (first 8 bytes) of every source file under
/// `src/` and of the donor models compiled in (`build.rs`). Fitted clone models and the reports'
/// fidelity measures are keyed by it: any change to the code that reads, generates or measures a
/// trace gives new keys (conservative: a change elsewhere recomputes too; never stale).
pub const SOURCE_DIGEST: &str = env!("FCSIM_SOURCE_DIGEST");

pub mod config;
pub mod curves;
pub mod device;
pub mod error;
pub mod fidelity;
pub mod histogram;
pub mod load;
pub mod mem;
pub mod metrics;
pub mod minisim;
pub mod mrc;
pub mod offline;
pub mod params;
pub mod policy;
pub mod request;
pub mod run;
pub mod sim;
pub mod size;
pub mod stack;
pub mod time;
pub mod trace;
pub mod view;

pub use config::SimConfig;
pub use error::{Error, Result};
pub use metrics::{ResultRow, Value};
pub use run::{check, simulate};
pub use size::SizeSpec;
pub use trace::TraceOptions;
