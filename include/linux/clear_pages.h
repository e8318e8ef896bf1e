/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clearing contiguous ranges of pages instead of one page at a time:
 *
 * - clear_pages(addr, npages): kernel memory.  An architecture with a
 *   faster way than a loop of clear_page() defines its own (x86_64:
 *   asm/page_64.h); everywhere else it is clear_pages_generic().
 * - clear_user_pages() and clear_user_highpages(): pages about to be
 *   mapped to user space; one clear_pages() call for the whole range where
 *   the architecture says its clear_user_page() needs nothing more than
 *   clear_page() (by defining clear_user_pages) and there is no HIGHMEM, a
 *   loop of the per-page primitives otherwise.
 * - PROCESS_PAGES_NON_PREEMPT_BATCH: how many pages one call may clear
 *   when the kernel is not preemptible and the caller must reschedule
 *   between calls.
 * - The batched folio_zero_user() (mm/clear_pages_batch.c,
 *   CONFIG_CLEAR_PAGES_BATCH) and what its tests and debugfs files need.
 */
#ifndef _LINUX_CLEAR_PAGES_H
#define _LINUX_CLEAR_PAGES_H

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/mm_impl_switch.h>
#include <linux/sizes.h>

/**
 * clear_pages_generic() - Zero a range of pages, one clear_page() each.
 * @addr: Kernel virtual address of the first page.
 * @npages: Number of pages.
 *
 * The fallback clear_pages() of architectures without their own, also
 * callable where one exists (tests, comparisons).  Never reschedules.
 */
static inline void clear_pages_generic(void *addr, unsigned int npages)
{
	for (; npages; npages--, addr += PAGE_SIZE)
		clear_page(addr);
}

#ifdef clear_pages
/*
 * The architecture clears a range faster than page by page: hand it large
 * extents, 32 MiB at a time, which still takes well under the scheduler's
 * latency warning (100 ms) at 1 GB/s.
 */
#define PROCESS_PAGES_NON_PREEMPT_BATCH	(SZ_32M >> PAGE_SHIFT)
#else
#define clear_pages clear_pages_generic
/* Page by page it is: nothing to gain from longer calls. */
#define PROCESS_PAGES_NON_PREEMPT_BATCH	1
#endif

#ifndef clear_user_pages
/**
 * clear_user_pages() - Zero contiguous pages that will be mapped to user space.
 * @addr: Kernel virtual address of the first page.
 * @vaddr: User address the first page will be mapped at.
 * @page: The first page.
 * @npages: Number of pages.
 *
 * The architecture's clear_user_page() on each page, for architectures
 * that need per-page work (cache aliasing) or have not said otherwise.
 */
static inline void clear_user_pages(void *addr, unsigned long vaddr,
				    struct page *page, unsigned int npages)
{
	unsigned int i;

	for (i = 0; i < npages; i++)
		clear_user_page(addr + i * PAGE_SIZE, vaddr + i * PAGE_SIZE,
				nth_page(page, i));
}
#endif

/**
 * clear_user_highpages() - Zero contiguous pages that will be mapped to user space.
 * @page: The first page.
 * @vaddr: User address the first page will be mapped at.
 * @npages: Number of pages.
 *
 * One clear_user_pages() call over the direct map where every page has a
 * kernel address and the architecture has no clear_user_highpage() of its
 * own; clear_user_highpage() on each page otherwise.  Never reschedules:
 * callers bound @npages (PROCESS_PAGES_NON_PREEMPT_BATCH).
 */
static inline void clear_user_highpages(struct page *page, unsigned long vaddr,
					unsigned int npages)
{
#if !defined(CONFIG_HIGHMEM) && !defined(clear_user_highpage)
	clear_user_pages(page_address(page), vaddr, page, npages);
#else
	unsigned int i;

	for (i = 0; i < npages; i++)
		clear_user_highpage(nth_page(page, i), vaddr + i * PAGE_SIZE);
#endif
}

#ifdef CONFIG_CLEAR_PAGES_BATCH

/* The switch clear_pages_switch: [0] "per_page" (6.12), [1] "batched". */
DECLARE_MM_IMPL_SWITCH(clear_pages);

/*
 * Pages on each side of the faulting page that folio_zero_user() clears
 * last, so that they are still in the cache when the fault returns.
 */
#define CLEAR_PAGES_HOT_RADIUS	2

/* clear_pages_unit() flags. */
#define CLEAR_PAGES_PREEMPTIBLE	BIT(0)	/* the kernel is preemptible */

unsigned int clear_pages_unit(unsigned int flags);
int clear_pages_set_unit(unsigned int pages);
void folio_zero_user_batched(struct folio *folio, unsigned long addr_hint,
			     unsigned int unit);

/**
 * enum clear_pages_stat - Counters of the batched folio_zero_user().
 * @CLEAR_PAGES_FOLIOS: Folios cleared.
 * @CLEAR_PAGES_PAGES: Pages cleared.
 * @CLEAR_PAGES_CALLS: clear_user_highpages() calls.
 * @CLEAR_PAGES_RESCHED: Reschedule points (cond_resched() calls).
 * @NR_CLEAR_PAGES_STATS: Number of counters.
 */
enum clear_pages_stat {
	CLEAR_PAGES_FOLIOS,
	CLEAR_PAGES_PAGES,
	CLEAR_PAGES_CALLS,
	CLEAR_PAGES_RESCHED,
	NR_CLEAR_PAGES_STATS,
};

unsigned long clear_pages_stat_read(enum clear_pages_stat item);

/**
 * struct clear_pages_hook - What a test sees of one batched clearing.
 * @folio: The folio the test watches; other folios are not reported.
 * @clear: Called after each clear_user_highpages() call with the index of
 *	its first page in the folio and its length in pages.
 * @resched: Called at each reschedule point.
 * @priv: For the test.
 */
struct clear_pages_hook {
	struct folio *folio;
	void (*clear)(const struct clear_pages_hook *hook, unsigned long first,
		      unsigned int npages);
	void (*resched)(const struct clear_pages_hook *hook);
	void *priv;
};

/* Only with CONFIG_CLEAR_PAGES_BATCH_KUNIT_TEST. */
void clear_pages_set_hook(const struct clear_pages_hook *hook);

#endif /* CONFIG_CLEAR_PAGES_BATCH */

#endif /* _LINUX_CLEAR_PAGES_H */
