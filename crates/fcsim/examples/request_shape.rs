//! The request shape of a trace or a clone: `cargo run --release --example request_shape -- TRACE...`
//! (a path, or any `synth:` spec). Per op: requests, mean request size, the share of requests
//! that start where the previous request (of either op, same volume) ended (sequential), and
//! of the page accesses, the share to new pages; of the requests that touch a new page, the
//! share whose first page is new and their mean size. Used to compare a clone's requests with
//! the original's (issue 40).

use fcsim::request::{Op, PageSplitter};
use fcsim::trace::{self, TraceOptions};
use rustc_hash::FxHashSet;

fn main() {
    println!("trace\trequests\tpage_accesses\tmean_KiB\tread_KiB\twrite_KiB\tsequential\twrite_share\tnew_page_share\tnew_req\tnew_first\tnew_req_KiB");
    for spec in std::env::args().skip(1) {
        let mut r = trace::open(&spec, &TraceOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let split = PageSplitter::new(4096, r.key_unit());
        let mut seen: FxHashSet<(u32, u64)> = FxHashSet::default();
        let (mut n, mut acc, mut seq, mut new_pages, mut new_req, mut new_first, mut new_bytes) =
            (0u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
        let (mut bytes, mut reqs) = ([0u64; 2], [0u64; 2]);
        let mut last: Option<(u32, u64)> = None;
        while let Some(q) = r.next_request().unwrap_or_else(|e| panic!("{e}")) {
            let o = match q.op {
                Op::Read => 0,
                Op::Write => 1,
                Op::Trim => continue,
            };
            n += 1;
            bytes[o] += u64::from(q.len);
            reqs[o] += 1;
            seq += u64::from(last == Some((q.volume, q.offset)));
            last = Some((q.volume, q.offset + u64::from(q.len)));
            let (first, k) = split.pages(&q).unwrap();
            acc += k;
            let mut any = false;
            for p in first..first + k {
                if seen.insert((q.volume, p)) {
                    new_pages += 1;
                    any = true;
                    if p == first {
                        new_first += 1;
                    }
                }
            }
            if any {
                new_req += 1;
                new_bytes += u64::from(q.len);
            }
        }
        let kib = |b: u64, c: u64| b as f64 / c.max(1) as f64 / 1024.0;
        println!(
            "{}\t{n}\t{acc}\t{:.1}\t{:.1}\t{:.1}\t{:.3}\t{:.3}\t{:.3}\t{new_req}\t{new_first}\t{:.1}",
            spec.rsplit('/').next().unwrap_or(&spec),
            kib(bytes[0] + bytes[1], n),
            kib(bytes[0], reqs[0]),
            kib(bytes[1], reqs[1]),
            seq as f64 / n.max(1) as f64,
            reqs[1] as f64 / n.max(1) as f64,
            new_pages as f64 / acc.max(1) as f64,
            kib(new_bytes, new_req),
        );
    }
}
