/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of the hugetlb bulk free and of the polled grace
 * period share: HVO turned on or off for one test.  Inline here, in the
 * suites, so that they build as modules with KUnit itself a module
 * (CONFIG_KUNIT=m): no code built into the kernel calls the KUnit API.
 */
#ifndef _MM_HUGETLB_BULK_KUNIT_H
#define _MM_HUGETLB_BULK_KUNIT_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/hugetlb_bulk_free.h>

#ifdef CONFIG_HUGETLB_BULK_FREE_DEBUG
static inline void hugetlb_bulk_put_back_hvo(void *old)
{
	hugetlb_bulk_kunit_set_hvo(!!old);
}

/**
 * hugetlb_bulk_kunit_use_hvo() - Turn HVO on or off for one KUnit test.
 * @test: The running test.
 * @on: Whether the folios the pool grows by are to be optimized.
 *
 * As the sysctl vm.hugetlb_optimize_vmemmap would, whatever the boot chose
 * (hugetlb_free_vmemmap=); the setting before comes back when the test
 * ends, pass or fail.  Skips the test when @on asks for HVO in a kernel
 * without it.
 */
static inline void hugetlb_bulk_kunit_use_hvo(struct kunit *test, bool on)
{
	bool old;

	if (on && !IS_ENABLED(CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP))
		kunit_skip(test, "no HVO in this kernel (CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP)");
	old = hugetlb_bulk_kunit_set_hvo(on);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, hugetlb_bulk_put_back_hvo,
							   old ? (void *)1 : NULL));
}
#endif /* CONFIG_HUGETLB_BULK_FREE_DEBUG */

#endif /* _MM_HUGETLB_BULK_KUNIT_H */
