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
#include <linux/hugetlb_bulk_free.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/printk.h>

DEFINE_MM_IMPL_SWITCH(hugetlb_bulk_free, "bulk free", "c", "rust");

#ifdef CONFIG_HUGETLB_BULK_FREE_DEBUG
/*
 * The counters count what happens while a bulk free runs ("active"); bulk
 * frees are rare and serialised per hstate by its resize lock, so one set
 * of global counters is enough for a debugging aid.
 */
static struct {
	atomic_long_t stat[NR_HUGETLB_BULK_STATS];
	atomic_t active;
	atomic_t attempts;	/* vmemmap restores in the current bulk free */
	u32 fail_first;		/* first failing restore, from 1; 0: none */
	u32 fail_count;		/* failing restores from fail_first on */
	u64 start_ns;
	u64 last_ns;		/* duration of the last bulk free */
	u64 rcu_ns;		/* grace period waits of the current one */
	u64 last_rcu_ns;	/* grace period waits of the last one */
} bulk_dbg;

/**
 * hugetlb_bulk_free_begin() - Note the start of a bulk free.
 * @folio_list: The folios it frees.
 *
 * Return: whether the bulk free is counted (its list is not empty); pass
 * it to hugetlb_bulk_free_end().
 */
bool hugetlb_bulk_free_begin(struct list_head *folio_list)
{
	if (list_empty(folio_list))
		return false;
	atomic_inc(&bulk_dbg.active);
	atomic_set(&bulk_dbg.attempts, 0);
	atomic_long_inc(&bulk_dbg.stat[HUGETLB_BULK_FREES]);
	WRITE_ONCE(bulk_dbg.rcu_ns, 0);
	WRITE_ONCE(bulk_dbg.start_ns, ktime_get_ns());
	return true;
}

/**
 * hugetlb_bulk_free_end() - Note the end of a bulk free.
 * @counted: What hugetlb_bulk_free_begin() returned for it.
 */
void hugetlb_bulk_free_end(bool counted)
{
	if (!counted)
		return;
	WRITE_ONCE(bulk_dbg.last_ns, ktime_get_ns() - READ_ONCE(bulk_dbg.start_ns));
	WRITE_ONCE(bulk_dbg.last_rcu_ns, READ_ONCE(bulk_dbg.rcu_ns));
	atomic_dec(&bulk_dbg.active);
}

/**
 * hugetlb_bulk_count() - Count an event of a running bulk free.
 * @item: What happened.
 */
void hugetlb_bulk_count(enum hugetlb_bulk_stat item)
{
	if (atomic_read(&bulk_dbg.active))
		atomic_long_inc(&bulk_dbg.stat[item]);
}

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
 * hugetlb_bulk_wait_begin() - Note the start of a grace period wait.
 *
 * For the vmemmap restore's RCU grace period wait; pass the result to
 * hugetlb_bulk_wait_end() when the wait is over.
 *
 * Return: the time, or 0 when no bulk free runs.
 */
u64 hugetlb_bulk_wait_begin(void)
{
	return atomic_read(&bulk_dbg.active) ? ktime_get_ns() : 0;
}

/**
 * hugetlb_bulk_wait_end() - Count a grace period wait of a bulk free.
 * @start: What hugetlb_bulk_wait_begin() returned.
 *
 * Adds the wait to the bulk free's wait time (debugfs last_rcu_ns, so that
 * the time of a free outside its waits is last_ns - last_rcu_ns) and
 * counts it (rcu_waits).
 */
void hugetlb_bulk_wait_end(u64 start)
{
	if (!start)
		return;
	WRITE_ONCE(bulk_dbg.rcu_ns, READ_ONCE(bulk_dbg.rcu_ns) + ktime_get_ns() - start);
	atomic_long_inc(&bulk_dbg.stat[HUGETLB_BULK_RCU_WAITS]);
}

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

static int __init hugetlb_bulk_free_debugfs_init(void)
{
	static const char *const names[NR_HUGETLB_BULK_STATS] = {
		[HUGETLB_BULK_FREES] = "bulk_frees",
		[HUGETLB_BULK_LOCK_CYCLES] = "lock_cycles",
		[HUGETLB_BULK_TLB_FLUSHES] = "tlb_flushes",
		[HUGETLB_BULK_INJECTED_FAILURES] = "injected_failures",
		[HUGETLB_BULK_RCU_WAITS] = "rcu_waits",
		[HUGETLB_BULK_RCU_WAITS_SKIPPED] = "rcu_waits_skipped",
	};
	struct dentry *dir = debugfs_create_dir("hugetlb_bulk_free", NULL);
	uintptr_t i;

	for (i = 0; i < NR_HUGETLB_BULK_STATS; i++)
		debugfs_create_file_unsafe(names[i], 0444, dir, (void *)i, &stat_fops);
	mm_impl_switch_debugfs(&hugetlb_bulk_free_switch, dir);
	debugfs_create_u64("last_ns", 0444, dir, &bulk_dbg.last_ns);
	debugfs_create_u64("last_rcu_ns", 0444, dir, &bulk_dbg.last_rcu_ns);
	debugfs_create_file_unsafe("fail_first", 0644, dir, &bulk_dbg.fail_first,
				   &fail_fops);
	debugfs_create_file_unsafe("fail_count", 0644, dir, &bulk_dbg.fail_count,
				   &fail_fops);
	return 0;
}
late_initcall(hugetlb_bulk_free_debugfs_init);
#endif /* CONFIG_HUGETLB_BULK_FREE_DEBUG */
