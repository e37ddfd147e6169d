//! The renewal clone's page table ([`super::renewal`]): an entry per page number, in chunks of
//! [`CHUNK`] numbers, a chunk freed once every page in it has ended (taken its last reference)
//! and no new page can be given one of its numbers. Page numbers only grow (a new page takes the
//! next unused number), and a renewal clone's pages end, so the table holds the chunks with a
//! page still to come back: its memory follows the pages alive at once, not the clone's length.
//! (A flat table, freed from its start, would be held by a single page that lives on: the hot
//! pages of a long clone do.)

/// Page numbers per chunk: 4,096 entries of 32 bytes, 128 KiB.
pub const CHUNK: u64 = 4096;

/// Entries by page number.
#[derive(Debug, Default)]
pub struct Table<T> {
    /// Chunk `c` holds numbers `c * CHUNK ..`; a freed chunk is empty.
    chunks: Vec<Box<[T]>>,
    /// Per chunk: its pages given out and not yet ended.
    live: Vec<u32>,
    /// Chunks whose pages all ended, to free once no number of theirs is left to give out.
    dead: Vec<usize>,
    /// Per chunk: whether it is in `dead` (listed once, however often its live count falls to
    /// 0: the chunk new pages are given from falls to 0 after each page that ends at once, and
    /// a list of its repeats, walked at every sweep, cost a fifth of a mostly-new clone's time).
    listed: Vec<bool>,
    /// Chunks held (not freed).
    held: usize,
    /// Pages given out and not yet ended.
    alive: u64,
}

impl<T: Default + Clone> Table<T> {
    /// The entry of page `p`, if its chunk is held.
    #[inline]
    pub fn get(&self, p: u64) -> Option<&T> {
        self.chunks.get((p / CHUNK) as usize).and_then(|c| c.get((p % CHUNK) as usize))
    }

    /// The entry of page `p`, if its chunk is held, to change.
    #[inline]
    pub fn get_mut(&mut self, p: u64) -> Option<&mut T> {
        self.chunks.get_mut((p / CHUNK) as usize).and_then(|c| c.get_mut((p % CHUNK) as usize))
    }

    /// The entry of page `p`, which is alive (given out and not ended).
    #[inline]
    pub fn at(&mut self, p: u64) -> &mut T {
        &mut self.chunks[(p / CHUNK) as usize][(p % CHUNK) as usize]
    }

    /// Gives out pages `first..first + n` (numbers never given out before), as alive.
    pub fn give(&mut self, first: u64, n: u64) {
        let last = ((first + n).div_ceil(CHUNK)) as usize;
        while self.chunks.len() < last {
            self.chunks.push(vec![T::default(); CHUNK as usize].into_boxed_slice());
            self.held += 1;
            self.live.push(0);
            self.listed.push(false);
        }
        for p in first..first + n {
            self.live[(p / CHUNK) as usize] += 1;
        }
        self.alive += n;
    }

    /// Pages given out and not yet ended.
    #[inline]
    pub fn alive(&self) -> u64 {
        self.alive
    }

    /// Page `p` has ended: it is never referenced again.
    #[inline]
    pub fn end(&mut self, p: u64) {
        let c = (p / CHUNK) as usize;
        self.live[c] -= 1;
        self.alive -= 1;
        if self.live[c] == 0 && !self.listed[c] {
            self.listed[c] = true;
            self.dead.push(c);
        }
    }

    /// Frees the chunks whose pages all ended and whose numbers are all below `fresh` (the next
    /// number to give out). Called where no ended page's entry is still to be read.
    pub fn sweep(&mut self, fresh: u64) {
        let (chunks, live, listed, held) = (&mut self.chunks, &self.live, &mut self.listed, &mut self.held);
        self.dead.retain(|&c| {
            if live[c] > 0 {
                listed[c] = false;
                return false; // given more pages since; listed again when they end
            }
            if (c as u64 + 1) * CHUNK > fresh {
                return true; // numbers of it still to give out
            }
            chunks[c] = Box::default();
            *held -= 1;
            listed[c] = false;
            false
        });
    }

    /// Frees every chunk whose numbers are all below `first`, alive or not: their pages are
    /// never read again.
    pub fn forget_below(&mut self, first: u64) {
        for c in 0..((first / CHUNK) as usize).min(self.chunks.len()) {
            if !self.chunks[c].is_empty() {
                self.chunks[c] = Box::default();
                self.held -= 1;
            }
            self.alive -= u64::from(self.live[c]);
            self.live[c] = 0;
        }
    }

    /// Chunks held (each [`CHUNK`] entries).
    #[inline]
    pub fn held(&self) -> usize {
        self.held
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        let entries: usize = self.chunks.iter().map(|c| c.len()).sum();
        entries * std::mem::size_of::<T>() + self.chunks.len() * (16 + 4 + 1) + self.dead.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_is_freed_once_its_pages_ended_and_its_numbers_are_given_out() {
        let mut t: Table<u64> = Table::default();
        t.give(0, CHUNK + 10);
        *t.at(5) = 7;
        for p in 0..CHUNK {
            t.end(p);
        }
        assert_eq!(t.held(), 2);
        t.sweep(CHUNK + 10);
        assert!(t.get(5).is_none(), "chunk 0 has ended");
        assert_eq!(t.held(), 1);
        assert!(t.get(CHUNK + 3).is_some());
        // Chunk 1's given pages end, but numbers of it are still to give out: kept.
        for p in CHUNK..CHUNK + 10 {
            t.end(p);
        }
        t.sweep(CHUNK + 10);
        assert!(t.get(CHUNK + 3).is_some());
        // Given more, they end, then its numbers run out: freed.
        t.give(CHUNK + 11, CHUNK - 11);
        for p in CHUNK + 11..2 * CHUNK {
            t.end(p);
        }
        t.sweep(2 * CHUNK);
        assert!(t.get(CHUNK + 3).is_none());
        assert_eq!(t.held(), 0);
        assert_eq!(t.alive(), 0);
        assert_eq!(t.bytes(), 2 * 21 + t.dead.capacity() * 8);
    }

    #[test]
    fn the_pages_alive_are_those_given_and_not_ended_or_forgotten() {
        let mut t: Table<u64> = Table::default();
        t.give(0, 10);
        t.give(CHUNK, 5);
        assert_eq!(t.alive(), 15);
        t.end(3);
        t.end(CHUNK + 1);
        assert_eq!(t.alive(), 13);
        // Chunk 0's nine pages alive are forgotten with it; chunk 1's four stay.
        t.forget_below(CHUNK);
        assert_eq!(t.alive(), 4);
    }

    #[test]
    fn a_chunk_whose_pages_end_one_by_one_is_listed_once() {
        // Pages given and ended one at a time, as a clone's pages referenced once are: the
        // chunk's live count falls to 0 a thousand times, and it is listed once (kept while its
        // numbers are still to give out, freed once they are all given).
        let mut t: Table<u64> = Table::default();
        for p in 0..1000 {
            t.give(p, 1);
            t.end(p);
            t.sweep(p + 1);
        }
        assert_eq!(t.dead, vec![0]);
        t.give(1000, CHUNK - 1000);
        t.sweep(CHUNK);
        assert!(t.dead.is_empty(), "given pages again: unlisted");
        for p in 1000..CHUNK {
            t.end(p);
        }
        assert_eq!(t.dead, vec![0]);
        t.sweep(CHUNK);
        assert!(t.dead.is_empty() && t.get(0).is_none());
    }
}
