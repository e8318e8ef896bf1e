/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SLUB per-cpu partial list accounting: the C original and the Rust
 * implementation (mm/slub_partial.rs), both in the kernel, one selected at
 * boot with "slub_partial_impl=rust|c".
 *
 * The per-cpu partial list of a cache is limited in slabs, not objects:
 * the object target of the cache (cpu_partial, also the sysfs knob) is
 * turned into a slab limit (cpu_partial_slabs) assuming half-full slabs.
 */
#ifndef _LINUX_SLUB_PARTIAL_H
#define _LINUX_SLUB_PARTIAL_H

#include <linux/jump_label.h>
#include <linux/math.h>
#include <linux/mm_impl_switch.h>
#include <linux/types.h>
#include <asm/page.h>
#include <kunit/visibility.h>

struct kmem_cache;
struct slab;

/*
 * The C original of the pure decisions, as mm/slub.c had them inline.
 * Each has a Rust twin slub_rust_<name>() with the same signature.
 */

/* Default object target of a cache by its object size. */
static inline unsigned int slub_c_default_cpu_partial(unsigned int size,
						      bool has_cpu_partial)
{
	if (!has_cpu_partial)
		return 0;
	if (size >= PAGE_SIZE)
		return 6;
	if (size >= 1024)
		return 24;
	if (size >= 256)
		return 52;
	return 120;
}

/* Object target to slab limit, assuming the slabs are half full. */
static inline unsigned int slub_c_cpu_partial_slabs(unsigned int nr_objects,
						    unsigned int objects_per_slab)
{
	return DIV_ROUND_UP(nr_objects * 2, objects_per_slab);
}

/*
 * Whether a refill from the node partial list stops, after the slab it
 * returns and @nr_pushed more put on the per-cpu partial list.
 */
static inline bool slub_c_partial_node_done(unsigned int nr_pushed,
					    unsigned int cpu_partial_slabs)
{
	if (!nr_pushed)
		return cpu_partial_slabs == 0;
	return nr_pushed > cpu_partial_slabs / 2;
}

/* Free objects on @slabs per-cpu partial slabs, assuming half-full slabs. */
static inline unsigned int slub_c_partial_objects(unsigned int slabs,
						  unsigned int objects_per_slab)
{
	return (slabs * objects_per_slab) / 2;
}

/**
 * enum slub_partial_impl - Implementation of the per-cpu partial accounting.
 * @SLUB_PARTIAL_C: the C original in mm/slub.c.
 * @SLUB_PARTIAL_RUST: the Rust implementation in mm/slub_partial.rs.
 */
enum slub_partial_impl {
	SLUB_PARTIAL_C,
	SLUB_PARTIAL_RUST,
};

#ifdef CONFIG_SLUB_CPU_PARTIAL_RUST

/* The Rust implementation, mm/slub_partial.rs. */
unsigned int slub_rust_default_cpu_partial(unsigned int size,
					   bool has_cpu_partial);
unsigned int slub_rust_cpu_partial_slabs(unsigned int nr_objects,
					 unsigned int objects_per_slab);
bool slub_rust_partial_node_done(unsigned int nr_pushed,
				 unsigned int cpu_partial_slabs);
unsigned int slub_rust_partial_objects(unsigned int slabs,
				       unsigned int objects_per_slab);
struct slab *slub_rust_put_cpu_partial(struct kmem_cache *s,
				       struct slab **head, struct slab *slab,
				       int drain);
int slub_rust_cpu_partial_store(struct kmem_cache *s, const char *buf);

/* The C side of the FFI edge, in mm/slub.c. */
bool slub_cache_has_cpu_partial(struct kmem_cache *s);
unsigned int slub_cache_objects_per_slab(const struct kmem_cache *s);
unsigned int slub_cpu_partial_count(struct kmem_cache *s, int *head_slabs);

/* For the KUnit suite, in mm/slub_partial_impl.c. */
void slub_partial_kunit_flush_quarantine(struct kmem_cache *s);

/*
 * Selection between the two, mm/slub_partial_impl.c: the switch
 * slub_partial_switch, whose implementations are indexed by this enum.
 */
DECLARE_MM_IMPL_SWITCH(slub_partial);

static __always_inline bool slub_partial_use_rust(void)
{
	return mm_impl_switch_new(slub_partial);
}

/*
 * Counts a call of @impl (debugfs slub_partial/calls_c, calls_rust), in the
 * branch that runs it, after slub_partial_use_rust() chose: one per-cpu
 * increment, the same for both.
 */
static __always_inline void slub_partial_count(enum slub_partial_impl impl)
{
	mm_impl_switch_count(slub_partial, impl);
}

#define slub_partial_call(fn, ...)					\
	(slub_partial_use_rust() ?					\
	 (slub_partial_count(SLUB_PARTIAL_RUST), slub_rust_##fn(__VA_ARGS__)) : \
	 (slub_partial_count(SLUB_PARTIAL_C), slub_c_##fn(__VA_ARGS__)))

#else /* !CONFIG_SLUB_CPU_PARTIAL_RUST */

static __always_inline bool slub_partial_use_rust(void)
{
	return false;
}

/* No switch, nothing to count. */
static __always_inline void slub_partial_count(enum slub_partial_impl impl)
{
}

/*
 * Never called: put_cpu_partial() in mm/slub.c calls it behind
 * slub_partial_use_rust(), which is constant false here, so the compiler
 * drops the call; it only has to be declared.
 */
static inline struct slab *slub_rust_put_cpu_partial(struct kmem_cache *s,
						     struct slab **head,
						     struct slab *slab,
						     int drain)
{
	return NULL;
}

#define slub_partial_call(fn, ...) slub_c_##fn(__VA_ARGS__)

#endif /* CONFIG_SLUB_CPU_PARTIAL_RUST */

#endif /* _LINUX_SLUB_PARTIAL_H */
