// SPDX-License-Identifier: GPL-2.0

//! Test: `kernel::mm::folio_list` under the kernel's list checks.
//!
//! `FolioList` links and unlinks folios with the kernel's own list
//! functions, so `CONFIG_DEBUG_LIST` checks a Rust list as it checks C's.
//! This module breaks a link on purpose, four times, and sees what the
//! list does (every case at load; the module loads only if all hold):
//!
//! - push: the last folio's `lru.next` no longer leads back to the head;
//!   `list_add_tail()` reports "list_add corruption" and refuses the add,
//!   and the list still holds exactly its two folios;
//! - pop: the second folio's `lru.prev` no longer leads to the first;
//!   `list_del_init()` reports "list_del corruption" and refuses to unlink
//!   the first.  `FolioList::pop_front()` must then hand out nothing, now
//!   or on any later pop (handing the first folio out again would be a
//!   second holding of one reference: a double `folio_put()`), report the
//!   list with a `WARN` ("FolioList ...: corrupted links"), and leave the
//!   list empty, so that the storage's drop ends.  The folios' reference
//!   counts show that nothing was put;
//! - drain, a loop: the second of three folios' `lru.next` leads back to
//!   itself.  `FolioList::drain()` checks nothing per folio, like C's
//!   `list_for_each_entry_safe()`, but for one compare: it must hand out
//!   the first two folios once each, then nothing (not the second again,
//!   forever), report the list with a `WARN`, and leave it empty;
//! - drain, a poisoned `prev`: the first folio's `lru.prev` is
//!   `LIST_POISON2`, as after a `list_del()`.  The unlink of the head is
//!   refused ("list_del corruption"); the drain must learn that from the
//!   list code, not by reading through the poisoned pointer (which would
//!   oops), hand out nothing, `WARN`, and leave the list empty.
//!
//! The kernel log then shows the reports, and
//!
//! ```text
//! folio_list_debug_test: push onto a corrupted list: refused
//! folio_list_debug_test: pop from a corrupted list: refused, list ended
//! folio_list_debug_test: drain of a list that loops: 2 folios, list ended
//! folio_list_debug_test: drain of a list with a poisoned prev: refused, list ended
//! ```
//!
//! Otherwise the module says what went wrong and fails to load (`EINVAL`).
//! Every case mends what it broke and frees what it allocated, whatever the
//! outcome.  Loaded by the boot test `folio_list_corruption_caught`
//! (`tools/testing/mmrust/init/95-expected-reports.sh`), where the `WARN`s
//! are expected: built only with `CONFIG_DEBUG_LIST`, as a module.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::{
    folio::{Folio, ListFolio, OwnedFolio},
    folio_list::{FolioList, ListHeadStorage},
};
use kernel::prelude::*;
use kernel::stack_pin_init;
use kernel::types::ARef;

module! {
    type: FolioListDebugTest,
    name: "folio_list_debug_test",
    author: "mmrust",
    description: "Test: CONFIG_DEBUG_LIST checks a kernel::mm list of folios",
    license: "GPL",
}

/// The `lru` of the folio at `folio`.
///
/// # Safety
///
/// `folio` points to a live folio.
unsafe fn lru_of(folio: *mut bindings::folio) -> *mut bindings::list_head {
    // SAFETY: `folio` points to a folio (the caller's promise); the place
    // of its `lru` is only named (bindgen's path to it, which `kernel::mm`
    // checks against C's offset at build time).
    unsafe {
        core::ptr::addr_of_mut!(
            (*folio)
                .__bindgen_anon_1
                .__bindgen_anon_1
                .__bindgen_anon_1
                .lru
        )
    }
}

/// `LIST_POISON2` of x86_64 and arm64 (`0x122` above
/// `CONFIG_ILLEGAL_POINTER_VALUE`): what `list_del()` leaves in `prev`, an
/// address that faults if read through.
const LIST_POISON2: usize = 0xdead_0000_0000_0122;

/// The folios of `ptrs`, each still held by a list that is gone: their
/// `lru` made an empty list again, then the holding put.
///
/// # Safety
///
/// Each folio is live and on no list that is still used, and exactly one
/// holding of each (the list's) was neither put nor kept elsewhere.
unsafe fn give_back(ptrs: &[*mut bindings::folio]) {
    for &ptr in ptrs {
        // SAFETY: live and ours (the caller's promise).
        unsafe {
            bindings::INIT_LIST_HEAD(lru_of(ptr));
            drop(OwnedFolio::from_raw(NonNull::new_unchecked(ptr)));
        }
    }
}

/// Drains `list`, taking at most `N` folios: their addresses and how many
/// there were.  Each holding handed out is given up (`into_raw`), not put:
/// a folio handed out twice must not be put twice.  A drain still handing
/// out folios after `N` is given up too (`mem::forget`): its drop would put
/// back, without end, a chain that loops.
fn drain_at_most<const N: usize>(
    list: &mut FolioList<'_, OwnedFolio>,
) -> ([*mut bindings::folio; N], usize) {
    let mut out = [core::ptr::null_mut(); N];
    let mut n = 0;
    let mut drain = list.drain();
    while n < N {
        let Some(folio) = drain.next() else {
            return (out, n);
        };
        out[n] = folio.into_raw().as_ptr();
        n += 1;
    }
    if drain.next().map(|folio| folio.into_raw()).is_some() {
        n += 1;
        core::mem::forget(drain);
    }
    (out, n)
}

/// Push onto a list whose last link is broken: refused, the list unchanged.
fn push_refused() -> Result<bool> {
    stack_pin_init!(let storage = ListHeadStorage::new());
    let mut list = FolioList::new_in(storage);
    list.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
    list.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
    let third = OwnedFolio::alloc(GFP_KERNEL, 0)?;
    let third_ptr = third.as_ptr();

    let head = list.as_ptr();
    // SAFETY: `head` is the list's initialised head, and the list holds
    // two folios: its `prev` is the last folio's `lru`, which this module
    // alone uses.  Pointing its `next` at itself instead of the head breaks
    // `FolioList`'s invariant on purpose; nothing reads the list but the
    // push below, whose check is the point, until the link is mended.
    let last = unsafe {
        let last = (*head).prev;
        (*last).next = last;
        last
    };
    // `list_add_tail()` checks `last->next == head`: the add is refused and
    // `third` stays off the list, still holding its reference, unless the
    // check is missing, in which case it links `third` after `last`, which
    // mends the link on the way.
    list.push_back(third);
    // SAFETY: as above; `last->next` is put back as it was (the head), or
    // left as the unchecked add set it (`third`'s `lru`).
    let caught = unsafe {
        let caught = (*last).next == last;
        if caught {
            (*last).next = head;
        }
        caught
    };
    let on_list = list.iter().count();
    if caught {
        // SAFETY: the refused push kept the reference `third` had and left
        // it on no list: it is held as an `OwnedFolio` again.
        drop(unsafe { OwnedFolio::from_raw(NonNull::new_unchecked(third_ptr)) });
    }
    // Dropping the storage frees the folios on the list.
    if caught && on_list == 2 {
        pr_info!("push onto a corrupted list: refused\n");
        Ok(true)
    } else {
        pr_err!("push onto a corrupted list: not refused ({on_list} folios on the list)\n");
        Ok(false)
    }
}

/// Pop from a list whose second link is broken: nothing handed out, now or
/// later, the folios' references untouched, and the list empty after.
fn pop_refused() -> Result<bool> {
    let first = OwnedFolio::alloc(GFP_KERNEL, 0)?;
    let second = OwnedFolio::alloc(GFP_KERNEL, 0)?;
    // A second reference to each, to watch the list's.
    let watch: [ARef<Folio>; 2] = [ARef::from(&*first), ARef::from(&*second)];
    let ptrs = [first.as_ptr(), second.as_ptr()];

    let (handed_out, ended, refs) = {
        stack_pin_init!(let storage = ListHeadStorage::new());
        let mut list = FolioList::new_in(storage);
        list.push_back(first);
        list.push_back(second);
        // SAFETY: both folios are live (watched); their `lru`s are on this
        // module's list, which nothing else uses.  The second one's `prev`
        // is pointed at itself instead of the first one's `lru`: the
        // corruption.
        unsafe { (*lru_of(ptrs[1])).prev = lru_of(ptrs[1]) };

        // `list_del_init()` of the first entry checks `next->prev == entry`
        // and refuses.  A fixed number of pops: a list that keeps handing
        // out its first folio must not keep this test going.
        let mut handed_out = 0;
        while handed_out < 3 {
            let Some(folio) = list.pop_front() else {
                break;
            };
            // Not dropped: a second holding of one reference would put it
            // twice.  What it holds is given back below.
            let _ = folio.into_raw();
            handed_out += 1;
        }
        let ended = list.is_empty();
        if !ended {
            // SAFETY: the head is this module's; emptied by hand so that
            // the storage's drop does not loop over the corrupted links.
            unsafe { bindings::INIT_LIST_HEAD(list.as_ptr()) };
        }
        (
            handed_out,
            ended,
            [watch[0].ref_count(), watch[1].ref_count()],
        )
        // The storage ends here: its list is empty, so its drop loop ends
        // at once.
    };

    // Each folio's holding from the list, handed back whatever happened.
    // SAFETY: the folios are live (watched) and on no list any more; the
    // list's reference was neither put nor handed out for good (the
    // handed-out holdings were given up with `into_raw`).
    unsafe { give_back(&ptrs) };

    if handed_out == 0 && ended && refs == [2, 2] {
        pr_info!("pop from a corrupted list: refused, list ended\n");
        Ok(true)
    } else {
        pr_err!(
            "pop from a corrupted list: {handed_out} folios handed out, list {}, references {refs:?} (want 2, 2)\n",
            if ended { "ended" } else { "not ended" }
        );
        Ok(false)
    }
}

/// Drain a list whose second folio's `lru.next` leads back to itself: the
/// first two folios handed out once each, then nothing, the list empty.
fn drain_loop_ended() -> Result<bool> {
    let folios = [
        OwnedFolio::alloc(GFP_KERNEL, 0)?,
        OwnedFolio::alloc(GFP_KERNEL, 0)?,
        OwnedFolio::alloc(GFP_KERNEL, 0)?,
    ];
    let watch: [ARef<Folio>; 3] = core::array::from_fn(|i| ARef::from(&*folios[i]));
    let ptrs: [*mut bindings::folio; 3] = core::array::from_fn(|i| folios[i].as_ptr());

    let (out, handed_out, ended) = {
        stack_pin_init!(let storage = ListHeadStorage::new());
        let mut list = FolioList::new_in(storage);
        for folio in folios {
            list.push_back(folio);
        }
        // SAFETY: the folios are live (watched) and on this module's list,
        // which nothing else uses; the second one's `next` is pointed at
        // itself: the corruption.
        unsafe { (*lru_of(ptrs[1])).next = lru_of(ptrs[1]) };
        let (out, handed_out) = drain_at_most::<4>(&mut list);
        let ended = list.is_empty();
        if !ended {
            // SAFETY: the head is this module's; emptied by hand so that
            // the storage's drop does not walk the corrupted links.
            unsafe { bindings::INIT_LIST_HEAD(list.as_ptr()) };
        }
        (out, handed_out, ended)
    };
    let refs: [i32; 3] = core::array::from_fn(|i| watch[i].ref_count());
    // SAFETY: live (watched), on no list now, and the list's holding of
    // each is still there (the handed-out ones were given up with
    // `into_raw`, none was put: `refs`).
    unsafe { give_back(&ptrs) };

    if handed_out == 2 && out[..2] == ptrs[..2] && ended && refs == [2, 2, 2] {
        pr_info!("drain of a list that loops: 2 folios, list ended\n");
        Ok(true)
    } else {
        pr_err!(
            "drain of a list that loops: {handed_out} folios handed out (want the first 2, once each), list {}, references {refs:?} (want 2, 2, 2)\n",
            if ended { "ended" } else { "not ended" }
        );
        Ok(false)
    }
}

/// Drain a list whose first folio's `lru.prev` is poisoned: the unlink of
/// the head refused, nothing handed out, the list empty.
fn drain_refused() -> Result<bool> {
    let folios = [
        OwnedFolio::alloc(GFP_KERNEL, 0)?,
        OwnedFolio::alloc(GFP_KERNEL, 0)?,
    ];
    let watch: [ARef<Folio>; 2] = core::array::from_fn(|i| ARef::from(&*folios[i]));
    let ptrs: [*mut bindings::folio; 2] = core::array::from_fn(|i| folios[i].as_ptr());

    let (handed_out, ended) = {
        stack_pin_init!(let storage = ListHeadStorage::new());
        let mut list = FolioList::new_in(storage);
        for folio in folios {
            list.push_back(folio);
        }
        // SAFETY: as in `drain_loop_ended`; the first folio's `prev` (the
        // head, as it should be) becomes `LIST_POISON2`.
        unsafe { (*lru_of(ptrs[0])).prev = LIST_POISON2 as *mut bindings::list_head };
        let (_, handed_out) = drain_at_most::<3>(&mut list);
        let ended = list.is_empty();
        if !ended {
            // SAFETY: as in `drain_loop_ended`.
            unsafe { bindings::INIT_LIST_HEAD(list.as_ptr()) };
        }
        (handed_out, ended)
    };
    let refs: [i32; 2] = core::array::from_fn(|i| watch[i].ref_count());
    // SAFETY: as in `drain_loop_ended`; `give_back` re-initialises the
    // poisoned `prev` before anything reads it.
    unsafe { give_back(&ptrs) };

    if handed_out == 0 && ended && refs == [2, 2] {
        pr_info!("drain of a list with a poisoned prev: refused, list ended\n");
        Ok(true)
    } else {
        pr_err!(
            "drain of a list with a poisoned prev: {handed_out} folios handed out, list {}, references {refs:?} (want 2, 2)\n",
            if ended { "ended" } else { "not ended" }
        );
        Ok(false)
    }
}

struct FolioListDebugTest;

impl kernel::Module for FolioListDebugTest {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let push = push_refused()?;
        let pop = pop_refused()?;
        let drain_loop = drain_loop_ended()?;
        let drain_poisoned = drain_refused()?;
        if push && pop && drain_loop && drain_poisoned {
            Ok(FolioListDebugTest)
        } else {
            Err(EINVAL)
        }
    }
}
