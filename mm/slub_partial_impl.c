// SPDX-License-Identifier: GPL-2.0
/*
 * Boot-time choice between the Rust and the C per-cpu partial accounting:
 * "slub_partial_impl=rust" (the default) or "slub_partial_impl=c", through
 * the shared switch of <linux/mm_impl_switch.h>.
 *
 * Both implementations work on the same fields (struct slab's next/slabs,
 * struct kmem_cache's cpu_partial/cpu_partial_slabs) with the same meaning,
 * so switching between them needs no conversion of any state.  Caches
 * created before the early_initcall that applies the choice were sized by
 * the default (Rust), with the same result the C original gives.
 */
#include <linux/mm_impl_switch.h>
#include <linux/slub_partial.h>

DEFINE_MM_IMPL_SWITCH(slub_partial, "per-cpu partial accounting", "c", "rust");
