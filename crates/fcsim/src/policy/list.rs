//! Index-based intrusive doubly linked lists over one arena of nodes, with an index from page
//! key to node. Several lists may share an arena (multi-queue policies); a node's `tag` tells
//! which list it is on. Nodes are `u32` indices, so a node is 24 bytes and nothing is allocated
//! per access once the arena and index have grown to capacity. Ghost entries (ids remembered
//! after eviction) live in the same arena and index, told apart by their tag.
//!
//! The index is an open-addressing table (8 bytes a slot: 32 hash bits and a node number, at
//! most half full, or a quarter for small caches): linear probing from a Fibonacci hash of the key,
//! and backward-shift deletion (Knuth, TAOCP 3, §6.4, Algorithm R; not in the seed papers'
//! reference lists), which leaves no tombstones, so a cache that evicts and inserts forever never
//! rehashes. With the 24-byte node, a cached page costs about 40 bytes (up to about 56-88 bytes
//! in caches of at most 65,536 entries, whose index is kept a quarter full).

pub const NIL: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
pub struct Node {
    pub key: u64,
    prev: u32,
    next: u32,
    /// A counter for the policy's use (frequency, reference bits); 0 when allocated.
    pub count: u32,
    /// Which list of the policy the node is on (policy-defined).
    pub tag: u8,
    pub dirty: bool,
}

/// The most entries a structure of a cache reserves before anything is cached: beyond that it
/// grows by doubling (amortised, never per access) as pages are actually cached, so memory
/// follows what a trace fills, not the size asked for (`--size 4294967294` on a 200-line trace).
pub const UP_FRONT: usize = 1 << 16;

/// What to reserve for `n` expected entries: all of them, up to [`UP_FRONT`].
pub fn up_front(n: usize) -> usize {
    n.min(UP_FRONT)
}

/// The free ids of `0..n` (containers, cache slots): never-used ids lowest first, then the last freed
/// first. Only ids freed so far are held, so a cache far larger than its trace costs nothing up
/// front, and per-id storage can grow to [`FreeIds::used`].
#[derive(Debug, Clone)]
pub struct FreeIds {
    freed: Vec<u32>,
    fresh: u32,
    n: u32,
}

impl FreeIds {
    /// Every id of `0..n` free.
    pub fn new(n: u32) -> Self {
        FreeIds { freed: Vec::new(), fresh: 0, n }
    }

    pub fn pop(&mut self) -> Option<u32> {
        self.freed.pop().or_else(|| {
            (self.fresh < self.n).then(|| {
                self.fresh += 1;
                self.fresh - 1
            })
        })
    }

    pub fn push(&mut self, id: u32) {
        self.freed.push(id);
    }

    pub fn len(&self) -> usize {
        self.freed.len() + (self.n - self.fresh) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many ids there are (`n`).
    pub fn ids(&self) -> u32 {
        self.n
    }

    /// One more than the highest id ever taken.
    pub fn used(&self) -> u32 {
        self.fresh
    }
}

/// Slots of the largest index kept at most a quarter full (8 bytes each: 2 MiB).
const SMALL_INDEX: usize = 1 << 18;

/// An empty index slot.
const EMPTY: u64 = u64::MAX;

/// Open-addressing index from key to node number (see the module docs). A slot holds the top
/// 32 bits of the key's Fibonacci hash and the node number, so probing and backward shifts read
/// the slots alone; a node is read only to confirm a key whose hash bits match.
#[derive(Debug, Default)]
struct Index {
    slots: Vec<u64>,
    /// log2 of the number of slots (at most 32).
    bits: u32,
    len: usize,
}

#[inline]
fn hash32(key: u64) -> u64 {
    key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
}

impl Index {
    fn with_capacity(n: usize) -> Self {
        // At most a quarter full while that takes at most 2 MiB (caches of up to 65,536
        // entries: shorter probe runs and deletion shifts), else at most half full (large
        // caches, where the memory counts more). Measured against half full on the 5M Zipf
        // trace: LRU and FIFO about 1.2x faster at 1%; at 10% (57,204 pages) LRU 1.11x and
        // FIFO 1.15x faster (time on the CPU).
        let quarter = (4 * n.max(4)).next_power_of_two();
        let size = if quarter <= SMALL_INDEX { quarter } else { (2 * n.max(4)).next_power_of_two() };
        Index { slots: vec![EMPTY; size], bits: size.trailing_zeros(), len: 0 }
    }

    /// Home slot of an entry or hash.
    #[inline]
    fn home_of(&self, h: u64) -> usize {
        (h as u32 >> (32 - self.bits)) as usize
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot holding `key`, or the empty slot where it would go.
    #[inline(always)]
    fn probe(&self, key: u64, nodes: &[Node]) -> (usize, bool) {
        let h = hash32(key);
        let mut p = self.home_of(h);
        loop {
            let e = self.slots[p];
            if e == EMPTY {
                return (p, false);
            }
            if e >> 32 == h && nodes[e as u32 as usize].key == key {
                return (p, true);
            }
            p = (p + 1) & self.mask();
        }
    }

    #[inline]
    fn node_at(&self, p: usize) -> u32 {
        self.slots[p] as u32
    }

    /// Makes room for one more entry, doubling the table if it would pass half full. Call it
    /// before probing for the slot of a new entry.
    fn reserve_one(&mut self) {
        if 2 * (self.len + 1) <= self.slots.len() {
            return;
        }
        let old = std::mem::take(&mut self.slots);
        self.slots = vec![EMPTY; 2 * old.len()];
        self.bits += 1;
        let mask = self.mask();
        for e in old.into_iter().filter(|&e| e != EMPTY) {
            let mut q = self.home_of(e >> 32);
            while self.slots[q] != EMPTY {
                q = (q + 1) & mask;
            }
            self.slots[q] = e;
        }
    }

    /// Puts `key`'s entry for node `i` in the empty slot `p` (from [`Index::probe`] after
    /// [`Index::reserve_one`]).
    fn fill(&mut self, p: usize, key: u64, i: u32) {
        self.slots[p] = hash32(key) << 32 | u64::from(i);
        self.len += 1;
    }

    /// Empties slot `p`, shifting later entries of its probe run back (no tombstones).
    fn clear(&mut self, mut p: usize) {
        let mask = self.mask();
        self.len -= 1;
        loop {
            self.slots[p] = EMPTY;
            let mut q = p;
            loop {
                q = (q + 1) & mask;
                let e = self.slots[q];
                if e == EMPTY {
                    return;
                }
                let h = self.home_of(e >> 32);
                // The entry at q may stay unless its home lies cyclically outside (p, q].
                let stays = if p <= q { p < h && h <= q } else { p < h || h <= q };
                if !stays {
                    self.slots[p] = e;
                    p = q;
                    break;
                }
            }
        }
    }
}

/// The index slot where a key [`Arena::find`] missed would go.
#[derive(Debug, Clone, Copy)]
pub struct Vacant(usize);

/// Node storage with a free list, plus the key → node index.
#[derive(Debug, Default)]
pub struct Arena {
    nodes: Vec<Node>,
    free: u32,
    index: Index,
}

impl Arena {
    /// An arena for `n` nodes, reserving room for [`up_front`]`(n)`; it grows as nodes are added.
    pub fn with_capacity(n: usize) -> Self {
        // One more key than nodes: `claim` maps the new key before the old one goes.
        let n = up_front(n);
        Arena { nodes: Vec::with_capacity(n), free: NIL, index: Index::with_capacity(n + 1) }
    }

    fn new_node(&mut self, key: u64, tag: u8, dirty: bool) -> u32 {
        let node = Node { key, prev: NIL, next: NIL, count: 0, tag, dirty };
        if self.free != NIL {
            let i = self.free;
            self.free = self.nodes[i as usize].next;
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn unmap(&mut self, key: u64) {
        let (p, found) = self.index.probe(key, &self.nodes);
        if found {
            self.index.clear(p);
        }
    }

    /// One probe of the index: `Ok(node)` if `key` is present; else maps `key` to a node and
    /// returns `Err(node)`. The node is `reuse` if given (a node the caller is about to evict:
    /// its old key is still mapped and its fields unchanged, see [`Arena::retarget`]), else a
    /// fresh unlinked node.
    #[inline(always)]
    pub fn claim(&mut self, key: u64, reuse: Option<u32>, tag: u8, dirty: bool) -> Result<u32, u32> {
        match self.find(key) {
            Ok(i) => Ok(i),
            Err(v) => Err(self.occupy(v, key, reuse, tag, dirty)),
        }
    }

    /// One probe of the index: `Ok(node)` if `key` is present, else the empty slot where it
    /// would go, for [`Arena::occupy`]. For a policy that must choose its victim only on a miss
    /// (a hand that moves pages): the slot stays valid while the index is not changed.
    #[inline(always)]
    pub fn find(&self, key: u64) -> Result<u32, Vacant> {
        let (p, found) = self.index.probe(key, &self.nodes);
        if found {
            Ok(self.index.node_at(p))
        } else {
            Err(Vacant(p))
        }
    }

    /// Maps `key`, which [`Arena::find`] just missed at `v` (the index unchanged since), to a
    /// node: `reuse` if given (as in [`Arena::claim`]; follow with [`Arena::retarget`]), else a
    /// fresh unlinked node. Returns the node.
    #[inline(always)]
    pub fn occupy(&mut self, v: Vacant, key: u64, reuse: Option<u32>, tag: u8, dirty: bool) -> u32 {
        let mut p = v.0;
        if 2 * (self.index.len + 1) > self.index.slots.len() {
            self.index.reserve_one();
            p = self.index.probe(key, &self.nodes).0;
        }
        let i = match reuse {
            Some(i) => i,
            None => self.new_node(key, tag, dirty),
        };
        // A reused node still holds its old key until `retarget`; the slot has the new key's hash.
        self.index.fill(p, key, i);
        i
    }

    /// Gives a claimed reused node its new key: unmaps the old key, resets the node's counter,
    /// tag and dirty flag (keeping its links), and returns the node as it was.
    #[inline(always)]
    pub fn retarget(&mut self, i: u32, key: u64, tag: u8, dirty: bool) -> Node {
        let old = self.nodes[i as usize];
        let n = &mut self.nodes[i as usize];
        n.key = key;
        n.count = 0;
        n.tag = tag;
        n.dirty = dirty;
        // Two slots name node i: the new key's and the old key's. The old key's slot is the
        // first slot holding i along the old key's probe run (the new key's slot was empty when
        // it was filled, so it is not inside that run).
        let mut p = self.index.home_of(hash32(old.key));
        while self.index.node_at(p) != i {
            p = (p + 1) & self.index.mask();
        }
        self.index.clear(p);
        old
    }

    /// Reads, and discards, `key`'s home slot of the index and the node that slot names (or the
    /// last node when it names none): the first two loads of an access to `key`, issued early
    /// ([`super::Policy::preload`]) so that, once the index and nodes outgrow the CPU's nearer
    /// caches, they overlap the accesses before it. No branch on what is read; nothing changes.
    #[inline]
    pub fn preload(&self, key: u64) {
        // A node maps a key, so with a node the index has slots.
        if let Some(last) = self.nodes.len().checked_sub(1) {
            let e = self.index.slots[self.index.home_of(hash32(key))];
            std::hint::black_box(self.nodes[(e as u32 as usize).min(last)].key);
        }
    }

    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        let (p, found) = self.index.probe(key, &self.nodes);
        found.then(|| self.index.node_at(p))
    }

    #[inline]
    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    #[inline]
    pub fn node_mut(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    /// Creates an unlinked node for `key` (which must not be mapped) and maps the key to it.
    pub fn alloc(&mut self, key: u64, tag: u8, dirty: bool) -> u32 {
        self.index.reserve_one();
        let (p, found) = self.index.probe(key, &self.nodes);
        debug_assert!(!found, "key {key} is already mapped");
        let i = self.new_node(key, tag, dirty);
        self.index.fill(p, key, i);
        i
    }

    /// Unmaps and frees an unlinked node; returns it.
    pub fn release(&mut self, i: u32) -> Node {
        let n = self.nodes[i as usize];
        self.unmap(n.key);
        self.nodes[i as usize].next = self.free;
        self.free = i;
        n
    }
}

/// Calls `f` with the key of every dirty node on `lists` (a policy's end-of-run flush).
pub fn each_dirty(arena: &Arena, lists: &[List], f: &mut dyn FnMut(u64)) {
    for l in lists {
        for i in l.iter(arena) {
            if arena.node(i).dirty {
                f(arena.node(i).key);
            }
        }
    }
}

/// Marks a hit on node `i`: a write dirties it. Returns whether it was dirty before.
#[inline]
pub fn touch(arena: &mut Arena, i: u32, write: bool) -> bool {
    let n = arena.node_mut(i);
    let was = n.dirty;
    n.dirty |= write;
    was
}

/// Removes `key` from whichever of `lists` holds it (a node's tag is its list's index) and
/// frees its node; returns the node.
pub fn take(arena: &mut Arena, lists: &mut [List], key: u64) -> Option<Node> {
    let i = arena.get(key)?;
    Some(take_node(arena, lists, i))
}

/// Removes node `i` from the list of `lists` its tag names and frees it; returns the node.
pub fn take_node(arena: &mut Arena, lists: &mut [List], i: u32) -> Node {
    lists[arena.node(i).tag as usize].unlink(arena, i);
    arena.release(i)
}

/// Moves node `i` from the list of `lists` its tag names to the front of list `to`.
pub fn move_to(arena: &mut Arena, lists: &mut [List], i: u32, to: u8) {
    lists[arena.node(i).tag as usize].unlink(arena, i);
    arena.node_mut(i).tag = to;
    lists[to as usize].push_front(arena, i);
}

/// Makes the unlinked node `i` a ghost (an id remembered after eviction, with tag `tag`) at the
/// front of the FIFO `ghosts`, forgetting the oldest ghost when `cap` ghosts are kept; with
/// `cap` 0 the node is freed instead. The node's counter is kept (MQ remembers a count).
pub fn to_ghost(arena: &mut Arena, ghosts: &mut List, cap: usize, i: u32, tag: u8) {
    if cap == 0 {
        arena.release(i);
        return;
    }
    if ghosts.len() >= cap {
        if let Some(g) = ghosts.pop_back(arena) {
            arena.release(g);
        }
    }
    let n = arena.node_mut(i);
    n.dirty = false;
    n.tag = tag;
    ghosts.push_front(arena, i);
}

/// A list threaded through an [`Arena`]: front = most recently inserted / used.
#[derive(Debug, Clone, Copy)]
pub struct List {
    head: u32,
    tail: u32,
    len: usize,
}

impl Default for List {
    fn default() -> Self {
        List { head: NIL, tail: NIL, len: 0 }
    }
}

impl List {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    pub fn back(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// The node after `i` towards the back.
    pub fn next(&self, a: &Arena, i: u32) -> Option<u32> {
        let n = a.node(i).next;
        (n != NIL).then_some(n)
    }

    /// The node before `i` towards the front.
    pub fn prev(&self, a: &Arena, i: u32) -> Option<u32> {
        let p = a.node(i).prev;
        (p != NIL).then_some(p)
    }

    #[inline]
    pub fn push_front(&mut self, a: &mut Arena, i: u32) {
        let head = self.head;
        {
            let n = a.node_mut(i);
            n.prev = NIL;
            n.next = head;
        }
        if head != NIL {
            a.node_mut(head).prev = i;
        } else {
            self.tail = i;
        }
        self.head = i;
        self.len += 1;
    }

    #[inline]
    pub fn unlink(&mut self, a: &mut Arena, i: u32) {
        let Node { prev, next, .. } = *a.node(i);
        if prev != NIL {
            a.node_mut(prev).next = next;
        } else {
            self.head = next;
        }
        if next != NIL {
            a.node_mut(next).prev = prev;
        } else {
            self.tail = prev;
        }
        self.len -= 1;
    }

    #[inline]
    pub fn move_to_front(&mut self, a: &mut Arena, i: u32) {
        if self.head != i {
            self.unlink(a, i);
            self.push_front(a, i);
        }
    }

    pub fn pop_back(&mut self, a: &mut Arena) -> Option<u32> {
        let t = self.back()?;
        self.unlink(a, t);
        Some(t)
    }

    /// Node indices from front to back.
    pub fn iter<'a>(&self, a: &'a Arena) -> impl Iterator<Item = u32> + 'a {
        let mut cur = self.head;
        std::iter::from_fn(move || {
            (cur != NIL).then(|| {
                let i = cur;
                cur = a.node(i).next;
                i
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_ids_are_taken_as_from_a_full_stack() {
        // As if all of 0..4 were stacked with 0 on top: fresh ids in order, a freed id first.
        let mut f = FreeIds::new(4);
        assert_eq!((f.pop(), f.pop(), f.len(), f.used()), (Some(0), Some(1), 2, 2));
        f.push(0);
        assert_eq!((f.pop(), f.pop(), f.pop(), f.pop(), f.len()), (Some(0), Some(2), Some(3), None, 0));
        f.push(3);
        f.push(1);
        assert_eq!((f.pop(), f.pop(), f.pop(), f.used()), (Some(1), Some(3), None, 4));
    }

    #[test]
    fn index_survives_churn_and_growth() {
        // Keys that collide in the low bits, inserted past the initial size, then removed in an
        // interleaved order: every remaining key must still be found, removed ones not.
        let mut a = Arena::with_capacity(4);
        let keys: Vec<u64> = (0..5000u64).map(|k| k << 20).collect();
        let ids: Vec<u32> = keys.iter().map(|&k| a.alloc(k, 0, false)).collect();
        for (j, &i) in ids.iter().enumerate() {
            if j % 3 == 0 {
                a.release(i);
            }
        }
        for (j, &k) in keys.iter().enumerate() {
            assert_eq!(a.get(k).is_some(), j % 3 != 0, "key {k}");
        }
        assert_eq!(a.index.len, keys.len() - keys.len().div_ceil(3));
        // claim + retarget: node of key 1<<20 takes key 7.
        let i = a.get(1 << 20).unwrap();
        assert_eq!(a.claim(7, Some(i), 0, true), Err(i));
        assert_eq!(a.retarget(i, 7, 0, true).key, 1 << 20);
        assert_eq!((a.get(7), a.get(1 << 20)), (Some(i), None));
        assert_eq!(a.claim(7, None, 0, false), Ok(i));
        // find + occupy: the slot found for a missing key maps it; a present key is found.
        assert!(matches!(a.find(7), Ok(j) if j == i));
        let Err(v) = a.find(11) else { panic!("key 11 is not mapped") };
        let j = a.occupy(v, 11, None, 0, true);
        assert_eq!((a.get(11), a.node(j).key, a.node(j).dirty), (Some(j), 11, true));
    }

    #[test]
    fn node_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 24);
    }

    #[test]
    fn push_unlink_reuse() {
        let mut a = Arena::with_capacity(4);
        let mut l = List::default();
        let x: Vec<u32> = (0..3).map(|k| a.alloc(k, 0, false)).collect();
        for &i in &x {
            l.push_front(&mut a, i);
        }
        let keys = |l: &List, a: &Arena| l.iter(a).map(|i| a.node(i).key).collect::<Vec<_>>();
        assert_eq!(keys(&l, &a), [2, 1, 0]);
        l.move_to_front(&mut a, x[0]);
        assert_eq!(keys(&l, &a), [0, 2, 1]);
        let t = l.pop_back(&mut a).unwrap();
        assert_eq!(a.release(t).key, 1);
        assert_eq!(a.get(1), None);
        let j = a.alloc(9, 0, true);
        assert_eq!(j, t); // the freed slot is reused
        l.push_front(&mut a, j);
        l.unlink(&mut a, x[2]);
        assert_eq!(keys(&l, &a), [9, 0]);
        assert_eq!(l.len(), 2);
        assert_eq!(l.prev(&a, x[0]), Some(j));
        assert_eq!(l.next(&a, x[0]), None);
    }
}
