//! Workload profiles: `synth:profile=NAME[,scale=K][,seed=S][,iops=R][,requests=N][,model=M]` is
//! a clone (the renewal clone since issue 40; `model=stack` the stack-distance clone) of a real
//! trace shipped in `data/traces` (the profile's *donor*) reshaped to one row of
//! a seed paper's trace table: the row's published counts exactly, everything the table does not
//! publish (reuse distances per op pair, sequential runs, per-op sizes around the published
//! mean, bursty arrivals, working-set growth) from the donor. The machinery and what it keeps
//! from each side are in [`super::clone::profile`]; `scale=K` multiplies requests and pages
//! (every ratio kept). Units as printed: KB = KiB, GB = GiB.
//!
//! - GASA: C. Li, D. Feng, Y. Hua, W. Xia, F. Wang, "GASA: A New Page Replacement Algorithm for
//!   NAND Flash Memory", Table II "The OLTP traces used in simulations" (SPC Financial split by
//!   ASU): total requests, unique pages, read ratio, read and write locality p%/a% ("p% of total
//!   number of unique pages are accessed by a% of total number of accesses", §IV.A). The table
//!   gives no request sizes; the buffer's line is one 4 KB page (§IV.B), so each request is one
//!   page and requests = page accesses. Donor: `mqsim_tpcc-small.trace.gz` (TPC-C, an OLTP
//!   workload as SPC Financial is). Locality p%/a%: held to the table's per op by feedback on
//!   per-op hot sets ([`super::clone::profile`] says how and what it costs the donor's reuse);
//!   the donor alone gave read 26%/74%, write 38%/62% on gasa-t1 (its TPC-C sample, 7,000
//!   requests over 0.14 s, has no reuse below about 100 pages, so no weighting of its
//!   distance bins moved p toward the table's 0.11-0.31).
//! - LCR: C. Liu, M. Lv, Y. Pan, H. Chen, Y. Li, C. Li, Y. Xu, "LCR: Load-aware Cache
//!   Replacement Algorithm for Flash-based SSDs", Table III "Statistics of I/O workloads": total
//!   requests, write ratio, average size. The table gives no footprint: the profiles keep the
//!   100,000 pages the calibrated profiles had (so the experiment's cache sizes and loads carry
//!   over). Donors: `msr_hm_0_excerpt1000.csv` (MSR Cambridge hm_0, the same trace set as
//!   web_0, ts_0, proj_0 and wdev_2) for the MSR rows; `mqsim_tpcc-small.trace.gz` (TPC-C, OLTP
//!   as SPC Financial 2 is) for financial2.
//! - dynamic: L. Xu, Q. Xia, W. Xiao, "Locality-Driven Dynamic Flash Cache Allocation", Table II
//!   "Characteristics of I/O workloads traces". Its four headings sit over three numbers a row;
//!   read as working set (GB), average request size (KB) and request amount (GB). The table gives
//!   no read/write split: `write=1`, as the paper's SSD is a write cache ("all the data inside SSD
//!   are dirty", §III): the donor is relabelled, every request a write, its reuse distances of
//!   all op pairs pooled. Donors: `mqsim_tpcc-small.trace.gz` (TPC-C) for Financial1 (SPC OLTP);
//!   `diskmon_sys1.trace.gz` (a Windows desktop's system disk, 20 min) for Homes (FIU home
//!   directories: a user's files); `cloudphysics_vscsi_2h.csv.gz` (VMware server VMs, 2 h) for
//!   Exchange and MSNFS (Microsoft production servers): the longest donor, whose working set
//!   grows over its two hours, so a window's miss-ratio curve has a shape.

/// A count, or bytes to be divided by the request size (requests) or the page (pages).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    Count(u64),
    Bytes(f64),
}

/// Request sizes a table sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Size {
    /// Every request one aligned 4 KiB page (a table without sizes, over a page buffer).
    Page,
    /// The donor's sizes scaled to this mean (bytes).
    Mean(f64),
}

/// One profile: its name, the table row it copies, and the donor it borrows the rest from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    /// The table.
    pub source: &'static str,
    /// The donor model's name: `data/profiles/models/DONOR.model`, fitted from
    /// `data/traces/` by `make profile-models`.
    pub donor: &'static str,
    pub requests: Amount,
    pub pages: Amount,
    /// Share of write requests.
    pub write: f64,
    pub size: Size,
    /// The table's read and write locality p/a (fractions), where it gives one: held by
    /// the generator (see the module docs).
    pub locality: Option<[(f64, f64); 2]>,
}

const GASA: &str = "GASA Table II";
const LCR: &str = "LCR Table III";
const DYNAMIC: &str = "dynamic-allocation Table II";

/// The donor models compiled in: (name, the original in `data/traces`, the model's text).
pub const DONORS: &[(&str, &str, &str)] = &[
    ("tpcc", "mqsim_tpcc-small.trace.gz", include_str!("../../../../data/profiles/models/tpcc.model")),
    ("hm_0", "msr_hm_0_excerpt1000.csv", include_str!("../../../../data/profiles/models/hm_0.model")),
    ("diskmon", "diskmon_sys1.trace.gz", include_str!("../../../../data/profiles/models/diskmon.model")),
    ("cloudphysics", "cloudphysics_vscsi_2h.csv.gz", include_str!("../../../../data/profiles/models/cloudphysics.model")),
];

/// The text of a donor model.
pub fn donor_text(name: &str) -> Option<&'static str> {
    DONORS.iter().find(|d| d.0 == name).map(|d| d.2)
}

/// The real trace a donor was fitted from (its file in `data/traces`).
pub fn donor_trace(name: &str) -> Option<&'static str> {
    DONORS.iter().find(|d| d.0 == name).map(|d| d.1)
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const KIB: f64 = 1024.0;

const fn gasa(name: &'static str, requests: u64, pages: u64, write: f64, read: (f64, f64), wr: (f64, f64)) -> Profile {
    Profile {
        name,
        source: GASA,
        donor: "tpcc",
        requests: Amount::Count(requests),
        pages: Amount::Count(pages),
        write,
        size: Size::Page,
        locality: Some([read, wr]),
    }
}

const fn lcr(name: &'static str, donor: &'static str, requests: u64, write: f64, mean_kib: f64) -> Profile {
    Profile {
        name,
        source: LCR,
        donor,
        requests: Amount::Count(requests),
        pages: Amount::Count(100_000),
        write,
        size: Size::Mean(mean_kib * KIB),
        locality: None,
    }
}

const fn dynamic(name: &'static str, donor: &'static str, ws_gib: f64, mean_kib: f64, requested_gib: f64) -> Profile {
    Profile {
        name,
        source: DYNAMIC,
        donor,
        requests: Amount::Bytes(requested_gib * GIB),
        pages: Amount::Bytes(ws_gib * GIB),
        write: 1.0,
        size: Size::Mean(mean_kib * KIB),
        locality: None,
    }
}

pub const PROFILES: &[Profile] = &[
    // GASA Table II: T1 1,347,536 requests, 61,727 unique pages, read ratio 85%, 13%/87%, 31%/69%.
    gasa("gasa-t1", 1_347_536, 61_727, 0.15, (0.13, 0.87), (0.31, 0.69)),
    // GASA Table II: T2 911,657 requests, 46,627 unique pages, read ratio 87%, 17%/83%, 16%/84%.
    gasa("gasa-t2", 911_657, 46_627, 0.13, (0.17, 0.83), (0.16, 0.84)),
    // GASA Table II: T3 766,673 requests, 74,760 unique pages, read ratio 34%, 28%/72%, 11%/89%.
    gasa("gasa-t3", 766_673, 74_760, 0.66, (0.28, 0.72), (0.11, 0.89)),
    // LCR Table III: web_0 2029945 requests, write ratio 70.12%, avg. size 7.64 KB.
    lcr("lcr-web_0", "hm_0", 2_029_945, 0.7012, 7.64),
    // LCR Table III: ts_0 1801734, 82.42%, 4.64 KB.
    lcr("lcr-ts_0", "hm_0", 1_801_734, 0.8242, 4.64),
    // LCR Table III: proj_0 4224524, 87.52%, 19.06 KB.
    lcr("lcr-proj_0", "hm_0", 4_224_524, 0.8752, 19.06),
    // LCR Table III: wdev_2 181266, 99.89%, 4.08 KB.
    lcr("lcr-wdev_2", "hm_0", 181_266, 0.9989, 4.08),
    // LCR Table III: financial2 3698866, 17.65%, 2.42 KB.
    lcr("lcr-financial2", "tpcc", 3_698_866, 0.1765, 2.42),
    // Dynamic-allocation Table II: Financial1 3.6 GB, 7.2 KB, 28.8 GB.
    dynamic("dynamic-financial1", "tpcc", 3.6, 7.2, 28.8),
    // Dynamic-allocation Table II: Homes 5 GB, 3.9 KB, 66.8 GB.
    dynamic("dynamic-homes", "diskmon", 5.0, 3.9, 66.8),
    // Dynamic-allocation Table II: Exchange 23.29 GB, 12.4 KB, 131.69 GB.
    dynamic("dynamic-exchange", "cloudphysics", 23.29, 12.4, 131.69),
    // Dynamic-allocation Table II: MSNFS 23.03 GB, 11.12 KB, 74.01 GB.
    dynamic("dynamic-msnfs", "cloudphysics", 23.03, 11.12, 74.01),
];

/// The profile called `name`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}
