/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RCU grace period a vmemmap restore (HVO undone) waits for, skipped
 * when it has already passed.
 *
 * Before a restore remaps the vmemmap of an optimized hugetlb folio, 6.12
 * waits for a full grace period (synchronize_rcu(), once per batch): a
 * speculative page_ref_add_unless() runs under rcu_read_lock() and writes
 * the refcount only when it is not zero, so once a grace period has passed
 * since the folio's refcount reached zero no such writer can still land on
 * the struct pages being copied.  Every folio of a batched restore comes
 * off a hugetlb free list, and was put there with a zero refcount.  With
 * "hugetlb_vmemmap_gp_impl=polled" (the default) the restore of such a
 * batch does not wait at all when a grace period has passed since the last
 * time an optimized folio was put on a free list (polled RCU state), which
 * is so for a pool filled a while ago.  When it has not, the wait is
 * cond_synchronize_rcu(), which in 6.12 waits a whole new grace period
 * (synchronize_rcu()), not what is left of the one under way.
 * "hugetlb_vmemmap_gp_impl=sync" keeps the 6.12 wait.  A single folio's
 * restore (a surplus folio freed at once, a dissolve) always waits a full
 * grace period.
 *
 * The argument holds only for folios frozen while on a free list:
 * hugetlb_vmemmap_restore_folios() marks every restore it does
 * VMEMMAP_FREE_LIST_FOLIOS, and its 6.12 callers (the bulk free and the
 * demotion, both with folios removed from the free lists under
 * hugetlb_lock) pass only such folios.  A caller with folios frozen just
 * now, never enqueued (hugetlb_vmemmap_note_free_list() never saw them),
 * would skip a wait it needs: it must restore them one at a time, or
 * without VMEMMAP_FREE_LIST_FOLIOS.
 */
#ifndef _LINUX_HUGETLB_VMEMMAP_GP_H
#define _LINUX_HUGETLB_VMEMMAP_GP_H

#include <linux/hugetlb_bulk_free.h>
#include <linux/mm_impl_switch.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

struct folio;

#ifdef CONFIG_HUGETLB_VMEMMAP_POLLED_GP
/**
 * enum hugetlb_vmemmap_gp_impl - How a batched vmemmap restore waits.
 * @HUGETLB_VMEMMAP_GP_SYNC: a full grace period, as 6.12 does.
 * @HUGETLB_VMEMMAP_GP_POLLED: none when a grace period has passed since
 *	the last optimized folio was put on a free list, else a full one.
 */
enum hugetlb_vmemmap_gp_impl {
	HUGETLB_VMEMMAP_GP_SYNC,
	HUGETLB_VMEMMAP_GP_POLLED,
};

DECLARE_MM_IMPL_SWITCH(hugetlb_vmemmap_gp);

void hugetlb_vmemmap_note_free_list(struct folio *folio);
void hugetlb_vmemmap_restore_wait(bool free_list_folios);
unsigned long hugetlb_vmemmap_gp_waits_begun(void);
#else
static inline void hugetlb_vmemmap_note_free_list(struct folio *folio) { }

static inline void hugetlb_vmemmap_restore_wait(bool free_list_folios)
{
	u64 start = hugetlb_bulk_phase_begin(HUGETLB_BULK_PH_RCU_WAIT);

	synchronize_rcu();
	hugetlb_bulk_phase_end(HUGETLB_BULK_PH_RCU_WAIT, start);
}
#endif /* CONFIG_HUGETLB_VMEMMAP_POLLED_GP */

#endif /* _LINUX_HUGETLB_VMEMMAP_GP_H */
