/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Control and observation of arm64 contpte (transparent contiguous PTEs,
 * arch/arm64/mm/contpte.c) for user mappings.
 *
 * - CONFIG_CONTPTE_SWITCH: the mm_impl_switch "contpte" ("contpte_impl=
 *   off|on", /sys/kernel/debug/contpte/on), on by default.  Off, contpte
 *   makes no new contiguous block: set_ptes() maps without PTE_CONT and a
 *   block that becomes uniform is not folded.  Blocks folded while it was
 *   on are still unfolded when one of their entries changes, so switching
 *   at run time is safe.
 * - CONFIG_CONTPTE_VMSTAT: the /proc/vmstat events contpte_map (blocks that
 *   set_ptes() mapped contiguous at once), contpte_fold (blocks of live
 *   entries folded), contpte_unfold (blocks unfolded) and contpte_tlbi (the
 *   TLB invalidations of a whole block that folding and unfolding cost:
 *   one per fold or unfold in 6.12).
 */
#ifndef _LINUX_CONTPTE_CONTROL_H
#define _LINUX_CONTPTE_CONTROL_H

#include <linux/mm_impl_switch.h>
#include <linux/mm.h>

#ifdef CONFIG_CONTPTE_SWITCH
DECLARE_MM_IMPL_SWITCH(contpte);

/**
 * contpte_user_enabled() - Whether contpte may make new contiguous blocks.
 *
 * Return: true unless the contpte switch is off.  A static branch.
 */
static __always_inline bool contpte_user_enabled(void)
{
	return mm_impl_switch_new(contpte);
}

/**
 * contpte_count_impl() - Count which side of the switch a contpte call took.
 * @impl: MM_IMPL_NEW where contpte_user_enabled() let it make a block,
 *	MM_IMPL_ORIG where it did not.
 *
 * Called in the branch taken after contpte_user_enabled(), for the
 * debugfs files contpte/calls_on and calls_off and for KUnit: one per-cpu
 * increment, the same for both sides.
 */
static __always_inline void contpte_count_impl(enum mm_impl impl)
{
	mm_impl_switch_count(contpte, impl);
}
#else
static __always_inline bool contpte_user_enabled(void)
{
	return true;
}

static __always_inline void contpte_count_impl(enum mm_impl impl) { }
#endif

/*
 * The contpte vm events (CONFIG_CONTPTE_VMSTAT), one counting function
 * each; empty without the option.
 */
#ifdef CONFIG_CONTPTE_VMSTAT
#if IS_ENABLED(CONFIG_CONTPTE_KUNIT_TEST)
#include <kunit/test-bug.h>

void contpte_kunit_count_event(enum vm_event_item item);
unsigned long contpte_kunit_events(enum vm_event_item item);

/*
 * With the KUnit suite in the kernel, the events a KUnit test's own thread
 * causes are counted apart as well (contpte_kunit_events()): the suite,
 * loaded as a module while user space maps memory, checks exactly its own.
 * A static branch when no KUnit test runs.
 */
static inline void contpte_count_event(enum vm_event_item item)
{
	count_vm_event(item);
	if (kunit_get_current_test())
		contpte_kunit_count_event(item);
}
#else
static inline void contpte_count_event(enum vm_event_item item)
{
	count_vm_event(item);
}
#endif
static inline void contpte_count_map(void) { contpte_count_event(CONTPTE_MAP); }
static inline void contpte_count_fold(void) { contpte_count_event(CONTPTE_FOLD); }
static inline void contpte_count_unfold(void) { contpte_count_event(CONTPTE_UNFOLD); }
static inline void contpte_count_tlbi(void) { contpte_count_event(CONTPTE_TLBI); }
#else
static inline void contpte_count_map(void) { }
static inline void contpte_count_fold(void) { }
static inline void contpte_count_unfold(void) { }
static inline void contpte_count_tlbi(void) { }
#endif

#endif /* _LINUX_CONTPTE_CONTROL_H */
