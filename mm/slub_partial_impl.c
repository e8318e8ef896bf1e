// SPDX-License-Identifier: GPL-2.0
/*
 * The choice between the Rust and the C per-cpu partial accounting:
 * "slub_partial_impl=rust" (the default) or "slub_partial_impl=c" at boot,
 * and /sys/kernel/debug/slub_partial/rust (1 or 0) at run time, through the
 * shared switch of <linux/mm_impl_switch.h>.
 *
 * Both implementations work on the same fields (struct slab's next/slabs,
 * struct kmem_cache's cpu_partial/cpu_partial_slabs) with the same meaning
 * and under the same locks, so switching between them, at boot or while
 * caches are in use, needs no conversion of any state: each decision is
 * made whole by one of them.  Caches created before the early_initcall
 * that applies the boot choice were sized by the default (Rust), with the
 * same result the C original gives.
 */
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/mm_impl_switch.h>
#include <linux/slub_partial.h>

DEFINE_MM_IMPL_SWITCH(slub_partial, "per-cpu partial accounting", "c", "rust");
/* /sys/kernel/debug/slub_partial/rust: 1 or 0, anything else is -EINVAL. */
DEFINE_MM_IMPL_SWITCH_DEBUGFS(slub_partial);
