//! Host requests as traces carry them, and the page accesses the cache stack sees.
//!
//! A reader yields [`HostRequest`]s (byte offset and length, time in nanoseconds, volume). The
//! [`PageSplitter`] turns each into the [`PageAccess`]es of the pages it touches, keeping the host
//! request's index so that response time can later be measured per host request.

/// The operation of a request. Trim invalidates the pages it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Op {
    Read = 0,
    Write = 1,
    Trim = 2,
}

impl Op {
    pub fn from_u8(v: u8) -> Option<Op> {
        match v {
            0 => Some(Op::Read),
            1 => Some(Op::Write),
            2 => Some(Op::Trim),
            _ => None,
        }
    }
}

/// One request as recorded in a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostRequest {
    /// Arrival time in nanoseconds (the reader converts its unit).
    pub time_ns: u64,
    /// Volume (disk, LUN, ASU, device) the request addresses; 0 for single-volume traces.
    pub volume: u32,
    /// Byte offset, or the object id for traces whose keys are ids (see [`KeyUnit`]).
    pub offset: u64,
    /// Length in bytes (ignored for id-keyed traces).
    pub len: u32,
    pub op: Op,
}

/// The largest request a trace may hold, in bytes: 1 GiB. Real block requests are at most a few
/// MiB (the shipped traces' largest is far below this); a larger size is almost surely a corrupt
/// or misread field, and each one would cost up to 2^18 page accesses (4 KiB pages), 2^21 at 512 B.
pub const MAX_REQUEST_BYTES: u64 = 1 << 30;

impl HostRequest {
    /// Whether a request read from a trace can be split into pages: at most
    /// [`MAX_REQUEST_BYTES`] long and, for byte-addressed keys, its last byte within the 64-bit
    /// address space. Every reader checks every request with it (one rule for all formats), so
    /// that [`PageSplitter::pages`] never sees a range that wraps. `Err` says which field is wrong.
    pub fn check(&self, unit: KeyUnit) -> Result<(), String> {
        Self::check_range(self.offset, self.len, unit)
    }

    /// [`HostRequest::check`] on the fields alone, for a reader that checks before it builds
    /// the request.
    #[inline]
    pub fn check_range(offset: u64, len: u32, unit: KeyUnit) -> Result<(), String> {
        if Self::range_ok(offset, len, unit) {
            Ok(())
        } else if u64::from(len) > MAX_REQUEST_BYTES {
            Err(format!("size {len} B is larger than the largest request fcsim accepts (1 GiB)"))
        } else {
            Err(format!("offset {offset} + size {len} B ends past the 64-bit byte address space"))
        }
    }

    /// Whether [`HostRequest::check_range`] accepts the fields: one branch-free test, for a
    /// reader that checks records in bulk.
    #[inline(always)]
    pub fn range_ok(offset: u64, len: u32, unit: KeyUnit) -> bool {
        let fits = u64::from(len) <= MAX_REQUEST_BYTES;
        let ends = offset.checked_add(u64::from(len.max(1)) - 1).is_some();
        (unit == KeyUnit::Object) | (fits & ends)
    }
}

/// What a trace's `offset` means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyUnit {
    /// A byte address: a request covers the pages of `[offset, offset + len)`.
    Bytes,
    /// An object id (libCacheSim traces): a request is exactly one page access with that key.
    Object,
}

/// Access time of a page that is never accessed again (offline policies).
pub const NEVER: u64 = u64::MAX;

/// One page touched by a host request: the unit the cache stack works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageAccess {
    /// Page key: `volume << VOLUME_SHIFT | page number`, or the object id.
    pub key: u64,
    pub op: Op,
    /// Index of the host request this access belongs to (0-based, in trace order).
    pub request: u64,
    pub time_ns: u64,
    /// Index (in page-access order) of the next access to the same key, or [`NEVER`]. Filled only
    /// for offline policies.
    pub next: u64,
}

/// Bits of a page key that hold the page number; the volume sits above them.
pub const VOLUME_SHIFT: u32 = 48;

/// Mask of the page-number bits of a key.
pub const PAGE_MASK: u64 = (1 << VOLUME_SHIFT) - 1;

/// The largest volume number a page key holds apart from the others (and `.fct` stores).
pub const MAX_VOLUME: u32 = (1 << (64 - VOLUME_SHIFT)) - 1;

/// Splits host requests into page accesses. Stateless apart from its page size and key unit, so
/// it never allocates: [`PageSplitter::pages`] returns the page range of a request.
///
/// **Keys never collide.** A byte-addressed page's key is `volume << 48 | page number`: volumes
/// 0 to [`MAX_VOLUME`] and page numbers below 2^48 (1 EiB of 4 KiB pages per volume), each
/// pair its own key. A request outside that space is refused, never folded onto another
/// volume's or a lower offset's key (which would count hits that never happened).
#[derive(Debug, Clone, Copy)]
pub struct PageSplitter {
    page_size: u32,
    shift: Option<u32>,
    unit: KeyUnit,
}

impl PageSplitter {
    /// `page_size` must be non-zero (validated by the config).
    pub fn new(page_size: u32, unit: KeyUnit) -> Self {
        let shift = page_size.is_power_of_two().then(|| page_size.trailing_zeros());
        PageSplitter { page_size, shift, unit }
    }

    /// The bytes of request `r` that lie in its `i`-th page (0-based, of those
    /// [`PageSplitter::pages`] gives): its whole length for an id-keyed trace (one page per
    /// object), else the overlap of `[offset, offset + len)` with the page; 0 for a zero-length
    /// request.
    #[inline]
    pub fn bytes_in_page(&self, r: &HostRequest, i: u64) -> u64 {
        if self.unit == KeyUnit::Object {
            return u64::from(r.len);
        }
        let ps = u64::from(self.page_size);
        let page = match self.shift {
            Some(s) => r.offset >> s,
            None => r.offset / ps,
        };
        let start = (page + i).saturating_mul(ps);
        let end = r.offset.saturating_add(u64::from(r.len));
        end.min(start.saturating_add(ps)).saturating_sub(r.offset.max(start))
    }

    /// The key of the first page and the number of pages a request touches. A zero-length
    /// request touches the one page holding its offset. Keys of one request are consecutive.
    /// `Err` says why a request has no keys of its own (a volume above [`MAX_VOLUME`], a page
    /// number of 2^48 or more); the caller locates it ([`crate::trace::TraceReader::error_at_last`]).
    /// A range past the end of the address space (refused by [`HostRequest::check`], which every
    /// reader applies) is cut at its end, never wrapped: the count is at most `len / page_size + 1`.
    #[inline]
    pub fn pages(&self, r: &HostRequest) -> Result<(u64, u64), Refused> {
        if self.unit == KeyUnit::Object {
            return Ok((r.offset, 1));
        }
        let end = r.offset.saturating_add(u64::from(r.len.max(1)) - 1);
        let (first, last) = match self.shift {
            Some(s) => (r.offset >> s, end >> s),
            None => (r.offset / u64::from(self.page_size), end / u64::from(self.page_size)),
        };
        // One test for both: a volume above MAX_VOLUME or a last page above PAGE_MASK.
        let volume = u64::from(r.volume);
        if (volume >> (64 - VOLUME_SHIFT)) | (last >> VOLUME_SHIFT) != 0 {
            return Err(Refused { volume: r.volume, offset: r.offset, len: r.len, page_size: self.page_size });
        }
        Ok((volume << VOLUME_SHIFT | first, last - first + 1))
    }

    /// [`PageSplitter::pages`] without its check: the same key and count for every request it
    /// accepts, numbers of no meaning for one it refuses. For what needs only the accepted
    /// requests' pages right (a hint, or a tally that a pass failing at the refused request
    /// never uses): a shift or a division, no test.
    #[inline(always)]
    pub fn pages_unchecked(&self, r: &HostRequest) -> (u64, u64) {
        if self.unit == KeyUnit::Object {
            return (r.offset, 1);
        }
        let end = r.offset.saturating_add(u64::from(r.len.max(1)) - 1);
        let (first, last) = match self.shift {
            Some(s) => (r.offset >> s, end >> s),
            None => (r.offset / u64::from(self.page_size), end / u64::from(self.page_size)),
        };
        (u64::from(r.volume).wrapping_shl(VOLUME_SHIFT) | first, last - first + 1)
    }
}

/// A request [`PageSplitter::pages`] refuses: its fields, for the message ([`std::fmt::Display`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    volume: u32,
    offset: u64,
    len: u32,
    page_size: u32,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.volume > MAX_VOLUME {
            write!(
                f,
                "volume {} is beyond the {} volumes fcsim keeps apart (0 to {MAX_VOLUME}); renumber the trace's volumes below {}",
                self.volume,
                u64::from(MAX_VOLUME) + 1,
                u64::from(MAX_VOLUME) + 1
            )
        } else {
            write!(
                f,
                "offset {} B + size {} B ends beyond the 2^48 pages of {} B a volume's page keys hold",
                self.offset, self.len, self.page_size
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(offset: u64, len: u32, volume: u32) -> HostRequest {
        HostRequest { time_ns: 0, volume, offset, len, op: Op::Read }
    }

    #[test]
    fn splits_into_touched_pages() {
        let s = PageSplitter::new(4096, KeyUnit::Bytes);
        assert_eq!(s.pages(&req(0, 4096, 0)).unwrap(), (0, 1));
        assert_eq!(s.pages(&req(4095, 2, 0)).unwrap(), (0, 2)); // straddles a page boundary
        assert_eq!(s.pages(&req(8192, 0, 0)).unwrap(), (2, 1)); // zero length: its own page
        assert_eq!(s.pages(&req(512, 16384, 0)).unwrap(), (0, 5));
        assert_eq!(s.pages(&req(4096, 4096, 3)).unwrap(), (3 << VOLUME_SHIFT | 1, 1));
        // Without the check, the same split of every request the check accepts.
        for page_size in [4096, 3000] {
            let s = PageSplitter::new(page_size, KeyUnit::Bytes);
            for r in [req(0, 4096, 0), req(4095, 2, 0), req(8192, 0, 0), req(512, 16384, 0), req(4096, 4096, 3), req(2999, 9001, 7)] {
                assert_eq!(Ok(s.pages_unchecked(&r)), s.pages(&r), "{r:?} at {page_size} B");
            }
        }
        assert_eq!(PageSplitter::new(4096, KeyUnit::Object).pages_unchecked(&req(77, 10_000, 0)), (77, 1));
    }

    #[test]
    fn bytes_of_a_request_in_each_page() {
        // 10,000 B from byte 3,000: pages 0-3 hold 1,096 (3,000-4,095), 4,096, 4,096 and 712
        // (12,288-12,999) bytes; they add up to the length.
        let s = PageSplitter::new(4096, KeyUnit::Bytes);
        let r = req(3000, 10_000, 0);
        assert_eq!(s.pages(&r).unwrap(), (0, 4));
        assert_eq!((0..4).map(|i| s.bytes_in_page(&r, i)).collect::<Vec<_>>(), [1096, 4096, 4096, 712]);
        assert_eq!(s.bytes_in_page(&req(8192, 0, 0), 0), 0);
        // An object's one page holds the whole object.
        assert_eq!(PageSplitter::new(4096, KeyUnit::Object).bytes_in_page(&req(77, 10_000, 0), 0), 10_000);
    }

    #[test]
    fn non_power_of_two_page_size() {
        let s = PageSplitter::new(3000, KeyUnit::Bytes);
        assert_eq!(s.pages(&req(2999, 2, 0)).unwrap(), (0, 2));
        assert_eq!(s.pages(&req(6000, 3000, 0)).unwrap(), (2, 1));
    }

    #[test]
    fn ranges_never_wrap() {
        let s = PageSplitter::new(4096, KeyUnit::Bytes);
        let top = req(u64::MAX - 999, 8192, 0);
        assert!(top.check(KeyUnit::Bytes).unwrap_err().to_string().contains("past the 64-bit byte address space"));
        assert!(top.check(KeyUnit::Object).is_ok());
        assert!(s.pages(&top).unwrap_err().to_string().contains("2^48 pages")); // never wrapped onto low keys
        assert_eq!(PageSplitter::new(1 << 16, KeyUnit::Bytes).pages(&top).unwrap().1, 1); // cut at the end
        assert!(req(u64::MAX, 1, 0).check(KeyUnit::Bytes).is_ok());
        assert!(req(u64::MAX, 0, 0).check(KeyUnit::Bytes).is_ok());
        assert!(req(u64::MAX, 2, 0).check(KeyUnit::Bytes).is_err());
        assert!(req(0, 1 << 30, 0).check(KeyUnit::Bytes).is_ok());
        assert!(req(0, (1 << 30) + 1, 0).check(KeyUnit::Bytes).unwrap_err().to_string().contains("1 GiB"));
    }

    #[test]
    fn keys_never_collide() {
        let s = PageSplitter::new(4096, KeyUnit::Bytes);
        // Volume 65536 was volume 0 and offset 2^60 B was offset 0 under a 64-bit shift-and-or.
        assert!(s.pages(&req(4096, 4096, MAX_VOLUME + 1)).unwrap_err().to_string().contains("volume 65536 is beyond the 65536 volumes"));
        assert_eq!(s.pages(&req(4096, 4096, MAX_VOLUME)).unwrap(), (u64::from(MAX_VOLUME) << VOLUME_SHIFT | 1, 1));
        assert!(s.pages(&req(1 << 60, 4096, 0)).unwrap_err().to_string().contains("offset 1152921504606846976 B"));
        assert_eq!(s.pages(&req((1 << 60) - 4096, 4096, 0)).unwrap(), (PAGE_MASK, 1));
        assert!(s.pages(&req((1 << 60) - 4096, 4097, 0)).is_err()); // its last page is outside
    }

    #[test]
    fn object_keys_are_one_page() {
        let s = PageSplitter::new(4096, KeyUnit::Object);
        assert_eq!(s.pages(&req(u64::MAX - 1, 1 << 20, 0)).unwrap(), (u64::MAX - 1, 1));
    }
}
