//! A disk: one serial FIFO server with a fixed service time per page (default 5 ms, the
//! dynamic-allocation paper's Table I). A page arriving at `t` completes at
//! `max(t, disk free) + service`, or the run ends with an error if that reaches the time horizon
//! ([`crate::time`]).

use crate::error::Result;
use crate::time::after;

/// The disk behind a flash cache.
#[derive(Debug, Clone)]
pub struct Disk {
    service_ns: u64,
    free_at: u64,
    pub busy_ns: u64,
    pub reads: u64,
    pub writes: u64,
}

impl Disk {
    pub fn new(service_ns: u64) -> Self {
        Disk { service_ns, free_at: 0, busy_ns: 0, reads: 0, writes: 0 }
    }

    #[inline]
    fn submit(&mut self, t: u64) -> Result<u64> {
        self.free_at = after(t.max(self.free_at), self.service_ns)?;
        self.busy_ns += self.service_ns;
        Ok(self.free_at)
    }

    #[inline]
    pub fn read(&mut self, t: u64) -> Result<u64> {
        self.reads += 1;
        self.submit(t)
    }

    #[inline]
    pub fn write(&mut self, t: u64) -> Result<u64> {
        self.writes += 1;
        self.submit(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_queue() {
        // 5 ms a page: reads at 0 and 1 ms end at 5 and 10 ms; a write at 20 ms finds it idle.
        let ms = 1_000_000;
        let mut d = Disk::new(5 * ms);
        assert_eq!((d.read(0).unwrap(), d.read(ms).unwrap(), d.write(20 * ms).unwrap()), (5 * ms, 10 * ms, 25 * ms));
        assert_eq!((d.reads, d.writes, d.busy_ns), (2, 1, 15 * ms));
    }
}
