//! The machinery CFLRU, GCaR-CFLRU and LCR share: one LRU list whose last `window` pages (the
//! clean-first region of CFLRU, the destaging region of LCR) are the eviction candidates. All
//! three evict the first clean page of the window from the LRU end; when the window holds only
//! dirty pages, each policy's rule picks one. Each policy is its own file with its rule; this
//! file implements [`Policy`] for all three. The walk stops at the first clean page, and a rule
//! asks the device about each chip at most once per eviction ([`ChipMemo`]).

use super::list::{each_dirty, take, touch, up_front, Arena, List};
use super::{Access, Evicted, Outcome, Policy};
use crate::error::{Error, Result};
use crate::params::Params;
use crate::view::DeviceView;

/// A dirty candidate for eviction, seen from the LRU end.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    pub node: u32,
    pub key: u64,
}

/// A victim rule for a window of dirty pages: given them from the LRU end, the device view (if
/// the tier sits on a device), the request's arrival time and a per-chip memo, the index of the
/// victim among them.
pub type Rule = fn(&[Candidate], Option<&dyn DeviceView>, u64, &mut ChipMemo) -> usize;

/// One value per chip, computed at most once per eviction: a window of hundreds of pages spans
/// far fewer chips, and each chip's load is one device query.
#[derive(Debug, Default)]
pub struct ChipMemo(Vec<u64>);

const UNSET: u64 = u64::MAX;

impl ChipMemo {
    fn reset(&mut self, chips: u32) {
        self.0.clear();
        self.0.resize(chips as usize, UNSET);
    }

    /// `chip`'s value, from `f` the first time it is asked for since the last reset.
    #[inline]
    pub fn get(&mut self, chip: u32, f: impl FnOnce() -> u64) -> u64 {
        let v = &mut self.0[chip as usize];
        if *v == UNSET {
            *v = f();
        }
        *v
    }
}

#[derive(Debug)]
pub struct WindowLru {
    rule: Rule,
    arena: Arena,
    list: List,
    capacity: usize,
    /// Pages in the window, at least 1.
    window: usize,
    candidates: Vec<Candidate>,
    memo: ChipMemo,
}

/// Reads `POLICY.window`, a fraction of the cache in (0, 1].
pub fn window_param(p: &mut Params, policy: &str, default: f64) -> Result<f64> {
    let w: f64 = p.take(policy, "window", default, "a fraction of the cache in (0, 1]")?;
    if !(w > 0.0 && w <= 1.0) {
        return Err(Error::config(format!("{policy}.window={w}: expected a fraction of the cache in (0, 1]")));
    }
    Ok(w)
}

impl WindowLru {
    /// A cache of `capacity` pages whose window is `window` × capacity pages (rounded, ≥ 1),
    /// evicting by `rule`.
    pub fn new(capacity: usize, window: f64, rule: Rule) -> Self {
        let window = ((capacity as f64 * window).round() as usize).clamp(1, capacity);
        WindowLru {
            rule,
            arena: Arena::with_capacity(capacity),
            list: List::default(),
            capacity,
            window,
            candidates: Vec::with_capacity(up_front(window)),
            memo: ChipMemo::default(),
        }
    }

    /// One access; when a page must go, the rule picks it from the window.
    #[inline]
    fn access_with(&mut self, a: &Access, view: Option<&dyn DeviceView>, evicted: &mut Vec<Evicted>) -> Outcome {
        if let Some(i) = self.arena.get(a.key) {
            self.list.move_to_front(&mut self.arena, i);
            let was = touch(&mut self.arena, i, a.write);
            return Outcome::Hit { dirty: was };
        }
        if self.list.len() >= self.capacity {
            self.candidates.clear();
            let mut clean = None;
            let mut cur = self.list.back();
            while let Some(i) = cur {
                if self.candidates.len() == self.window {
                    break;
                }
                let n = self.arena.node(i);
                if !n.dirty {
                    clean = Some(i);
                    break;
                }
                self.candidates.push(Candidate { node: i, key: n.key });
                cur = self.list.prev(&self.arena, i);
            }
            let v = clean.unwrap_or_else(|| {
                if let Some(view) = view {
                    self.memo.reset(view.chips());
                }
                self.candidates[(self.rule)(&self.candidates, view, a.time, &mut self.memo)].node
            });
            self.list.unlink(&mut self.arena, v);
            let n = self.arena.release(v);
            evicted.push(Evicted { key: n.key, dirty: n.dirty });
        }
        let i = self.arena.alloc(a.key, 0, a.write);
        self.list.push_front(&mut self.arena, i);
        Outcome::Miss { admitted: true }
    }
}

impl Policy for WindowLru {
    fn access(&mut self, a: &Access, evicted: &mut Vec<Evicted>) -> Outcome {
        self.access_with(a, None, evicted)
    }

    fn access_on(&mut self, a: &Access, view: &dyn DeviceView, evicted: &mut Vec<Evicted>) -> Outcome {
        self.access_with(a, Some(view), evicted)
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
