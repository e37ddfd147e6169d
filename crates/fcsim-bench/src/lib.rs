//! fcsim's Rust benchmarks live in `benches/` (`make bench`, or `cargo bench -p fcsim-bench
//! --bench NAME`): criterion's policy and device throughput, and the minimal in-memory LRU and
//! page-mapped FTL that the speed targets are ratios to (`bench/RESULTS.md`). They are a crate
//! of their own so that `cargo test -p fcsim` does not build criterion; this library is empty.
