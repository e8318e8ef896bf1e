// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the switch every mmrust component uses between its
 * original and its new implementation (mm/mm_impl_switch.c): the
 * "<name>_impl=" boot parameter takes exactly one of the two names and
 * leaves the choice alone for anything else, and a switch selects and
 * reports its implementation through its static key.  The cases work on a
 * switch of their own, not on a component's.
 */
#include <kunit/test.h>
#include <linux/jump_label.h>
#include <linux/mm_impl_switch.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "mm_impl_switch_kunit.h"

#define LONG_VALUE_LEN	4096

static DEFINE_STATIC_KEY_TRUE(test_switch_key);
static DEFINE_PER_CPU(struct mm_impl_switch_calls, test_switch_calls);

static struct mm_impl_switch test_switch = {
	.name = "mm_impl_switch_test",
	.desc = "the switch of the mm_impl_switch KUnit suite",
	.impls = { "old", "new" },
	.key = &test_switch_key,
	.boot = 1,
	.calls = &test_switch_calls,
};

/* Hands @val to the boot parameter's handler, as the kernel's parser does. */
static void param_set(struct kunit *test, const char *val)
{
	const struct kernel_param kp = {
		.name = "mm_impl_switch_test_impl",
		.ops = &mm_impl_switch_param_ops,
		.arg = &test_switch,
	};

	/* 0 even for a bad value: the handler reports it itself. */
	KUNIT_EXPECT_EQ(test, 0, mm_impl_switch_param_ops.set(val, &kp));
}

static void test_param_takes_either_name(struct kunit *test)
{
	test_switch.boot = 1;
	param_set(test, "old");
	KUNIT_EXPECT_EQ(test, test_switch.boot, 0);
	param_set(test, "old");
	KUNIT_EXPECT_EQ(test, test_switch.boot, 0);
	param_set(test, "new");
	KUNIT_EXPECT_EQ(test, test_switch.boot, 1);
}

/*
 * Not exactly "old" or "new": empty, white space around or inside, another
 * case, a prefix, a longer word, a list, the numbers the debugfs file
 * takes, negative, not a number, 2^32 and 2^64.
 */
static const char *const bad_values[] = {
	"", " ", "\t", "\n", "old ", " new", "new\n", "n ew", "NEW", "Old",
	"ne", "newer", "old,new", "0", "1", "-1", "abc", "4294967296",
	"18446744073709551616",
};

static void test_param_keeps_choice_on_bad_value(struct kunit *test)
{
	char *long_value = kunit_kmalloc(test, LONG_VALUE_LEN + 1, GFP_KERNEL);
	unsigned int from, i;

	KUNIT_ASSERT_NOT_NULL(test, long_value);
	/* "new" followed by 4093 more letters. */
	memset(long_value, 'w', LONG_VALUE_LEN);
	memcpy(long_value, "new", 3);
	long_value[LONG_VALUE_LEN] = '\0';

	for (from = 0; from < 2; from++) {
		for (i = 0; i < ARRAY_SIZE(bad_values); i++) {
			test_switch.boot = from;
			param_set(test, bad_values[i]);
			KUNIT_EXPECT_EQ_MSG(test, test_switch.boot, from,
					    "value \"%s\"", bad_values[i]);
		}
		test_switch.boot = from;
		param_set(test, long_value);
		KUNIT_EXPECT_EQ_MSG(test, test_switch.boot, from, "a %d-character value",
				    LONG_VALUE_LEN);
		/* "mm_impl_switch_test_impl" alone, without "=". */
		test_switch.boot = from;
		param_set(test, NULL);
		KUNIT_EXPECT_EQ_MSG(test, test_switch.boot, from, "no value");
	}
}

static void test_select_sets_static_key(struct kunit *test)
{
	mm_impl_switch_select(&test_switch, 0);
	KUNIT_EXPECT_EQ(test, mm_impl_switch_selected(&test_switch), 0);
	KUNIT_EXPECT_FALSE(test, mm_impl_switch_new(test_switch));
	mm_impl_switch_select(&test_switch, 1);
	KUNIT_EXPECT_EQ(test, mm_impl_switch_selected(&test_switch), 1);
	KUNIT_EXPECT_TRUE(test, mm_impl_switch_new(test_switch));
}

/*
 * mm_impl_switch_count() moves the counter of its side only, on this CPU,
 * and mm_impl_switch_calls() sums it; a side out of range reads 0.
 */
static void test_count_moves_its_side_only(struct kunit *test)
{
	struct mm_impl_switch_snapshot before;

	mm_impl_switch_snapshot(&test_switch, &before);
	mm_impl_switch_count(test, MM_IMPL_NEW);
	mm_impl_switch_count(test, MM_IMPL_NEW);
	KUNIT_EXPECT_EQ(test, mm_impl_switch_calls(&test_switch, MM_IMPL_NEW) -
			before.calls[MM_IMPL_NEW], 2UL);
	KUNIT_EXPECT_EQ(test, mm_impl_switch_calls(&test_switch, MM_IMPL_ORIG) -
			before.calls[MM_IMPL_ORIG], 0UL);
	KUNIT_EXPECT_TRUE(test, mm_impl_switch_kunit_expect_ran(test, &test_switch, &before,
								MM_IMPL_NEW, 2));

	mm_impl_switch_snapshot(&test_switch, &before);
	mm_impl_switch_count(test, MM_IMPL_ORIG);
	KUNIT_EXPECT_TRUE(test, mm_impl_switch_kunit_expect_ran(test, &test_switch, &before,
								MM_IMPL_ORIG, 1));
	KUNIT_EXPECT_EQ(test, mm_impl_switch_calls(&test_switch, NR_MM_IMPLS), 0UL);
}

/* Every case starts from the switch as DEFINE_MM_IMPL_SWITCH() leaves it. */
static int mm_impl_switch_test_init(struct kunit *test)
{
	test_switch.boot = 1;
	mm_impl_switch_select(&test_switch, 1);
	return 0;
}

static struct kunit_case mm_impl_switch_test_cases[] = {
	KUNIT_CASE(test_param_takes_either_name),
	KUNIT_CASE(test_param_keeps_choice_on_bad_value),
	KUNIT_CASE(test_select_sets_static_key),
	KUNIT_CASE(test_count_moves_its_side_only),
	{}
};

static struct kunit_suite mm_impl_switch_test_suite = {
	.name = "mm_impl_switch",
	.init = mm_impl_switch_test_init,
	.test_cases = mm_impl_switch_test_cases,
};
kunit_test_suite(mm_impl_switch_test_suite);

MODULE_DESCRIPTION("KUnit tests of the mmrust implementation switch");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
