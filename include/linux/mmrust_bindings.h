/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the project's Rust code needs from C, for bindgen: included once
 * from rust/bindings/bindings_helper.h.
 *
 * Only public headers: the few fields of mm-internal structures (mm/slab.h)
 * that Rust uses come as constant offsets generated from
 * mm/mmrust_offsets.c, not as the structures themselves.
 */
#ifndef _LINUX_MMRUST_BINDINGS_H
#define _LINUX_MMRUST_BINDINGS_H

#include <linux/hugetlb.h>
#include <linux/hugetlb_bulk_free.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mmzone.h>
#include <linux/slub_partial.h>
#include <generated/mmrust_offsets.h>

/*
 * bindgen names a member of an anonymous union by position
 * (__bindgen_anon_N), and cannot see every macro whatever the
 * configuration: kernel::mm checks the path it uses to folio->lru against
 * the compiler's offset below, and reads the macro's value.
 */
const size_t RUST_CONST_HELPER_MMRUST_FOLIO_LRU_OFFSET = offsetof(struct folio, lru);
const unsigned int RUST_CONST_HELPER_MMRUST_MAX_PAGE_ORDER = MAX_PAGE_ORDER;

#endif /* _LINUX_MMRUST_BINDINGS_H */
