// SPDX-License-Identifier: GPL-2.0

//! Memory management: folios and the C lists mm code passes them on.
//!
//! C headers: [`include/linux/mm.h`](srctree/include/linux/mm.h),
//! [`include/linux/mm_types.h`](srctree/include/linux/mm_types.h)
//!
//! What lives here is what any Rust code in mm can use, whatever its
//! algorithm: [`folio::Folio`] (a folio borrowed from C), the two ways of
//! holding one off every list ([`folio::UnlinkedFolio`] for folios mm hands
//! over without a reference, [`folio::OwnedFolio`] for one allocated here),
//! and [`folio_list::FolioList`] (a `list_head` of folios linked through
//! `lru`, used exclusively).
//!
//! What belongs to one algorithm stays next to it, in `mm/`: the SLUB
//! per-cpu partial list handle (`mm/slub_partial.rs`), which exists only
//! while a lock private to `mm/slub.c` is held, and the `hugetlb_lock`
//! guard of the hugetlb bulk free (`mm/hugetlb_bulk_free.rs`), whose only
//! operations are steps of that algorithm.

pub mod folio;
pub mod folio_list;
