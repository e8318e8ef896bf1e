// SPDX-License-Identifier: GPL-2.0

//! SLUB per-cpu partial list accounting.
//!
//! A free to a full slab freezes the slab and pushes it onto the per-cpu
//! partial list of the freeing CPU; a refill from the node partial list
//! pushes several.  The list is limited in slabs (`cpu_partial_slabs`), a
//! count that is exact, and not in free objects, a count that goes stale as
//! soon as more objects are freed to a slab already on the list.  The object
//! target of a cache (`cpu_partial`, also the sysfs knob) is turned into that
//! limit by assuming the slabs are half full.
//!
//! This module makes those decisions for `mm/slub.c`, which calls the
//! `slub_rust_*` entry points below.  The C original stays in the kernel and
//! is selected with `slub_partial_impl=c`.
//!
//! C header: [`include/linux/slub_partial.h`](srctree/include/linux/slub_partial.h)

use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use kernel::bindings;
use kernel::error::code::EINVAL;
use kernel::ffi::{c_char, c_int, c_uint};
use kernel::page::PAGE_SIZE;

/// Default object target by object size: the first row whose minimum size
/// the object reaches gives the target.
const DEFAULT_CPU_PARTIAL: [(usize, u32); 4] = [(PAGE_SIZE, 6), (1024, 24), (256, 52), (0, 120)];

/// The default object target of a cache whose objects take `size` bytes.
fn default_cpu_partial(size: u32, has_cpu_partial: bool) -> u32 {
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
fn cpu_partial_slabs(nr_objects: u32, objects_per_slab: u32) -> u32 {
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
fn partial_node_done(nr_pushed: u32, cpu_partial_slabs: u32) -> bool {
    if nr_pushed == 0 {
        cpu_partial_slabs == 0
    } else {
        nr_pushed > cpu_partial_slabs / 2
    }
}

/// Free objects estimated on `slabs` per-cpu partial slabs (half full).
fn partial_objects(slabs: u32, objects_per_slab: u32) -> u32 {
    u32::try_from(u64::from(slabs) * u64::from(objects_per_slab) / 2).unwrap_or(u32::MAX)
}

/// What pushing a slab does to a per-cpu partial list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Push {
    /// The list is full: detach it whole, for draining to the node.
    detach: bool,
    /// Slab count of the list once the pushed slab heads it.
    slabs: c_int,
}

/// Decides a push onto a list whose head counts `head_slabs` slabs (`None`:
/// the list is empty).  Only a push with `drain` (a free, not a refill)
/// may detach a full list; a refill stops on its own (see
/// [`partial_node_done`]).
fn push_decision(head_slabs: Option<c_int>, limit: u32, drain: bool) -> Push {
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

/// A SLUB cache, borrowed from C for the duration of one call.
///
/// # Invariants
///
/// `ptr` points to a live `struct kmem_cache` with per-cpu partial lists
/// configured (`CONFIG_SLUB_CPU_PARTIAL`), for the lifetime `'a`.
struct Cache<'a> {
    ptr: NonNull<bindings::kmem_cache>,
    _p: PhantomData<&'a bindings::kmem_cache>,
}

impl<'a> Cache<'a> {
    /// Borrows the cache at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` is null or points to a live cache that stays live for `'a`.
    unsafe fn from_raw(ptr: *mut bindings::kmem_cache) -> Option<Self> {
        // INVARIANT: non-null, and live for `'a` by the caller's promise.
        NonNull::new(ptr).map(|ptr| Self {
            ptr,
            _p: PhantomData,
        })
    }

    /// Borrows the cache at `ptr`, which C never passes null.
    ///
    /// # Safety
    ///
    /// `ptr` points to a live cache that stays live for `'a`.
    unsafe fn from_nonnull(ptr: NonNull<bindings::kmem_cache>) -> Self {
        // INVARIANT: live for `'a` by the caller's promise.
        Self {
            ptr,
            _p: PhantomData,
        }
    }

    fn as_ptr(&self) -> *mut bindings::kmem_cache {
        self.ptr.as_ptr()
    }

    /// Whether the cache may keep per-cpu partial slabs (no debugging).
    fn has_cpu_partial(&self) -> bool {
        // SAFETY: the cache is live by the type invariant.
        unsafe { bindings::slub_cache_has_cpu_partial(self.as_ptr()) }
    }

    /// Objects in a slab of the cache's preferred order.
    fn objects_per_slab(&self) -> u32 {
        // SAFETY: the cache is live by the type invariant.
        unsafe { bindings::slub_cache_objects_per_slab(self.as_ptr()) }
    }

    /// The per-cpu partial slab limit, as other CPUs may be storing it.
    fn cpu_partial_slabs(&self) -> u32 {
        // SAFETY: the cache is live by the type invariant; a volatile read
        // is the READ_ONCE() of a field the sysfs store may change.
        unsafe { ptr::read_volatile(ptr::addr_of!((*self.as_ptr()).cpu_partial_slabs)) }
    }

    /// Sets the object target and the slab limit derived from it.
    fn set_cpu_partial(&self, nr_objects: u32) {
        let slabs = cpu_partial_slabs(nr_objects, self.objects_per_slab());
        let s = self.as_ptr();
        // SAFETY: the cache is live by the type invariant.  The fields are
        // read locklessly by the allocation paths, so the stores are the
        // WRITE_ONCE() of the C original's plain stores.
        unsafe {
            ptr::write_volatile(ptr::addr_of_mut!((*s).cpu_partial), nr_objects);
            ptr::write_volatile(ptr::addr_of_mut!((*s).cpu_partial_slabs), slabs);
        }
    }
}

/// Reads the link fields of a slab on a per-cpu partial list: the next
/// slab, and the slab count of the list from this slab on.
///
/// # Safety
///
/// `slab` points to a live slab, and the caller holds the local lock of the
/// per-cpu partial list it heads or owns the frozen slab outright.
unsafe fn slab_link(slab: NonNull<bindings::slab>) -> (*mut bindings::slab, c_int) {
    // SAFETY: by the caller's promise the slab is live and its link fields
    // are not written concurrently.
    unsafe {
        let link = &(*slab.as_ptr())
            .__bindgen_anon_1
            .__bindgen_anon_1
            .__bindgen_anon_1
            .__bindgen_anon_1;
        (link.next, link.slabs)
    }
}

/// Writes the link fields of a slab that is about to head a per-cpu
/// partial list.
///
/// # Safety
///
/// `slab` points to a live slab that is frozen and on no list, owned by the
/// caller, which holds the local lock of the list it is about to head.
unsafe fn set_slab_link(slab: NonNull<bindings::slab>, next: *mut bindings::slab, slabs: c_int) {
    // SAFETY: by the caller's promise nobody else reads or writes the
    // slab's link fields now.
    unsafe {
        let link = &mut (*slab.as_ptr())
            .__bindgen_anon_1
            .__bindgen_anon_1
            .__bindgen_anon_1
            .__bindgen_anon_1;
        link.next = next;
        link.slabs = slabs;
    }
}

/// This CPU's per-cpu partial list of a cache, locked.
///
/// The local lock is inlined in `mm/slub.c`, which takes it around the one
/// call into Rust that pushes a slab (see [`slub_rust_put_cpu_partial`]): a
/// list handle exists only inside that call, and [`CpuPartialList::push`]
/// consumes it.
///
/// # Invariants
///
/// For `'a`, the local lock of `cache`'s per-cpu slab is held with
/// interrupts disabled, and `head` points to this CPU's partial list head
/// of `cache`.
struct CpuPartialList<'a> {
    cache: &'a Cache<'a>,
    head: NonNull<*mut bindings::slab>,
}

/// Slabs detached from a per-cpu partial list, to be moved to their nodes
/// once the list's lock is dropped.
///
/// # Invariants
///
/// The slab heads a chain of frozen slabs linked by `next`, owned by the
/// holder and on no per-cpu list.
struct DetachedList(NonNull<bindings::slab>);

impl<'a> CpuPartialList<'a> {
    /// Takes over this CPU's partial list of `cache`, which the caller has
    /// locked.
    ///
    /// # Safety
    ///
    /// The caller holds the local lock of `cache`'s per-cpu slab with
    /// interrupts disabled for `'a`, and `head` is this CPU's partial list
    /// head of `cache`.
    unsafe fn from_locked(cache: &'a Cache<'a>, head: NonNull<*mut bindings::slab>) -> Self {
        // INVARIANT: the lock is held for `'a` and `head` is this CPU's
        // list head, by the caller's promise.
        Self { cache, head }
    }

    /// The first slab of the list and its slab count.
    fn first(&self) -> Option<(NonNull<bindings::slab>, c_int)> {
        // SAFETY: `head` is valid while the lock is held (type invariant).
        let first = NonNull::new(unsafe { *self.head.as_ptr() })?;
        // SAFETY: the lock is held (type invariant), so the list's slabs
        // are live and their link fields are ours to read.
        let (_, slabs) = unsafe { slab_link(first) };
        Some((first, slabs))
    }

    /// Pushes a frozen slab, first detaching the whole list if `drain` is
    /// set and the list is at its slab limit.  Consumes the list handle:
    /// what was detached is drained only after the lock is dropped.
    ///
    /// # Safety
    ///
    /// `slab` points to a live slab of this cache, frozen by the caller and
    /// on no list.
    unsafe fn push(self, slab: NonNull<bindings::slab>, drain: bool) -> Option<DetachedList> {
        let first = self.first();
        let decision = push_decision(
            first.map(|(_, slabs)| slabs),
            self.cache.cpu_partial_slabs(),
            drain,
        );
        let (next, detached) = match first {
            // INVARIANT: the whole list leaves this CPU; its slabs stay
            // frozen and are reachable from nowhere else.
            Some((first, _)) if decision.detach => (ptr::null_mut(), Some(DetachedList(first))),
            Some((first, _)) => (first.as_ptr(), None),
            None => (ptr::null_mut(), None),
        };
        // SAFETY: `slab` is frozen, on no list and ours by the caller's
        // promise, and we hold the lock of the list it is about to head.
        unsafe { set_slab_link(slab, next, decision.slabs) };
        // SAFETY: `head` is valid while the lock is held (type invariant).
        unsafe { *self.head.as_ptr() = slab.as_ptr() };
        detached
    }
}

impl DetachedList {
    /// Hands the chain to C, which moves its slabs to their node partial
    /// lists once the per-cpu lock is dropped.
    fn into_raw(self) -> *mut bindings::slab {
        self.0.as_ptr()
    }
}

/// Default object target of a cache by object size (C: `set_cpu_partial()`).
#[no_mangle]
pub extern "C" fn slub_rust_default_cpu_partial(size: c_uint, has_cpu_partial: bool) -> c_uint {
    default_cpu_partial(size, has_cpu_partial)
}

/// Slab limit for an object target (C: `slub_set_cpu_partial()`).
#[no_mangle]
pub extern "C" fn slub_rust_cpu_partial_slabs(
    nr_objects: c_uint,
    objects_per_slab: c_uint,
) -> c_uint {
    cpu_partial_slabs(nr_objects, objects_per_slab)
}

/// Stop condition of a refill from the node partial list (C:
/// `get_partial_node()`).
#[no_mangle]
pub extern "C" fn slub_rust_partial_node_done(
    nr_pushed: c_uint,
    cpu_partial_slabs: c_uint,
) -> bool {
    partial_node_done(nr_pushed, cpu_partial_slabs)
}

/// Estimated free objects on per-cpu partial slabs (C:
/// `slabs_cpu_partial_show()`).
#[no_mangle]
pub extern "C" fn slub_rust_partial_objects(slabs: c_uint, objects_per_slab: c_uint) -> c_uint {
    partial_objects(slabs, objects_per_slab)
}

/// Pushes a slab onto this CPU's partial list of `s`, detaching the whole
/// list first when `drain` is set and the list is full (C:
/// `put_cpu_partial()`, which calls this under the list's local lock).
///
/// Returns the detached list, or null: the caller drains it to the node
/// partial lists after unlocking.
///
/// # Safety
///
/// `s` points to a live cache with per-cpu partial lists; the caller holds
/// the local lock of its per-cpu slab with interrupts disabled, and `head`
/// points to this CPU's partial list head of `s`; `slab` points to a slab
/// of `s` that the caller froze and that is on no list.  None is null.
#[no_mangle]
pub unsafe extern "C" fn slub_rust_put_cpu_partial(
    s: *mut bindings::kmem_cache,
    head: *mut *mut bindings::slab,
    slab: *mut bindings::slab,
    drain: c_int,
) -> *mut bindings::slab {
    // This is the free path of every slab object: the pointers C passes
    // are never null, and testing them would cost what the C original
    // does not pay.
    // SAFETY: `s`, `head` and `slab` are not null, by the caller's promise.
    let (s, head, slab) = unsafe {
        (
            NonNull::new_unchecked(s),
            NonNull::new_unchecked(head),
            NonNull::new_unchecked(slab),
        )
    };
    // SAFETY: `s` is live for this call by the caller's promise.
    let cache = unsafe { Cache::from_nonnull(s) };
    // SAFETY: the caller holds the lock of this CPU's list of `cache`, whose
    // head is `head`, for the whole call.
    let list = unsafe { CpuPartialList::from_locked(&cache, head) };
    // SAFETY: `slab` is a frozen slab of `cache` on no list, by the
    // caller's promise.
    let detached = unsafe { list.push(slab, drain != 0) };
    detached.map_or(ptr::null_mut(), DetachedList::into_raw)
}

/// Parses and applies a write to `/sys/kernel/slab/<cache>/cpu_partial`
/// (C: `cpu_partial_store()`, which flushes the CPUs afterwards).
///
/// A value that is not a decimal `unsigned int`, or a non-zero target for a
/// cache that keeps no per-cpu partial slabs, is rejected and the cache is
/// left as it was.
///
/// Returns 0 or a negative errno.
///
/// # Safety
///
/// `s` points to a live cache and `buf` to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slub_rust_cpu_partial_store(
    s: *mut bindings::kmem_cache,
    buf: *const c_char,
) -> c_int {
    // SAFETY: `s` is live for this call by the caller's promise.
    let Some(cache) = (unsafe { Cache::from_raw(s) }) else {
        return EINVAL.to_errno();
    };
    let mut objects: c_uint = 0;
    // SAFETY: `buf` is NUL-terminated by the caller's promise and `objects`
    // is a valid place for the result.
    let err = unsafe { bindings::kstrtouint(buf, 10, &mut objects) };
    if err != 0 {
        return err;
    }
    if objects != 0 && !cache.has_cpu_partial() {
        return EINVAL.to_errno();
    }
    cache.set_cpu_partial(objects);
    0
}
