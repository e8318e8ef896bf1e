/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the project's Rust code in mm/ needs from C, for bindgen: included
 * once from rust/bindings/bindings_helper.h.
 */
#ifndef _LINUX_MMRUST_BINDINGS_H
#define _LINUX_MMRUST_BINDINGS_H

#include <linux/hugetlb.h>
#include <linux/hugetlb_bulk_free.h>
#include <linux/slub_partial.h>

/* mm-internal types (struct slab, struct kmem_cache). */
#include "../../mm/slab.h"

#endif /* _LINUX_MMRUST_BINDINGS_H */
