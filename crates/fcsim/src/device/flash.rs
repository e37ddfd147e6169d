//! A flash SSD: the FTL ([`super::ftl`]) on the chips ([`super::timing`]), with logical-page
//! assignment, placement, preconditioning and the read-only view policies receive.
//!
//! **Logical pages.** A trace page key below the user capacity is its own logical page, as
//! DiskSim and MQSim map a request's LBA, so static striping sees the trace's own layout. Keys
//! beyond it (other volumes, sparse offsets) get free logical pages from the top of the logical
//! space in first-touch order, and a key whose own logical page was already given away is
//! remapped likewise: any trace whose footprint fits in the user capacity runs on any device. A
//! footprint beyond the user capacity is an error. Cache hits never touch the device.
//!
//! **Reads of pages never written** (no preconditioning) cost a read on the page's static chip.
//!
//! **Preconditioning** writes `fill` × user pages (logical pages 0.., sequentially or in a
//! seeded random order), then `steady` × user uniformly random single-page overwrites of them,
//! through the FTL alone (they take no chip time), and then zeroes every counter and erase
//! count: the measured run starts at time 0 on an idle drive whose blocks hold the
//! preconditioned data, with GC state (free blocks, block occupancy) as the overwrites left it.
//! It calls the run's progress every [`PROGRESS_EVERY`] writes, so it can be stopped as the run
//! can.

use super::config::{DeviceConfig, Fill, Placement};
use super::ftl::{Ftl, FtlStats};
use super::timing::{Epochs, OpKind, Timing};
use crate::error::{Error, Result};
use crate::trace::{Progress, PROGRESS_EVERY};
use crate::view::{ChipLoad, DeviceView};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;
use std::sync::Mutex;

#[derive(Debug)]
pub struct Flash {
    pub cfg: DeviceConfig,
    ftl: Ftl,
    timing: Timing,
    /// Logical pages used by the key of the same number (bit per page).
    direct: Vec<u64>,
    /// Logical pages given to remapped keys (bit per page).
    taken: Vec<u64>,
    remap: FxHashMap<u64, u32>,
    /// Remapped keys take free logical pages below this one.
    top: u32,
    /// Dynamic placement: next plane to write on each chip, and where the least-loaded search
    /// starts (so ties rotate over chips).
    next_plane: Vec<u32>,
    next_chip: u32,
}

/// The last preconditioned device state of this process (see [`Flash::precondition`]).
struct Preconditioned {
    cfg: DeviceConfig,
    ftl: Ftl,
    next_plane: Vec<u32>,
    next_chip: u32,
}

static PRECONDITIONED: Mutex<Option<Preconditioned>> = Mutex::new(None);

impl Flash {
    /// A device in the state its configuration asks for (preconditioned if so). `progress` is
    /// the run's: preconditioning calls it with (0, 1), no request done yet, and stops with
    /// [`Error::Interrupted`] when it returns false.
    pub fn new(cfg: DeviceConfig, progress: Option<Progress<'_>>) -> Result<Self> {
        let g = cfg.geometry;
        let mut f = Flash {
            // A preconditioned drive writes its tables whole: they go in huge pages (see
            // [`super::table`]).
            ftl: Ftl::with_tables(g, cfg.user_pages, cfg.gc, cfg.gc_reserve_blocks, cfg.fill > 0.0),
            timing: Timing::new(g.chips(), g.channels, cfg.read_ns, cfg.write_ns, cfg.xfer_ns),
            direct: vec![0; (cfg.user_pages as usize).div_ceil(64)],
            taken: vec![0; (cfg.user_pages as usize).div_ceil(64)],
            remap: FxHashMap::default(),
            top: cfg.user_pages as u32,
            next_plane: vec![0; g.chips() as usize],
            next_chip: 0,
            cfg,
        };
        f.timing.epochs = Epochs::new(g.chips(), f.cfg.balance_epoch_ns);
        f.precondition(progress)?;
        Ok(f)
    }

    /// Writes the preconditioning data through the FTL alone (no chip time), then zeroes the
    /// counters and erase counts.
    ///
    /// Preconditioning is deterministic (seeded) and can take seconds (a 64 GiB drive brought
    /// to steady state is 30M page writes), so the process remembers the last preconditioned
    /// state and the next device of the same configuration starts from a copy of it: a sweep
    /// pays for it once per worker.
    fn precondition(&mut self, mut progress: Option<Progress<'_>>) -> Result<()> {
        let user = self.cfg.user_pages as u32;
        let n = (self.cfg.fill * f64::from(user)).round() as u32;
        if n == 0 {
            return Ok(());
        }
        let mut last = PRECONDITIONED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = last.as_ref().filter(|p| p.cfg == self.cfg) {
            (self.ftl, self.next_plane, self.next_chip) = (p.ftl.clone(), p.next_plane.clone(), p.next_chip);
            return Ok(());
        }
        *last = None; // free the old state before building the new one
        drop(last);
        let mut rng = StdRng::seed_from_u64(self.cfg.seed);
        let order: Vec<u32> = match self.cfg.fill_order {
            Fill::Sequential => Vec::new(),
            Fill::Random => {
                let mut v: Vec<u32> = (0..user).collect();
                v.shuffle(&mut rng);
                v.truncate(n as usize);
                v
            }
        };
        let lpn = |i: u32| if order.is_empty() { i } else { order[i as usize] };
        // The fill, then the random overwrites.
        let writes = u64::from(n) + (self.cfg.steady * f64::from(user)).round() as u64;
        for i in 0..writes {
            let l = lpn(if i < u64::from(n) { i as u32 } else { rng.gen_range(0..n) });
            let plane = self.plane_for_write(l);
            self.ftl.write(l, plane)?;
            if (i + 1) % PROGRESS_EVERY == 0 && progress.as_mut().is_some_and(|p| !p(0, 1)) {
                return Err(Error::Interrupted);
            }
        }
        self.ftl.reset_stats();
        *PRECONDITIONED.lock().unwrap_or_else(|e| e.into_inner()) = Some(Preconditioned {
            cfg: self.cfg.clone(),
            ftl: self.ftl.clone(),
            next_plane: self.next_plane.clone(),
            next_chip: self.next_chip,
        });
        Ok(())
    }

    /// The logical page of a trace page key, if the device has seen the key.
    #[inline]
    pub fn known_lpn(&self, key: u64) -> Option<u32> {
        if key < self.cfg.user_pages && bit(&self.direct, key as u32) {
            return Some(key as u32);
        }
        self.remap.get(&key).copied()
    }

    /// The logical page of a trace page key, given on first use (see the module docs).
    #[inline]
    pub fn lpn(&mut self, key: u64) -> Result<u32> {
        if key < self.cfg.user_pages {
            let k = key as u32;
            if bit(&self.direct, k) {
                return Ok(k);
            }
            if !bit(&self.taken, k) {
                set(&mut self.direct, k);
                return Ok(k);
            }
        }
        if let Some(&l) = self.remap.get(&key) {
            return Ok(l);
        }
        while self.top > 0 {
            self.top -= 1;
            let l = self.top;
            if !bit(&self.direct, l) && !bit(&self.taken, l) {
                set(&mut self.taken, l);
                self.remap.insert(key, l);
                return Ok(l);
            }
        }
        let user = self.cfg.user_pages;
        let bytes = user * u64::from(self.cfg.geometry.page_size);
        Err(Error::config(format!(
            "the trace touches more distinct pages than the device's user capacity ({user} pages, {:.2} GiB): \
             set device.capacity (e.g. device.capacity={}GiB) or use a larger preset",
            bytes as f64 / f64::from(1u32 << 30),
            (bytes >> 29).max(1)
        )))
    }

    /// The plane a write of `lpn` goes to.
    #[inline]
    fn plane_for_write(&mut self, lpn: u32) -> u32 {
        let g = &self.cfg.geometry;
        match self.cfg.placement {
            Placement::Static => g.static_plane(lpn),
            Placement::Dynamic => {
                let chips = g.chips();
                let mut best = self.next_chip;
                let mut best_t = self.timing.free_at(best);
                for i in 1..chips {
                    let c = (self.next_chip + i) % chips;
                    let t = self.timing.free_at(c);
                    if t < best_t {
                        best = c;
                        best_t = t;
                    }
                }
                self.next_chip = (best + 1) % chips;
                let ppc = g.planes_per_chip();
                let p = self.next_plane[best as usize];
                self.next_plane[best as usize] = (p + 1) % ppc;
                best * ppc + p
            }
        }
    }

    /// Reads `lpn` at time `t`; returns the completion time (an error past the time horizon).
    #[inline]
    pub fn read(&mut self, lpn: u32, t: u64) -> Result<u64> {
        let chip = self.chip_of_lpn(lpn);
        self.ftl.read();
        self.timing.submit(chip, t, OpKind::Read)
    }

    /// Programs `lpn` at time `t` (then any GC it triggers on the same chip); returns the
    /// program's completion time.
    #[inline]
    pub fn write(&mut self, lpn: u32, t: u64) -> Result<u64> {
        let plane = self.plane_for_write(lpn);
        let chip = self.cfg.geometry.chip_of_plane(plane);
        let work = self.ftl.write(lpn, plane)?;
        let end = self.timing.submit(chip, t, OpKind::Write)?;
        if work.erases > 0 {
            // At most a plane's blocks, each copied whole: below the longest duration, as the
            // configuration checked ([`DeviceConfig::build`]), so this cannot overflow.
            let c = &self.cfg;
            let d = u64::from(work.copies) * (c.read_ns + c.write_ns) + u64::from(work.erases) * c.erase_ns;
            self.timing.submit(chip, t, OpKind::Gc(d))?;
        }
        Ok(end)
    }

    pub fn trim(&mut self, lpn: u32) {
        self.ftl.trim(lpn);
    }

    /// The chip holding `lpn`. Under static placement a page never leaves its plane (GC copies
    /// within the plane), so no mapping lookup is needed.
    #[inline]
    fn chip_of_lpn(&self, lpn: u32) -> u32 {
        let g = &self.cfg.geometry;
        let on_flash = match self.cfg.placement {
            Placement::Static => None,
            Placement::Dynamic => self.ftl.lookup(lpn),
        };
        match on_flash {
            Some(ppn) => g.chip_of_plane(g.plane_of_block(g.block_of_page(ppn))),
            None => g.chip_of_plane(g.static_plane(lpn)),
        }
    }

    pub fn stats(&self) -> FtlStats {
        self.ftl.stats
    }

    /// Zeroes the counters, erase counts, chip busy times and load-balance epochs (the end of a
    /// warm-up); the data, the mapping and the chips' queues stay.
    pub fn reset_stats(&mut self) {
        self.ftl.reset_stats();
        self.timing.reset_stats();
    }

    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    pub fn timing_mut(&mut self) -> &mut Timing {
        &mut self.timing
    }

    /// See [`Timing::keep_queue`]: off for a run whose policy does not declare the device view.
    pub fn keep_queue(&mut self, on: bool) {
        self.timing.keep_queue(on);
    }

    /// Records every chip op as (chip, start, end), for tests.
    pub fn log_ops(&mut self) {
        self.timing.log = Some(Vec::new());
    }
}

#[inline]
fn bit(bits: &[u64], i: u32) -> bool {
    bits[(i >> 6) as usize] >> (i & 63) & 1 == 1
}

#[inline]
fn set(bits: &mut [u64], i: u32) {
    bits[(i >> 6) as usize] |= 1 << (i & 63);
}

impl DeviceView for Flash {
    fn chips(&self) -> u32 {
        self.cfg.geometry.chips()
    }

    fn chip_of(&self, page: u64) -> u32 {
        self.known_lpn(page).map_or(0, |lpn| self.chip_of_lpn(lpn))
    }

    fn load(&self, chip: u32, t: u64) -> ChipLoad {
        self.timing.load(chip, t)
    }

    fn read_ns(&self) -> u64 {
        self.cfg.read_ns
    }

    fn write_ns(&self) -> u64 {
        self.cfg.write_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn device(kv: &[(&str, &str)]) -> Flash {
        let m: BTreeMap<String, String> = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Flash::new(DeviceConfig::build("gasa", &m, 4096).unwrap().0, None).unwrap()
    }

    #[test]
    fn striping_view_and_preconditioning() {
        let small = [("channels", "1"), ("chips_per_channel", "4"), ("planes", "2"), ("blocks", "64"), ("pages_per_block", "16")];
        let mut f = device(&small);
        // Keys below the user capacity are their own logical pages; static striping puts
        // consecutive ones on consecutive chips.
        let user = f.cfg.user_pages as u32;
        assert_eq!((0..6).map(|k| f.lpn(k).unwrap()).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!((0..6).map(|k| f.chip_of(k)).collect::<Vec<_>>(), vec![0, 1, 2, 3, 0, 1]);
        // Other keys take free logical pages from the top, in first-touch order; a key whose own
        // logical page was taken is remapped too, skipping pages in direct use.
        assert_eq!((f.lpn(1 << 50).unwrap(), f.lpn(9 << 48).unwrap(), f.lpn(1 << 50).unwrap()), (user - 1, user - 2, user - 1));
        assert_eq!(f.lpn(u64::from(user) - 3).unwrap(), user - 3);
        assert_eq!(f.lpn(u64::from(user) - 1).unwrap(), user - 4);
        assert_eq!(f.known_lpn(7 << 48), None);
        assert_eq!(f.chip_of(1 << 50), (user - 1) % 4);
        // A write on chip 1 at t = 0 makes it busy with one write until 200 us.
        assert_eq!(f.write(1, 0).unwrap(), 200_000);
        assert_eq!(f.load(1, 100_000), ChipLoad { reads: 0, writes: 1, gc: false, gc_ns: 0 });
        assert_eq!(f.l_chip(1, 100_000), 200_000);
        assert!(!f.in_gc(1, 100_000));
        // Preconditioned to steady state: every page mapped, counters and erase counts zeroed.
        let mut kv = small.to_vec();
        kv.extend([("fill", "1"), ("steady", "2"), ("fill_order", "random")]);
        let f = device(&kv);
        let (_, valid, _) = f.ftl().check();
        assert_eq!(valid, f.cfg.user_pages);
        assert_eq!(f.stats(), FtlStats::default());
        assert!(f.ftl().erase_counts().all(|e| e == 0));
        assert!(f.timing().busy().all(|b| b == 0));
        // The next device of the same configuration starts from a copy of that state (or the
        // same state rebuilt, if another test preconditioned in between); another seed does not.
        assert_eq!(device(&kv).ftl(), f.ftl());
        kv.push(("seed", "7"));
        assert_ne!(device(&kv).ftl(), f.ftl());
    }

    #[test]
    fn footprint_beyond_capacity_is_an_error() {
        let mut f = device(&[("capacity", "4MiB"), ("planes", "1"), ("pages_per_block", "4")]);
        assert_eq!(f.cfg.user_pages, 1024);
        for k in 0..1024 {
            f.lpn(k * 7).unwrap();
        }
        assert!(f.lpn(99_999).unwrap_err().to_string().contains("device.capacity"));
    }
}
