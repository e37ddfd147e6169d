//! Workload profiles: `synth:profile=NAME[,key=value...]` is the `synth:` spec below with the
//! user's keys after it (so they override it; `scale=F` shrinks requests and pages alike). Each
//! profile copies one row of a seed paper's trace table into the keys of the `calibrated` kind
//! (the generative model is documented in `synth.rs`); units as printed: KB = KiB, GB = GiB.
//!
//! - GASA: C. Li, D. Feng, Y. Hua, W. Xia, F. Wang, "GASA: A New Page Replacement Algorithm for
//!   NAND Flash Memory", Table II "The OLTP traces used in simulations" (SPC Financial split by
//!   ASU): total requests, unique pages, read ratio, read and write locality p%/a% ("p% of total
//!   number of unique pages are accessed by a% of total number of accesses", §IV.A). The table
//!   gives no request sizes; the buffer's line is one 4 KB page (§IV.B), so each request is one
//!   page and requests = page accesses.
//! - LCR: C. Liu, M. Lv, Y. Pan, H. Chen, Y. Li, C. Li, Y. Xu, "LCR: Load-aware Cache
//!   Replacement Algorithm for Flash-based SSDs", Table III "Statistics of I/O workloads": total
//!   requests, write ratio, average size. The table gives no footprint or locality: the profiles
//!   keep the generator's `pages=100000` and the 20%/80% hot set (`hot`, `hot_prob`).
//! - dynamic: L. Xu, Q. Xia, W. Xiao, "Locality-Driven Dynamic Flash Cache Allocation", Table II
//!   "Characteristics of I/O workloads traces". Its four headings sit over three numbers a row;
//!   read as working set (GB), average request size (KB) and request amount (GB). The table gives
//!   no read/write split: `write=1`, as the paper's SSD is a write cache ("all the data inside SSD
//!   are dirty", §III). No locality either: the 20%/80% hot set, as for LCR, where the numbers
//!   allow it; every page of the working set must be touched, so the cold pages need at least as
//!   many requests as there are of them, (1 − A)·requests ≥ (1 − P)·pages, which with P + A = 1
//!   means P ≥ pages / (requests + pages): Exchange 0.354 and MSNFS 0.464, so 36%/64% and 47%/53%
//!   there (the most skewed whole percents the table allows).

/// One profile: its name, its `synth:` spec, and the table row it copies.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub name: &'static str,
    pub spec: &'static str,
    pub source: &'static str,
}

const GASA: &str = "GASA Table II";
const LCR: &str = "LCR Table III";
const DYNAMIC: &str = "dynamic-allocation Table II";

pub const PROFILES: &[Profile] = &[
    // GASA Table II: T1 1,347,536 requests, 61,727 unique pages, read ratio 85%, 13%/87%, 31%/69%.
    Profile {
        name: "gasa-t1",
        spec: "calibrated,requests=1347536,pages=61727,write=0.15,read_locality=13/87,write_locality=31/69,size=4096",
        source: GASA,
    },
    // GASA Table II: T2 911,657 requests, 46,627 unique pages, read ratio 87%, 17%/83%, 16%/84%.
    Profile {
        name: "gasa-t2",
        spec: "calibrated,requests=911657,pages=46627,write=0.13,read_locality=17/83,write_locality=16/84,size=4096",
        source: GASA,
    },
    // GASA Table II: T3 766,673 requests, 74,760 unique pages, read ratio 34%, 28%/72%, 11%/89%.
    Profile {
        name: "gasa-t3",
        spec: "calibrated,requests=766673,pages=74760,write=0.66,read_locality=28/72,write_locality=11/89,size=4096",
        source: GASA,
    },
    // LCR Table III: web_0 2029945 requests, write ratio 70.12%, avg. size 7.64 KB.
    Profile { name: "lcr-web_0", spec: "calibrated,requests=2029945,write=0.7012,mean_size=7.64KiB", source: LCR },
    // LCR Table III: ts_0 1801734, 82.42%, 4.64 KB.
    Profile { name: "lcr-ts_0", spec: "calibrated,requests=1801734,write=0.8242,mean_size=4.64KiB", source: LCR },
    // LCR Table III: proj_0 4224524, 87.52%, 19.06 KB.
    Profile { name: "lcr-proj_0", spec: "calibrated,requests=4224524,write=0.8752,mean_size=19.06KiB", source: LCR },
    // LCR Table III: wdev_2 181266, 99.89%, 4.08 KB.
    Profile { name: "lcr-wdev_2", spec: "calibrated,requests=181266,write=0.9989,mean_size=4.08KiB", source: LCR },
    // LCR Table III: financial2 3698866, 17.65%, 2.42 KB.
    Profile { name: "lcr-financial2", spec: "calibrated,requests=3698866,write=0.1765,mean_size=2.42KiB", source: LCR },
    // Dynamic-allocation Table II: Financial1 3.6 GB, 7.2 KB, 28.8 GB.
    Profile {
        name: "dynamic-financial1",
        spec: "calibrated,working_set=3.6GiB,mean_size=7.2KiB,requested=28.8GiB,write=1,write_locality=20/80",
        source: DYNAMIC,
    },
    // Dynamic-allocation Table II: Homes 5 GB, 3.9 KB, 66.8 GB.
    Profile {
        name: "dynamic-homes",
        spec: "calibrated,working_set=5GiB,mean_size=3.9KiB,requested=66.8GiB,write=1,write_locality=20/80",
        source: DYNAMIC,
    },
    // Dynamic-allocation Table II: Exchange 23.29 GB, 12.4 KB, 131.69 GB.
    Profile {
        name: "dynamic-exchange",
        spec: "calibrated,working_set=23.29GiB,mean_size=12.4KiB,requested=131.69GiB,write=1,write_locality=36/64",
        source: DYNAMIC,
    },
    // Dynamic-allocation Table II: MSNFS 23.03 GB, 11.12 KB, 74.01 GB.
    Profile {
        name: "dynamic-msnfs",
        spec: "calibrated,working_set=23.03GiB,mean_size=11.12KiB,requested=74.01GiB,write=1,write_locality=47/53",
        source: DYNAMIC,
    },
];

/// The profile called `name`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}
