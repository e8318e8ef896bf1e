/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of the mm components share: a test's own choice
 * of implementation, and the proof of which one ran
 * (<linux/mm_impl_switch.h>).  Inline here, in the suites, so that they
 * build as modules with KUnit itself a module (CONFIG_KUNIT=m): no code
 * built into the kernel calls the KUnit API.
 */
#ifndef _MM_MM_IMPL_SWITCH_KUNIT_H
#define _MM_MM_IMPL_SWITCH_KUNIT_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/mm_impl_switch.h>
#include <linux/slab.h>

struct mm_impl_switch_saved {
	struct mm_impl_switch *sw;
	unsigned int impl;
};

static inline void mm_impl_switch_restore(void *data)
{
	struct mm_impl_switch_saved *saved = data;

	mm_impl_switch_select(saved->sw, saved->impl);
	kfree(saved);
}

/**
 * mm_impl_switch_kunit_use() - Select an implementation for one KUnit test.
 * @test: The running test.
 * @sw: The component's switch.
 * @impl: 0 for the original, 1 for the new implementation.
 *
 * The implementation in use before the first call of the test comes back
 * when the test ends, pass or fail.  Fails the test if the restore cannot
 * be arranged (no memory).
 */
static inline void mm_impl_switch_kunit_use(struct kunit *test, struct mm_impl_switch *sw,
					    unsigned int impl)
{
	struct mm_impl_switch_saved *saved = kmalloc(sizeof(*saved), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, saved);
	saved->sw = sw;
	saved->impl = mm_impl_switch_selected(sw);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, mm_impl_switch_restore,
							   saved));
	mm_impl_switch_select(sw, impl);
}

/**
 * mm_impl_switch_kunit_expect_ran() - Check that one implementation ran, alone.
 * @test: The running test.
 * @sw: The component's switch.
 * @before: Its counters before the test called the component
 *	(mm_impl_switch_snapshot(), taken after selecting @impl).
 * @impl: The implementation the test selected.
 * @min_calls: The calls of @impl the test made at least (1 or more).
 *
 * Fails the test unless the calls of @impl moved by @min_calls or more
 * since @before and the calls of the other implementation did not move:
 * a switch wired the wrong way round, or one that does not switch, fails
 * here even where both implementations give the same results.  The whole
 * system runs the selected implementation meanwhile, so other tasks can
 * only add to the calls of @impl.
 *
 * Return: whether the check passed.
 */
static inline bool mm_impl_switch_kunit_expect_ran(struct kunit *test,
						   const struct mm_impl_switch *sw,
						   const struct mm_impl_switch_snapshot *before,
						   unsigned int impl, unsigned long min_calls)
{
	struct mm_impl_switch_snapshot now;
	unsigned int other = !impl;
	unsigned long ran, other_ran;

	KUNIT_ASSERT_LT(test, impl, (unsigned int)NR_MM_IMPLS);
	KUNIT_ASSERT_TRUE_MSG(test, sw->calls, "%s: no call counters", sw->name);
	mm_impl_switch_snapshot(sw, &now);
	ran = now.calls[impl] - before->calls[impl];
	other_ran = now.calls[other] - before->calls[other];
	KUNIT_EXPECT_GE_MSG(test, ran, min_calls,
			    "%s: calls_%s moved by %lu, expected at least %lu",
			    sw->name, sw->impls[impl], ran, min_calls);
	KUNIT_EXPECT_EQ_MSG(test, other_ran, 0UL,
			    "%s: calls_%s moved by %lu while %s was selected",
			    sw->name, sw->impls[other], other_ran, sw->impls[impl]);
	return ran >= min_calls && !other_ran;
}

#endif /* _MM_MM_IMPL_SWITCH_KUNIT_H */
