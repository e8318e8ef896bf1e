/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hugetlb bulk free: update_and_free_pages_bulk() in Rust
 * (mm/hugetlb_bulk_free.rs), with the C original in mm/hugetlb.c selected at
 * boot by "hugetlb_bulk_free_impl=rust|c", and the debug aids both share:
 * counters of lock cycles and TLB flushes, the time of each part of the
 * vmemmap restores, and injected vmemmap restore failures.
 */
#ifndef _LINUX_HUGETLB_BULK_FREE_H
#define _LINUX_HUGETLB_BULK_FREE_H

#include <linux/jump_label.h>
#include <linux/mm_impl_switch.h>
#include <linux/types.h>

struct folio;
struct hstate;
struct list_head;

/**
 * enum hugetlb_bulk_free_impl - Implementation of update_and_free_pages_bulk().
 * @HUGETLB_BULK_FREE_C: the C original in mm/hugetlb.c.
 * @HUGETLB_BULK_FREE_RUST: the Rust implementation.
 */
enum hugetlb_bulk_free_impl {
	HUGETLB_BULK_FREE_C,
	HUGETLB_BULK_FREE_RUST,
};

#ifdef CONFIG_HUGETLB_BULK_FREE_RUST

/* The Rust implementation, mm/hugetlb_bulk_free.rs. */
void hugetlb_rust_update_and_free_pages_bulk(struct hstate *h,
					     struct list_head *folio_list);

/* The C side of the FFI edge, in mm/hugetlb.c. */
long hugetlb_bulk_vmemmap_restore_folios(struct hstate *h,
					 struct list_head *folio_list,
					 struct list_head *non_hvo_folios);
int hugetlb_bulk_vmemmap_restore_folio(struct hstate *h, struct folio *folio);
void hugetlb_bulk_might_sleep(void);
void hugetlb_bulk_lock(void);
void hugetlb_bulk_unlock(void);
void hugetlb_bulk_folio_clear_hugetlb(struct folio *folio);
void hugetlb_bulk_add_surplus_folio(struct hstate *h, struct folio *folio);
void hugetlb_bulk_free_folio(struct hstate *h, struct folio *folio);
int hugetlb_bulk_set_pool_size(struct hstate *h, unsigned long count);

/* The switch hugetlb_bulk_free_switch, indexed by the enum above. */
DECLARE_MM_IMPL_SWITCH(hugetlb_bulk_free);

static __always_inline bool hugetlb_bulk_free_use_rust(void)
{
	return mm_impl_switch_new(hugetlb_bulk_free);
}

/*
 * Counts a call of @impl (debugfs hugetlb_bulk_free/calls_c, calls_rust),
 * in the branch that runs it: one per-cpu increment, the same for both.
 */
static __always_inline void hugetlb_bulk_free_count(enum hugetlb_bulk_free_impl impl)
{
	mm_impl_switch_count(hugetlb_bulk_free, impl);
}

#else /* !CONFIG_HUGETLB_BULK_FREE_RUST */

static __always_inline bool hugetlb_bulk_free_use_rust(void)
{
	return false;
}

/* No switch, nothing to count. */
static __always_inline void hugetlb_bulk_free_count(enum hugetlb_bulk_free_impl impl)
{
}

static inline void hugetlb_rust_update_and_free_pages_bulk(struct hstate *h,
							   struct list_head *folio_list)
{
}

#endif /* CONFIG_HUGETLB_BULK_FREE_RUST */

/**
 * enum hugetlb_bulk_stat - What the bulk-free debug counters count.
 * @HUGETLB_BULK_FREES: bulk frees of a non-empty list.
 * @HUGETLB_BULK_LOCK_CYCLES: hugetlb_lock cycles taken by the bulk-free
 *	logic itself.
 * @HUGETLB_BULK_TLB_FLUSHES: kernel TLB flushes by vmemmap restores done
 *	while a bulk free runs.
 * @HUGETLB_BULK_INJECTED_FAILURES: vmemmap restores failed on purpose.
 * @HUGETLB_BULK_RCU_WAITS: RCU grace period waits of vmemmap restores
 *	done while a bulk free runs (see <linux/hugetlb_vmemmap_gp.h>).
 * @HUGETLB_BULK_RCU_WAITS_SKIPPED: waits found unneeded: a grace period
 *	had passed since every folio of the restore was put on a free list.
 * @HUGETLB_BULK_GROW_TLB_FLUSHES: the kernel TLB flushes of the batches
 *	of hugetlb_vmemmap_optimize_folios() (the pool growing): one after
 *	the batch's PMD splits, one after its remaps, and any a remap does
 *	itself (before a retry for lack of memory, undoing a failed one).
 *	The grow_* counters count while a batch is optimized.
 * @HUGETLB_BULK_GROW_SPLIT_FLUSHES: the flushes of vmemmap PMDs split by
 *	a folio's own remap, one each, when the batch's split stopped short
 *	(a split that ran out of memory, or one injected to fail).
 * @HUGETLB_BULK_GROW_SPLIT_FAILURES: batch splits failed on purpose
 *	(hugetlb_bulk_inject_split_failure()).
 * @NR_HUGETLB_BULK_STATS: number of counters.
 */
enum hugetlb_bulk_stat {
	HUGETLB_BULK_FREES,
	HUGETLB_BULK_LOCK_CYCLES,
	HUGETLB_BULK_TLB_FLUSHES,
	HUGETLB_BULK_INJECTED_FAILURES,
	HUGETLB_BULK_RCU_WAITS,
	HUGETLB_BULK_RCU_WAITS_SKIPPED,
	HUGETLB_BULK_GROW_TLB_FLUSHES,
	HUGETLB_BULK_GROW_SPLIT_FLUSHES,
	HUGETLB_BULK_GROW_SPLIT_FAILURES,
	NR_HUGETLB_BULK_STATS,
};

/**
 * enum hugetlb_bulk_phase - Timed parts of the vmemmap restores of a bulk free.
 * @HUGETLB_BULK_PH_RCU_WAIT: RCU grace period waits (debugfs last_rcu_ns).
 * @HUGETLB_BULK_PH_ALLOC: allocating the new vmemmap pages (last_alloc_ns).
 * @HUGETLB_BULK_PH_REMAP: the page-table walk that maps them, their filling
 *	included (last_remap_ns).
 * @HUGETLB_BULK_PH_FILL: of the walk, writing struct pages into the new
 *	pages (last_fill_ns).
 * @HUGETLB_BULK_PH_FLUSH: the TLB flush of a batch (last_flush_ns).
 * @NR_HUGETLB_BULK_PHASES: number of parts.
 *
 * The wait and the flush, once per batch, are timed in every bulk free.
 * The others, once per folio or page, only while debugfs "breakdown" is
 * 1: reading the clock that often adds to what it times.
 */
enum hugetlb_bulk_phase {
	HUGETLB_BULK_PH_RCU_WAIT,
	HUGETLB_BULK_PH_ALLOC,
	HUGETLB_BULK_PH_REMAP,
	HUGETLB_BULK_PH_FILL,
	HUGETLB_BULK_PH_FLUSH,
	NR_HUGETLB_BULK_PHASES,
};

#ifdef CONFIG_HUGETLB_BULK_FREE_DEBUG
DECLARE_STATIC_KEY_FALSE(hugetlb_bulk_breakdown);
u64 __hugetlb_bulk_phase_begin(void);
void __hugetlb_bulk_phase_end(enum hugetlb_bulk_phase phase, u64 start);

static __always_inline bool hugetlb_bulk_phase_timed(enum hugetlb_bulk_phase phase)
{
	return phase == HUGETLB_BULK_PH_RCU_WAIT || phase == HUGETLB_BULK_PH_FLUSH ||
	       static_branch_unlikely(&hugetlb_bulk_breakdown);
}

/**
 * hugetlb_bulk_phase_begin() - Note the start of a part of a restore.
 * @phase: Which part.
 *
 * Return: the time, to pass to hugetlb_bulk_phase_end(); 0 when the part
 * is not timed (no bulk free runs, or breakdown is off).
 */
static __always_inline u64 hugetlb_bulk_phase_begin(enum hugetlb_bulk_phase phase)
{
	return hugetlb_bulk_phase_timed(phase) ? __hugetlb_bulk_phase_begin() : 0;
}

/**
 * hugetlb_bulk_phase_end() - Add a part of a restore to the bulk free's.
 * @phase: Which part.
 * @start: What hugetlb_bulk_phase_begin() returned.
 *
 * The time goes to the running bulk free's total of @phase (debugfs
 * last_<phase>_ns once it ends); a grace period wait is also counted
 * (rcu_waits).
 */
static __always_inline void hugetlb_bulk_phase_end(enum hugetlb_bulk_phase phase, u64 start)
{
	if (hugetlb_bulk_phase_timed(phase) && start)
		__hugetlb_bulk_phase_end(phase, start);
}

bool hugetlb_bulk_free_begin(struct list_head *folio_list);
void hugetlb_bulk_free_end(bool counted);
void hugetlb_bulk_count(enum hugetlb_bulk_stat item);
unsigned long hugetlb_bulk_stat_read(enum hugetlb_bulk_stat item);
bool hugetlb_bulk_should_fail_restore(void);
u64 hugetlb_bulk_last_phase_ns(enum hugetlb_bulk_phase phase);
unsigned long hugetlb_bulk_last_phase_count(enum hugetlb_bulk_phase phase);
void hugetlb_bulk_inject_restore_failures(unsigned int first, unsigned int count);
void hugetlb_bulk_grow_begin(void);
void hugetlb_bulk_grow_end(void);
bool hugetlb_bulk_should_fail_split(void);
void hugetlb_bulk_inject_split_failure(unsigned int nth);
/* In mm/hugetlb_bulk_free.rs: the leak check's dropped folio. */
void hugetlb_rust_drop_unlinked_folio(struct folio *folio);
#else
static inline bool hugetlb_bulk_free_begin(struct list_head *folio_list)
{
	return false;
}

static inline void hugetlb_bulk_free_end(bool counted) { }
static inline void hugetlb_bulk_count(enum hugetlb_bulk_stat item) { }
static inline bool hugetlb_bulk_should_fail_restore(void)
{
	return false;
}

static inline u64 hugetlb_bulk_phase_begin(enum hugetlb_bulk_phase phase)
{
	return 0;
}

static inline void hugetlb_bulk_phase_end(enum hugetlb_bulk_phase phase, u64 start) { }
static inline void hugetlb_bulk_grow_begin(void) { }
static inline void hugetlb_bulk_grow_end(void) { }
static inline bool hugetlb_bulk_should_fail_split(void)
{
	return false;
}
#endif /* CONFIG_HUGETLB_BULK_FREE_DEBUG */

/* In mm/hugetlb_vmemmap.c, where the setting lives (HVO kernels only). */
#if defined(CONFIG_HUGETLB_BULK_FREE_DEBUG) && defined(CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP)
bool hugetlb_bulk_set_hvo(bool on);
#else
static inline bool hugetlb_bulk_set_hvo(bool on)
{
	return false;
}
#endif

#if defined(CONFIG_HUGETLB_BULK_FREE_DEBUG) && IS_ENABLED(CONFIG_KUNIT)
struct page;
bool hugetlb_bulk_kunit_set_hvo(bool on);
bool hugetlb_bulk_vmemmap_pmd_whole(const struct page *page);
unsigned int hugetlb_bulk_kunit_free_folios(struct hstate *h, unsigned long *pfns,
					    unsigned int max, unsigned int *optimized);
unsigned long hugetlb_bulk_kunit_set_overcommit(struct hstate *h, unsigned long count);
bool hugetlb_bulk_kunit_drop_leaked_counts(struct hstate *h);
#endif

#endif /* _LINUX_HUGETLB_BULK_FREE_H */
