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
/// For Rust functions called from C (`#[no_mangle] extern "C"`): C calls
/// them through the prototype in a header, and nothing else would notice
/// a prototype and a definition that disagree; the call would compile and
/// pass its arguments wrongly.  A safe `extern "C" fn` matches an
/// `unsafe` declaration of the same signature.  The check needs a rustc
/// that unifies the two (`CONFIG_RUSTC_HAS_FN_ITEM_SAFETY_LUB`: 1.96 does,
/// 1.85 does not); without one the macro checks nothing.
///
/// # Examples
///
/// ```
/// use kernel::{bindings, ffi::c_uint};
///
/// // The type of `folio_order()`'s declaration in the bindings.
/// extern "C" fn folio_order(_folio: *mut bindings::folio) -> c_uint {
///     0
/// }
/// kernel::assert_c_prototypes!(folio_order);
/// # assert_eq!(folio_order(core::ptr::null_mut()), 0);
/// ```
#[macro_export]
macro_rules! assert_c_prototypes {
    ($($name:ident),+ $(,)?) => {
        // Both arms must coerce to one function pointer type: they do only
        // if the parameters and the return type are the same.  Left out
        // where rustc cannot unify a safe with an unsafe fn item (1.85).
        const _: () = {
            $(
                #[cfg(CONFIG_RUSTC_HAS_FN_ITEM_SAFETY_LUB)]
                let _ = if true { $crate::bindings::$name } else { $name };
            )+
        };
    };
}
