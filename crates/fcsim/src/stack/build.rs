//! The stack's shapes and their assembly (issue 46; before, inside `run.rs:simulate`): from a
//! typed [`Spec`] (the policy, the size in pages, the stack and device configuration) to a
//! [`Plan`], every check done and nothing built (what `fcsim.check` runs), then to a [`Built`]
//! stack, the flash built and preconditioned.
//!
//! The shapes, one variant of [`Shape`] each:
//!
//! | shape | top tier | below |
//! |---|---|---|
//! | [`Shape::Cache`] | the policy | nothing (counted only) |
//! | [`Shape::Buffer`] | the policy, a DRAM buffer | a flash SSD ([`crate::device::Flash`]) |
//! | [`Shape::Ssd`] | the policy, a flash cache | its SSD and the disk ([`SsdCache`]), a split's controller |
//! | [`Shape::Layered`] | a DRAM LRU (`stack.dram` of the cache) | the policy's flash tier over [`SsdCache`] |
//!
//! Sizes are typed from here to the device ([`Sizing`]): a flash cache's SSD has the cache's
//! pages as its user capacity unless `device.capacity` says otherwise; a split SSD's raw capacity
//! is the size and its spare the least share a split allows. Adding a shape: a variant of
//! [`Shape`] over the backing it needs (implementing [`crate::device::Backing`] and [`super::Lower`]),
//! one arm in [`Plan::build`]'s match, and its row in `run.rs`.

use super::admission::{Admission, AdmitParams};
use super::budget::Budget;
use super::config::{StackConfig, StackKind};
use super::control::Controller;
use super::split::{CostModel, Split, SplitMode, SPLITS};
use super::value::Stack;
use super::{Below, SsdCache, Tier};
use crate::device::{no_device, Buffer, DeviceConfig, Disk, Eviction, Flash, Layout, NoDevice, Sizing};
use crate::error::{Error, Result};
use crate::params::UsedParams;
use crate::policy::{self, PolicyInfo};
use crate::trace::Progress;
use std::collections::BTreeMap;

/// The device of a flash cache when none is named: the offline-bounds paper's (2 MiB erase
/// units, OP 7%), sized to the cache.
pub const DEFAULT_SSD_CACHE_DEVICE: &str = "offline";

/// What a stack is built from, typed: the run's configuration after its size is known.
#[derive(Debug)]
pub struct Spec<'a> {
    /// The policy as named (its registry row is `info`).
    pub policy: &'a str,
    pub info: &'static PolicyInfo,
    /// The policy's parameters (`--set NAME.KEY=VALUE`, without the prefix).
    pub policy_params: BTreeMap<String, String>,
    pub stack: StackConfig,
    /// The cache size in pages (0 for `none`, which caches nothing).
    pub size: u64,
    pub page_size: u32,
    /// The device preset named, if any.
    pub device: Option<&'a str>,
    /// The `device.` keys given (without the prefix).
    pub device_params: &'a BTreeMap<String, String>,
    /// A flash cache's disks: how pages are placed on them.
    pub disk_layout: Option<Layout>,
}

/// A split SSD as the row shows it.
#[derive(Debug, Clone, Copy)]
pub struct SplitShape {
    pub physical: u64,
    pub model: CostModel,
}

/// A stack checked and ready to build: what [`Plan::new`] refuses, it refuses before the
/// device is built.
pub struct Plan {
    needs_view: bool,
    stack: StackConfig,
    disk_layout: Option<Layout>,
    page_size: u32,
    device: Option<DeviceConfig>,
    /// The device's parameters, for the row.
    device_params: Option<UsedParams>,
    /// Pages of the DRAM tier in front of a flash cache (0: none).
    dram_pages: usize,
    /// A split SSD, and its dynamic controller.
    split: Option<SplitShape>,
    controller: Option<Split>,
    capacity: usize,
    policy: Box<dyn policy::Policy>,
    /// The flash-cache tier's admission policy (`--admit`), built, and the write-budget
    /// controller that turns its knob.
    admission: Option<Box<dyn Admission>>,
    budget: Option<Budget>,
    /// The policy's parameters, for the row.
    params: UsedParams,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan").field("stack", &self.stack).field("capacity", &self.capacity).finish()
    }
}

impl Plan {
    /// The cache tier's capacity in pages.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The flash-cache tier's admission policy, if any (the run tells a learned one its split).
    pub fn admission_mut(&mut self) -> Option<&mut (dyn Admission + 'static)> {
        self.admission.as_deref_mut()
    }

    /// Checks `spec` and builds the policy; the device is configured, not built.
    pub fn new(spec: Spec<'_>) -> Result<Plan> {
        let Spec { policy: name, info, policy_params, stack, size, page_size, device, device_params, disk_layout } = spec;
        let ssd = stack.kind == StackKind::SsdCache;
        // A flash cache's SSD holds the cache: its user capacity is the cache size. A split SSD's
        // raw capacity is the size; its logical space holds the largest cache a split allows.
        let sizing = if let Some(mode) = stack.split {
            if let Some(k) = ["capacity", "physical", "op"].into_iter().find(|k| device_params.contains_key(*k)) {
                return Err(Error::config(format!(
                    "device.{k}: with stack.split the SSD's raw capacity is --size and its spare share the split; drop device.{k}"
                )));
            }
            let least = match mode {
                SplitMode::Static(s) => s.min(SPLITS[0]),
                SplitMode::Dynamic(_) => SPLITS[0],
            };
            Sizing::Physical { pages: size.max(1), op: least / (1.0 - least) }
        } else if ssd {
            Sizing::Capacity(size.max(1))
        } else {
            Sizing::Keys
        };
        let preset = device.or(ssd.then_some(DEFAULT_SSD_CACHE_DEVICE));
        let device = preset.map(|p| DeviceConfig::build_sized(p, device_params, page_size, sizing)).transpose()?;
        if info.needs_view && (device.is_none() || ssd) {
            return Err(Error::config(format!(
                "{} chooses victims by the flash device's chip loads: run it as the DRAM buffer over a flash device (--device lcr); without that view it would be CFLRU",
                info.name
            )));
        }
        let dram_pages = (stack.dram * size as f64).round() as usize;
        if dram_pages > 0 && info.offline {
            return Err(Error::config(format!("{} is offline: it cannot run below a DRAM tier (set stack.dram=0)", info.name)));
        }
        // A split SSD: the cache's size follows from the drive's raw pages (whole blocks).
        let (split, controller, capacity) = match (stack.split, &device) {
            (Some(mode), Some((dc, _))) => {
                let physical = dc.geometry.physical_pages();
                let model = CostModel {
                    read_ns: dc.read_ns as f64,
                    write_ns: dc.write_ns as f64,
                    erase_ns: dc.erase_ns as f64,
                    // Eq. 5's disk access latency: the disk's expected random single-page read.
                    disk_ns: stack.disk.model.random_page_ns(page_size),
                    pages_per_block: f64::from(dc.geometry.pages_per_block),
                    // The per-request rule's parallelism: the chips, which program at once.
                    parallel: f64::from(dc.geometry.chips()),
                };
                let shape = Some(SplitShape { physical, model });
                match mode {
                    SplitMode::Static(s) => (shape, None, Split::cache_pages(physical, s)),
                    SplitMode::Dynamic(d) => {
                        d.check(physical, dc.geometry.pages_per_block)?;
                        let ctl = Split::new(physical, model, d);
                        let cap = ctl.capacity();
                        (shape, Some(ctl), cap)
                    }
                }
            }
            _ => (None, None, size.max(1) as usize),
        };
        let (mut policy, params) = policy::build(name, capacity, policy_params)?;
        if controller.is_some() && !policy.resize(capacity, &mut Vec::new()) {
            return Err(Error::config(format!(
                "{} cannot change its size; stack.split=dynamic resizes the cache (use lru, as the paper)",
                info.name
            )));
        }
        let (device, device_params) = device.map_or((None, None), |(d, u)| (Some(d), Some(u)));
        // The admission is built here, so that what it refuses (its parameters against the
        // tier) is refused before the device is built.
        let admission =
            stack.admit.map(|a| (a.make)(&AdmitParams { values: stack.admit_values.clone(), capacity, dram_pages })).transpose()?;
        let knob = stack.admit.and_then(|a| a.knob.and_then(|k| a.params.iter().find(|p| p.name == k)));
        let budget = match (stack.budget, knob) {
            (Some(b), Some(knob)) => Some(Budget::new(b, capacity as u64, page_size, knob.lo, knob.hi)),
            _ => None,
        };
        Ok(Plan {
            admission,
            budget,
            needs_view: info.needs_view,
            stack,
            disk_layout,
            page_size,
            device,
            device_params,
            dram_pages,
            split,
            controller,
            capacity,
            policy,
            params,
        })
    }

    /// Builds the stack: the flash built and preconditioned (which `progress` follows and can
    /// stop), the disk, the tiers, the controller in its slot.
    pub fn build(self, progress: Option<Progress<'_>>) -> Result<Built> {
        let Plan {
            needs_view,
            stack,
            disk_layout,
            page_size,
            device,
            device_params,
            dram_pages,
            split,
            controller,
            capacity,
            policy,
            admission,
            budget,
            params,
        } = self;
        let mut tier = Tier::with_mode(policy, capacity, stack.write);
        tier.admission = admission;
        let shape = match device {
            None => Shape::Cache(Box::new(Stack::new(tier, no_device()))),
            Some(dc) => {
                let (dram_ns, eviction) = (dc.dram_ns, dc.eviction);
                let mut flash = Flash::new(dc, progress)?;
                if stack.kind != StackKind::SsdCache {
                    // Only a policy that declares the device view reads a chip's load (the
                    // windowed rules of GCaR and LCR); for every other the chips keep no queue.
                    flash.keep_queue(needs_view);
                    Shape::Buffer(Box::new(Stack::new(tier, Buffer { store: flash, dram_ns, eviction })))
                } else {
                    let mut disk = Disk::new(stack.disk.model.clone(), disk_layout.unwrap_or(Layout::Single), page_size)?;
                    disk.set_dt_window(stack.disk.dt_window_ns);
                    let cache = SsdCache::new(flash, disk, stack.write);
                    if dram_pages > 0 {
                        let lru = policy::build("lru", dram_pages, Default::default())?.0;
                        let below = Buffer { store: Below { tier, dev: cache }, dram_ns, eviction: Eviction::Parallel };
                        Shape::Layered(Box::new(Stack::new(Tier::new(lru, dram_pages), below)))
                    } else {
                        let mut s = Stack::new(tier, cache);
                        s.controller = controller
                            .map(|c| Box::new(c) as Box<dyn Controller<SsdCache>>)
                            .or_else(|| budget.map(|b| Box::new(b) as Box<dyn Controller<SsdCache>>));
                        Shape::Ssd(Box::new(s))
                    }
                }
            }
        };
        Ok(Built { shape, device_params, dram_pages, split, params })
    }
}

/// A built stack and what its row shows of how it was built.
#[derive(Debug)]
pub struct Built {
    pub shape: Shape,
    /// The device's parameters.
    pub device_params: Option<UsedParams>,
    /// Pages of the DRAM tier in front of a flash cache (0: none).
    pub dram_pages: usize,
    /// A split SSD.
    pub split: Option<SplitShape>,
    /// The policy's parameters.
    pub params: UsedParams,
}

/// A built stack, by shape (see the module docs); boxed, as the shapes' sizes differ.
#[derive(Debug)]
pub enum Shape {
    /// A cache with nothing below it.
    Cache(Box<Stack<Buffer<NoDevice>>>),
    /// A DRAM buffer over a flash SSD.
    Buffer(Box<Stack<Buffer<Flash>>>),
    /// A flash cache over a disk.
    Ssd(Box<Stack<SsdCache>>),
    /// A DRAM LRU tier over a flash cache over a disk.
    Layered(Box<Stack<Buffer<Below<SsdCache>>>>),
}
