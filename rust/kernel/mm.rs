// SPDX-License-Identifier: GPL-2.0

//! Memory management: folios and the C lists mm code passes them on.
//!
//! C headers: [`include/linux/mm.h`](srctree/include/linux/mm.h),
//! [`include/linux/mm_types.h`](srctree/include/linux/mm_types.h)
//!
//! What lives here is what any Rust code in mm can use, whatever its
//! algorithm: [`folio::Folio`] (the C `struct folio`, reference-counted:
//! [`ARef<Folio>`](crate::types::ARef)), [`folio::OwnedFolio`] (a counted
//! reference whose holder alone uses the folio's `lru`, which is what a
//! list needs), [`folio_list::FolioList`] (a `list_head` of folios linked
//! through `lru`, used exclusively, on the kernel's own list functions),
//! and [`assert_c_prototypes!`](crate::assert_c_prototypes), which ties
//! Rust functions called from C to their C prototypes.
//!
//! What belongs to one algorithm stays next to it, in `mm/`: the SLUB
//! per-cpu partial list handle (`mm/slub_partial.rs`), which exists only
//! while a lock private to `mm/slub.c` is held, and the hugetlb bulk free's
//! `hugetlb_lock` guard and uncounted pool folios
//! (`mm/hugetlb_bulk_free.rs`), whose only operations are steps of that
//! algorithm.

pub mod folio;
pub mod folio_list;

/// Checks at compile time that each Rust function named is of the type of
/// the C function of the same name that bindgen declares in
/// [`bindings`](crate::bindings).
///
/// For Rust functions called from C (`#[no_mangle] unsafe extern "C"`): C
/// calls them through the prototype in a header, and nothing else would
/// notice a prototype and a definition that disagree; the call would
/// compile and pass its arguments wrongly.  bindgen declares every C
/// function `unsafe`, so the Rust definition must be an `unsafe extern "C"
/// fn` too (as upstream's `#[export]` requires): two fn items of the same
/// safety and ABI unify on every rustc the kernel supports, and the check
/// holds on each (1.85 of the LTO image, 1.96 of the test images).  rustc
/// 1.85 does not unify a safe fn item with an unsafe one: a safe
/// definition fails to build there.
///
/// # Examples
///
/// ```
/// use kernel::{bindings, ffi::c_uint};
///
/// // The type of `folio_order()`'s declaration in the bindings.
/// unsafe extern "C" fn folio_order(_folio: *mut bindings::folio) -> c_uint {
///     0
/// }
/// kernel::assert_c_prototypes!(folio_order);
/// ```
///
/// A prototype that differs (an `unsigned long` returned, say) fails the
/// build with E0308; `make mutants` keeps a mutant of the SLUB entry points
/// that checks it (`tools/testing/mmrust/mutants/28-slub-prototype-drift.patch`).
///
/// The check covers only the functions named, so the list must name every
/// one: for the Rust files of `mm/`, Kbuild (`mm/Makefile.mmrust`) stops
/// the build when a file defines a `#[no_mangle]` function that no
/// `assert_c_prototypes!` of the file names.
#[macro_export]
macro_rules! assert_c_prototypes {
    ($($name:ident),+ $(,)?) => {
        // Both arms must coerce to one function pointer type: they do only
        // if the safety, the ABI, the parameters and the return type are
        // the same.
        const _: () = {
            $(
                let _ = if true { $crate::bindings::$name } else { $name };
            )+
        };
    };
}
