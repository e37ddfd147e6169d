//! Fallible growth of the structures a trace sizes (per-page tables, key sequences, sample
//! sets): when memory runs out, the pass ends in one [`Error::Config`] naming the structure and
//! how large it had to be, never in the process's abort. Growth stays amortised (doubling), so a
//! check costs a comparison per item.

use crate::error::{Error, Result};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash};

/// The error of a structure of `entries` entries of `entry_bytes` that could not be allocated.
#[cold]
pub fn refused(what: &str, entries: usize, entry_bytes: usize) -> Error {
    let gib = entries as f64 * entry_bytes as f64 / f64::from(1u32 << 30);
    Error::config(format!(
        "not enough memory for {what}: {entries} entries ({gib:.1} GiB) could not be allocated; a trace of fewer pages \
         (a larger page size, --volume, a shorter excerpt) needs less"
    ))
}

/// Room for `additional` more items in `v` (at least doubling when it grows).
#[inline]
pub fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    if v.capacity() - v.len() >= additional {
        return Ok(());
    }
    let want = additional.max(v.len());
    v.try_reserve(want).map_err(|_| refused(what, v.len().saturating_add(want), std::mem::size_of::<T>()))
}

/// A vector of `n` copies of `x`.
pub fn filled<T: Clone>(n: usize, x: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| refused(what, n, std::mem::size_of::<T>()))?;
    v.resize(n, x);
    Ok(v)
}

/// Room for one more entry in `m` (doubling when it is full).
#[inline]
pub fn reserve_map<K: Eq + Hash, V, S: BuildHasher>(m: &mut HashMap<K, V, S>, what: &str) -> Result<()> {
    if m.len() < m.capacity() {
        return Ok(());
    }
    let want = m.len().max(16);
    m.try_reserve(want).map_err(|_| refused(what, m.len().saturating_add(want), std::mem::size_of::<(K, V)>()))
}

/// Room for one more entry in `s` (doubling when it is full).
#[inline]
pub fn reserve_set<K: Eq + Hash, S: BuildHasher>(s: &mut HashSet<K, S>, what: &str) -> Result<()> {
    if s.len() < s.capacity() {
        return Ok(());
    }
    let want = s.len().max(16);
    s.try_reserve(want).map_err(|_| refused(what, s.len().saturating_add(want), std::mem::size_of::<K>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_size_is_an_error_naming_the_structure() {
        let e = filled(usize::MAX / 8, 0u64, "the next-access column").unwrap_err().to_string();
        assert!(e.starts_with("not enough memory for the next-access column: 2305843009213693951 entries"), "{e}");
        let mut v: Vec<u64> = Vec::new();
        assert!(reserve(&mut v, usize::MAX / 4, "page keys").is_err());
        reserve(&mut v, 10, "page keys").unwrap();
        assert!(v.capacity() >= 10);
    }
}
