//! Offline flash-cache bounds and container caching: Cheng, Douglis, Shilane, Trachtman, Wallace,
//! Desnoyers and Li, "Erasing Belady's Limitations: In Search of Flash Cache Offline Optimality",
//! USENIX ATC '16 (`../shared/papers/flash-cache-offline-optimality.txt`).
//!
//! (Work in progress: the engine lands in the following commits.)

pub mod containers;
