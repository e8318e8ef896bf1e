// SPDX-License-Identifier: GPL-2.0
/*
 * hugetlb bulk free: the boot-time choice between Rust and C
 * ("hugetlb_bulk_free_impl=rust|c", through the shared switch of
 * <linux/mm_impl_switch.h>), and the debug counters and fault injection
 * both implementations share.
 */
#define pr_fmt(fmt) "hugetlb_bulk_free: " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/hugetlb.h>
#include <linux/hugetlb_bulk_free.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/printk.h>
#include <kunit/visibility.h>
#include <kunit/test.h>

DEFINE_MM_IMPL_SWITCH(hugetlb_bulk_free, "bulk free", "c", "rust");
/* hugetlb_bulk_free_switch: for the KUnit suites built as modules. */
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_free_switch);

#ifdef CONFIG_HUGETLB_BULK_FREE_DEBUG
/*
 * The counters count what happens while a bulk free runs ("active"), the
 * grow_* ones while a batch of new folios is optimized ("growing").  One
 * global set, for a debugging aid: bulk frees and grows of different
 * hstates, and the surplus return of an munmap (which takes no resize
 * lock), may run at once; the counters are atomic and stay exact sums,
 * but what is per bulk free or per grow (the restores and splits counted
 * for injection, the timings) means something only when one runs alone,
 * as in the tests that read them.
 */
static struct {
	atomic_long_t stat[NR_HUGETLB_BULK_STATS];
	atomic_t active;
	atomic_t growing;
	atomic_t attempts;	/* vmemmap restores in the current bulk free */
	atomic_t splits;	/* batch splits in the current optimization */
	u32 fail_split;		/* failing batch split, from 1; 0: none */
	u32 fail_first;		/* first failing restore, from 1; 0: none */
	u32 fail_count;		/* failing restores from fail_first on */
	atomic_t check_leaks;	/* leak check armed for the next bulk free */
	u64 start_ns;
	u64 last_ns;		/* duration of the last bulk free */
	u64 phase_ns[NR_HUGETLB_BULK_PHASES];	  /* parts of the current one */
	u64 last_phase_ns[NR_HUGETLB_BULK_PHASES]; /* parts of the last one */
	unsigned long phase_n[NR_HUGETLB_BULK_PHASES];	    /* times timed */
	unsigned long last_phase_n[NR_HUGETLB_BULK_PHASES];
} bulk_dbg;

/* Times the parts of a restore done per folio or page (debugfs breakdown). */
DEFINE_STATIC_KEY_FALSE(hugetlb_bulk_breakdown);
/* hugetlb_bulk_breakdown: for the KUnit suites built as modules. */
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_breakdown);

/*
 * The leak check, armed by debugfs leak_check for the next bulk free of
 * at least one folio: before that bulk free runs, it shows on its folios
 * that the Rust side loses none of them silently.  The Rust entry point
 * called without an hstate must leave the list as it was and WARN; one
 * folio taken off the list and dropped by Rust as an UnlinkedFolio (as a
 * path that forgot it would) must be reported with a WARN and left as it
 * was (its hugetlb flag, references and links unchanged).  The folio goes
 * back on the list, and the bulk free then frees them all.  What it saw
 * goes to the kernel log ("leak check: ..."), for the boot test
 * hugetlb_leaks_reported (init/95-expected-reports.sh).
 */
static void hugetlb_bulk_check_leak_reports(struct list_head *folio_list)
{
	size_t before, after;
	struct folio *folio;
	bool hugetlb;
	int refs;

	if (!atomic_xchg(&bulk_dbg.check_leaks, 0))
		return;
	before = list_count_nodes(folio_list);
	hugetlb_rust_update_and_free_pages_bulk(NULL, folio_list);
	after = list_count_nodes(folio_list);
	pr_info("leak check: no hstate: %zu of %zu folios still on the list\n", after, before);
	if (!after)
		return;
	folio = list_first_entry(folio_list, struct folio, lru);
	list_del_init(&folio->lru);
	hugetlb = folio_test_hugetlb(folio);
	refs = folio_ref_count(folio);
	hugetlb_rust_drop_unlinked_folio(folio);
	pr_info("leak check: a dropped folio: %s (hugetlb %d, %d references)\n",
		hugetlb == folio_test_hugetlb(folio) && refs == folio_ref_count(folio) &&
		list_empty(&folio->lru) ? "left as it was" : "changed",
		folio_test_hugetlb(folio), folio_ref_count(folio));
	list_add(&folio->lru, folio_list);
}

/**
 * hugetlb_bulk_free_begin() - Note the start of a bulk free.
 * @folio_list: The folios it frees.
 *
 * Return: whether the bulk free is counted (its list is not empty); pass
 * it to hugetlb_bulk_free_end().
 */
bool hugetlb_bulk_free_begin(struct list_head *folio_list)
{
	int i;

	if (list_empty(folio_list))
		return false;
	hugetlb_bulk_check_leak_reports(folio_list);
	atomic_inc(&bulk_dbg.active);
	atomic_set(&bulk_dbg.attempts, 0);
	atomic_long_inc(&bulk_dbg.stat[HUGETLB_BULK_FREES]);
	for (i = 0; i < NR_HUGETLB_BULK_PHASES; i++) {
		WRITE_ONCE(bulk_dbg.phase_ns[i], 0);
		WRITE_ONCE(bulk_dbg.phase_n[i], 0);
	}
	WRITE_ONCE(bulk_dbg.start_ns, ktime_get_ns());
	return true;
}

/**
 * hugetlb_bulk_free_end() - Note the end of a bulk free.
 * @counted: What hugetlb_bulk_free_begin() returned for it.
 */
void hugetlb_bulk_free_end(bool counted)
{
	int i;

	if (!counted)
		return;
	WRITE_ONCE(bulk_dbg.last_ns, ktime_get_ns() - READ_ONCE(bulk_dbg.start_ns));
	for (i = 0; i < NR_HUGETLB_BULK_PHASES; i++) {
		WRITE_ONCE(bulk_dbg.last_phase_ns[i], READ_ONCE(bulk_dbg.phase_ns[i]));
		WRITE_ONCE(bulk_dbg.last_phase_n[i], READ_ONCE(bulk_dbg.phase_n[i]));
	}
	atomic_dec(&bulk_dbg.active);
}

/**
 * hugetlb_bulk_count() - Count an event of a running bulk free or grow.
 * @item: What happened: a grow_* item counts while a batch is optimized
 *	(between hugetlb_bulk_grow_begin() and hugetlb_bulk_grow_end()), any
 *	other while a bulk free runs.
 */
void hugetlb_bulk_count(enum hugetlb_bulk_stat item)
{
	bool grow = item >= HUGETLB_BULK_GROW_TLB_FLUSHES;

	if (atomic_read(grow ? &bulk_dbg.growing : &bulk_dbg.active))
		atomic_long_inc(&bulk_dbg.stat[item]);
}

/**
 * hugetlb_bulk_grow_begin() - Note the start of a batch's optimization.
 *
 * Called by hugetlb_vmemmap_optimize_folios(), the pool growing with
 * HVO, for its grow_* counters.
 */
void hugetlb_bulk_grow_begin(void)
{
	atomic_inc(&bulk_dbg.growing);
	atomic_set(&bulk_dbg.splits, 0);
}

/**
 * hugetlb_bulk_grow_end() - Note the end of a batch's optimization.
 */
void hugetlb_bulk_grow_end(void)
{
	atomic_dec(&bulk_dbg.growing);
}

/**
 * hugetlb_bulk_should_fail_split() - Whether this batch split fails.
 *
 * Called for each folio whose vmemmap PMD split a batch's optimization
 * tries; counts them and fails the one hugetlb_bulk_inject_split_failure()
 * chose, as if no page table page could be allocated.
 *
 * Return: true to fail the split with -ENOMEM.
 */
bool hugetlb_bulk_should_fail_split(void)
{
	u32 nth = READ_ONCE(bulk_dbg.fail_split);

	if (!nth || !atomic_read(&bulk_dbg.growing) ||
	    atomic_inc_return(&bulk_dbg.splits) != nth)
		return false;
	atomic_long_inc(&bulk_dbg.stat[HUGETLB_BULK_GROW_SPLIT_FAILURES]);
	return true;
}

/**
 * hugetlb_bulk_inject_split_failure() - Fail a batch's vmemmap PMD split.
 * @nth: Index, from 1, of the folio of each optimized batch whose split
 *	fails (6.12 then stops splitting, and each later folio's remap
 *	splits what it needs itself); 0 turns injection off.
 */
void hugetlb_bulk_inject_split_failure(unsigned int nth)
{
	WRITE_ONCE(bulk_dbg.fail_split, nth);
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_inject_split_failure);

/**
 * hugetlb_bulk_stat_read() - Read a bulk-free counter.
 * @item: The counter.
 *
 * Return: its value since boot.
 */
unsigned long hugetlb_bulk_stat_read(enum hugetlb_bulk_stat item)
{
	return atomic_long_read(&bulk_dbg.stat[item]);
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_stat_read);

/**
 * hugetlb_bulk_should_fail_restore() - Whether this vmemmap restore fails.
 *
 * Called for every restore of an optimized folio; counts the restores of
 * the running bulk free and fails those chosen by
 * hugetlb_bulk_inject_restore_failures().
 *
 * Return: true to fail the restore with -ENOMEM.
 */
bool hugetlb_bulk_should_fail_restore(void)
{
	u32 first = READ_ONCE(bulk_dbg.fail_first);
	u32 nth;

	if (!first || !atomic_read(&bulk_dbg.active))
		return false;
	nth = atomic_inc_return(&bulk_dbg.attempts);
	if (nth < first || nth - first >= READ_ONCE(bulk_dbg.fail_count))
		return false;
	atomic_long_inc(&bulk_dbg.stat[HUGETLB_BULK_INJECTED_FAILURES]);
	return true;
}

/**
 * __hugetlb_bulk_phase_begin() - Start timing a part of a restore.
 *
 * Called by hugetlb_bulk_phase_begin() for a part it times.
 *
 * Return: the time, or 0 when no bulk free runs.
 */
u64 __hugetlb_bulk_phase_begin(void)
{
	return atomic_read(&bulk_dbg.active) ? ktime_get_ns() : 0;
}

/**
 * __hugetlb_bulk_phase_end() - Add a timed part to the running bulk free's.
 * @phase: The part.
 * @start: What __hugetlb_bulk_phase_begin() returned, not 0.
 *
 * Called by hugetlb_bulk_phase_end().  Adds the time and counts the part;
 * a grace period wait is also counted in rcu_waits.
 */
void __hugetlb_bulk_phase_end(enum hugetlb_bulk_phase phase, u64 start)
{
	WRITE_ONCE(bulk_dbg.phase_ns[phase],
		   READ_ONCE(bulk_dbg.phase_ns[phase]) + ktime_get_ns() - start);
	WRITE_ONCE(bulk_dbg.phase_n[phase], READ_ONCE(bulk_dbg.phase_n[phase]) + 1);
	if (phase == HUGETLB_BULK_PH_RCU_WAIT)
		atomic_long_inc(&bulk_dbg.stat[HUGETLB_BULK_RCU_WAITS]);
}

/**
 * hugetlb_bulk_last_phase_ns() - Read a part of the last bulk free's time.
 * @phase: The part.
 *
 * Return: the time (ns) the last bulk free spent in @phase, 0 if it was
 * not timed.
 */
u64 hugetlb_bulk_last_phase_ns(enum hugetlb_bulk_phase phase)
{
	return READ_ONCE(bulk_dbg.last_phase_ns[phase]);
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_last_phase_ns);

/**
 * hugetlb_bulk_last_phase_count() - How often the last bulk free timed a part.
 * @phase: The part.
 *
 * Return: the number of times @phase was timed in the last bulk free (a
 * figure that does not depend on the clock's resolution).
 */
unsigned long hugetlb_bulk_last_phase_count(enum hugetlb_bulk_phase phase)
{
	return READ_ONCE(bulk_dbg.last_phase_n[phase]);
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_last_phase_count);

/**
 * hugetlb_bulk_inject_restore_failures() - Fail chosen vmemmap restores.
 * @first: Index, from 1, of the first restore of each bulk free to fail;
 *	0 turns injection off.
 * @count: How many restores fail from @first on (UINT_MAX: all).
 */
void hugetlb_bulk_inject_restore_failures(unsigned int first, unsigned int count)
{
	WRITE_ONCE(bulk_dbg.fail_count, count);
	WRITE_ONCE(bulk_dbg.fail_first, first);
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_inject_restore_failures);

/* fail_first and fail_count: a u32 each; a larger value is -EINVAL. */
static int fail_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(u32 *)data);
	return 0;
}

static int fail_set(void *data, u64 val)
{
	if (val > U32_MAX)
		return -EINVAL;
	WRITE_ONCE(*(u32 *)data, val);
	return 0;
}
DEFINE_MM_DEBUGFS_ATTRIBUTE(fail_fops, fail_get, fail_set, "%llu\n");

static int stat_get(void *data, u64 *val)
{
	*val = hugetlb_bulk_stat_read((uintptr_t)data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(stat_fops, stat_get, NULL, "%llu\n");

/* breakdown: 0 or 1; anything else is -EINVAL. */
static int breakdown_get(void *data, u64 *val)
{
	*val = static_key_enabled(&hugetlb_bulk_breakdown);
	return 0;
}

static int breakdown_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	if (val)
		static_branch_enable(&hugetlb_bulk_breakdown);
	else
		static_branch_disable(&hugetlb_bulk_breakdown);
	return 0;
}
DEFINE_MM_DEBUGFS_ATTRIBUTE(breakdown_fops, breakdown_get, breakdown_set, "%llu\n");

/* leak_check: 1 arms the leak check, 0 disarms it; anything else is -EINVAL. */
static int leak_check_get(void *data, u64 *val)
{
	*val = atomic_read(&bulk_dbg.check_leaks);
	return 0;
}

static int leak_check_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	atomic_set(&bulk_dbg.check_leaks, val);
	return 0;
}
DEFINE_MM_DEBUGFS_ATTRIBUTE(leak_check_fops, leak_check_get, leak_check_set, "%llu\n");

static int __init hugetlb_bulk_free_debugfs_init(void)
{
	static const char *const names[NR_HUGETLB_BULK_STATS] = {
		[HUGETLB_BULK_FREES] = "bulk_frees",
		[HUGETLB_BULK_LOCK_CYCLES] = "lock_cycles",
		[HUGETLB_BULK_TLB_FLUSHES] = "tlb_flushes",
		[HUGETLB_BULK_INJECTED_FAILURES] = "injected_failures",
		[HUGETLB_BULK_RCU_WAITS] = "rcu_waits",
		[HUGETLB_BULK_RCU_WAITS_SKIPPED] = "rcu_waits_skipped",
		[HUGETLB_BULK_GROW_TLB_FLUSHES] = "grow_tlb_flushes",
		[HUGETLB_BULK_GROW_SPLIT_FLUSHES] = "grow_split_flushes",
		[HUGETLB_BULK_GROW_SPLIT_FAILURES] = "grow_split_failures",
	};
	static const char *const phases[NR_HUGETLB_BULK_PHASES] = {
		[HUGETLB_BULK_PH_RCU_WAIT] = "last_rcu_ns",
		[HUGETLB_BULK_PH_ALLOC] = "last_alloc_ns",
		[HUGETLB_BULK_PH_REMAP] = "last_remap_ns",
		[HUGETLB_BULK_PH_FILL] = "last_fill_ns",
		[HUGETLB_BULK_PH_FLUSH] = "last_flush_ns",
	};
	struct dentry *dir = debugfs_create_dir("hugetlb_bulk_free", NULL);
	uintptr_t i;

	for (i = 0; i < NR_HUGETLB_BULK_STATS; i++)
		debugfs_create_file_unsafe(names[i], 0444, dir, (void *)i, &stat_fops);
	mm_impl_switch_debugfs(&hugetlb_bulk_free_switch, dir);
	debugfs_create_u64("last_ns", 0444, dir, &bulk_dbg.last_ns);
	for (i = 0; i < NR_HUGETLB_BULK_PHASES; i++)
		debugfs_create_u64(phases[i], 0444, dir, &bulk_dbg.last_phase_ns[i]);
	debugfs_create_file_unsafe("breakdown", 0644, dir, NULL, &breakdown_fops);
	debugfs_create_file_unsafe("leak_check", 0644, dir, NULL, &leak_check_fops);
	debugfs_create_file_unsafe("fail_first", 0644, dir, &bulk_dbg.fail_first,
				   &fail_fops);
	debugfs_create_file_unsafe("fail_count", 0644, dir, &bulk_dbg.fail_count,
				   &fail_fops);
	return 0;
}
late_initcall(hugetlb_bulk_free_debugfs_init);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * hugetlb_bulk_kunit_set_hvo() - hugetlb_bulk_set_hvo(), for the KUnit suites.
 * @on: Whether the folios the pool grows by are to be optimized.
 *
 * The suites may be modules; hugetlb_bulk_kunit_use_hvo()
 * (mm/mm_impl_switch_kunit.h) calls this.
 *
 * Return: the setting before.
 */
bool hugetlb_bulk_kunit_set_hvo(bool on)
{
	return hugetlb_bulk_set_hvo(on);
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_kunit_set_hvo);

/**
 * hugetlb_bulk_vmemmap_pmd_whole() - Whether a vmemmap PMD is still whole.
 * @page: The page whose struct page is looked up.
 *
 * For the tests of a growing pool's fallback when its batch split fails:
 * a folio's own remap splits the PMD mapping its struct pages only if no
 * HVO split it before (6.12 never maps one whole again).  init_mm's page
 * tables are not exported to modules; this reads them for the tests.
 *
 * Return: true when the struct page of @page is mapped by a PMD leaf.
 */
bool hugetlb_bulk_vmemmap_pmd_whole(const struct page *page)
{
	unsigned long addr = (unsigned long)page;
	pgd_t *pgd = pgd_offset_k(addr);
	p4d_t *p4d;
	pud_t *pud;
	bool whole;

	if (pgd_none(pgdp_get(pgd)))
		return false;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(p4dp_get(p4d)))
		return false;
	pud = pud_offset(p4d, addr);
	if (pud_none(pudp_get(pud)) || pud_leaf(pudp_get(pud)))
		return false;
	/* As the vmemmap walk reads it (vmemmap_pmd_entry()). */
	spin_lock(&init_mm.page_table_lock);
	whole = pmd_leaf(pmdp_get(pmd_offset(pud, addr)));
	spin_unlock(&init_mm.page_table_lock);
	return whole;
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_vmemmap_pmd_whole);

/*
 * What the suite reads or sets under hugetlb_lock, which is not exported
 * to modules: each helper takes it for one narrow job.
 */

/**
 * hugetlb_bulk_kunit_free_folios() - Look at the free folios of a pool.
 * @h: The hstate.
 * @pfns: Where to record the first pfn of each free folio, or NULL.
 * @max: How many pfns @pfns has room for.
 * @optimized: Where to count the free folios that are vmemmap-optimized,
 *	or NULL.
 *
 * Walks the free lists of every node with memory under hugetlb_lock.
 *
 * Return: the number of free folios, those past @max included.
 */
unsigned int hugetlb_bulk_kunit_free_folios(struct hstate *h, unsigned long *pfns,
					    unsigned int max, unsigned int *optimized)
{
	unsigned int n = 0, n_optimized = 0;
	struct folio *folio;
	int nid;

	spin_lock_irq(&hugetlb_lock);
	for_each_node_state(nid, N_MEMORY) {
		list_for_each_entry(folio, &h->hugepage_freelists[nid], lru) {
			if (pfns && n < max)
				pfns[n] = folio_pfn(folio);
			n_optimized += folio_test_hugetlb_vmemmap_optimized(folio);
			n++;
		}
	}
	spin_unlock_irq(&hugetlb_lock);
	if (optimized)
		*optimized = n_optimized;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_kunit_free_folios);

/**
 * hugetlb_bulk_kunit_set_overcommit() - Set the overcommit limit of a pool.
 * @h: The hstate.
 * @count: How many surplus pages the pool may allocate.
 *
 * What a write to nr_overcommit_hugepages does.
 *
 * Return: the limit before.
 */
unsigned long hugetlb_bulk_kunit_set_overcommit(struct hstate *h, unsigned long count)
{
	unsigned long old;

	spin_lock_irq(&hugetlb_lock);
	old = h->nr_overcommit_huge_pages;
	h->nr_overcommit_huge_pages = count;
	spin_unlock_irq(&hugetlb_lock);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_kunit_set_overcommit);

/**
 * hugetlb_bulk_kunit_drop_leaked_counts() - Take back counts no folio backs.
 * @h: The hstate, none of whose folios is in use.
 *
 * For the cases of the pool's accounting: one that finds a surplus or a
 * temporary unit left behind calls this, so that the cases after it start
 * from a sound pool.  With no folio of @h in use, none is temporary and
 * every surplus folio is free: each node's temporary count goes to 0, its
 * surplus count down to its number of folios if above, and the global
 * counts to the sums over the nodes.
 *
 * Return: true if a count was wrong.
 */
bool hugetlb_bulk_kunit_drop_leaked_counts(struct hstate *h)
{
	unsigned long surplus = 0;
	bool wrong = false;
	int nid;

	spin_lock_irq(&hugetlb_lock);
	for_each_node(nid) {
		unsigned int nr = h->nr_huge_pages_node[nid];

		if (h->surplus_huge_pages_node[nid] > nr) {
			h->surplus_huge_pages_node[nid] = nr;
			wrong = true;
		}
		surplus += h->surplus_huge_pages_node[nid];
		if (h->temporary_huge_pages_node[nid]) {
			h->temporary_huge_pages_node[nid] = 0;
			wrong = true;
		}
	}
	if (h->surplus_huge_pages != surplus || h->temporary_huge_pages)
		wrong = true;
	h->surplus_huge_pages = surplus;
	h->temporary_huge_pages = 0;
	spin_unlock_irq(&hugetlb_lock);
	return wrong;
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_bulk_kunit_drop_leaked_counts);
#endif /* CONFIG_KUNIT */
#endif /* CONFIG_HUGETLB_BULK_FREE_DEBUG */
