// SPDX-License-Identifier: GPL-2.0
/*
 * Offsets of the mm-internal fields that the project's Rust code reads and
 * writes, for bindgen: Kbuild turns this file into
 * include/generated/mmrust_offsets.h (patches: "kbuild: generate
 * mmrust_offsets.h"), the way it makes asm-offsets.h, and
 * include/linux/mmrust_bindings.h includes the result.
 *
 * struct slab and struct kmem_cache are private to mm/ (mm/slab.h): giving
 * bindgen that header would put every mm-internal type into the kernel
 * crate's bindings, under names that change with the configuration
 * (__bindgen_anon_*).  The Rust side gets exactly the fields it needs,
 * as constants of this configuration, at no cost: an offset folds into the
 * load or store as a struct member would.
 */
#define COMPILE_OFFSETS
#include <linux/build_bug.h>
#include <linux/kbuild.h>
#include <linux/stddef.h>

#include "slab.h"

#ifdef CONFIG_SLUB_CPU_PARTIAL
/*
 * The C type of each field, as mm/slub_partial.rs reads and writes it
 * (a slab pointer, an int, two unsigned ints): a field that changes type
 * fails here even where its size stays, and its size is checked again on
 * the Rust side against the Rust type used for it.
 */
static_assert(__same_type(((struct slab *)0)->next, struct slab *));
static_assert(__same_type(((struct slab *)0)->slabs, int));
static_assert(__same_type(((struct kmem_cache *)0)->cpu_partial, unsigned int));
static_assert(__same_type(((struct kmem_cache *)0)->cpu_partial_slabs, unsigned int));
#endif

int main(void)
{
#ifdef CONFIG_SLUB_CPU_PARTIAL
	/* The per-cpu partial list link of a slab (mm/slub_partial.rs). */
	OFFSET(MMRUST_SLAB_NEXT, slab, next);
	DEFINE(MMRUST_SLAB_NEXT_SIZE, sizeof_field(struct slab, next));
	OFFSET(MMRUST_SLAB_SLABS, slab, slabs);
	DEFINE(MMRUST_SLAB_SLABS_SIZE, sizeof_field(struct slab, slabs));
	/* The object target and slab limit of a cache. */
	OFFSET(MMRUST_KMEM_CACHE_CPU_PARTIAL, kmem_cache, cpu_partial);
	OFFSET(MMRUST_KMEM_CACHE_CPU_PARTIAL_SLABS, kmem_cache, cpu_partial_slabs);
	DEFINE(MMRUST_KMEM_CACHE_CPU_PARTIAL_SIZE, sizeof_field(struct kmem_cache, cpu_partial));
	DEFINE(MMRUST_KMEM_CACHE_CPU_PARTIAL_SLABS_SIZE,
	       sizeof_field(struct kmem_cache, cpu_partial_slabs));
#endif
	return 0;
}
