//! `--admit opt`: the offline reference for admission on a flash cache, in (flash writes, read
//! hits). Sources: Yue Cheng, Fred Douglis, Philip Shilane, Michael Trachtman, Grant Wallace,
//! Peter Desnoyers and Kai Li, "Erasing Belady's Limitations: In Search of Flash Cache Offline
//! Optimality", USENIX ATC '16 (`../shared/papers/flash-cache-offline-optimality.txt`), §3.2
//! Algorithm H (M+: no insertion evicted unread) and H_T (M_T: under a write quota, drop the
//! insertions that absorb the fewest read hits); and Wong et al., "Baleen: ML Admission &
//! Prefetching for Flash Caches", USENIX FAST '24 (title and venue as its simulator BCacheSim's
//! artifact gives them), whose offline OPT splits a block's accesses into *episodes* (the
//! accesses one residency serves, each costing one flash write) and admits the episodes that buy
//! the most hits per write until a write budget is spent.
//!
//! **What `opt` is.** A plan made before the run from the whole trace, replayed by the stack:
//! an `opt` row runs Belady's MIN as its eviction whatever `--policy` names (the row's policy is
//! `min`, with `min.bypass` and `min.trim`), because an admission bound under an online
//! eviction is no bound (an online admission can steer LRU's evictions in ways a fixed rule
//! over LRU does not). Its knob, `admit.share` in [0, 1], is the share of M+'s admissions it
//! may make: 1 is M+ (every read hit MIN can get, no write wasted); smaller shares drop the
//! episodes with the fewest read hits first (M_T's rule), so a larger knob admits more.
//! `admit.writes` caps the admissions in absolute terms, at that many flash writes per page
//! access of the trace (default 1: no cap, as M+ never writes more than once per access): opt
//! at an online point's own write rate (its flash writes over its page accesses) writes no more
//! than it, which is how a table compares each online point with opt at the same writes.
//!
//! **The model it plans for** (what the stack charges, `stack/mod.rs`, `ssdcache.rs`): a read
//! hit needs the page held since its previous access; a flash write is an insertion (a missed
//! read or write admitted) or a write hit (write-back or write-through); a write under
//! write-around only invalidates. So a read hit is an *interval* (previous access → the read)
//! the page is held over, and at most `capacity` intervals are held at once, whatever the
//! policy. An interval that ends in a write buys nothing (the write programs the flash anyway if
//! the page is held, or may enter then): the plan never holds one, and breaks episodes there.
//! Over the intervals that end in a read, MIN with bypass (hold the `capacity` pages read again
//! soonest; never insert one read after all of them) holds the most at once, so pass A below
//! gets the most read hits any admission and eviction can at this capacity, with one flash
//! write per episode (an insertion; no write hit, since no interval ending in a write is held).
//!
//! **The plan** (O(N log N) in the N page accesses: two MIN passes, O(N log C) with C the
//! capacity, a counting sort by hits and one sort of the episodes tied at the cut):
//! 1. From the run's next-access column (`Access.next`) and each access's op: the *read next*
//!    of access i is its next access if that is a read, else NEVER.
//! 2. Pass A: MIN with bypass on read next (a held page whose read next is NEVER leaves at
//!    once), inserting at any access that may enter (a read; a write unless the tier is
//!    write-around). Each insertion opens an episode; each later hit adds one read hit.
//! 3. Selection (M_T, §3.2 STEP 2): I = the episodes with at least one hit (those with none
//!    are M+'s wasted writes); I' = min(round(share × I), ⌊writes × N⌋) may stay; drop those
//!    with the fewest hits: all with fewer than R, and L (the paper's leftover) of those with
//!    exactly R, those whose page is read least before its next write (see below).
//! 4. Pass B: MIN again, inserting only at the kept episodes' first accesses. The pages
//!    dropped leave room, so the kept ones stay longer and absorb hits that pass A gave to
//!    episodes now dropped (the paper's A/B example of §3.2: a write wasted although it buys a
//!    hit, because the page it displaced would have hit instead). Pass B's holds are the plan:
//!    access i's planned next is its read next if pass B held the page through it, else NEVER.
//!
//! The run passes the planned next as `Access.next`: the admission admits a page exactly when
//! its planned next is not NEVER, and MIN with trim drops a page after its last planned access,
//! so the stack holds what pass B held (never more than C pages, so MIN never has to choose a
//! victim). Its flash writes are pass B's insertions that hit at least once (one without a hit
//! has planned next NEVER and is not admitted), plus the flash's GC.
//!
//! **A later span** (`admit.train` > 0; the bound for `ml`'s rows, which leave out their
//! training part). The run's first round(train × requests) requests are its warm-up, as `ml`'s
//! (the same key and split, `run.rs`): no counter counts them, so writes made there are free.
//! The plan then bounds what any admission and eviction can do *over the rest*, the evaluated
//! span starting at page access b (the first of the warm-up's next request), given any cache
//! content at b: whatever an online policy did in its warm-up, at b it holds at most C pages,
//! each one it saw in the warm-up (a cache holds only what it was given) and could admit there
//! (under write-around, a page whose last warm-up access is a write is invalidated by it, so
//! only one last read there). From b on the model above holds: a read hit in the span needs the
//! page held since its previous access, or, for its first access in the span, since b. So the
//! span's read hits are intervals again, those held across b costing no write. The plan treats
//! a page's last warm-up access, where its next access is a read at or after b and it could
//! enter there, as a free insertion (it inserts nothing else before b): pass A, MIN with bypass,
//! then holds at b the C of them read soonest after b, and from b on runs as above. Holding at
//! most C intervals at once, keeping those that end soonest gets the most of them (interval
//! scheduling on C machines, Belady's argument), so at share 1 no admission and eviction with
//! the same uncounted warm-up gets more read hits over the span, at any number of writes. Under
//! a cap (`admit.writes`, now per page access of the span) the free episodes are always kept and
//! M_T's selection above runs over the paid ones (from b on): the same M_T rule as for the whole
//! trace, the best offline choice fcsim can justify, not a proven optimum. What it does not
//! bound: a run whose cache at b held a page it never saw (prefetching), and host trims, as
//! below. The stack replays it: in the warm-up only those last accesses are admitted (planned
//! next not NEVER), and MIN with trim keeps them to b.
//!
//! Where the sources leave a choice, fcsim's: the leftover L goes by the page's later reads (its
//! reads from the episode's start to its next write), ties the earliest, not simply the first L
//! in time as H_T says: most episodes have one hit, so at a small share the tie decides nearly
//! all, and a kept page that pass B can hold longer gains those reads (on cloudphysics at 5%,
//! write-around, opt capped at 13,634 flash writes had a read hit ratio of 0.0353 by the first
//! L in time and 0.0440 by this); episodes are MIN's residencies, not Baleen's
//! eviction-age runs (MIN's capacity is exact, an eviction age only estimates it); the budget is
//! a share of M+'s admissions (flash writes), not of erasures (the offline-bounds quota) nor of
//! bytes (Baleen), since a flash cache's DWPD counts page writes; a host trim between two
//! accesses leaves the plan as it was (the page leaves the tier, the next read misses; the
//! stack may then admit it again, one write more than planned). The plan is made before the
//! run: a knob turned during it (a budget controller) does not re-plan, so `set_knob` does
//! nothing and `opt` takes no controller.

use super::{Admission, AdmissionInfo, AdmitParams, ParamInfo};
use crate::policy::heap::MaxHeap;
use crate::policy::{Access, Policy};
use crate::request::NEVER;
use rustc_hash::FxHashMap;

pub const INFO: AdmissionInfo = AdmissionInfo {
    name: "opt",
    description: "offline reference: MIN eviction, admits only episodes read again before MIN evicts them (M+), \
                  the fewest-hit ones dropped first down to a write budget (M_T); runs as policy min; with \
                  admit.train, the bound of the span after ml's warm-up",
    source: "offline-bounds §3.2 H, H_T, §3.5 M+, M_T; Baleen (FAST'24) episode OPT",
    params: &[
        ParamInfo::num("share", 1.0, 0.0, 1.0, "the share of M+'s admissions (flash writes) allowed"),
        ParamInfo::num("writes", 1.0, 0.0, 1.0, "flash writes allowed per page access of the evaluated span (a cap)"),
        ParamInfo::num(
            "train",
            0.0,
            0.0,
            0.9,
            "the share of the requests left out as a warm-up, as ml's admit.train (0: none; plans the rest)",
        ),
    ],
    knob: Some("share"),
    unbudgeted: Some(
        "plans its admissions before the run, so no budget controller can turn its knob; cap its flash writes with admit.writes=W (flash writes per page access) or admit.share",
    ),
    make: |p: &AdmitParams| Ok(Box::new(Opt { share: p.get("share") })),
};

/// The policy (and its parameters) an `opt` row runs, whatever `--policy` says.
pub const POLICY: &str = "min";
pub const POLICY_PARAMS: [(&str, &str); 2] = [("bypass", "true"), ("trim", "true")];

/// Admits a page exactly when the plan holds it past this access (the plan is the run's
/// next-access column, see the module docs).
#[derive(Debug)]
pub struct Opt {
    share: f64,
}

impl Admission for Opt {
    #[inline]
    fn admit(&mut self, a: &Access, _policy: &dyn Policy) -> bool {
        a.next != NEVER
    }

    fn knob(&self) -> Option<f64> {
        Some(self.share)
    }
}

/// What the plan chose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schedule {
    /// The planned next access of every page access (the run's next-access column).
    pub next: Vec<u64>,
    /// M+'s admissions: pass A's episodes with at least one read hit (I).
    pub mplus: u64,
    /// Those the share and the cap keep (I').
    pub allowed: u64,
    /// M_T's reuse count R and leftover L.
    pub reuse: u32,
    pub leftover: u64,
    /// Pass B's admissions from the boundary on with at least one hit (the flash writes
    /// planned), the pages it holds at the boundary that hit (free: the warm-up's), and its read
    /// hits (all in the evaluated span).
    pub writes: u64,
    pub held: u64,
    pub hits: u64,
}

/// One MIN pass over the intervals that end in a read.
struct Pass {
    /// Planned next of each access (NEVER where the page is not held past it).
    next: Vec<u64>,
    /// Each episode: its first access and the read hits it absorbed, in time order.
    episodes: Vec<(u64, u32)>,
}

/// Runs MIN with bypass over `keys` by read next, inserting where `enter` allows and, from
/// `first` on, with `starts` (sorted), only at those accesses; before `first` (a warm-up), only
/// at a page's last access before `first` whose read next is at or after it (a page the cache
/// may hold at the boundary), each such episode free.
fn min_pass(
    keys: &[u64],
    next: &[u64],
    read_next: &dyn Fn(usize) -> u64,
    enter: &dyn Fn(usize) -> bool,
    capacity: usize,
    first: usize,
    starts: Option<&[u64]>,
) -> Pass {
    let n = keys.len();
    let mut planned = vec![NEVER; n];
    let mut episodes: Vec<(u64, u32)> = Vec::new();
    // Held pages: node → (key, its last access, its episode); the heap by read next.
    let mut index: FxHashMap<u64, u32> = FxHashMap::default();
    let mut nodes: Vec<(u64, u64, u32)> = Vec::new();
    let mut free: Vec<u32> = Vec::new();
    let mut heap = MaxHeap::with_capacity(capacity.min(n));
    let mut s = 0usize;
    for (i, &k) in keys.iter().enumerate() {
        let p = read_next(i);
        if let Some(&node) = index.get(&k) {
            // Held, so this access is the read its previous access was held for: a hit.
            let (_, last, ep) = nodes[node as usize];
            planned[last as usize] = i as u64;
            episodes[ep as usize].1 += 1;
            if p == NEVER {
                heap.remove(node);
                index.remove(&k);
                free.push(node);
            } else {
                heap.update(node, p);
                nodes[node as usize].1 = i as u64;
            }
            continue;
        }
        let allowed = if i < first {
            // Read next not NEVER (checked below) and at or after the boundary.
            next[i] >= first as u64
        } else {
            match starts {
                None => true,
                Some(st) => {
                    while s < st.len() && st[s] < i as u64 {
                        s += 1;
                    }
                    s < st.len() && st[s] == i as u64
                }
            }
        };
        if p == NEVER || !allowed || !enter(i) {
            continue;
        }
        if heap.len() >= capacity {
            let Some(top) = heap.top() else { continue };
            if heap.prio(top) <= p {
                continue;
            }
            heap.remove(top);
            index.remove(&nodes[top as usize].0);
            free.push(top);
        }
        let node = free.pop().unwrap_or_else(|| {
            nodes.push((0, 0, 0));
            (nodes.len() - 1) as u32
        });
        nodes[node as usize] = (k, i as u64, episodes.len() as u32);
        episodes.push((i as u64, 0));
        index.insert(k, node);
        heap.push(node, p);
    }
    Pass { next: planned, episodes }
}

/// What a plan may spend: `share` of M+'s admissions, at most `per_access` flash writes per
/// page access of the evaluated span, which starts at page access `first` (0: the whole trace;
/// the accesses before it are an uncounted warm-up, see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub share: f64,
    pub per_access: f64,
    pub first: usize,
}

impl Limits {
    /// No limit: M+ over the whole trace.
    pub const NONE: Limits = Limits { share: 1.0, per_access: 1.0, first: 0 };
}

/// The plan of a run (see the module docs): `keys` and `writes` of every read or write page
/// access in order, `next` their next-access indices (NEVER: none), `capacity` the tier's
/// pages, `writes_enter` whether a missed write may be admitted (not under write-around), and
/// what it may spend ([`Limits`]).
pub fn plan(keys: &[u64], writes: &[bool], next: &[u64], capacity: usize, writes_enter: bool, limits: Limits) -> Schedule {
    let Limits { share, per_access, first } = limits;
    let first = first.min(keys.len());
    let read_next = |i: usize| {
        let j = next[i];
        if j != NEVER && !writes[j as usize] {
            j
        } else {
            NEVER
        }
    };
    let enter = |i: usize| writes_enter || !writes[i];
    let a = min_pass(keys, next, &read_next, &enter, capacity.max(1), first, None);
    // M_T's A_i: the paid episodes (from the boundary on) by hits (a counting sort; hits ≤ N).
    let mut counts: Vec<u64> = Vec::new();
    for &(start, h) in &a.episodes {
        if (start as usize) < first {
            continue;
        }
        if counts.len() <= h as usize {
            counts.resize(h as usize + 1, 0);
        }
        counts[h as usize] += 1;
    }
    let mplus: u64 = counts.iter().skip(1).sum();
    let cap = (per_access.clamp(0.0, 1.0) * (keys.len() - first) as f64).floor() as u64;
    let allowed = ((share.clamp(0.0, 1.0) * mplus as f64).round() as u64).min(mplus).min(cap);
    let mut omit = mplus - allowed;
    let mut reuse = 1u32;
    while (reuse as usize) < counts.len() && omit > 0 && omit >= counts[reuse as usize] {
        omit -= counts[reuse as usize];
        reuse += 1;
    }
    let leftover = omit;
    // Among the episodes with exactly R hits, the L dropped are those whose page is read least
    // from the episode's start to its next write (ties: the earliest), where M_T drops the
    // first L in time: under a small share pass B holds a kept page longer, so a page read again
    // later is worth more.
    let mut later = vec![0u32; if leftover > 0 { keys.len() } else { 0 }];
    if leftover > 0 {
        for i in (0..keys.len()).rev() {
            let j = next[i];
            if j != NEVER && !writes[j as usize] {
                later[i] = later[j as usize].saturating_add(1);
            }
        }
    }
    let paid = |e: &&(u64, u32)| e.0 as usize >= first;
    let mut tied: Vec<(u32, u64)> =
        a.episodes.iter().filter(paid).filter(|e| e.1 == reuse && leftover > 0).map(|e| (later[e.0 as usize], e.0)).collect();
    tied.sort_unstable();
    let mut dropped: Vec<u64> = tied.iter().take(leftover as usize).map(|t| t.1).collect();
    dropped.sort_unstable();
    drop((later, tied));
    let mut starts = Vec::with_capacity(allowed as usize);
    for &(start, h) in a.episodes.iter().filter(paid) {
        if h < reuse || (h == reuse && dropped.binary_search(&start).is_ok()) {
            continue;
        }
        starts.push(start);
    }
    drop(a);
    let b = min_pass(keys, next, &read_next, &enter, capacity.max(1), first, Some(&starts));
    let hit = |e: &&(u64, u32)| e.1 > 0;
    let writes_planned = b.episodes.iter().filter(paid).filter(hit).count() as u64;
    let held = b.episodes.iter().filter(|e| (e.0 as usize) < first).filter(hit).count() as u64;
    let hits = b.episodes.iter().map(|e| u64::from(e.1)).sum();
    Schedule { next: b.next, mplus, allowed, reuse, leftover, writes: writes_planned, held, hits }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::convert::next_access;

    /// The plan of `ops` ("r1 w2 …") at `cap`.
    fn planned(ops: &str, cap: usize, writes_enter: bool, share: f64) -> Schedule {
        let (keys, writes): (Vec<u64>, Vec<bool>) =
            ops.split_whitespace().map(|t| (t[1..].parse::<u64>().unwrap(), t.starts_with('w'))).unzip();
        plan(&keys, &writes, &next_access(&keys).unwrap(), cap, writes_enter, Limits { share, ..Limits::NONE })
    }

    #[test]
    fn hand_traced() {
        // Capacity 1, write-back, on r1 r2 r2 r1 w3 r3 w1 r1 (indices 0-7).
        // Read next: 0→3, 1→2, 2→NEVER, 3→NEVER (6 is a write), 4→5, 5→NEVER, 6→7, 7→NEVER.
        // Pass A: 0 enters (1 held, read next 3). 1: read next 2 < 3: 1 is evicted unread, 2
        // enters. 2 hits and leaves (no read next). 3 (1 again): read next NEVER: not inserted.
        // 4 (w3) enters, 5 hits. 6 (w1) enters, 7 hits. Episodes: 0 (0 hits), 1 (1), 4 (1),
        // 6 (1): M+ keeps three.
        let s = planned("r1 r2 r2 r1 w3 r3 w1 r1", 1, true, 1.0);
        assert_eq!((s.mplus, s.allowed, s.writes, s.hits), (3, 3, 3, 3));
        // Pass B inserts at 1, 4 and 6 only: access 0 is not admitted (its planned next is
        // NEVER), and each kept episode is held to its hit.
        assert_eq!(s.next, [NEVER, 2, NEVER, NEVER, 5, NEVER, 7, NEVER]);
        // Share 2/3: round(2) may stay; R = 1, L = 1: the earliest one-hit episode (1) goes.
        let s = planned("r1 r2 r2 r1 w3 r3 w1 r1", 1, true, 2.0 / 3.0);
        assert_eq!((s.allowed, s.reuse, s.leftover, s.writes), (2, 1, 1, 2));
        assert_eq!(s.next[1], NEVER);
        // The same by the cap: 2 writes over 8 accesses (0.25 per access; 0.3 gives ⌊2.4⌋).
        let (keys, w): (Vec<u64>, Vec<bool>) =
            [(1, false), (2, false), (2, false), (1, false), (3, true), (3, false), (1, true), (1, false)].into_iter().unzip();
        for per_access in [0.25, 0.3] {
            let c = plan(&keys, &w, &next_access(&keys).unwrap(), 1, true, Limits { per_access, ..Limits::NONE });
            assert_eq!(c.next, s.next);
        }
        // Write-around: a write never enters, so the w3 and w1 episodes do not exist; the
        // interval r1 → r1 across w1 ends in a write, so it is never held either.
        let s = planned("r1 r2 r2 r1 w3 r3 w1 r1", 1, false, 1.0);
        assert_eq!((s.mplus, s.hits), (1, 1));
        // Share 0 admits nothing.
        assert_eq!(planned("r1 r2 r2 r1 w3 r3 w1 r1", 1, true, 0.0).next, [NEVER; 8]);
    }

    #[test]
    fn pass_b_gives_dropped_room_to_kept_pages() {
        // Capacity 1 on r1 r1 r2 r1 r2 r2 r1 (indices 0-6). Read next: 0→1, 1→3, 2→4, 3→6,
        // 4→5, 5→NEVER, 6→NEVER. Pass A: 1 enters at 0 and hits at 1 and 3; 2 at 2 (read next
        // 4, after 1's 3) is not inserted; at 4, 2 (read next 5) comes before 1 (6): 1 is
        // evicted and 2 enters, hits at 5 and leaves; 1 at 6 has no read next. Episodes: 0 (2
        // hits), 4 (1 hit).
        let s = planned("r1 r1 r2 r1 r2 r2 r1", 1, true, 1.0);
        assert_eq!((s.mplus, s.writes, s.hits), (2, 2, 3));
        // Share 1/2: one stays; the one-hit episode goes (R = 2, L = 0). Pass B may insert at
        // 0 only: nothing displaces 1 at 4 now, so it also hits at 6: 3 hits for 1 write, where
        // the kept episode alone had 2.
        let s = planned("r1 r1 r2 r1 r2 r2 r1", 1, true, 0.5);
        assert_eq!((s.mplus, s.allowed, s.reuse, s.leftover), (2, 1, 2, 0));
        assert_eq!((s.writes, s.hits), (1, 3));
        assert_eq!(s.next, [1, 3, NEVER, 6, NEVER, NEVER, NEVER]);
    }

    /// The plan of `ops` at `cap` with the first `first` accesses a warm-up, capped at
    /// `per_access`.
    fn span(ops: &str, cap: usize, writes_enter: bool, first: usize, per_access: f64) -> Schedule {
        let (keys, writes): (Vec<u64>, Vec<bool>) =
            ops.split_whitespace().map(|t| (t[1..].parse::<u64>().unwrap(), t.starts_with('w'))).unzip();
        plan(&keys, &writes, &next_access(&keys).unwrap(), cap, writes_enter, Limits { share: 1.0, per_access, first })
    }

    #[test]
    fn a_warm_up_gives_the_boundary_content_free() {
        // Capacity 1 on r1 r2 | r1 r2 r2 (indices 0-4), the warm-up the first two. Next: 0→2,
        // 1→3, 2→NEVER, 3→4, 4→NEVER. Both warm-up accesses are their page's last before the
        // boundary with a read after it, so both may enter free; MIN keeps 1 (read at 2, before
        // 2's read at 3), so 2 is bypassed at 1. At 2, 1 hits (the free episode) and leaves; at
        // 3, 2 enters (a paid write) and hits at 4.
        let s = span("r1 r2 r1 r2 r2", 1, true, 2, 1.0);
        assert_eq!((s.mplus, s.writes, s.held, s.hits), (1, 1, 1, 2));
        assert_eq!(s.next, [2, NEVER, NEVER, 4, NEVER]);
        // Over the whole trace the same hits cost two writes.
        let w = span("r1 r2 r1 r2 r2", 1, true, 0, 1.0);
        assert_eq!((w.mplus, w.writes, w.held, w.hits), (2, 2, 0, 2));
        // No write allowed in the span (the cap is per access of the span: 0 of 3): the free
        // page still hits, the paid episode goes.
        let s = span("r1 r2 r1 r2 r2", 1, true, 2, 0.0);
        assert_eq!((s.writes, s.held, s.hits), (0, 1, 1));
        assert_eq!(s.next, [2, NEVER, NEVER, NEVER, NEVER]);
        // A page whose last warm-up access is a write: under write-around the write invalidates
        // it, so nothing is held at the boundary (access 0's next, 1, is before it); a write
        // may enter otherwise.
        assert_eq!(span("r1 w1 r1", 1, false, 2, 1.0).hits, 0);
        let s = span("r1 w1 r1", 1, true, 2, 1.0);
        assert_eq!((s.writes, s.held, s.hits), (0, 1, 1));
        assert_eq!(s.next, [NEVER, 2, NEVER]);
    }
}
