// SPDX-License-Identifier: GPL-2.0

//! Rust sample: folios and lists of folios with `kernel::mm`.
//!
//! On load it allocates a few folios of different orders, puts them on a
//! list, walks it, moves the large ones to a second list, and keeps every
//! folio until the module is unloaded, when they are freed: dropping an
//! `OwnedFolio` puts its reference. The unload shows it through a second
//! reference (`ARef<Folio>`) taken to each folio first, the only one left
//! after the drop, whose own drop then frees the folio. Each step is
//! printed, so the kernel log shows what the API did:
//!
//! ```text
//! rust_mm_folio_list: allocated 4 folios, orders 0 1 2 3, 15 pages
//! rust_mm_folio_list: moved 2 folios of order >= 2 to a second list
//! rust_mm_folio_list: first list: 2 folios, 3 pages; second list: 2 folios, 12 pages
//! rust_mm_folio_list: holding 4 folios until unload
//! rust_mm_folio_list: unloading: freeing 4 folios
//! rust_mm_folio_list: 4 folios had their reference put by the drop
//! ```

use kernel::mm::{
    folio::{Folio, OwnedFolio},
    folio_list::{FolioList, ListHeadStorage},
};
use kernel::prelude::*;
use kernel::stack_pin_init;
use kernel::types::ARef;

module! {
    type: RustMmFolioList,
    name: "rust_mm_folio_list",
    author: "mmrust",
    description: "Rust sample: folios and lists of folios with kernel::mm",
    license: "GPL",
}

/// The orders of the folios the sample allocates.
const ORDERS: [u32; 4] = [0, 1, 2, 3];

/// Number of folios and pages on a list.
fn count(list: &FolioList<'_, OwnedFolio>) -> (usize, usize) {
    list.iter().fold((0, 0), |(folios, pages), f| {
        (folios + 1, pages + f.nr_pages())
    })
}

struct RustMmFolioList {
    /// The folios, held until unload.
    folios: KVec<OwnedFolio>,
}

impl kernel::Module for RustMmFolioList {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        stack_pin_init!(let storage = ListHeadStorage::new());
        let mut small = FolioList::new_in(storage);
        for order in ORDERS {
            // On an error the list's storage frees what was allocated.
            small.push_back(OwnedFolio::alloc(GFP_KERNEL, order)?);
        }
        let (folios, pages) = count(&small);
        pr_info!("allocated {folios} folios, orders 0 1 2 3, {pages} pages\n");

        // Move the folios of order 2 and more to a second list, keeping
        // the others in order on the first.
        stack_pin_init!(let storage = ListHeadStorage::new());
        let mut large = FolioList::new_in(storage);
        stack_pin_init!(let storage = ListHeadStorage::new());
        let mut kept = FolioList::new_in(storage);
        while let Some(folio) = small.pop_front() {
            if folio.order() >= 2 {
                large.push_back(folio);
            } else {
                kept.push_back(folio);
            }
        }
        let (kept_folios, kept_pages) = count(&kept);
        let (large_folios, large_pages) = count(&large);
        pr_info!("moved {large_folios} folios of order >= 2 to a second list\n");
        pr_info!(
            "first list: {kept_folios} folios, {kept_pages} pages; second list: {large_folios} folios, {large_pages} pages\n"
        );

        let mut folios = KVec::with_capacity(ORDERS.len(), GFP_KERNEL)?;
        while let Some(folio) = kept.pop_front().or_else(|| large.pop_front()) {
            folios.push(folio, GFP_KERNEL)?;
        }
        pr_info!("holding {} folios until unload\n", folios.len());
        Ok(RustMmFolioList { folios })
    }
}

impl Drop for RustMmFolioList {
    fn drop(&mut self) {
        // A second reference to each folio, to see the drop put the
        // `OwnedFolio`'s.
        let mut watched = KVec::with_capacity(self.folios.len(), GFP_KERNEL).ok();
        if let Some(watched) = watched.as_mut() {
            for folio in self.folios.iter() {
                let watch: ARef<Folio> = ARef::from(&**folio);
                // Within the capacity reserved above: no allocation.
                let _ = watched.push(watch, GFP_KERNEL);
            }
        }
        pr_info!("unloading: freeing {} folios\n", self.folios.len());
        // Dropping the vector drops each `OwnedFolio`, which puts its
        // reference.
        drop(core::mem::take(&mut self.folios));
        let put = watched
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .filter(|w| w.ref_count() == 1)
            .count();
        pr_info!("{put} folios had their reference put by the drop\n");
        // Dropping `watched` puts the last references, which frees the
        // folios.
    }
}
