//! A paper profile's table counts against what it generates, on each model (issue 40):
//! `cargo run --release --example profile_counts -- [SCALE] [NAME...]` prints, per profile and
//! model (stack, renewal, and for a profile whose table gives locality the renewal one with
//! `ablate=locality`): requests, unique pages, write share, mean request size, each op's
//! locality p (the share of its pages that hold 1 - p of its accesses, as `fcsim trace info`
//! measures it; GASA's tables give it) and the generation speed (requests per CPU second of
//! this thread, the opening included). SCALE multiplies every profile's table (default 0.05).

use fcsim::trace::clone::profile::{open, ProfileSpec};
use fcsim::trace::info::Locality;
use fcsim::trace::profiles::{Size, PROFILES};
use rustc_hash::FxHashMap;

const PAGE: u64 = 4096;

/// CPU seconds of this thread (user and system, from `/proc/thread-self/stat`, in the
/// kernel's ticks of 10 ms: time runs of a second or more).
fn cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces), from field 3 on.
    let rest = stat.rsplit_once(')').map_or("", |x| x.1);
    let f: Vec<f64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scale: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(0.05);
    let names: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    println!("| profile | model | requests | pages (table) | writes (table) | mean size B (table) | read p (table) | write p (table) | requests/CPU s |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for p in PROFILES.iter().filter(|p| names.is_empty() || names.contains(&p.name)) {
        // A profile with a table's locality runs a third time with its lever off.
        let models: &[&str] = if p.locality.is_some() { &["stack", "renewal", "renewal,ablate=locality"] } else { &["stack", "renewal"] };
        for model in models {
            let spec = format!("profile={},scale={scale},model={model}", p.name);
            let t = ProfileSpec::parse(&spec).unwrap().targets();
            let start = cpu();
            let mut g = open(&spec).unwrap_or_else(|e| panic!("{e}"));
            let (mut n, mut w, mut bytes) = (0u64, 0u64, 0u64);
            let mut counts: FxHashMap<u64, [u32; 2]> = FxHashMap::default();
            while let Some(r) = g.next_request().unwrap() {
                n += 1;
                let o = usize::from(r.op == fcsim::request::Op::Write);
                w += o as u64;
                bytes += u64::from(r.len);
                for page in r.offset / PAGE..=(r.offset + u64::from(r.len.max(1)) - 1) / PAGE {
                    counts.entry(page).or_default()[o] += 1;
                }
            }
            let speed = n as f64 / (cpu() - start);
            let want = match p.size {
                Size::Page => PAGE as f64,
                Size::Mean(b) => b,
            };
            let loc = |o: usize| Locality::of(counts.values().map(|c| c[o])).map_or("-".to_string(), |l| format!("{:.3}", l.pages));
            let table = |o: usize| p.locality.map_or("-".to_string(), |l| format!("{}", l[o].0));
            println!(
                "| {} | {model} | {n} ({}) | {} ({}) | {:.4} ({}) | {:.0} ({want:.0}) | {} ({}) | {} ({}) | {:.0} |",
                p.name,
                t.requests,
                counts.len(),
                t.pages,
                w as f64 / n as f64,
                t.write,
                bytes as f64 / n as f64,
                loc(0),
                table(0),
                loc(1),
                table(1),
                speed
            );
        }
    }
}
