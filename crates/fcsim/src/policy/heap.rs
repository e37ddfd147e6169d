//! An indexed binary max-heap of small integer ids by a `u64` priority: push, update, remove
//! and top in O(log n), no allocation once the ids it has seen are known. MIN keeps its resident
//! pages in one by next access; the offline flash-cache heuristics keep their MIN queue in one.

use super::list::up_front;

/// A max-heap of ids (arena nodes) by priority, with each id's position for O(log n) updates.
#[derive(Debug, Default, Clone)]
pub struct MaxHeap {
    nodes: Vec<u32>,
    /// Position in `nodes` of each arena node, and its priority.
    pos: Vec<u32>,
    prio: Vec<u64>,
}

impl MaxHeap {
    /// A heap for `n` ids, reserving room for [`up_front`]`(n)`; it grows as ids are pushed.
    pub fn with_capacity(n: usize) -> Self {
        let n = up_front(n);
        MaxHeap { nodes: Vec::with_capacity(n), pos: Vec::with_capacity(n), prio: Vec::with_capacity(n) }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The priority `i` was pushed or last updated with.
    pub fn prio(&self, i: u32) -> u64 {
        self.prio[i as usize]
    }

    /// The ids in the heap, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.nodes.iter().copied()
    }

    fn ensure(&mut self, i: u32) {
        if self.pos.len() <= i as usize {
            self.pos.resize(i as usize + 1, 0);
            self.prio.resize(i as usize + 1, 0);
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.nodes.swap(a, b);
        self.pos[self.nodes[a] as usize] = a as u32;
        self.pos[self.nodes[b] as usize] = b as u32;
    }

    fn up(&mut self, mut k: usize) {
        while k > 0 {
            let parent = (k - 1) / 2;
            if self.prio[self.nodes[parent] as usize] >= self.prio[self.nodes[k] as usize] {
                break;
            }
            self.swap(k, parent);
            k = parent;
        }
    }

    fn down(&mut self, mut k: usize) {
        let n = self.nodes.len();
        loop {
            let (l, r) = (2 * k + 1, 2 * k + 2);
            let mut big = k;
            if l < n && self.prio[self.nodes[l] as usize] > self.prio[self.nodes[big] as usize] {
                big = l;
            }
            if r < n && self.prio[self.nodes[r] as usize] > self.prio[self.nodes[big] as usize] {
                big = r;
            }
            if big == k {
                break;
            }
            self.swap(k, big);
            k = big;
        }
    }

    pub fn push(&mut self, i: u32, prio: u64) {
        self.ensure(i);
        self.prio[i as usize] = prio;
        self.pos[i as usize] = self.nodes.len() as u32;
        self.nodes.push(i);
        self.up(self.nodes.len() - 1);
    }

    pub fn update(&mut self, i: u32, prio: u64) {
        let old = self.prio[i as usize];
        self.prio[i as usize] = prio;
        let k = self.pos[i as usize] as usize;
        if prio > old {
            self.up(k);
        } else {
            self.down(k);
        }
    }

    pub fn remove(&mut self, i: u32) {
        let k = self.pos[i as usize] as usize;
        let last = self.nodes.len() - 1;
        self.swap(k, last);
        self.nodes.pop();
        if k < self.nodes.len() {
            self.up(k);
            self.down(k);
        }
    }

    pub fn top(&self) -> Option<u32> {
        self.nodes.first().copied()
    }
}
