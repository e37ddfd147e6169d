//! **M**: Belady's MIN as the offline-bounds paper uses it (§3.5 M, Table 2): a block is
//! inserted only if it will be read again, before the furthest-read block in the cache (which
//! it then replaces); a block that will be overwritten or never reread is not inserted. Every
//! version the queue admits is written to flash. The paper runs it over an FTL without TRIM
//! (§6.1: M+ improves on it by R_1 and by TRIM), so `m.trim` defaults to false.

use super::queue::{Bits, Log};

/// M skips nothing.
pub fn skip(log: &Log) -> Bits {
    Bits::new(log.absorbed.len())
}

#[cfg(test)]
mod tests {
    use super::super::queue::{min_pass, tests::stream};

    #[test]
    fn skips_nothing() {
        let s = stream("1 2 2 1");
        let (_, log) = min_pass(&s, 1);
        assert_eq!(super::skip(&log).count(), 0);
    }
}
