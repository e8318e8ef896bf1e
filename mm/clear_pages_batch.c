// SPDX-License-Identifier: GPL-2.0
/*
 * Batched clearing of huge folios (CONFIG_CLEAR_PAGES_BATCH).
 *
 * 6.12's folio_zero_user() clears a huge folio one page at a time, with a
 * cond_resched() before each page.  Here the folio is cleared as a few
 * contiguous ranges, each handed to clear_user_highpages() (and from there
 * to the architecture's clear_pages()) in calls as long as the preemption
 * model allows:
 *
 * - the pages around the faulting address (CLEAR_PAGES_HOT_RADIUS on each
 *   side) form one range, cleared last so that they are cache-hot when
 *   the faulting thread touches them; the pages before and after it are
 *   the other two ranges;
 * - in a preemptible kernel (preempt=full) a range is one call: the
 *   scheduler can preempt the clearing wherever it is;
 * - under preempt=none and preempt=voluntary a range is cleared in calls
 *   of at most PROCESS_PAGES_NON_PREEMPT_BATCH pages with a cond_resched()
 *   after each, which bounds the latency a huge fault adds.
 *
 * The unit can be lowered at run time (debugfs "unit_pages"): the best
 * extent is a property of the CPU (Documentation/mm/mmrust/clear-pages.rst,
 * the host measurements).
 *
 * The 6.12 per-page clearing stays in the kernel: boot with
 * "clear_pages_impl=per_page", or write 0 to the debugfs file "batched",
 * to compare the two in one image.
 */
#include <linux/clear_pages.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <kunit/visibility.h>

DEFINE_MM_IMPL_SWITCH(clear_pages, "huge folio clearing", "per_page", "batched");
/* clear_pages_switch: for the KUnit suites built as modules. */
EXPORT_SYMBOL_IF_KUNIT(clear_pages_switch);

/* Pages per clear_user_highpages() call; 0: the preemption model decides. */
static unsigned int clear_pages_unit_pages __read_mostly;

static DEFINE_PER_CPU(unsigned long, clear_pages_stats[NR_CLEAR_PAGES_STATS]);

#if IS_ENABLED(CONFIG_CLEAR_PAGES_BATCH_KUNIT_TEST)
static const struct clear_pages_hook *clear_pages_hook;

/**
 * clear_pages_set_hook() - Watch the batched clearing of one folio.
 * @hook: What to call, or NULL to stop.
 *
 * For KUnit tests: the hook sees the calls and reschedule points of the
 * clearing of hook->folio, and of no other folio.
 */
void clear_pages_set_hook(const struct clear_pages_hook *hook)
{
	WRITE_ONCE(clear_pages_hook, hook);
}
EXPORT_SYMBOL_IF_KUNIT(clear_pages_set_hook);

static const struct clear_pages_hook *hook_for(struct folio *folio)
{
	const struct clear_pages_hook *hook = READ_ONCE(clear_pages_hook);

	return hook && hook->folio == folio ? hook : NULL;
}
#else
/* No test hook in this kernel: the calls below compile away. */
static inline const struct clear_pages_hook *hook_for(struct folio *folio)
{
	return NULL;
}
#endif

/**
 * clear_pages_unit() - Pages per clearing call for a preemption model.
 * @flags: CLEAR_PAGES_PREEMPTIBLE when the kernel is preemptible.
 *
 * Return: the unit set in debugfs "unit_pages" if any; otherwise UINT_MAX
 * (a whole range per call) for a preemptible kernel and
 * PROCESS_PAGES_NON_PREEMPT_BATCH for one that is not.
 */
unsigned int clear_pages_unit(unsigned int flags)
{
	unsigned int unit = READ_ONCE(clear_pages_unit_pages);

	if (unit)
		return unit;
	if (flags & CLEAR_PAGES_PREEMPTIBLE)
		return UINT_MAX;
	return PROCESS_PAGES_NON_PREEMPT_BATCH;
}
EXPORT_SYMBOL_IF_KUNIT(clear_pages_unit);

/**
 * clear_pages_set_unit() - Set the number of pages per clearing call.
 * @pages: 1 to PROCESS_PAGES_NON_PREEMPT_BATCH, or 0 for the default.
 *
 * Return: 0, or -EINVAL (and nothing changes) for a value out of range.
 */
int clear_pages_set_unit(unsigned int pages)
{
	if (pages > PROCESS_PAGES_NON_PREEMPT_BATCH)
		return -EINVAL;
	WRITE_ONCE(clear_pages_unit_pages, pages);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(clear_pages_set_unit);

/**
 * clear_pages_stat_read() - Sum of a counter over all CPUs.
 * @item: The counter.
 *
 * Return: its value since boot.
 */
unsigned long clear_pages_stat_read(enum clear_pages_stat item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(clear_pages_stats[item], cpu);
	return sum;
}

/* Clears pages [first, end) of @folio, mapped from @base, @unit at a time. */
static void clear_range(struct folio *folio, unsigned long base,
			unsigned long first, unsigned long end,
			unsigned int unit)
{
	const struct clear_pages_hook *hook = hook_for(folio);

	while (first < end) {
		unsigned int n = min_t(unsigned long, end - first, unit);

		clear_user_highpages(folio_page(folio, first),
				     base + first * PAGE_SIZE, n);
		this_cpu_inc(clear_pages_stats[CLEAR_PAGES_CALLS]);
		if (hook)
			hook->clear(hook, first, n);
		first += n;

		cond_resched();
		this_cpu_inc(clear_pages_stats[CLEAR_PAGES_RESCHED]);
		if (hook)
			hook->resched(hook);
	}
}

/**
 * folio_zero_user_batched() - Zero a folio in contiguous ranges.
 * @folio: The folio, about to be mapped to user space.
 * @addr_hint: The faulting address, or any address the folio will be
 *	mapped at when there is none.
 * @unit: At most this many pages per clearing call (clear_pages_unit()).
 *
 * Clears the pages before and after the CLEAR_PAGES_HOT_RADIUS window
 * around @addr_hint's page, then the window, each range in calls of at
 * most @unit pages with a reschedule point after each.  May sleep.
 */
void folio_zero_user_batched(struct folio *folio, unsigned long addr_hint,
			     unsigned int unit)
{
	unsigned long nr = folio_nr_pages(folio);
	unsigned long base = ALIGN_DOWN(addr_hint, folio_size(folio));
	unsigned long hint = min((addr_hint - base) >> PAGE_SHIFT, nr - 1);
	unsigned long lo = hint - min_t(unsigned long, hint, CLEAR_PAGES_HOT_RADIUS);
	unsigned long hi = min(hint + CLEAR_PAGES_HOT_RADIUS + 1, nr);

	might_sleep();
	unit = max(unit, 1U);
	clear_range(folio, base, 0, lo, unit);
	clear_range(folio, base, hi, nr, unit);
	clear_range(folio, base, lo, hi, unit);
	this_cpu_inc(clear_pages_stats[CLEAR_PAGES_FOLIOS]);
	this_cpu_add(clear_pages_stats[CLEAR_PAGES_PAGES], nr);
}
EXPORT_SYMBOL_IF_KUNIT(folio_zero_user_batched);

#ifdef CONFIG_DEBUG_FS
static int unit_pages_get(void *data, u64 *val)
{
	*val = READ_ONCE(clear_pages_unit_pages);
	return 0;
}

static int unit_pages_set(void *data, u64 val)
{
	return clear_pages_set_unit(min_t(u64, val, UINT_MAX));
}
DEFINE_MM_DEBUGFS_ATTRIBUTE(unit_pages_fops, unit_pages_get, unit_pages_set,
			    "%llu\n");

static int stats_show(struct seq_file *m, void *v)
{
	static const char * const names[NR_CLEAR_PAGES_STATS] = {
		[CLEAR_PAGES_FOLIOS] = "folios",
		[CLEAR_PAGES_PAGES] = "pages",
		[CLEAR_PAGES_CALLS] = "calls",
		[CLEAR_PAGES_RESCHED] = "resched",
	};
	int i;

	for (i = 0; i < NR_CLEAR_PAGES_STATS; i++)
		seq_printf(m, "%s %lu\n", names[i], clear_pages_stat_read(i));
	seq_printf(m, "batch_pages %lu\n",
		   (unsigned long)PROCESS_PAGES_NON_PREEMPT_BATCH);
	seq_printf(m, "unit_pages %u\n",
		   clear_pages_unit(preempt_model_preemptible() ?
				    CLEAR_PAGES_PREEMPTIBLE : 0));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/*
 * /sys/kernel/debug/clear_pages/: "batched" (the switch), "unit_pages"
 * (0 for the default, or 1 to the batch), "stats" (counters since boot,
 * the batch and the unit in use now).
 */
static int __init clear_pages_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("clear_pages", NULL);

	mm_impl_switch_debugfs(&clear_pages_switch, dir);
	debugfs_create_file_unsafe("unit_pages", 0644, dir, NULL,
				   &unit_pages_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &stats_fops);
	return 0;
}
late_initcall(clear_pages_debugfs_init);
#endif
