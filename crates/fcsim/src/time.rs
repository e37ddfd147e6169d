//! Simulated time: nanoseconds in a `u64`, and the bounds that keep its arithmetic exact. A leaf:
//! it uses nothing of fcsim but its error type.
//!
//! **The horizon.** Every time fcsim simulates — a trace's arrival times (after any time
//! scaling) and every completion a device computes — stays below [`HORIZON_NS`] = 2^64 − 2^62 ns
//! (about 438 years after the trace clock's zero: Windows FILETIME traces such as MSR Cambridge
//! count from 1601, so the horizon is not relative to the first request), and every single
//! duration — a latency, a GC job, the disk's service time, an epoch — below
//! [`MAX_DURATION_NS`] = 2^60 ns (about 36.5 years). So a time plus up to four durations is below
//! 2^64 and cannot overflow, and a completion is checked against the horizon once, by [`after`],
//! before it is used as a time. Readers refuse a request whose time is past the horizon
//! ([`check_trace_time`]), configurations refuse a duration beyond the limit ([`duration_ns`]),
//! and a run whose queues would carry the clock past the horizon stops with an error instead
//! of wrapping around.

use crate::error::{compact, Error, Result};

/// Times stay below this, in ns: 2^64 − 2^62.
pub const HORIZON_NS: u64 = 3 << 62;

/// Single durations stay below this, in ns: 2^60.
pub const MAX_DURATION_NS: u64 = 1 << 60;

/// The horizon in words, for messages.
pub const HORIZON: &str = "2^64 - 2^62 ns, about 438 years";

/// Nanoseconds in a Julian year, for messages.
const YEAR_NS: f64 = 365.25 * 86_400e9;

/// A duration given as `value` in a unit of `unit_ns` nanoseconds (a configuration key), in
/// whole ns: rounded, and below [`MAX_DURATION_NS`]. `Err` names `key` (with its section, such
/// as `device.read_us`), the value, `what` was expected (such as "a latency in microseconds
/// (>= 0)") and, when the value is too large, the largest accepted.
pub fn duration_ns(key: &str, value: f64, unit_ns: f64, what: &str) -> Result<u64> {
    if !(value >= 0.0 && value.is_finite()) {
        return Err(Error::config(format!("{key}={}: expected {what}", compact(value))));
    }
    let ns = (value * unit_ns).round();
    if ns >= MAX_DURATION_NS as f64 {
        return Err(Error::config(format!(
            "{key}={}: expected {what} below {} (a duration in fcsim stays below 2^60 ns, about {:.1} years)",
            compact(value),
            compact(MAX_DURATION_NS as f64 / unit_ns),
            MAX_DURATION_NS as f64 / YEAR_NS
        )));
    }
    Ok(ns as u64)
}

/// Whether a trace's arrival time is below the horizon; `Err` says what is wrong with it, for
/// the reader to report with the file and line.
#[inline]
pub fn check_trace_time(time_ns: u64) -> std::result::Result<(), String> {
    if time_ns < HORIZON_NS {
        Ok(())
    } else {
        Err(format!("time {time_ns} ns is past the latest time fcsim simulates ({HORIZON})"))
    }
}

/// `t + d`: when an op that starts at `t` (a time, below the horizon) and lasts `d` (a duration,
/// below [`MAX_DURATION_NS`]) completes. The sum cannot overflow; `Err` when it reaches the
/// horizon, which only a queue of absurd length can do (latencies near the limit, a trace at
/// the end of the range).
#[inline]
pub fn after(t: u64, d: u64) -> Result<u64> {
    let end = t + d;
    if end < HORIZON_NS {
        Ok(end)
    } else {
        Err(past_horizon(end))
    }
}

#[cold]
fn past_horizon(end: u64) -> Error {
    Error::config(format!(
        "an operation would complete at {end} ns, past the latest time fcsim simulates ({HORIZON}): the trace's times \
         plus the device's queueing delays are too long; lower the latencies (device.*_us, stack.disk_ms) or sim.time_scale"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_plus_four_durations_fits_64_bits() {
        assert!((HORIZON_NS - 1).checked_add(4 * (MAX_DURATION_NS - 1)).is_some());
        assert_eq!(after(1, 2).unwrap(), 3);
        assert!(after(HORIZON_NS - 1, 1).is_err());
        assert!(check_trace_time(HORIZON_NS - 1).is_ok());
        assert!(check_trace_time(u64::MAX).unwrap_err().contains("438 years"));
    }

    #[test]
    fn durations_name_their_key_and_limit() {
        assert_eq!(duration_ns("device.read_us", 25.0, 1e3, "a latency").unwrap(), 25_000);
        assert_eq!(duration_ns("x", 0.0, 1e3, "a latency").unwrap(), 0);
        let e = duration_ns("device.read_us", 1e300, 1e3, "a latency in microseconds (>= 0)").unwrap_err().to_string();
        assert_eq!(
            e,
            "device.read_us=1e300: expected a latency in microseconds (>= 0) below 1152921504606847 \
             (a duration in fcsim stays below 2^60 ns, about 36.5 years)"
        );
        for v in [f64::NAN, -1.0, f64::INFINITY] {
            assert!(duration_ns("stack.disk_ms", v, 1e6, "a service time").unwrap_err().to_string().starts_with("stack.disk_ms="));
        }
    }
}
