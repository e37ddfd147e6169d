//! Seeded synthetic traces, for tests, benchmarks and what-if studies.
//!
//! A spec is `KIND[,key=value...]`, used as the trace path `synth:KIND,...` everywhere a trace
//! is accepted (CLI, Python, experiment files). Kinds choose the first page of each request:
//!
//! | kind      | page chosen |
//! |-----------|-------------|
//! | `zipf`    | rank r in 1..=pages with P(r) ∝ r^-alpha (rejection-inversion, `rand_distr::Zipf`); page r-1 |
//! | `uniform` | uniform over 0..pages |
//! | `scan`    | 0, 1, 2, ... (one sequential pass; wraps after `pages`) |
//! | `loop`    | 0, 1, ..., pages-1, 0, 1, ... |
//! | `hotcold` | with probability `hot_prob` uniform over the first `hot`·pages pages, else over the rest |
//!
//! Common keys: `requests` (1000000), `pages` (working set, 100000), `seed` (42), `alpha` (1.0),
//! `hot` (0.2), `hot_prob` (0.8), `write` (share of writes, 0), `size` (request size in bytes:
//! `4096`, or `4096-65536` for sizes uniform in whole pages), `unit` (page unit of the addresses,
//! 4096), `iops` (mean rate of Poisson arrivals, 1000; 0 puts every request at time 0), `phases`
//! (number of phases, 1: phase i shifts every page by i·pages, so each phase has a working set of
//! its own), `volume` (0).
//! A request that spans several pages starts at the chosen page. The same spec gives the same
//! trace on every machine (the generator's RNG and distributions are pinned by Cargo.lock).

use super::TraceReader;
use crate::error::{Error, Result};
use crate::request::{HostRequest, Op, MAX_REQUEST_BYTES};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, Zipf};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Zipf,
    Uniform,
    Scan,
    Loop,
    HotCold,
}

/// A parsed `synth:` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    kind: Kind,
    pub requests: u64,
    pub pages: u64,
    seed: u64,
    alpha: f64,
    hot: f64,
    hot_prob: f64,
    write: f64,
    size: (u64, u64),
    unit: u64,
    iops: f64,
    phases: u64,
    volume: u32,
}

fn bad(key: &str, v: &str, what: &str) -> Error {
    Error::config(format!("synth: {key}={v}: expected {what}"))
}

fn num<T: std::str::FromStr>(key: &str, v: &str, what: &str) -> Result<T> {
    // Allow 5e6 and 1_000_000 for counts.
    let clean = v.replace('_', "");
    clean.parse::<T>().or_else(|_| {
        clean
            .parse::<f64>()
            .ok()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .and_then(|f| format!("{f:.0}").parse::<T>().ok())
            .ok_or_else(|| bad(key, v, what))
    })
}

fn share(key: &str, v: &str) -> Result<f64> {
    let x: f64 = num(key, v, "a number in [0, 1]")?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err(bad(key, v, "a number in [0, 1]"))
    }
}

impl Spec {
    pub fn parse(spec: &str) -> Result<Spec> {
        let mut parts = spec.split(',').map(str::trim);
        let kind = match parts.next().unwrap_or("") {
            "zipf" => Kind::Zipf,
            "uniform" => Kind::Uniform,
            "scan" => Kind::Scan,
            "loop" => Kind::Loop,
            "hotcold" => Kind::HotCold,
            k => return Err(Error::config(format!("synth: unknown kind '{k}'; expected zipf, uniform, scan, loop or hotcold"))),
        };
        let mut s = Spec {
            kind,
            requests: 1_000_000,
            pages: 100_000,
            seed: 42,
            alpha: 1.0,
            hot: 0.2,
            hot_prob: 0.8,
            write: 0.0,
            size: (4096, 4096),
            unit: 4096,
            iops: 1000.0,
            phases: 1,
            volume: 0,
        };
        let mut size = None;
        for part in parts.filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| Error::config(format!("synth: expected key=value, found '{part}'")))?;
            match k {
                "requests" | "n" => s.requests = num(k, v, "a positive integer")?,
                "pages" => s.pages = num(k, v, "a positive integer")?,
                "seed" => s.seed = num(k, v, "an unsigned integer")?,
                "alpha" => s.alpha = num(k, v, "a non-negative number")?,
                "hot" => s.hot = share(k, v)?,
                "hot_prob" => s.hot_prob = share(k, v)?,
                "write" => s.write = share(k, v)?,
                "size" => size = Some(v.to_string()),
                "unit" => s.unit = num(k, v, "a positive integer")?,
                "iops" => s.iops = num(k, v, "a non-negative number")?,
                "phases" => s.phases = num(k, v, "a positive integer")?,
                "volume" => s.volume = num(k, v, "an unsigned integer")?,
                _ => {
                    return Err(Error::config(format!(
                        "synth: unknown key '{k}'; expected requests, pages, seed, alpha, hot, hot_prob, write, size, unit, iops, phases or volume"
                    )))
                }
            }
        }
        if s.unit == 0 {
            return Err(bad("unit", "0", "a positive integer"));
        }
        if let Some(v) = size {
            let (lo, hi) = v.split_once('-').unwrap_or((&v, &v));
            s.size = (num("size", lo, "bytes, or MIN-MAX")?, num("size", hi, "bytes, or MIN-MAX")?);
        } else {
            s.size = (s.unit, s.unit);
        }
        if s.requests == 0 || s.pages == 0 || s.phases == 0 {
            return Err(Error::config("synth: requests, pages and phases must be positive"));
        }
        if s.size.0 == 0 || s.size.0 > s.size.1 || s.size.1 > MAX_REQUEST_BYTES {
            return Err(Error::config(format!("synth: size {}-{} must be 1 ≤ MIN ≤ MAX ≤ 1 GiB", s.size.0, s.size.1)));
        }
        // Every request's byte range, and the phase arithmetic, fit 64 bits (as a reader checks).
        let end = s.pages.checked_mul(s.phases).and_then(|p| p.checked_mul(s.unit)).and_then(|b| b.checked_add(s.size.1));
        if end.is_none() || s.requests.checked_mul(s.phases).is_none() {
            return Err(Error::config("synth: pages × phases × unit + size, and requests × phases, must fit 64 bits"));
        }
        if !(s.alpha >= 0.0 && s.alpha.is_finite() && s.iops >= 0.0 && s.iops.is_finite()) {
            return Err(Error::config("synth: alpha and iops must be finite and non-negative"));
        }
        Ok(s)
    }
}

/// Streams the requests of a [`Spec`].
#[derive(Debug)]
pub struct Generator {
    spec: Spec,
    rng: StdRng,
    zipf: Option<Zipf<f64>>,
    gap: Option<Exp<f64>>,
    i: u64,
    time_ns: f64,
}

impl Generator {
    pub fn from_spec(spec: &str) -> Result<Generator> {
        Self::new(Spec::parse(spec)?)
    }

    pub fn new(spec: Spec) -> Result<Generator> {
        let zipf = match spec.kind {
            Kind::Zipf => Some(Zipf::new(spec.pages, spec.alpha).map_err(|e| Error::config(format!("synth: zipf: {e}")))?),
            _ => None,
        };
        let gap =
            (spec.iops > 0.0).then(|| Exp::new(spec.iops / 1e9)).transpose().map_err(|e| Error::config(format!("synth: iops: {e}")))?;
        Ok(Generator { rng: StdRng::seed_from_u64(spec.seed), spec, zipf, gap, i: 0, time_ns: 0.0 })
    }

    fn page(&mut self) -> u64 {
        let s = &self.spec;
        let n = s.pages;
        match s.kind {
            Kind::Zipf => self.zipf.as_ref().map_or(0, |z| z.sample(&mut self.rng) as u64 - 1).min(n - 1),
            Kind::Uniform => self.rng.gen_range(0..n),
            Kind::Scan | Kind::Loop => self.i % n,
            Kind::HotCold => {
                let hot = ((s.hot * n as f64) as u64).clamp(1, n);
                if hot == n || self.rng.gen_bool(s.hot_prob) {
                    self.rng.gen_range(0..hot)
                } else {
                    self.rng.gen_range(hot..n)
                }
            }
        }
    }
}

impl TraceReader for Generator {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if self.i == self.spec.requests {
            return Ok(None);
        }
        let phase = self.i * self.spec.phases / self.spec.requests;
        let page = self.page() + phase * self.spec.pages;
        let (lo, hi) = self.spec.size;
        let len = if lo == hi {
            lo
        } else {
            let unit = self.spec.unit;
            let pages = self.rng.gen_range(lo.div_ceil(unit)..=hi.div_ceil(unit).max(1));
            (pages * unit).clamp(lo, hi)
        };
        let op = if self.spec.write > 0.0 && self.rng.gen_bool(self.spec.write) { Op::Write } else { Op::Read };
        if let Some(gap) = &self.gap {
            self.time_ns += gap.sample(&mut self.rng);
        }
        self.i += 1;
        Ok(Some(HostRequest { time_ns: self.time_ns as u64, volume: self.spec.volume, offset: page * self.spec.unit, len: len as u32, op }))
    }

    fn format(&self) -> &'static str {
        "synth"
    }

    /// `iops=0` puts every request at time 0: no arrival process to time them by.
    fn timed(&self) -> bool {
        self.gap.is_some()
    }

    fn progress(&self) -> (u64, u64) {
        (self.i, self.spec.requests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(spec: &str) -> Vec<HostRequest> {
        let mut g = Generator::from_spec(spec).unwrap();
        let mut v = Vec::new();
        while let Some(r) = g.next_request().unwrap() {
            v.push(r);
        }
        v
    }

    #[test]
    fn same_seed_same_trace() {
        assert_eq!(collect("zipf,requests=1000,seed=7,write=0.5"), collect("zipf,requests=1000,seed=7,write=0.5"));
        assert_ne!(collect("zipf,requests=1000,seed=7"), collect("zipf,requests=1000,seed=8"));
    }

    #[test]
    fn loop_and_scan_are_sequential() {
        let v = collect("loop,requests=7,pages=3,iops=0");
        let pages: Vec<u64> = v.iter().map(|r| r.offset / 4096).collect();
        assert_eq!(pages, [0, 1, 2, 0, 1, 2, 0]);
        assert!(v.iter().all(|r| r.time_ns == 0 && r.len == 4096 && r.op == Op::Read));
    }

    #[test]
    fn zipf_is_skewed_and_in_range() {
        let v = collect("zipf,requests=20000,pages=1000,alpha=1.0");
        let top = v.iter().filter(|r| r.offset == 0).count();
        assert!(v.iter().all(|r| r.offset / 4096 < 1000));
        // P(rank 1) = 1 / H(1000) ≈ 0.134 for alpha = 1
        assert!((2300..3100).contains(&top), "rank-1 count {top}");
    }

    #[test]
    fn mix_sizes_phases_and_arrivals() {
        let v = collect("uniform,requests=10000,pages=100,write=0.3,size=4096-16384,phases=2,iops=1000");
        let writes = v.iter().filter(|r| r.op == Op::Write).count();
        assert!((2700..3300).contains(&writes));
        assert!(v.iter().all(|r| [4096, 8192, 12288, 16384].contains(&r.len)));
        assert!(v[..5000].iter().all(|r| r.offset / 4096 < 100) && v[5000..].iter().all(|r| r.offset / 4096 >= 100));
        let mean_gap = v.last().unwrap().time_ns as f64 / 10000.0;
        assert!((0.9e6..1.1e6).contains(&mean_gap), "mean gap {mean_gap} ns");
    }

    #[test]
    fn hotcold_prefers_hot_pages() {
        let v = collect("hotcold,requests=10000,pages=1000,hot=0.1,hot_prob=0.9");
        let hot = v.iter().filter(|r| r.offset / 4096 < 100).count();
        assert!((8700..9300).contains(&hot));
    }

    #[test]
    fn bad_specs_are_config_errors() {
        for s in ["nope", "zipf,alpha", "zipf,foo=1", "zipf,write=2", "zipf,size=8-4", "zipf,requests=0", "uniform,size=1073741825"] {
            assert!(matches!(Generator::from_spec(s), Err(Error::Config(_))), "{s}");
        }
        // Byte ranges past 2^64 are refused as a reader refuses them.
        for s in ["uniform,pages=4503599627370496", "uniform,pages=1000,unit=18446744073709551615", "scan,phases=4611686018427387904"] {
            assert!(matches!(Generator::from_spec(s), Err(Error::Config(_))), "{s}");
        }
    }
}
