// SPDX-License-Identifier: GPL-2.0

//! The decisions of the SLUB per-cpu partial accounting, as pure functions
//! of their inputs: a module of `mm/slub_partial.rs`, which applies them to
//! caches and slabs.
//!
//! Nothing here touches the kernel, so the same file is also compiled on
//! the host with a test harness (`tools/testing/slub_partial/`, run by
//! `make test` and `make rusttest`): the crate that includes it
//! provides `c_int` and `PAGE_SIZE`.

use super::{c_int, PAGE_SIZE};

/// Default object target by object size: the first row whose minimum size
/// the object reaches gives the target.
const DEFAULT_CPU_PARTIAL: [(usize, u32); 4] = [(PAGE_SIZE, 6), (1024, 24), (256, 52), (0, 120)];

/// The default object target of a cache whose objects take `size` bytes.
pub(crate) fn default_cpu_partial(size: u32, has_cpu_partial: bool) -> u32 {
    if !has_cpu_partial {
        return 0;
    }
    let size = size as usize;
    DEFAULT_CPU_PARTIAL
        .iter()
        .find(|&&(min_size, _)| size >= min_size)
        .map_or(0, |&(_, target)| target)
}

/// The slab limit for an object target, assuming half-full slabs.
///
/// Computed without wrapping: a target of 2^31 objects or more saturates
/// instead of turning into a small limit.
pub(crate) fn cpu_partial_slabs(nr_objects: u32, objects_per_slab: u32) -> u32 {
    if objects_per_slab == 0 {
        return 0;
    }
    let slabs = (u64::from(nr_objects) * 2).div_ceil(u64::from(objects_per_slab));
    u32::try_from(slabs).unwrap_or(u32::MAX)
}

/// Whether a refill from the node partial list stops, after the slab it
/// returns and `nr_pushed` more put on the per-cpu partial list: at once
/// when the cache keeps no per-cpu partial slabs, else after more than half
/// the limit.
pub(crate) fn partial_node_done(nr_pushed: u32, cpu_partial_slabs: u32) -> bool {
    if nr_pushed == 0 {
        cpu_partial_slabs == 0
    } else {
        nr_pushed > cpu_partial_slabs / 2
    }
}

/// Free objects estimated on `slabs` per-cpu partial slabs (half full).
pub(crate) fn partial_objects(slabs: u32, objects_per_slab: u32) -> u32 {
    u32::try_from(u64::from(slabs) * u64::from(objects_per_slab) / 2).unwrap_or(u32::MAX)
}

/// What pushing a slab does to a per-cpu partial list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Push {
    /// The list is full: detach it whole, for draining to the node.
    pub(crate) detach: bool,
    /// Slab count of the list once the pushed slab heads it.
    pub(crate) slabs: c_int,
}

/// Decides a push onto a list whose head counts `head_slabs` slabs (`None`:
/// the list is empty).  Only a push with `drain` (a free, not a refill)
/// may detach a full list; a refill stops on its own (see
/// [`partial_node_done`]).
pub(crate) fn push_decision(head_slabs: Option<c_int>, limit: u32, drain: bool) -> Push {
    match head_slabs {
        // The count is compared as unsigned, as C compares it (a count
        // below zero never occurs).
        Some(n) if drain && n as u32 >= limit => Push {
            detach: true,
            slabs: 1,
        },
        // The count stays within twice the limit (a free detaches a full
        // list, a refill stops past half of it), far from overflowing: a
        // plain add, one instruction, as C's.
        Some(n) => Push {
            detach: false,
            slabs: n.wrapping_add(1),
        },
        None => Push {
            detach: false,
            slabs: 1,
        },
    }
}
