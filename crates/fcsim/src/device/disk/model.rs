//! What one access costs a disk: the presets and their timing.
//!
//! **Flat** (`stack.disk=flat`, the default): every access takes the same time, whatever its
//! size, its place and whether it follows the previous one: 5 ms, the dynamic-allocation paper's
//! Table I ("Disk Access Latency 5ms"; §V.A: "The average hard disk access latency is defined as
//! 5ms"), or `stack.disk_ms`. An access is the run of consecutive pages a request hands the disk
//! at one arrival time (see [`super`]), so a 64 KiB request costs one 5 ms access, not sixteen.
//! The LARC slides give no disk timing (their simulation reports hit rate and cache writes; the
//! prototype's testbed names a Seagate ST373207LW), and the offline-bounds paper models none,
//! so their reproductions take the flat preset too.
//!
//! **A mechanical drive** (`7200`, `15k`): an access that does not start where the spindle's
//! previous access ended costs positioning, seek(d) + half a revolution, then the transfer of its
//! pages at the media rate; a sequential access costs the transfer alone.
//!
//! - **Seek.** d is the distance in cylinders between the head (the cylinder of the previous
//!   access's last page; cylinder 0 at the start) and the access's first page, u = d / C for a
//!   drive of C cylinders. seek(0) = 0; for d ≥ 1,
//!   seek(d) = t + A·u + B·√u,
//!   the form of short seeks growing with √d (the arm accelerates and decelerates) and long
//!   seeks with d (it coasts), fitted to three datasheet figures: t the single-track
//!   (track-to-track) seek, `full` = seek(C) the full stroke, and `avg` the average seek. Drive
//!   manuals define the average as the weighted average over all pairs of tracks (e.g. the
//!   Hitachi/HGST OEM specifications' "weighted average of all possible seek combinations", with
//!   weight (max + 1 − n) for an n-track seek), so the distance between two uniformly random
//!   positions has density 2(1 − u), under which E[u] = 1/3 and E[√u] = 8/15. Solving
//!   t + A + B = full and t + A/3 + 8B/15 = avg:
//!   B = (15·(avg − t) − 5·(full − t)) / 3,  A = (full − t) − B.
//!   (The `desim` disk simulator in Seagate's motr repository, `desim/chs.c`, uses the same
//!   three-term form, fitted with the distance taken as uniform instead.) A ≥ 0 and B ≥ 0 for every preset, so
//!   the curve rises with distance. Reads and writes have their own figures (a write settles
//!   longer).
//! - **Rotational latency: half a revolution, every positioned access.** fcsim does not track
//!   the platter's angle (that needs each zone's sectors per track and the track and cylinder
//!   skews, which datasheets do not give); over a uniformly random angle the expected wait is
//!   half a revolution, which is what the manuals quote as "average latency". Taking it
//!   deterministically keeps runs reproducible without a random stream and the mean right; it
//!   understates the spread of single accesses (none waits a whole revolution, none goes without).
//! - **Transfer** of each page at one media rate, the mean of the manual's innermost and
//!   outermost zone rates (zoned recording makes the outer tracks faster; the rate is not varied
//!   by position). A page's transfer time is rounded to whole ns.
//! - **Placement.** A spindle's byte address a (page number × page size, see [`super`]) lies on
//!   cylinder ⌊(a mod capacity) × C / capacity⌋: the capacity is spread evenly over the
//!   cylinders (zoned recording puts more on the outer ones; not modelled), and an address
//!   beyond the drive's capacity wraps around.
//! - **Not modelled:** controller overhead (the manuals' seek figures used here exclude it),
//!   the drive's cache and read-ahead, head switches within a cylinder, command queueing in the
//!   drive (NCQ/TCQ), and sequential accesses that arrive after the platter has turned past
//!   their start (a sequential access never waits for rotation).
//!
//! **Presets, every figure from the source named** (drive manuals as transcribed on
//! manualsdump.com; MB = 10^6 bytes):
//!
//! | preset | drive | capacity | cylinders | rpm | media rate | seek read: t / avg / full | write |
//! |---|---|---|---|---|---|---|---|
//! | `7200` | Seagate Constellation.2 ST91000640SS (SAS, 2.5", 7,200 rpm nearline) | 1,000 GB | 165,800 | 7,200 | 123.5 MB/s (84–163) | 0.23 / 7.5 / 17.06 ms | 0.44 / 8.5 / 18.08 ms |
//! | `15k` | Seagate Cheetah 15K.7 ST3450857SS (SAS, 15,000 rpm) | 450 GB | 107,500 | 15,000 | 163 MB/s (122–204) | 0.2 / 3.4 / 6.6 ms | 0.44 / 3.9 / 7.4 ms |
//!
//! - `7200`: Constellation.2 SAS Product Manual (Seagate 100620418, Rev. H), §5.1 "Internal
//!   drive characteristics" (capacity 1000 GB, 8 heads, 165,800 tracks per surface (the
//!   cylinders), internal data rate 84–163 MB/s, 7200 rpm, average rotational latency 4.16 ms)
//!   and §5.2.1 "Access time", not including controller overhead (the columns above).
//! - `15k`: Cheetah 15K.7 SAS Product Manual (Seagate 100516226): Table 1 (ST3450857SS, 450GB),
//!   §4.2.3 (sustainable disk transfer rate 122–204 MB/s, average rotational latency 2.0 ms);
//!   the seek figures (read and write: average, track-to-track, full stroke) and the 107,500
//!   cylinders as transcribed from the same manual (Rev. A) in the comment above a drive
//!   configuration of ClusterStor's `desim` disk simulator (N. Danilov, 2009; shipped in
//!   Seagate's motr repository).

use crate::error::{Error, Result};

/// The preset names `stack.disk` takes.
pub const DISK_PRESETS: &[&str] = &["flat", "7200", "15k"];

/// Three datasheet seek figures, ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeekFigures {
    pub track_ms: f64,
    pub avg_ms: f64,
    pub full_ms: f64,
}

/// A mechanical drive's datasheet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drive {
    /// The preset's name.
    pub name: &'static str,
    /// The drive it was taken from.
    pub model: &'static str,
    pub capacity_bytes: u64,
    pub cylinders: u64,
    pub rpm: u32,
    /// Sustained media rate, bytes per second.
    pub rate: f64,
    pub read: SeekFigures,
    pub write: SeekFigures,
}

/// The 7,200 rpm preset (sources in the module docs).
pub const DRIVE_7200: Drive = Drive {
    name: "7200",
    model: "Seagate Constellation.2 ST91000640SS",
    capacity_bytes: 1_000_000_000_000,
    cylinders: 165_800,
    rpm: 7_200,
    rate: (84e6 + 163e6) / 2.0,
    read: SeekFigures { track_ms: 0.23, avg_ms: 7.5, full_ms: 17.06 },
    write: SeekFigures { track_ms: 0.44, avg_ms: 8.5, full_ms: 18.08 },
};

/// The 15,000 rpm preset (sources in the module docs).
pub const DRIVE_15K: Drive = Drive {
    name: "15k",
    model: "Seagate Cheetah 15K.7 ST3450857SS",
    capacity_bytes: 450_000_000_000,
    cylinders: 107_500,
    rpm: 15_000,
    rate: (122e6 + 204e6) / 2.0,
    read: SeekFigures { track_ms: 0.2, avg_ms: 3.4, full_ms: 6.6 },
    write: SeekFigures { track_ms: 0.44, avg_ms: 3.9, full_ms: 7.4 },
};

/// seek(d) = t + A·u + B·√u for d ≥ 1 cylinders, u = d / C; ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeekCurve {
    pub t: f64,
    pub a: f64,
    pub b: f64,
}

impl SeekCurve {
    /// The curve through `f` (see the module docs); `Err` if it would fall with distance.
    pub fn fit(f: SeekFigures) -> std::result::Result<SeekCurve, String> {
        let (t, avg, full) = (f.track_ms * 1e6, f.avg_ms * 1e6, f.full_ms * 1e6);
        let b = (15.0 * (avg - t) - 5.0 * (full - t)) / 3.0;
        let a = (full - t) - b;
        if !(a >= 0.0 && b >= 0.0 && t >= 0.0) {
            return Err(format!(
                "seek figures t={} avg={} full={} ms give a curve that falls with distance (A={a} ns, B={b} ns)",
                f.track_ms, f.avg_ms, f.full_ms
            ));
        }
        Ok(SeekCurve { t, a, b })
    }

    /// The seek time over `d` of `cylinders`, ns (rounded).
    #[inline]
    pub fn ns(&self, d: u64, cylinders: u64) -> u64 {
        if d == 0 {
            return 0;
        }
        let u = d as f64 / cylinders as f64;
        (self.t + self.a * u + self.b * u.sqrt()).round() as u64
    }
}

/// How a spindle times an access.
#[derive(Debug, Clone, PartialEq)]
pub enum DiskModel {
    /// Every access the same time, ns.
    Flat { access_ns: u64 },
    /// A mechanical drive.
    Drive { drive: Drive, read: SeekCurve, write: SeekCurve, half_turn_ns: u64 },
}

impl DiskModel {
    /// The preset `name` ([`DISK_PRESETS`]); `flat_ns` is the flat preset's time per access.
    pub fn preset(name: &str, flat_ns: u64) -> Result<DiskModel> {
        let drive = match name {
            "flat" => return Ok(DiskModel::Flat { access_ns: flat_ns }),
            "7200" => DRIVE_7200,
            "15k" => DRIVE_15K,
            _ => return Err(Error::config(format!("stack.disk={name}: expected one of {}", DISK_PRESETS.join(", ")))),
        };
        DiskModel::drive(drive)
    }

    /// A mechanical drive from its datasheet.
    pub fn drive(drive: Drive) -> Result<DiskModel> {
        let fit = |f| SeekCurve::fit(f).map_err(|e| Error::config(format!("disk {}: {e}", drive.name)));
        // Half a revolution: 60 s / rpm / 2.
        let half_turn_ns = (30e9 / f64::from(drive.rpm)).round() as u64;
        Ok(DiskModel::Drive { drive, read: fit(drive.read)?, write: fit(drive.write)?, half_turn_ns })
    }

    /// The preset's name (the row's `disk`).
    pub fn name(&self) -> &'static str {
        match self {
            DiskModel::Flat { .. } => "flat",
            DiskModel::Drive { drive, .. } => drive.name,
        }
    }

    /// The transfer time of one page of `page_size` bytes, ns (0 for flat: its access time
    /// covers the transfer).
    pub fn page_ns(&self, page_size: u32) -> u64 {
        match self {
            DiskModel::Flat { .. } => 0,
            DiskModel::Drive { drive, .. } => (f64::from(page_size) * 1e9 / drive.rate).round() as u64,
        }
    }

    /// The cylinder of byte address `a` on one spindle (0 for flat).
    #[inline]
    pub fn cylinder(&self, a: u128) -> u64 {
        match self {
            DiskModel::Flat { .. } => 0,
            DiskModel::Drive { drive, .. } => {
                let cap = u128::from(drive.capacity_bytes);
                ((a % cap) * u128::from(drive.cylinders) / cap) as u64
            }
        }
    }

    /// The time of an access that is not sequential, before its pages' transfer: the flat time,
    /// or seek from cylinder `from` to `to` plus half a revolution.
    #[inline]
    pub fn positioning_ns(&self, from: u64, to: u64, write: bool) -> u64 {
        match self {
            DiskModel::Flat { access_ns } => *access_ns,
            DiskModel::Drive { drive, read, write: w, half_turn_ns } => {
                let curve = if write { w } else { read };
                curve.ns(from.abs_diff(to), drive.cylinders) + half_turn_ns
            }
        }
    }

    /// The expected time of a random single-page read, ns: the flat time, or the average read
    /// seek + half a revolution + one page's transfer (what the split controller's cost model
    /// takes as eq. 5's disk access latency).
    pub fn random_page_ns(&self, page_size: u32) -> f64 {
        match self {
            DiskModel::Flat { access_ns } => *access_ns as f64,
            DiskModel::Drive { drive, half_turn_ns, .. } => {
                (drive.read.avg_ms * 1e6).round() + *half_turn_ns as f64 + self.page_ns(page_size) as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_meets_its_three_figures() {
        // 15k reads: t = 0.2, avg = 3.4, full = 6.6 ms.
        // B = (15·3.2 − 5·6.4) / 3 = (48 − 32) / 3 = 16/3 ms; A = 6.4 − 16/3 = 3.2/3 ms.
        let c = SeekCurve::fit(DRIVE_15K.read).unwrap();
        assert!((c.b - 16e6 / 3.0).abs() < 1e-6 && (c.a - 3.2e6 / 3.0).abs() < 1e-6, "{c:?}");
        // Full stroke: t + A + B = 0.2 + 6.4 = 6.6 ms.
        assert_eq!(c.ns(107_500, 107_500), 6_600_000);
        // Mean over the triangular distance density 2(1 − u): t + A/3 + 8B/15 = avg.
        let mean = c.t + c.a / 3.0 + 8.0 * c.b / 15.0;
        assert!((mean - 3.4e6).abs() < 1e-3);
        // One cylinder: t + A/C + B/√C = 0.2 ms + 10 ns + 16.3 µs.
        assert_eq!(c.ns(1, 107_500), 216_276);
        assert_eq!(c.ns(0, 107_500), 0);
        for p in [DRIVE_7200, DRIVE_15K] {
            for f in [p.read, p.write] {
                assert!(SeekCurve::fit(f).is_ok(), "{} {f:?}", p.name);
            }
        }
        // A curve that would fall with distance is refused.
        assert!(SeekCurve::fit(SeekFigures { track_ms: 1.0, avg_ms: 9.0, full_ms: 10.0 }).is_err());
    }

    #[test]
    fn presets_and_their_random_page() {
        assert_eq!(DiskModel::preset("flat", 5_000_000).unwrap().random_page_ns(4096), 5e6);
        // 15k: 3.4 ms + 2 ms + 4096 B / 163 MB/s (25,129 ns) = 5,425,129 ns.
        let m = DiskModel::preset("15k", 0).unwrap();
        assert_eq!(m.page_ns(4096), 25_129);
        assert_eq!(m.random_page_ns(4096), 5_425_129.0);
        // 7200: 7.5 ms + 4,166,667 ns + 4096 B / 123.5 MB/s (33,166 ns) = 11,699,833 ns.
        let m = DiskModel::preset("7200", 0).unwrap();
        assert_eq!(m.random_page_ns(4096), 11_699_833.0);
        let e = DiskModel::preset("10k", 0).unwrap_err().to_string();
        assert_eq!(e, "stack.disk=10k: expected one of flat, 7200, 15k");
    }
}
