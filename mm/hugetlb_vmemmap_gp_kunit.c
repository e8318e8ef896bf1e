// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the polled grace period of batched vmemmap restores
 * (mm/hugetlb_vmemmap_gp.c), on the 2 MiB hstate with HVO on: a pool
 * shrink waits a full grace period with "sync", nothing with "polled" once
 * a grace period has passed since the folios went on the free list, and,
 * with "polled", still waits for an RCU reader that was running when a
 * folio was freed into the pool just before the shrink.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/hugetlb.h>
#include <linux/hugetlb_bulk_free.h>
#include <linux/hugetlb_vmemmap_gp.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include "hugetlb_bulk_kunit.h"
#include "mm_impl_switch_kunit.h"

#define GP_TEST_PAGES	8
/*
 * The longest the reader stays inside waiting for the shrink's decision,
 * which comes within milliseconds: an upper bound, not a window to hit.
 */
#define READER_MAX_MS	5000
#define READER_MARGIN_MS	100

/* The rcu_waits and rcu_waits_skipped of one pool shrink. */
struct gp_waits {
	unsigned long waited, skipped;
};

static struct hstate *gp_hstate(struct kunit *test)
{
	struct hstate *h = size_to_hstate(PMD_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, h);
	return h;
}

/*
 * Grows the empty pool of @h to GP_TEST_PAGES, with @impl selected and HVO
 * turned on for the test whatever the boot chose (it is put back when the
 * test ends); fails the test when the folios were not optimized all the
 * same (the key counts optimized folios, so it is read once the pool is
 * filled).
 */
static void gp_fill_pool(struct kunit *test, struct hstate *h, unsigned int impl)
{
	mm_impl_switch_kunit_use(test, &hugetlb_vmemmap_gp_switch, impl);
	hugetlb_bulk_kunit_use_hvo(test, true);
	hugetlb_bulk_inject_restore_failures(0, 0);
	KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 0));
	KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, GP_TEST_PAGES));
	KUNIT_ASSERT_EQ_MSG(test, READ_ONCE(h->nr_huge_pages), GP_TEST_PAGES,
			    "cannot allocate %u huge pages", GP_TEST_PAGES);
	if (!static_key_enabled(&hugetlb_optimize_vmemmap_key)) {
		KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 0));
		KUNIT_ASSERT_TRUE_MSG(test, false, "HVO on, yet no folio of the pool was optimized");
	}
}

/*
 * Empties the pool of @h (one bulk free) and returns its grace period
 * waits; checks that the wait was decided by @impl, the one selected, and
 * by no other (the switch's call counters).
 */
static struct gp_waits gp_shrink(struct kunit *test, struct hstate *h, unsigned int impl)
{
	unsigned long waited = hugetlb_bulk_stat_read(HUGETLB_BULK_RCU_WAITS);
	unsigned long skipped = hugetlb_bulk_stat_read(HUGETLB_BULK_RCU_WAITS_SKIPPED);
	struct mm_impl_switch_snapshot calls;

	mm_impl_switch_snapshot(&hugetlb_vmemmap_gp_switch, &calls);
	KUNIT_EXPECT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 0));
	KUNIT_EXPECT_EQ(test, READ_ONCE(h->nr_huge_pages), 0);
	mm_impl_switch_kunit_expect_ran(test, &hugetlb_vmemmap_gp_switch, &calls, impl, 1);
	return (struct gp_waits) {
		.waited = hugetlb_bulk_stat_read(HUGETLB_BULK_RCU_WAITS) - waited,
		.skipped = hugetlb_bulk_stat_read(HUGETLB_BULK_RCU_WAITS_SKIPPED) - skipped,
	};
}

/*
 * Lets a full grace period pass, as the polled state sees it: started
 * here (start_poll_synchronize_rcu() makes sure one starts) and waited for
 * by polling.  synchronize_rcu() is not enough: it was seen returning with
 * the polled state of an earlier moment not yet complete (once in four
 * boots, the debug image at preempt=voluntary, during boot).
 */
static void gp_let_grace_period_pass(struct kunit *test)
{
	unsigned long gp = start_poll_synchronize_rcu();
	unsigned long deadline = jiffies + 10 * HZ;

	while (!poll_state_synchronize_rcu(gp)) {
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, deadline),
				      "no grace period in 10 s");
		schedule_timeout_uninterruptible(1);
	}
}

/*
 * Fills the pool with @impl, lets a grace period pass, empties it: one
 * decision on the wait, @waited or skipped.
 */
static void gp_shrink_old_pool(struct kunit *test, unsigned int impl, bool waited)
{
	struct hstate *h = gp_hstate(test);
	struct gp_waits w;

	gp_fill_pool(test, h, impl);
	gp_let_grace_period_pass(test);
	w = gp_shrink(test, h, impl);
	KUNIT_EXPECT_EQ(test, w.waited, waited ? 1 : 0);
	KUNIT_EXPECT_EQ(test, w.skipped, waited ? 0 : 1);
}

/* "sync" (6.12): one full grace period per batch, however old the pool. */
static void test_sync_waits_full_grace_period(struct kunit *test)
{
	gp_shrink_old_pool(test, HUGETLB_VMEMMAP_GP_SYNC, true);
}

/* "polled": a grace period has passed since the pool was filled: no wait. */
static void test_polled_skips_past_grace_period(struct kunit *test)
{
	gp_shrink_old_pool(test, HUGETLB_VMEMMAP_GP_POLLED, false);
}

struct gp_reader {
	struct completion inside, finished;
	unsigned long waits_begun, skipped;	/* the counters before the shrink */
	bool decided;		/* the reader saw the shrink's decision */
	bool left;		/* set just before rcu_read_unlock() */
};

/*
 * An RCU reader that stays in its read-side critical section until the
 * shrink has decided on its grace period: begun waiting (for this reader,
 * among others) or skipped the wait; READER_MAX_MS at most.  So the
 * decision is always taken while the reader is inside, whatever the
 * timing: no window to hit.  It then stays READER_MARGIN_MS longer, so
 * that a wait which returns early (a stale cookie) returns while the
 * reader is still inside and the case sees it; a correct wait lasts
 * until the reader has left, so the margin only costs time.
 */
static int gp_reader_fn(void *data)
{
	struct gp_reader *r = data;
	unsigned int ms;

	rcu_read_lock();
	complete(&r->inside);
	for (ms = 0; ms < READER_MAX_MS; ms++) {
		if (hugetlb_vmemmap_gp_waits_begun() != r->waits_begun ||
		    hugetlb_bulk_stat_read(HUGETLB_BULK_RCU_WAITS_SKIPPED) != r->skipped) {
			WRITE_ONCE(r->decided, true);
			mdelay(READER_MARGIN_MS);
			break;
		}
		mdelay(1);
	}
	WRITE_ONCE(r->left, true);
	rcu_read_unlock();
	complete(&r->finished);
	return 0;
}

/*
 * "polled": a folio freed into the pool while an RCU reader runs (as a
 * speculative page_ref_add_unless() would) makes the next shrink wait for
 * that reader, even though the rest of the pool is past a grace period.
 * Fails if the wait is skipped when it is needed: the shrink would return
 * while the reader is still inside.
 *
 * Deterministic: the reader leaves only once the shrink has decided (see
 * gp_reader_fn()), and runs on a CPU of its own, the test on another, as
 * a reader spinning with preemption off (preempt=voluntary) would
 * otherwise hold up a shrink on its CPU.  Chance is left only in the
 * READER_MAX_MS bound: a shrink taking 5 s to reach its decision (the
 * first thing its bulk free does, on a CPU the reader does not hold)
 * fails the test ("decided nothing") rather than passing it untested.
 * (It had a 200 ms window: a test thread delayed past it, or woken on the
 * reader's CPU, saw the grace period pass and failed with correct code.)
 * Skipped with a single CPU.
 */
static void test_polled_waits_for_reader_of_fresh_free(struct kunit *test)
{
	struct hstate *h = gp_hstate(test);
	struct task_struct *task;
	struct gp_reader *r;
	struct folio *folio;
	struct gp_waits w;
	bool reader_left;
	unsigned int cpu, reader_cpu;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	init_completion(&r->inside);
	init_completion(&r->finished);
	/* This test's thread, made for this case alone, stays on its CPU. */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current, cpumask_of(cpu)));
	reader_cpu = cpumask_any_but(cpu_online_mask, cpu);
	if (reader_cpu >= nr_cpu_ids)
		kunit_skip(test, "one CPU: the reader needs a CPU of its own");
	gp_fill_pool(test, h, HUGETLB_VMEMMAP_GP_POLLED);
	gp_let_grace_period_pass(test);

	folio = alloc_hugetlb_folio_nodemask(h, NUMA_NO_NODE, &node_states[N_MEMORY],
					     htlb_alloc_mask(h), false);
	KUNIT_ASSERT_NOT_NULL(test, folio);
	KUNIT_ASSERT_TRUE(test, folio_test_hugetlb_vmemmap_optimized(folio));
	r->waits_begun = hugetlb_vmemmap_gp_waits_begun();
	r->skipped = hugetlb_bulk_stat_read(HUGETLB_BULK_RCU_WAITS_SKIPPED);
	task = kthread_create(gp_reader_fn, r, "hugetlb_gp_reader");
	if (IS_ERR(task)) {
		folio_put(folio);
		KUNIT_FAIL(test, "no reader thread: %ld", PTR_ERR(task));
		return;
	}
	kthread_bind(task, reader_cpu);
	wake_up_process(task);
	wait_for_completion(&r->inside);
	folio_put(folio);	/* back to the free list, refcount zero */
	w = gp_shrink(test, h, HUGETLB_VMEMMAP_GP_POLLED);
	reader_left = READ_ONCE(r->left);
	KUNIT_EXPECT_TRUE_MSG(test, reader_left,
			      "the vmemmap was restored while an RCU reader from before the free ran");
	KUNIT_EXPECT_EQ(test, w.waited, 1);
	KUNIT_EXPECT_EQ(test, w.skipped, 0);
	wait_for_completion(&r->finished);
	KUNIT_EXPECT_TRUE_MSG(test, READ_ONCE(r->decided),
			      "the shrink decided nothing in %d ms: the case tested nothing",
			      READER_MAX_MS);
}

/* The 2 MiB pool's persistent pages when the suite began, put back after. */
static unsigned long gp_pool_before;

static int gp_suite_init(struct kunit_suite *suite)
{
	struct hstate *h = size_to_hstate(PMD_SIZE);

	if (!h)
		return -ENODEV;
	gp_pool_before = READ_ONCE(h->nr_huge_pages) - READ_ONCE(h->surplus_huge_pages);
	return 0;
}

static void gp_suite_exit(struct kunit_suite *suite)
{
	hugetlb_bulk_set_pool_size(size_to_hstate(PMD_SIZE), gp_pool_before);
}

static struct kunit_case hugetlb_vmemmap_gp_test_cases[] = {
	KUNIT_CASE(test_sync_waits_full_grace_period),
	KUNIT_CASE(test_polled_skips_past_grace_period),
	KUNIT_CASE(test_polled_waits_for_reader_of_fresh_free),
	{}
};

static struct kunit_suite hugetlb_vmemmap_gp_test_suite = {
	.name = "hugetlb_vmemmap_gp",
	.suite_init = gp_suite_init,
	.suite_exit = gp_suite_exit,
	.test_cases = hugetlb_vmemmap_gp_test_cases,
};
kunit_test_suite(hugetlb_vmemmap_gp_test_suite);

MODULE_DESCRIPTION("KUnit tests of the polled grace period of vmemmap restores");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
