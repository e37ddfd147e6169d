//! LRU-WSR, LRU with write sequence reordering: Jung, Shim, Park, Kang, Cha, "LRU-WSR:
//! integration of LRU and writes sequence reordering for flash memory", IEEE TCE 54(3), 2008; as
//! the GASA paper describes it (§II.B, Fig. 3).
//!
//! One LRU list; each page has a cold flag, clear when the page enters. To find a victim, pages
//! are taken from the LRU end: a clean page, or a dirty page whose cold flag is set, is the
//! victim; a dirty page whose cold flag is clear (hot) gets its flag set and a second chance at
//! the MRU end. A hit moves the page to the MRU end and clears its cold flag.
//!
//! Vague in the paper, chosen here: a hit clears the cold flag of clean pages too (the flag only
//! matters once a page is dirty); every miss is admitted. Finding a victim takes at most one pass
//! over the list plus one page.

use super::list::{each_dirty, take, Arena, List};
use super::{Access, Evicted, Outcome, Policy, PolicyInfo};
use crate::error::Result;
use crate::params::Params;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "lru-wsr",
    description: "LRU with write sequence reordering: hot dirty pages get a second chance",
    source: "Jung et al., IEEE TCE 2008; GASA §II.B Fig. 3",
    offline: false,
    needs_view: false,
    params: &[],
    make: |cap, _: &mut Params| -> Result<Box<dyn Policy>> { Ok(Box::new(LruWsr::new(cap))) },
};

/// `Node::count` holds the cold flag.
const COLD: u32 = 1;

#[derive(Debug)]
pub struct LruWsr {
    arena: Arena,
    list: List,
    capacity: usize,
}

impl LruWsr {
    pub fn new(capacity: usize) -> Self {
        LruWsr { arena: Arena::with_capacity(capacity), list: List::default(), capacity }
    }
}

impl Policy for LruWsr {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        if let Some(i) = self.arena.get(a.key) {
            self.list.move_to_front(&mut self.arena, i);
            let n = self.arena.node_mut(i);
            let was = n.dirty;
            n.dirty |= a.write;
            n.count = 0;
            return Outcome::Hit { dirty: was };
        }
        if self.list.len() >= self.capacity {
            while let Some(b) = self.list.back() {
                let n = self.arena.node_mut(b);
                if !n.dirty || n.count == COLD {
                    self.list.unlink(&mut self.arena, b);
                    let n = self.arena.release(b);
                    evicted.push(Evicted { key: n.key, dirty: n.dirty });
                    break;
                }
                n.count = COLD;
                self.list.move_to_front(&mut self.arena, b);
            }
        }
        let i = self.arena.alloc(a.key, 0, a.write);
        self.list.push_front(&mut self.arena, i);
        Outcome::Miss { admitted: true }
    }

    fn remove(&mut self, key: u64) -> Option<bool> {
        take(&mut self.arena, std::slice::from_mut(&mut self.list), key).map(|n| n.dirty)
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    fn for_each_dirty(&self, f: &mut dyn FnMut(u64)) {
        each_dirty(&self.arena, std::slice::from_ref(&self.list), f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::trace;
    use super::*;

    #[test]
    fn gasa_fig3() {
        // GASA Fig. 3: the LRU page P7 is dirty and hot, the next one, P6, dirty and cold; an
        // eviction gives P7 a second chance (cold flag set, moved to the MRU end) and evicts P6.
        // The last step below is that case (7 hot dirty at the LRU end, then a victim behind
        // it); the steps before set up cold flags. Capacity 4, MRU first.
        let mut p = LruWsr::new(4);
        trace(&mut p, "6w 5w 7w 8w");
        // Miss on 1: LRU end 6 (hot dirty) → cold, to MRU; 5 (hot dirty) → cold, to MRU;
        // 7 → cold; 8 → cold; then 6 (cold dirty) goes. List: 1 8 7 5.
        assert_eq!(trace(&mut p, "1")[0].1, [6]);
        // 7 is hit (hot again). List 7 1 8 5. Miss on 2: 5 is cold dirty → evicted at once.
        trace(&mut p, "7");
        assert_eq!(trace(&mut p, "2")[0].1, [5]);
        // List 2 7 1 8: 8 cold dirty goes before 1 (clean) is reached.
        assert_eq!(trace(&mut p, "3")[0].1, [8]);
        // List 3 2 7 1: the LRU page 1 is clean: victim.
        assert_eq!(trace(&mut p, "4")[0].1, [1]);
        // List 4 3 2 7: 7 is hot dirty (hit since its flag was set): second chance; 2 clean goes.
        assert_eq!(trace(&mut p, "9")[0].1, [2]);
    }
}
