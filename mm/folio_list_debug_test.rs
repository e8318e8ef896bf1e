// SPDX-License-Identifier: GPL-2.0

//! Test: `kernel::mm::folio_list` under the kernel's list checks.
//!
//! `FolioList` links and unlinks folios with the kernel's own list
//! functions, so `CONFIG_DEBUG_LIST` checks a Rust list as it checks C's.
//! This module breaks a link on purpose, twice, and sees what the list does
//! (both cases at load; the module loads only if both hold):
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
//!   counts show that nothing was put.
//!
//! The kernel log then shows the reports, and
//!
//! ```text
//! folio_list_debug_test: push onto a corrupted list: refused
//! folio_list_debug_test: pop from a corrupted list: refused, list ended
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
    // SAFETY: `lru` is that many bytes into the folio (the caller's
    // promise that it is one).
    unsafe {
        folio
            .cast::<u8>()
            .add(bindings::MMRUST_FOLIO_LRU_OFFSET)
            .cast()
    }
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

    // Each folio's holding from the list, handed back whatever happened:
    // its `lru` re-initialised (it was on a list that no longer exists),
    // then put once.
    for ptr in ptrs {
        // SAFETY: the folio is live (watched) and on no list any more; the
        // list's reference was neither put nor handed out for good (the
        // handed-out holdings were given up with `into_raw`), so exactly
        // one holding remains, taken back here.
        unsafe {
            bindings::INIT_LIST_HEAD(lru_of(ptr));
            drop(OwnedFolio::from_raw(NonNull::new_unchecked(ptr)));
        }
    }

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

struct FolioListDebugTest;

impl kernel::Module for FolioListDebugTest {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let push = push_refused()?;
        let pop = pop_refused()?;
        if push && pop {
            Ok(FolioListDebugTest)
        } else {
            Err(EINVAL)
        }
    }
}
