// SPDX-License-Identifier: GPL-2.0
/*
 * A batched vmemmap restore of free-list folios skips its RCU grace period
 * wait when a grace period has already passed since the last optimized
 * folio went on a free list, and waits a full one otherwise
 * (CONFIG_HUGETLB_VMEMMAP_POLLED_GP); see <linux/hugetlb_vmemmap_gp.h> for
 * the argument.
 *
 * "hugetlb_vmemmap_gp_impl=sync" at boot, or 0 written to
 * /sys/kernel/debug/hugetlb_vmemmap_gp/polled, keeps the 6.12 behaviour: a
 * full synchronize_rcu() before each batch.
 */
#define pr_fmt(fmt) "hugetlb_vmemmap_gp: " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/hugetlb.h>
#include <linux/hugetlb_vmemmap_gp.h>
#include <linux/init.h>
#include <kunit/visibility.h>

DEFINE_MM_IMPL_SWITCH(hugetlb_vmemmap_gp, "vmemmap restore grace period", "sync", "polled");
/* hugetlb_vmemmap_gp_switch: for the KUnit suites built as modules. */
EXPORT_SYMBOL_IF_KUNIT(hugetlb_vmemmap_gp_switch);

/*
 * The RCU state (get_state_synchronize_rcu()) when an optimized folio was
 * last put on a hugetlb free list.  Written under hugetlb_lock, so the
 * values only move forward; a restore reads it after taking its folios off
 * the free lists under the same lock, so it sees the state of its own
 * folios or a later one, and a grace period past a later state is past
 * theirs too.
 */
static unsigned long free_list_gp;

/* Grace period waits hugetlb_vmemmap_restore_wait() has begun since boot. */
static atomic_long_t waits_begun;

static int __init hugetlb_vmemmap_gp_init(void)
{
	/* Before any hugetlb folio exists (hugetlb_init() comes later). */
	WRITE_ONCE(free_list_gp, get_completed_synchronize_rcu());
	return 0;
}
pure_initcall(hugetlb_vmemmap_gp_init);

/**
 * hugetlb_vmemmap_note_free_list() - Note an optimized folio put on a free list.
 * @folio: The hugetlb folio, its refcount zero, going on a free list.
 *
 * Called by enqueue_hugetlb_folio() under hugetlb_lock, whatever the
 * switch says, so that switching to "polled" at run time is safe.
 */
void hugetlb_vmemmap_note_free_list(struct folio *folio)
{
	lockdep_assert_held(&hugetlb_lock);
	if (folio_test_hugetlb_vmemmap_optimized(folio))
		WRITE_ONCE(free_list_gp, get_state_synchronize_rcu());
}

/**
 * hugetlb_vmemmap_restore_wait() - Wait before a vmemmap restore remaps.
 * @free_list_folios: Every folio of the restore was taken off a hugetlb
 *	free list (hugetlb_vmemmap_restore_folios()).
 *
 * Waits for a full grace period; for free-list folios with the switch on
 * "polled", not at all when a grace period has passed since the last
 * optimized folio was put on a free list.  Otherwise the wait is
 * cond_synchronize_rcu() on that state, which in 6.12 is a whole new
 * synchronize_rcu(), not the rest of the grace period already under way:
 * the same wait as "sync".  While
 * a bulk free runs, the wait is counted and timed (debugfs
 * hugetlb_bulk_free/rcu_waits, rcu_waits_skipped, last_rcu_ns).  A wait
 * for free-list folios, the one the switch decides, is also counted on
 * the side that ran it (debugfs hugetlb_vmemmap_gp/calls_polled,
 * calls_sync).
 */
void hugetlb_vmemmap_restore_wait(bool free_list_folios)
{
	unsigned long gp = READ_ONCE(free_list_gp);
	u64 start;

	if (free_list_folios && mm_impl_switch_new(hugetlb_vmemmap_gp)) {
		mm_impl_switch_count(hugetlb_vmemmap_gp, HUGETLB_VMEMMAP_GP_POLLED);
		if (poll_state_synchronize_rcu(gp)) {
			hugetlb_bulk_count(HUGETLB_BULK_RCU_WAITS_SKIPPED);
			return;
		}
		atomic_long_inc(&waits_begun);
		start = hugetlb_bulk_phase_begin(HUGETLB_BULK_PH_RCU_WAIT);
		cond_synchronize_rcu(gp);
		hugetlb_bulk_phase_end(HUGETLB_BULK_PH_RCU_WAIT, start);
		return;
	}
	if (free_list_folios)
		mm_impl_switch_count(hugetlb_vmemmap_gp, HUGETLB_VMEMMAP_GP_SYNC);
	atomic_long_inc(&waits_begun);
	start = hugetlb_bulk_phase_begin(HUGETLB_BULK_PH_RCU_WAIT);
	synchronize_rcu();
	hugetlb_bulk_phase_end(HUGETLB_BULK_PH_RCU_WAIT, start);
}

/**
 * hugetlb_vmemmap_gp_waits_begun() - Count the grace period waits begun.
 *
 * A wait is counted as it begins, before hugetlb_vmemmap_restore_wait()
 * blocks (hugetlb_bulk_free's rcu_waits counts it once it is over), so
 * that a test's RCU reader can tell that a restore is waiting for it.
 *
 * Return: the number of waits begun since boot, whatever the switch said.
 */
unsigned long hugetlb_vmemmap_gp_waits_begun(void)
{
	return atomic_long_read(&waits_begun);
}
EXPORT_SYMBOL_IF_KUNIT(hugetlb_vmemmap_gp_waits_begun);

/*
 * free_list_gp_passed: 1 once a grace period has passed since the last
 * optimized folio was put on a free list (a batched restore with the
 * switch on "polled" then waits for nothing), else 0.  A read that finds
 * it not passed asks RCU for a grace period, so that polling this file
 * ends even on an otherwise idle system.
 */
static int free_list_gp_passed_get(void *data, u64 *val)
{
	*val = poll_state_synchronize_rcu(READ_ONCE(free_list_gp));
	if (!*val)
		start_poll_synchronize_rcu();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(free_list_gp_passed_fops, free_list_gp_passed_get, NULL, "%llu\n");

/*
 * /sys/kernel/debug/hugetlb_vmemmap_gp/: the switch's files, as
 * DEFINE_MM_IMPL_SWITCH_DEBUGFS() makes them ("polled": 1 or 0, anything
 * else is -EINVAL), and free_list_gp_passed.
 */
static int __init hugetlb_vmemmap_gp_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("hugetlb_vmemmap_gp", NULL);

	mm_impl_switch_debugfs(&hugetlb_vmemmap_gp_switch, dir);
	debugfs_create_file_unsafe("free_list_gp_passed", 0444, dir, NULL,
				   &free_list_gp_passed_fops);
	return 0;
}
late_initcall(hugetlb_vmemmap_gp_debugfs_init);
