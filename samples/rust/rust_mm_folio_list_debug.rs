// SPDX-License-Identifier: GPL-2.0

//! Rust sample: `CONFIG_DEBUG_LIST` checks a `kernel::mm` list of folios.
//!
//! `FolioList` links and unlinks folios with the kernel's own list
//! functions, so the list debugging C lists have applies to Rust lists too.
//! On load this module shows it: it builds a list of two folios, breaks
//! one link on purpose (the last folio's `lru.next` no longer leads back
//! to the head), and pushes a third folio. `list_add_tail()` finds the
//! broken link, reports "list_add corruption" (a `WARN`, which taints the
//! kernel) and refuses the add. The module then mends the link, checks
//! that the list still holds exactly the two folios it had, frees all
//! three, and loads: the kernel log shows the report, then
//!
//! ```text
//! rust_mm_folio_list_debug: list_add_tail() refused the push onto a corrupted list: caught
//! ```
//!
//! Had the add gone through unchecked, the list would hold three folios:
//! the module then says so and refuses to load (`EINVAL`).
//!
//! Built only with `CONFIG_DEBUG_LIST`, where the check exists: load it
//! only where a `WARN` is expected (the debug image's last boot test).

use kernel::mm::{
    folio::{ListFolio, OwnedFolio},
    folio_list::{FolioList, ListHeadStorage},
};
use kernel::prelude::*;
use kernel::stack_pin_init;

module! {
    type: RustMmFolioListDebug,
    name: "rust_mm_folio_list_debug",
    author: "mmrust",
    description: "Rust sample: CONFIG_DEBUG_LIST checks a kernel::mm list of folios",
    license: "GPL",
}

struct RustMmFolioListDebug;

impl kernel::Module for RustMmFolioListDebug {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        stack_pin_init!(let storage = ListHeadStorage::new());
        let mut list = FolioList::new_in(storage);
        list.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
        list.push_back(OwnedFolio::alloc(GFP_KERNEL, 0)?);
        let third = OwnedFolio::alloc(GFP_KERNEL, 0)?;
        let third_ptr = third.as_ptr();

        let head = list.as_ptr();
        // SAFETY: `head` is the list's initialised head, and the list holds
        // two folios: its `prev` is the last folio's `lru`, which this
        // module alone uses. Pointing its `next` at itself instead of the
        // head breaks `FolioList`'s invariant on purpose (the corruption);
        // nothing reads the list but the push below, whose check is the
        // point, until the link is mended.
        let last = unsafe {
            let last = (*head).prev;
            (*last).next = last;
            last
        };
        // `list_add_tail()` checks `last->next == head` (and reports "list_add
        // corruption. prev->next should be next"): the add is refused and
        // `third` stays off the list (still holding its reference), unless
        // the check is missing, in which case it links `third` after
        // `last`, which mends the link on the way.
        list.push_back(third);
        // SAFETY: as above; `last->next` is put back as it was (the head),
        // or left as the unchecked add set it (`third`'s `lru`).
        let caught = unsafe {
            let caught = (*last).next == last;
            if caught {
                (*last).next = head;
            }
            caught
        };
        let on_list = list.iter().count();
        if caught {
            // SAFETY: the refused push kept the reference `third` had and
            // left it on no list: it is held as an `OwnedFolio` again.
            drop(unsafe { OwnedFolio::from_raw(core::ptr::NonNull::new_unchecked(third_ptr)) });
        }
        // Dropping the list's storage frees the folios on the list.
        if caught && on_list == 2 {
            pr_info!("list_add_tail() refused the push onto a corrupted list: caught\n");
            Ok(RustMmFolioListDebug)
        } else {
            pr_err!(
                "the push onto a corrupted list was not refused ({on_list} folios on the list)\n"
            );
            Err(EINVAL)
        }
    }
}
