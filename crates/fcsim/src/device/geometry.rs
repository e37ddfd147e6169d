//! The physical array of a flash device and how addresses decompose.
//!
//! Chips are numbered so that consecutive chip numbers sit on different channels: chip `c` is on
//! channel `c mod channels`. A chip holds `dies × planes` planes, numbered `chip × planes_per_chip
//! + i`; a plane holds `blocks` blocks, numbered `plane × blocks + j`; a block holds
//! `pages_per_block` pages, numbered `block × pages_per_block + k`.

/// `x / d`, by a shift when `d` is a power of two (as geometries usually are): a hardware
/// division costs tens of cycles, and the FTL divides several times per page write.
#[inline]
pub fn div(x: u32, d: u32) -> u32 {
    if d.is_power_of_two() {
        x >> d.trailing_zeros()
    } else {
        x / d
    }
}

/// `x mod d`, by a mask when `d` is a power of two.
#[inline]
pub fn rem(x: u32, d: u32) -> u32 {
    if d.is_power_of_two() {
        x & (d - 1)
    } else {
        x % d
    }
}

/// Channels × chips per channel × dies × planes × blocks per plane × pages per block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies: u32,
    /// Planes per die.
    pub planes: u32,
    /// Blocks per plane.
    pub blocks: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
}

impl Geometry {
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }

    pub fn planes_per_chip(&self) -> u32 {
        self.dies * self.planes
    }

    pub fn total_planes(&self) -> u32 {
        self.chips() * self.planes_per_chip()
    }

    pub fn total_blocks(&self) -> u32 {
        self.total_planes() * self.blocks
    }

    pub fn physical_pages(&self) -> u64 {
        u64::from(self.total_blocks()) * u64::from(self.pages_per_block)
    }

    #[inline]
    pub fn chip_of_plane(&self, plane: u32) -> u32 {
        div(plane, self.planes_per_chip())
    }

    #[inline]
    pub fn channel_of_chip(&self, chip: u32) -> u32 {
        rem(chip, self.channels)
    }

    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        div(block, self.blocks)
    }

    #[inline]
    pub fn block_of_page(&self, ppn: u32) -> u32 {
        div(ppn, self.pages_per_block)
    }

    /// Static striping (DiskSim's SSD model): logical page `lpn` lives on chip `lpn mod chips`,
    /// and on plane `(lpn / chips) mod planes_per_chip` of that chip.
    #[inline]
    pub fn static_plane(&self, lpn: u32) -> u32 {
        let (chips, ppc) = (self.chips(), self.planes_per_chip());
        rem(lpn, chips) * ppc + rem(div(lpn, chips), ppc)
    }
}
