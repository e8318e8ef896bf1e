// SPDX-License-Identifier: GPL-2.0
/*
 * A batched vmemmap restore waits only for what is left of the grace period
 * its folios need (CONFIG_HUGETLB_VMEMMAP_POLLED_GP); see
 * <linux/hugetlb_vmemmap_gp.h> for the argument.
 *
 * "hugetlb_vmemmap_gp_impl=sync" at boot, or 0 written to
 * /sys/kernel/debug/hugetlb_vmemmap_gp/polled, keeps the 6.12 behaviour: a
 * full synchronize_rcu() before each batch.
 */
#define pr_fmt(fmt) "hugetlb_vmemmap_gp: " fmt

#include <linux/debugfs.h>
#include <linux/hugetlb.h>
#include <linux/hugetlb_vmemmap_gp.h>
#include <linux/init.h>

DEFINE_MM_IMPL_SWITCH(hugetlb_vmemmap_gp, "vmemmap restore grace period", "sync", "polled");
/* /sys/kernel/debug/hugetlb_vmemmap_gp/polled: 1 or 0, anything else is -EINVAL. */
DEFINE_MM_IMPL_SWITCH_DEBUGFS(hugetlb_vmemmap_gp);

/*
 * The RCU state (get_state_synchronize_rcu()) when an optimized folio was
 * last put on a hugetlb free list.  Written under hugetlb_lock, so the
 * values only move forward; a restore reads it after taking its folios off
 * the free lists under the same lock, so it sees the state of its own
 * folios or a later one, and a grace period past a later state is past
 * theirs too.
 */
static unsigned long free_list_gp;

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
 * Waits for a full grace period, or, for free-list folios with the switch
 * on "polled", for the end of the grace period that started after the last
 * optimized folio was put on a free list (nothing when it is over).  While
 * a bulk free runs, the wait is counted and timed (debugfs
 * hugetlb_bulk_free/rcu_waits, rcu_waits_skipped, last_rcu_ns).
 */
void hugetlb_vmemmap_restore_wait(bool free_list_folios)
{
	unsigned long gp = READ_ONCE(free_list_gp);
	u64 start;

	if (free_list_folios && mm_impl_switch_new(hugetlb_vmemmap_gp)) {
		if (poll_state_synchronize_rcu(gp)) {
			hugetlb_bulk_count(HUGETLB_BULK_RCU_WAITS_SKIPPED);
			return;
		}
		start = hugetlb_bulk_phase_begin(HUGETLB_BULK_PH_RCU_WAIT);
		cond_synchronize_rcu(gp);
		hugetlb_bulk_phase_end(HUGETLB_BULK_PH_RCU_WAIT, start);
		return;
	}
	start = hugetlb_bulk_phase_begin(HUGETLB_BULK_PH_RCU_WAIT);
	synchronize_rcu();
	hugetlb_bulk_phase_end(HUGETLB_BULK_PH_RCU_WAIT, start);
}
