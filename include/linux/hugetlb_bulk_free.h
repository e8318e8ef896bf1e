/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hugetlb bulk free: update_and_free_pages_bulk() in Rust
 * (mm/hugetlb_bulk_free.rs), with the C original in mm/hugetlb.c selected at
 * boot by "hugetlb_bulk_free_impl=rust|c", and the debug aids both share:
 * counters of lock cycles and TLB flushes, and injected vmemmap restore
 * failures.
 */
#ifndef _LINUX_HUGETLB_BULK_FREE_H
#define _LINUX_HUGETLB_BULK_FREE_H

#include <linux/mm_impl_switch.h>
#include <linux/types.h>

struct folio;
struct hstate;
struct list_head;

#ifdef CONFIG_HUGETLB_BULK_FREE_RUST

/* The Rust implementation, mm/hugetlb_bulk_free.rs. */
void hugetlb_rust_update_and_free_pages_bulk(struct hstate *h,
					     struct list_head *folio_list);

/* The C side of the FFI edge, in mm/hugetlb.c. */
long hugetlb_bulk_vmemmap_restore_folios(struct hstate *h,
					 struct list_head *folio_list,
					 struct list_head *non_hvo_folios);
int hugetlb_bulk_vmemmap_restore_folio(struct hstate *h, struct folio *folio);
void hugetlb_bulk_lock(void);
void hugetlb_bulk_unlock(void);
void hugetlb_bulk_folio_clear_hugetlb(struct folio *folio);
void hugetlb_bulk_add_surplus_folio(struct hstate *h, struct folio *folio);
void hugetlb_bulk_free_folio(struct hstate *h, struct folio *folio);
int hugetlb_bulk_set_pool_size(struct hstate *h, unsigned long count);

/**
 * enum hugetlb_bulk_free_impl - Implementation of update_and_free_pages_bulk().
 * @HUGETLB_BULK_FREE_C: the C original in mm/hugetlb.c.
 * @HUGETLB_BULK_FREE_RUST: the Rust implementation.
 */
enum hugetlb_bulk_free_impl {
	HUGETLB_BULK_FREE_C,
	HUGETLB_BULK_FREE_RUST,
};

/* The switch hugetlb_bulk_free_switch, indexed by the enum above. */
DECLARE_MM_IMPL_SWITCH(hugetlb_bulk_free);

static __always_inline bool hugetlb_bulk_free_use_rust(void)
{
	return mm_impl_switch_new(hugetlb_bulk_free);
}

#else /* !CONFIG_HUGETLB_BULK_FREE_RUST */

static __always_inline bool hugetlb_bulk_free_use_rust(void)
{
	return false;
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
 * @NR_HUGETLB_BULK_STATS: number of counters.
 */
enum hugetlb_bulk_stat {
	HUGETLB_BULK_FREES,
	HUGETLB_BULK_LOCK_CYCLES,
	HUGETLB_BULK_TLB_FLUSHES,
	HUGETLB_BULK_INJECTED_FAILURES,
	HUGETLB_BULK_RCU_WAITS,
	HUGETLB_BULK_RCU_WAITS_SKIPPED,
	NR_HUGETLB_BULK_STATS,
};

#ifdef CONFIG_HUGETLB_BULK_FREE_DEBUG
bool hugetlb_bulk_free_begin(struct list_head *folio_list);
void hugetlb_bulk_free_end(bool counted);
void hugetlb_bulk_count(enum hugetlb_bulk_stat item);
unsigned long hugetlb_bulk_stat_read(enum hugetlb_bulk_stat item);
bool hugetlb_bulk_should_fail_restore(void);
u64 hugetlb_bulk_wait_begin(void);
void hugetlb_bulk_wait_end(u64 start);
void hugetlb_bulk_inject_restore_failures(unsigned int first, unsigned int count);
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

static inline u64 hugetlb_bulk_wait_begin(void)
{
	return 0;
}

static inline void hugetlb_bulk_wait_end(u64 start) { }
#endif /* CONFIG_HUGETLB_BULK_FREE_DEBUG */

#endif /* _LINUX_HUGETLB_BULK_FREE_H */
