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
//! what is private to this algorithm stays here: [`UnlinkedFolio`] (a pool
//! folio, which has no reference), [`Hstate`] and [`HugetlbLock`], whose
//! only operations are steps of the bulk free.

use core::marker::PhantomData;
use core::ops::Deref;
use core::ptr::NonNull;
use kernel::bindings;
use kernel::error::{Error, Result};
use kernel::mm::{
    folio::{Folio, ListFolio},
    folio_list::{FolioList, ListHeadStorage},
};
use kernel::stack_pin_init;

// The entry point below has the type of its C prototype in
// `include/linux/hugetlb_bulk_free.h`, as bindgen reads it: a change on one
// side only fails the build.
kernel::assert_c_prototypes!(hugetlb_rust_update_and_free_pages_bulk);

/// A hugetlb folio taken off the pool, on no list.
///
/// Pool folios have no reference at all (their count is frozen at zero):
/// whoever took one off the pool must free it or put it back. An
/// `UnlinkedFolio` has no destructor: it must be passed on, to C through
/// [`ListFolio::into_raw`] (freed, or back to the pool) or onto a
/// [`FolioList`].
///
/// # Invariants
///
/// `0` points to a live folio on no list; its holder alone uses its `lru`
/// and decides what becomes of it.
#[must_use = "a folio taken off the pool must be freed or given back"]
struct UnlinkedFolio(NonNull<Folio>);

impl Deref for UnlinkedFolio {
    type Target = Folio;

    #[inline]
    fn deref(&self) -> &Folio {
        // SAFETY: the folio is live while this value exists (type
        // invariant), and the reference cannot outlive the value.
        unsafe { self.0.as_ref() }
    }
}

// SAFETY: the holder owns the folio's `lru` and nothing else of it, as the
// type invariant says; `into_raw` and `from_raw` hand exactly that over.
unsafe impl ListFolio for UnlinkedFolio {
    #[inline]
    fn into_raw(self) -> NonNull<bindings::folio> {
        self.0.cast()
    }

    #[inline]
    unsafe fn from_raw(folio: NonNull<bindings::folio>) -> Self {
        // INVARIANT: handed over, live and on no list, by the caller's
        // promise.
        Self(folio.cast())
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
    /// Returns the number of folios restored, or the error.
    fn vmemmap_restore_folios(
        &self,
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

    /// Restores the vmemmap of one folio.
    fn vmemmap_restore_folio(&self, folio: &UnlinkedFolio) -> bool {
        // SAFETY: the hstate is live (type invariant) and the folio is
        // ours, off every list.
        unsafe { bindings::hugetlb_bulk_vmemmap_restore_folio(self.as_ptr(), folio.as_ptr()) == 0 }
    }

    /// Frees a folio that has its vmemmap and no hugetlb destructor, to
    /// the allocator it came from, then yields the CPU if a reschedule is
    /// due (both in one C call).  Callers hold no [`HugetlbLock`].
    fn free_folio(&self, folio: UnlinkedFolio) {
        // SAFETY: the hstate is live (type invariant) and the folio ours,
        // off every list; `hugetlb_lock` is not held (only a `HugetlbLock`
        // holds it, and callers keep none across this call), and this is
        // process context, where the call may sleep.
        unsafe { bindings::hugetlb_bulk_free_folio(self.as_ptr(), folio.into_raw().as_ptr()) };
    }
}

/// `hugetlb_lock`, held with interrupts disabled.
///
/// # Invariants
///
/// The lock is held from the creation of the value until it is dropped.
struct HugetlbLock {
    // Held on one CPU: neither `Send` nor `Sync`.
    _not_send: PhantomData<*mut ()>,
}

impl HugetlbLock {
    /// Takes the lock (counting a lock cycle of the bulk free).
    ///
    /// # Safety
    ///
    /// The caller is in process context and does not hold the lock: no
    /// `HugetlbLock` is alive on this CPU (taking it twice deadlocks).
    unsafe fn lock() -> Self {
        // SAFETY: process context, the lock not held, by the caller's
        // promise.
        unsafe { bindings::hugetlb_bulk_lock() };
        // INVARIANT: the lock was just taken.
        Self {
            _not_send: PhantomData,
        }
    }

    /// Clears the hugetlb destructor of a folio whose vmemmap is in place.
    fn clear_hugetlb(&self, folio: &Folio) {
        // SAFETY: the lock is held (type invariant) and the folio is live,
        // taken off the pool by our caller.
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

impl Drop for HugetlbLock {
    fn drop(&mut self) {
        // SAFETY: the lock is held (type invariant), released once, here.
        unsafe { bindings::hugetlb_bulk_unlock() };
    }
}

/// Clears the destructor of one folio in a lock cycle of its own, then
/// frees it.
fn clear_and_free(h: &Hstate, folio: UnlinkedFolio) {
    // SAFETY: no `HugetlbLock` lives across a call of this file's
    // functions, and the bulk free runs in process context.
    unsafe { HugetlbLock::lock() }.clear_hugetlb(&folio);
    h.free_folio(folio);
}

/// Makes progress after a failed batch restore.
///
/// Folios already restored (on `restored`) are freed, one lock cycle each,
/// so that their memory serves the next try.  If there are none, the folios
/// of `list` are tried one at a time: those that fail go back to the pool
/// as surplus pages, and the first that succeeds is freed, after which the
/// caller tries the batch again.
fn bulk_vmemmap_restore_error(h: &Hstate, list: &mut Folios<'_>, restored: &mut Folios<'_>) {
    if !restored.is_empty() {
        for folio in restored.drain() {
            clear_and_free(h, folio);
        }
        return;
    }
    while let Some(folio) = list.pop_front() {
        if h.vmemmap_restore_folio(&folio) {
            clear_and_free(h, folio);
            return;
        }
        // SAFETY: no `HugetlbLock` lives across a call of this file's
        // functions, and the bulk free runs in process context.
        unsafe { HugetlbLock::lock() }.add_surplus(h, folio);
    }
}

/// Frees every folio of `list` (see the module documentation).
fn update_and_free_pages_bulk(h: &Hstate, list: &mut Folios<'_>) {
    stack_pin_init!(let storage = ListHeadStorage::new());
    let mut non_hvo = Folios::new_in(storage);

    let restored = loop {
        match h.vmemmap_restore_folios(list, &mut non_hvo) {
            Ok(restored) => break restored,
            Err(_) => bulk_vmemmap_restore_error(h, list, &mut non_hvo),
        }
    };

    // Without HVO nothing was restored and the callers already cleared the
    // destructors: no lock cycle at all.
    if restored > 0 {
        // SAFETY: no `HugetlbLock` is alive here (the restore error path
        // drops each it takes), and this is process context.
        let lock = unsafe { HugetlbLock::lock() };
        for folio in non_hvo.iter() {
            lock.clear_hugetlb(folio);
        }
    }
    for folio in non_hvo.drain() {
        h.free_folio(folio);
    }
}

/// Frees a list of hugetlb folios taken off the pool of `h` (C:
/// `update_and_free_pages_bulk()`).  The list is empty on return.
///
/// # Safety
///
/// `h` points to a live hstate and `folio_list` to a list of its folios
/// linked by `lru`, removed from the pool and owned by the caller, who does
/// not hold `hugetlb_lock` and may sleep.
#[no_mangle]
pub unsafe extern "C" fn hugetlb_rust_update_and_free_pages_bulk(
    h: *mut bindings::hstate,
    folio_list: *mut bindings::list_head,
) {
    let Some(h) = NonNull::new(h) else {
        return;
    };
    // INVARIANT: live by the caller's promise.
    let h = Hstate(h);
    // SAFETY: the list is the caller's, of live folios linked by `lru`,
    // taken off the pool without a reference (held as `UnlinkedFolio`s),
    // and nothing else touches it during this call.
    let Some(mut list) = (unsafe { Folios::from_raw(folio_list) }) else {
        return;
    };
    update_and_free_pages_bulk(&h, &mut list);
}
