// SPDX-License-Identifier: GPL-2.0
/*
 * The contpte switch (CONFIG_CONTPTE_SWITCH): arm64 contpte on or off for
 * new user mappings in one image, so that every contpte comparison (the
 * fork and munmap benchmark, the boot tests) runs on the same kernel.
 *
 * "contpte_impl=off" at boot, or 0 written to /sys/kernel/debug/contpte/on,
 * turns it off; see <linux/contpte_control.h> for what off means.
 */
#include <linux/contpte_control.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <kunit/visibility.h>

DEFINE_MM_IMPL_SWITCH(contpte, "contiguous PTEs for user mappings", "off", "on");
/* /sys/kernel/debug/contpte/on: 1 or 0, anything else is -EINVAL. */
DEFINE_MM_IMPL_SWITCH_DEBUGFS(contpte);
/* contpte_switch: for the KUnit suite built as a module. */
EXPORT_SYMBOL_IF_KUNIT(contpte_switch);

#if IS_ENABLED(CONFIG_CONTPTE_KUNIT_TEST)
/* The contpte events of KUnit tests' threads, by vm event item. */
static atomic_long_t contpte_kunit_counts[NR_VM_EVENT_ITEMS];

/**
 * contpte_kunit_count_event() - Count a contpte event of a KUnit test.
 * @item: The contpte vm event; counted by the current thread, which runs
 *	a KUnit test (contpte_count_event() checks).
 */
void contpte_kunit_count_event(enum vm_event_item item)
{
	atomic_long_inc(&contpte_kunit_counts[item]);
}

/**
 * contpte_kunit_events() - The contpte events KUnit tests' threads caused.
 * @item: The contpte vm event.
 *
 * Unlike /proc/vmstat's count, no other task adds to it: a KUnit case
 * reads it before and after its own calls, whatever user space does.
 *
 * Return: how many times threads running a KUnit test counted @item.
 */
unsigned long contpte_kunit_events(enum vm_event_item item)
{
	return atomic_long_read(&contpte_kunit_counts[item]);
}
EXPORT_SYMBOL_IF_KUNIT(contpte_kunit_events);
#endif
