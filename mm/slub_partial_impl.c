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
#include <linux/kasan.h>
#include <linux/mm_impl_switch.h>
#include <linux/slub_partial.h>
#include <kunit/visibility.h>

DEFINE_MM_IMPL_SWITCH(slub_partial, "per-cpu partial accounting", "c", "rust");
/* slub_partial_switch: for the KUnit suite built as a module. */
EXPORT_SYMBOL_IF_KUNIT(slub_partial_switch);
/* /sys/kernel/debug/slub_partial/rust: 1 or 0, anything else is -EINVAL. */
DEFINE_MM_IMPL_SWITCH_DEBUGFS(slub_partial);

/*
 * The Rust side's entry points (mm/slub_partial.rs), for the KUnit suite
 * built as a module (CONFIG_SLUB_CPU_PARTIAL_RUST_KUNIT_TEST=m), which
 * checks each against the C original on the same inputs.
 */
/* slub_rust_default_cpu_partial(): the default object target. */
EXPORT_SYMBOL_IF_KUNIT(slub_rust_default_cpu_partial);
/* slub_rust_cpu_partial_slabs(): the slab limit of an object target. */
EXPORT_SYMBOL_IF_KUNIT(slub_rust_cpu_partial_slabs);
/* slub_rust_partial_node_done(): the refill's stop condition. */
EXPORT_SYMBOL_IF_KUNIT(slub_rust_partial_node_done);
/* slub_rust_partial_objects(): the slabs_cpu_partial estimate. */
EXPORT_SYMBOL_IF_KUNIT(slub_rust_partial_objects);
/* slub_rust_cpu_partial_store(): the cpu_partial sysfs store. */
EXPORT_SYMBOL_IF_KUNIT(slub_rust_cpu_partial_store);

#if IS_ENABLED(CONFIG_SLUB_CPU_PARTIAL_RUST_KUNIT_TEST)
/**
 * slub_partial_kunit_flush_quarantine() - Give a cache's quarantined objects back.
 * @s: The cache.
 *
 * Generic KASAN holds freed objects in its quarantine and frees them to
 * SLUB later; kasan_cache_shrink() frees this cache's now (nothing without
 * generic KASAN).  For the KUnit suite, which may be a module, where that
 * function is not exported.
 */
void slub_partial_kunit_flush_quarantine(struct kmem_cache *s)
{
	kasan_cache_shrink(s);
}
EXPORT_SYMBOL_IF_KUNIT(slub_partial_kunit_flush_quarantine);
#endif
