//! What every container cache shares: the flash's shape in containers and the counters of what
//! it did. A container is one erase unit written whole by the host (offline-bounds paper §3.3,
//! Fig. 2); the online container caches (RIPQ+, Pannier) and the offline heuristic C manage
//! their own containers on it.

/// The flash cache's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Blocks (pages) the cache may hold: its nominal size.
    pub cache_pages: u64,
    /// Blocks per container (one erase unit; 512 x 4 KiB = 2 MiB by default).
    pub container_pages: u32,
    /// Containers of flash, over-provisioning included (nominal size x (1 + OP) / container).
    pub containers: u32,
    /// Containers' worth of blocks the in-RAM write buffer holds before it is sealed (default 4).
    pub write_buffer: u32,
}

/// What a flash cache did, in blocks (pages) and containers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlashCounts {
    /// Reads served from flash (not from the write buffer or DRAM).
    pub read_hits: u64,
    /// Reads served from the in-RAM write buffer.
    pub buffer_hits: u64,
    /// Blocks written to flash for the host: insertions and new versions of cached blocks.
    pub host_writes: u64,
    /// Blocks copied forward by garbage collection (written again).
    pub cf_writes: u64,
    /// Containers erased.
    pub erasures: u64,
    /// Blocks admitted into the cache (each new block or new version).
    pub insertions: u64,
}

/// An online cache on host-managed containers. It sees the flash level's page accesses (the
/// reads the DRAM tier missed and every write) one at a time, in trace order, and no future.
pub trait ContainerCache: Send + std::fmt::Debug {
    /// One access of `key` (a write when `write`); returns whether it was a read hit in the
    /// flash cache (flash or write buffer). Counts everything it does in `c`.
    fn access(&mut self, key: u64, write: bool, c: &mut FlashCounts) -> bool;
    /// The host trimmed `key`: drop it if cached.
    fn trim(&mut self, key: u64, c: &mut FlashCounts);
    /// Called once before the first access with the number of accesses that will follow and
    /// the trace's span (0 when untimed), for a cache whose parameters are rates in time (an
    /// endurance target per day). The default does nothing.
    fn pace(&mut self, accesses: u64, duration_ns: u64) -> crate::error::Result<()> {
        let _ = (accesses, duration_ns);
        Ok(())
    }
    /// Blocks cached now (in flash or the write buffer).
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
