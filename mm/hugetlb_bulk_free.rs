// SPDX-License-Identifier: GPL-2.0

//! hugetlb bulk free: `update_and_free_pages_bulk()`.
//!
//! Freeing a list of hugetlb folios taken off the pool needs, per folio,
//! its vmemmap back (if HVO freed it), its hugetlb destructor cleared under
//! `hugetlb_lock`, then a free to the allocator it came from.  Done folio by
//! folio that costs a TLB flush and a lock cycle each; here it is done list
//! by list:
//!
//! 1. restore the vmemmap of the whole list, with one TLB flush for all;
//! 2. clear the destructor of every restored folio in one lock cycle;
//! 3. free them.
//!
//! When a restore fails (no memory for the vmemmap), the folios already
//! restored are freed to make memory and the list is tried again; if none
//! was restored, folios are tried one at a time, and one that still cannot
//! be restored goes back to the pool as a surplus page.  Every folio ends
//! freed or back in the pool: none is lost, none is freed twice.
//!
//! `mm/hugetlb.c` calls [`hugetlb_rust_update_and_free_pages_bulk`]; the C
//! original stays there and is selected with `hugetlb_bulk_free_impl=c`.
//!
//! C header: [`include/linux/hugetlb_bulk_free.h`](srctree/include/linux/hugetlb_bulk_free.h)
//!
//! The lists of folios are the `kernel` crate's ([`kernel::mm::folio_list`]);
//! what is private to this algorithm stays here: [`PoolFolio`] and
//! [`UnlinkedFolio`] (a pool folio, which has no reference, so is not a
//! [`kernel::mm::folio::Folio`]), [`Hstate`], [`Sleepable`] and
//! [`HugetlbLock`], whose only operations are steps of the bulk free.
//!
//! `unsafe` is kept for memory safety.  The rules on sleeping and locking
//! are in the types: what may sleep (a vmemmap restore waits for a grace
//! period, a free may reschedule) takes a shared borrow of the call's one
//! [`Sleepable`], and [`Sleepable::lock`] borrows it exclusively for as
//! long as the [`HugetlbLock`] it returns lives.  So, while the guard is
//! kept, nothing that sleeps can be called with the lock held and the lock
//! cannot be taken twice: the borrow checker refuses either.  A guard
//! given up without its drop (`core::mem::forget()`, safe as for any guard)
//! ends the borrow with the lock still held; that breaks no memory rule,
//! and the kernel's checkers report what follows: [`Sleepable::new`] and
//! [`Sleepable::lock`] assert that the lock is not held (lockdep) and that
//! the task may sleep (`might_sleep()`, `CONFIG_DEBUG_ATOMIC_SLEEP`).

use core::marker::PhantomData;
use core::ops::Deref;
use core::ptr::NonNull;
use kernel::bindings;
use kernel::c_str;
use kernel::error::{Error, Result};
use kernel::mm::{
    folio::ListFolio,
    folio_list::{FolioList, ListHeadStorage},
};
use kernel::stack_pin_init;
use kernel::types::Opaque;

// The entry point below has the type of its C prototype in
// `include/linux/hugetlb_bulk_free.h`, as bindgen reads it: a change on one
// side only fails the build.
kernel::assert_c_prototypes!(hugetlb_rust_update_and_free_pages_bulk);
#[cfg(CONFIG_HUGETLB_BULK_FREE_DEBUG)]
kernel::assert_c_prototypes!(hugetlb_rust_drop_unlinked_folio);

/// A hugetlb folio of the pool: its reference count is frozen at zero, so
/// it is no [`kernel::mm::folio::Folio`] (no reference may be taken on
/// it); only its address is used, to hand it to C.
///
/// # Invariants
///
/// A `&PoolFolio` points to a live `struct folio` taken off the pool of an
/// hstate for its whole lifetime.
#[repr(transparent)]
struct PoolFolio(Opaque<bindings::folio>);

impl PoolFolio {
    #[inline]
    fn as_ptr(&self) -> *mut bindings::folio {
        self.0.get()
    }
}

/// A hugetlb folio taken off the pool, on no list.
///
/// Pool folios have no reference at all (their count is frozen at zero):
/// whoever took one off the pool must free it or put it back.  An
/// `UnlinkedFolio` must be passed on, to C through [`ListFolio::into_raw`]
/// (freed, or back to the pool) or onto a [`FolioList`].  Dropped instead,
/// it cannot be freed (its vmemmap and destructor are not known to be in
/// order) nor safely given back here: its destructor reports the lost page
/// with a `WARN`, so that a path that drops one is found at once.
///
/// # Invariants
///
/// `0` points to a live folio on no list; its holder alone uses its `lru`
/// and decides what becomes of it.
#[must_use = "a folio taken off the pool must be freed or given back"]
struct UnlinkedFolio(NonNull<PoolFolio>);

impl Deref for UnlinkedFolio {
    type Target = PoolFolio;

    #[inline]
    fn deref(&self) -> &PoolFolio {
        // SAFETY: the folio is live while this value exists (type
        // invariant), and the reference cannot outlive the value.
        unsafe { self.0.as_ref() }
    }
}

impl Drop for UnlinkedFolio {
    #[cold]
    fn drop(&mut self) {
        // SAFETY: a NUL-terminated string, only printed.
        unsafe {
            bindings::mmrust_warn_folios_leaked(
                c_str!(
                    "hugetlb bulk free: a folio taken off the pool was dropped, its page leaked"
                )
                .as_char_ptr(),
            )
        };
    }
}

// SAFETY: the holder owns the folio's `lru` and nothing else of it, as the
// type invariant says; `into_raw` and `from_raw` hand exactly that over.
unsafe impl ListFolio for UnlinkedFolio {
    #[inline]
    fn into_raw(self) -> NonNull<bindings::folio> {
        // Handed on, not dropped: no report.
        let folio = core::mem::ManuallyDrop::new(self);
        folio.0.cast()
    }

    #[inline]
    unsafe fn from_raw(folio: NonNull<bindings::folio>) -> Self {
        // INVARIANT: handed over, live and on no list, by the caller's
        // promise.
        Self(folio.cast())
    }

    #[inline]
    unsafe fn borrow_raw<'a>(folio: NonNull<bindings::folio>) -> &'a PoolFolio {
        // SAFETY: a pool folio held during `'a`, live (the caller's
        // promise); `PoolFolio` is a transparent wrapper of `struct folio`.
        // INVARIANT: live and off the pool during `'a`.
        unsafe { folio.cast::<PoolFolio>().as_ref() }
    }
}

/// The folios a bulk free works on: taken off the pool, no reference.
type Folios<'a> = FolioList<'a, UnlinkedFolio>;

/// An hstate, borrowed from C for one bulk free.
///
/// # Invariants
///
/// `0` points to a live `struct hstate`.
struct Hstate(NonNull<bindings::hstate>);

impl Hstate {
    fn as_ptr(&self) -> *mut bindings::hstate {
        self.0.as_ptr()
    }

    /// Restores the vmemmap of the folios of `list`, moving each folio
    /// that has its vmemmap (restored, or never optimized) to `done`, with
    /// one TLB flush for the batch.  Stops at the first failure, leaving the
    /// failed folio and the rest on `list`.
    ///
    /// Returns the number of folios restored, or the error.  May sleep:
    /// needs the call's [`Sleepable`], which no [`HugetlbLock`] borrows.
    fn vmemmap_restore_folios(
        &self,
        _ctx: &Sleepable,
        list: &mut Folios<'_>,
        done: &mut Folios<'_>,
    ) -> Result<usize> {
        // SAFETY: the hstate is live (type invariant); both lists are
        // ours, and the C function only moves folios from one to the other.
        let ret = unsafe {
            bindings::hugetlb_bulk_vmemmap_restore_folios(
                self.as_ptr(),
                list.as_ptr(),
                done.as_ptr(),
            )
        };
        // A negative errno, which fits an `int`, or a count.
        usize::try_from(ret).map_err(|_| Error::from_errno(ret as i32))
    }

    /// Restores the vmemmap of one folio.  May sleep, as above.
    fn vmemmap_restore_folio(&self, _ctx: &Sleepable, folio: &UnlinkedFolio) -> bool {
        // SAFETY: the hstate is live (type invariant) and the folio is
        // ours, off every list.
        unsafe { bindings::hugetlb_bulk_vmemmap_restore_folio(self.as_ptr(), folio.as_ptr()) == 0 }
    }

    /// Frees a folio to the allocator it came from, then yields the CPU
    /// if a reschedule is due (both in one C call): needs the call's
    /// [`Sleepable`], which no [`HugetlbLock`] borrows.
    ///
    /// # Safety
    ///
    /// The folio, of this hstate, has its vmemmap (restored, or never
    /// optimized) and no hugetlb destructor: freeing it otherwise would
    /// hand the allocator struct pages that are not there or a folio the
    /// pool still counts.
    unsafe fn free_folio(&self, _ctx: &Sleepable, folio: UnlinkedFolio) {
        // SAFETY: the hstate is live (type invariant) and the folio ours,
        // off every list, ready to be freed (the caller's promise).  That
        // `hugetlb_lock` is not held and the CPU may sleep (`Sleepable`'s
        // invariant, not borrowed by a lock) is the function's context, not
        // a memory rule.
        unsafe { bindings::hugetlb_bulk_free_folio(self.as_ptr(), folio.into_raw().as_ptr()) };
    }
}

/// The context of one bulk free: a task that may sleep and does not hold
/// `hugetlb_lock`.  One exists per call of the C entry point; what may
/// sleep borrows it, and [`Sleepable::lock`] borrows it exclusively.
///
/// # Invariants
///
/// While no [`HugetlbLock`] borrowed from it lives, the current task may
/// sleep and does not hold `hugetlb_lock`; it is the only `Sleepable` of
/// this task.
struct Sleepable {
    // Of one task: neither `Send` nor `Sync`.
    _not_send: PhantomData<*mut ()>,
}

impl Sleepable {
    /// The context of the bulk free the current task is in: one per call
    /// of the entry point, made there.
    ///
    /// That the task may sleep and holds no `hugetlb_lock` is the entry
    /// point's documented context, and no memory-safety rule: it is checked
    /// here under lockdep and `CONFIG_DEBUG_ATOMIC_SLEEP`
    /// (`hugetlb_bulk_might_sleep()`), not promised through `unsafe`.
    fn new() -> Self {
        // SAFETY: no precondition; the C function only checks the context.
        unsafe { bindings::hugetlb_bulk_might_sleep() };
        // INVARIANT: the context the checks above assert.
        Self {
            _not_send: PhantomData,
        }
    }

    /// Takes `hugetlb_lock` (counting a lock cycle of the bulk free): the
    /// context is borrowed until the guard is dropped, so nothing that
    /// sleeps, and no second lock, can be reached meanwhile.
    fn lock(&mut self) -> HugetlbLock<'_> {
        // SAFETY: no precondition; the C function checks the context (a
        // guard given up with `mem::forget()` left the lock held: lockdep
        // reports it here, before the lock is taken again).
        unsafe { bindings::hugetlb_bulk_might_sleep() };
        // SAFETY: taking the lock has no memory-safety precondition; the
        // task does not hold it (type invariant: no `HugetlbLock` borrows
        // `self`, which is borrowed exclusively here).  Taking it disables
        // interrupts.
        unsafe { bindings::hugetlb_bulk_lock() };
        // INVARIANT: the lock was just taken.
        HugetlbLock { _ctx: PhantomData }
    }
}

/// `hugetlb_lock`, held with interrupts disabled.
///
/// # Invariants
///
/// The lock is held from the creation of the value until it is dropped.
struct HugetlbLock<'a> {
    // Borrows the `Sleepable` it was taken from; held on one CPU (the
    // `Sleepable` is neither `Send` nor `Sync`, nor then is this).
    _ctx: PhantomData<&'a mut Sleepable>,
}

impl HugetlbLock<'_> {
    /// Clears the hugetlb destructor of a folio.
    ///
    /// # Safety
    ///
    /// The folio was taken off the pool by the bulk free and its vmemmap
    /// is in place (restored, or never optimized).
    unsafe fn clear_hugetlb(&self, folio: &PoolFolio) {
        // SAFETY: the lock is held (type invariant) and the folio is live
        // (`PoolFolio`'s invariant), off the pool with its vmemmap (the
        // caller's promise).
        unsafe { bindings::hugetlb_bulk_folio_clear_hugetlb(folio.as_ptr()) };
    }

    /// Returns a folio that cannot get its vmemmap back to the pool, as a
    /// surplus page.
    fn add_surplus(&self, h: &Hstate, folio: UnlinkedFolio) {
        // SAFETY: the lock is held (type invariant), the hstate is live and
        // the folio is ours, off every list; the pool owns it from now on.
        unsafe { bindings::hugetlb_bulk_add_surplus_folio(h.as_ptr(), folio.into_raw().as_ptr()) };
    }
}

impl Drop for HugetlbLock<'_> {
    fn drop(&mut self) {
        // SAFETY: the lock is held (type invariant), released once, here.
        unsafe { bindings::hugetlb_bulk_unlock() };
    }
}

/// Clears the destructor of one folio in a lock cycle of its own, then
/// frees it.
///
/// # Safety
///
/// The folio, of `h`, taken off the pool by the bulk free, has its
/// vmemmap.
unsafe fn clear_and_free(ctx: &mut Sleepable, h: &Hstate, folio: UnlinkedFolio) {
    // SAFETY: the folio has its vmemmap (the caller's promise).
    unsafe { ctx.lock().clear_hugetlb(&folio) };
    // SAFETY: vmemmap in place, destructor cleared just above.
    unsafe { h.free_folio(ctx, folio) };
}

/// Makes progress after a failed batch restore.
///
/// Folios already restored (on `restored`) are freed, one lock cycle each,
/// so that their memory serves the next try.  If there are none, the folios
/// of `list` are tried one at a time: those that fail go back to the pool
/// as surplus pages, and the first that succeeds is freed, after which the
/// caller tries the batch again.
fn bulk_vmemmap_restore_error(
    ctx: &mut Sleepable,
    h: &Hstate,
    list: &mut Folios<'_>,
    restored: &mut Folios<'_>,
) {
    if !restored.is_empty() {
        for folio in restored.drain() {
            // SAFETY: a folio of `restored` has its vmemmap (the restore
            // moved it there).
            unsafe { clear_and_free(ctx, h, folio) };
        }
        return;
    }
    while let Some(folio) = list.pop_front() {
        if h.vmemmap_restore_folio(ctx, &folio) {
            // SAFETY: its vmemmap was just restored.
            unsafe { clear_and_free(ctx, h, folio) };
            return;
        }
        ctx.lock().add_surplus(h, folio);
    }
}

/// Frees every folio of `list` (see the module documentation).
fn update_and_free_pages_bulk(ctx: &mut Sleepable, h: &Hstate, list: &mut Folios<'_>) {
    stack_pin_init!(let storage = ListHeadStorage::new());
    let mut non_hvo = Folios::new_in(storage);

    let restored = loop {
        match h.vmemmap_restore_folios(ctx, list, &mut non_hvo) {
            Ok(restored) => break restored,
            Err(_) => bulk_vmemmap_restore_error(ctx, h, list, &mut non_hvo),
        }
    };

    // Without HVO nothing was restored and the callers already cleared the
    // destructors: no lock cycle at all.
    if restored > 0 {
        let lock = ctx.lock();
        for folio in non_hvo.iter() {
            // SAFETY: every folio of `non_hvo` has its vmemmap (the
            // restore moved it there).
            unsafe { lock.clear_hugetlb(folio) };
        }
    }
    for folio in non_hvo.drain() {
        // SAFETY: every folio of `non_hvo` has its vmemmap and no
        // destructor: cleared just above when the batch restored any,
        // else by the callers, which clear it on folios HVO never
        // optimized.
        unsafe { h.free_folio(ctx, folio) };
    }
}

/// Frees a list of hugetlb folios taken off the pool of `h` (C:
/// `update_and_free_pages_bulk()`).  The list is empty on return, unless
/// `h` is null: then the folios stay on it, reported with a `WARN`.
///
/// # Safety
///
/// `h` is null or points to a live hstate, and `folio_list` to a list of
/// its folios linked by `lru`, removed from the pool and owned by the
/// caller.
///
/// The caller does not hold `hugetlb_lock` and may sleep (as for C's
/// `update_and_free_pages_bulk()`; checked under lockdep and
/// `CONFIG_DEBUG_ATOMIC_SLEEP`, see [`Sleepable::new`]).
#[no_mangle]
pub unsafe extern "C" fn hugetlb_rust_update_and_free_pages_bulk(
    h: *mut bindings::hstate,
    folio_list: *mut bindings::list_head,
) {
    // SAFETY: the list is the caller's, of live folios linked by `lru`,
    // taken off the pool without a reference (held as `UnlinkedFolio`s),
    // and nothing else touches it during this call.
    let Some(mut list) = (unsafe { Folios::from_raw(folio_list) }) else {
        return;
    };
    let Some(h) = NonNull::new(h) else {
        // No hstate to free them to or give them back to: the folios stay
        // on the caller's list, off the pool, and are reported.
        if !list.is_empty() {
            // SAFETY: a NUL-terminated string, only printed.
            unsafe {
                bindings::mmrust_warn_folios_leaked(
                    c_str!("hugetlb bulk free: no hstate, the folios of the list are leaked")
                        .as_char_ptr(),
                )
            };
        }
        return;
    };
    // INVARIANT: live by the caller's promise.
    let h = Hstate(h);
    // The call's only `Sleepable`: the caller may sleep and does not hold
    // `hugetlb_lock` (its documented context, checked by `new()`).
    let mut ctx = Sleepable::new();
    update_and_free_pages_bulk(&mut ctx, &h, &mut list);
}

/// Drops `folio` as a path that forgot it would: the debug option's check
/// that a lost pool folio is reported (C: `hugetlb_bulk_check_leak_reports()`
/// in `mm/hugetlb_bulk_free_impl.c`, debugfs `hugetlb_bulk_free/leak_check`).
///
/// The [`UnlinkedFolio`]'s destructor reports it with a `WARN` and does
/// nothing else to it: the folio is as it was, and its caller, who still
/// knows it, gives it back to the list it came from.
///
/// # Safety
///
/// `folio` is null or points to a live hugetlb folio taken off the pool
/// and on no list, which nothing else uses during this call.
#[cfg(CONFIG_HUGETLB_BULK_FREE_DEBUG)]
#[no_mangle]
pub unsafe extern "C" fn hugetlb_rust_drop_unlinked_folio(folio: *mut bindings::folio) {
    if let Some(folio) = NonNull::new(folio) {
        // SAFETY: live, off the pool and on no list, and nobody else's
        // during this call (the caller's promise): what `UnlinkedFolio`
        // holds.
        drop(unsafe { UnlinkedFolio::from_raw(folio) });
    }
}
