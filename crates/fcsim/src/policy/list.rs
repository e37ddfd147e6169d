//! Index-based intrusive doubly linked lists over one arena of nodes, with a fast map from page
//! key to node. Several lists may share an arena (multi-queue policies); a node's `tag` tells
//! which list it is on. Nodes are `u32` indices, so a node is 24 bytes and nothing is allocated
//! per access once the arena and map have grown to capacity. Ghost entries (ids remembered
//! after eviction) live in the same arena and map, told apart by their tag.

use rustc_hash::FxHashMap;

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

/// Node storage with a free list, plus the key → node map.
#[derive(Debug, Default)]
pub struct Arena {
    nodes: Vec<Node>,
    free: u32,
    pub map: FxHashMap<u64, u32>,
}

impl Arena {
    pub fn with_capacity(n: usize) -> Self {
        let mut map = FxHashMap::default();
        map.reserve(n);
        Arena { nodes: Vec::with_capacity(n), free: NIL, map }
    }

    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        self.map.get(&key).copied()
    }

    #[inline]
    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    #[inline]
    pub fn node_mut(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    /// Creates an unlinked node for `key` and maps the key to it.
    pub fn alloc(&mut self, key: u64, tag: u8, dirty: bool) -> u32 {
        let node = Node { key, prev: NIL, next: NIL, count: 0, tag, dirty };
        let i = if self.free != NIL {
            let i = self.free;
            self.free = self.nodes[i as usize].next;
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        self.map.insert(key, i);
        i
    }

    /// Unmaps and frees an unlinked node; returns it.
    pub fn release(&mut self, i: u32) -> Node {
        let n = self.nodes[i as usize];
        self.map.remove(&n.key);
        self.nodes[i as usize].next = self.free;
        self.free = i;
        n
    }
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
