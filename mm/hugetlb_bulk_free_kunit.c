// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the hugetlb bulk free (mm/hugetlb_bulk_free.rs) and of the
 * C original, on the 2 MiB hstate: each case grows the pool to N pages,
 * shrinks it to zero (one bulk free of N folios) and checks the debug
 * counters, the pool counters, the buddy allocator's free pages and that no
 * page of a freed folio still reads as hugetlb.  The last cases check the
 * other side, the pool growing: its TLB flushes and its fallback when a
 * vmemmap PMD split fails.  The cases between check the pool's accounting
 * (patches 0026 and 0035 of the series).
 *
 * The expectations follow HVO: with "hugetlb_free_vmemmap=on" the folios
 * are vmemmap-optimized and every free restores their vmemmap; without it
 * there is nothing to restore (and nothing to inject a failure into).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/gfp.h>
#include <linux/hugetlb.h>
#include <linux/hugetlb_bulk_free.h>
#include <linux/kthread.h>
#include <linux/migrate_mode.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/vmstat.h>
#include "hugetlb_bulk_kunit.h"
#include "mm_impl_switch_kunit.h"

#define MIDDLE	UINT_MAX	/* fail_first placeholder: the middle folio */
#define EVERY	UINT_MAX	/* fail_count: every restore from fail_first on */

/*
 * Slack on the buddy's free pages: any lost 2 MiB folio is 512 pages.  The
 * debug image's checkers (KASAN's quarantine, kmemleak's and lockdep's
 * own allocations) hold more pages for a while.
 */
#define BUDDY_SLACK (IS_ENABLED(CONFIG_KASAN) ? 1024 : 256)

struct pool_state {
	unsigned long nr, free, surplus, resv;
};

struct bulk_result {
	unsigned long stat[NR_HUGETLB_BULK_STATS];	/* deltas */
	u64 phase_ns[NR_HUGETLB_BULK_PHASES];		/* its restores' parts */
	unsigned long phase_n[NR_HUGETLB_BULK_PHASES];	/* times timed */
	struct pool_state after;			/* after the bulk free */
	bool hvo;					/* folios were optimized */
	unsigned long stale_pages;	/* freed pages still typed hugetlb */
};

/*
 * Whether the pool's folios are vmemmap-optimized (HVO) right now: never
 * in a kernel without HVO (6.12's arm64 has none), where every case checks
 * the HVO-off behaviour and says so.
 */
static bool hvo_active(void)
{
#ifdef CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP
	return static_key_enabled(&hugetlb_optimize_vmemmap_key);
#else
	return false;
#endif
}

static struct hstate *test_hstate(struct kunit *test)
{
	struct hstate *h = size_to_hstate(PMD_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, h);
	return h;
}

static void empty_pool(struct kunit *test, struct hstate *h);

/*
 * Whether a folio the pool grows by now is vmemmap-optimized: HVO in this
 * kernel and on (hugetlb_free_vmemmap=on, or the sysctl).  The key counts
 * optimized folios, so one folio is allocated to find out; the pool is
 * left empty.
 */
static bool hvo_on(struct kunit *test)
{
	struct hstate *h = test_hstate(test);
	bool on;

	if (!IS_ENABLED(CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP))
		return false;
	empty_pool(test, h);
	KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 1));
	KUNIT_ASSERT_EQ_MSG(test, READ_ONCE(h->nr_huge_pages), 1, "cannot allocate a huge page");
	on = hvo_active();
	empty_pool(test, h);
	return on;
}

static struct pool_state pool_state(struct hstate *h)
{
	return (struct pool_state) {
		.nr = READ_ONCE(h->nr_huge_pages),
		.free = READ_ONCE(h->free_huge_pages),
		.surplus = READ_ONCE(h->surplus_huge_pages),
		.resv = READ_ONCE(h->resv_huge_pages),
	};
}

static long buddy_free_pages(void)
{
	drain_all_pages(NULL);
	return global_zone_page_state(NR_FREE_PAGES);
}

/*
 * buddy_settled_drift: the buddy's free pages now less @before, read again
 * (up to 10 times, 100 ms apart) while beyond BUDDY_SLACK: what other tasks
 * and the debug image's checkers hold comes back, a lost folio does not
 * (seen once in the debug image: a first case beyond the slack, its
 * figure lost in a truncated report).
 */
static long buddy_settled_drift(long before)
{
	long drift = buddy_free_pages() - before;
	int i;

	for (i = 0; i < 10 && (drift < 0 ? -drift : drift) >= BUDDY_SLACK; i++) {
		msleep(100);
		drift = buddy_free_pages() - before;
	}
	return drift;
}

/* Empties the pool, surplus pages included, with injection off. */
static void empty_pool(struct kunit *test, struct hstate *h)
{
	hugetlb_bulk_inject_restore_failures(0, 0);
	if (READ_ONCE(h->surplus_huge_pages))
		KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, h->nr_huge_pages));
	KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 0));
	KUNIT_ASSERT_EQ(test, READ_ONCE(h->nr_huge_pages), 0);
}

/*
 * Records the first pfn of every folio of the (free) pool into @pfns, @max
 * at most, and returns how many it recorded.
 */
static unsigned int pool_pfns(struct hstate *h, unsigned long *pfns, unsigned int max)
{
	return min(hugetlb_bulk_kunit_free_folios(h, pfns, max, NULL), max);
}

/*
 * Counts the pages of the given (freed) folios whose struct page still
 * carries the hugetlb page type: a freed page that reads as hugetlb is
 * later freed through free_huge_folio() by whoever reuses it.
 */
static unsigned long stale_hugetlb_pages(struct hstate *h, const unsigned long *pfns,
					 unsigned int n)
{
	unsigned long stale = 0, i;
	unsigned int f;

	for (f = 0; f < n; f++)
		for (i = 0; i < pages_per_huge_page(h); i++) {
			const struct page *page = pfn_to_page(pfns[f] + i);

			/* Racy read of a free page, as dump_page() does. */
			if ((data_race(page->page_type) >> 24) == PGTY_hugetlb)
				stale++;
		}
	return stale;
}

/* Runs the rest of the test with @impl, restoring the boot choice after. */
static void use_impl(struct kunit *test, enum hugetlb_bulk_free_impl impl)
{
	mm_impl_switch_kunit_use(test, &hugetlb_bulk_free_switch, impl);
}

/*
 * Grows the pool to @n, frees it in one bulk free with the restores
 * [@fail_first, @fail_first + @fail_count) failing, and records what
 * happened.  Then empties the pool and checks the buddy got all back.
 */
static void run_bulk_free(struct kunit *test, enum hugetlb_bulk_free_impl impl,
			  unsigned int n, unsigned int fail_first,
			  unsigned int fail_count, struct bulk_result *res)
{
	struct hstate *h = test_hstate(test);
	unsigned long before[NR_HUGETLB_BULK_STATS];
	struct mm_impl_switch_snapshot calls;
	unsigned long *pfns;
	unsigned int nr_pfns;
	long buddy, drift;
	int i;

	if (!IS_ENABLED(CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP))
		kunit_info(test, "no HVO in this kernel (CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP off): checking the HVO-off behaviour\n");
	use_impl(test, impl);
	mm_impl_switch_snapshot(&hugetlb_bulk_free_switch, &calls);
	empty_pool(test, h);
	KUNIT_ASSERT_FALSE(test, hvo_active());
	buddy = buddy_free_pages();

	KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, n));
	KUNIT_ASSERT_EQ_MSG(test, READ_ONCE(h->nr_huge_pages), n,
			    "cannot allocate %u huge pages: give the guest more memory", n);
	res->hvo = hvo_active();
	pfns = kunit_kcalloc(test, n, sizeof(*pfns), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pfns);
	nr_pfns = pool_pfns(h, pfns, n);
	KUNIT_ASSERT_EQ(test, nr_pfns, n);

	for (i = 0; i < NR_HUGETLB_BULK_STATS; i++)
		before[i] = hugetlb_bulk_stat_read(i);
	hugetlb_bulk_inject_restore_failures(fail_first == MIDDLE ? n / 2 + 1 : fail_first,
					     fail_count);
	KUNIT_EXPECT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 0));
	hugetlb_bulk_inject_restore_failures(0, 0);
	/* The shrink's bulk free ran @impl, and only @impl. */
	mm_impl_switch_kunit_expect_ran(test, &hugetlb_bulk_free_switch, &calls, impl, 1);
	for (i = 0; i < NR_HUGETLB_BULK_STATS; i++)
		res->stat[i] = hugetlb_bulk_stat_read(i) - before[i];
	for (i = 0; i < NR_HUGETLB_BULK_PHASES; i++) {
		res->phase_ns[i] = hugetlb_bulk_last_phase_ns(i);
		res->phase_n[i] = hugetlb_bulk_last_phase_count(i);
	}
	res->after = pool_state(h);

	/* Every folio is either freed or back as a free surplus page. */
	KUNIT_EXPECT_EQ(test, res->after.nr, res->after.surplus);
	KUNIT_EXPECT_EQ(test, res->after.free, res->after.surplus);

	empty_pool(test, h);
	drift = buddy_settled_drift(buddy);
	KUNIT_EXPECT_LT_MSG(test, drift < 0 ? -drift : drift, BUDDY_SLACK,
			    "buddy free pages %ld before, %+ld now", buddy, drift);
	res->stale_pages = stale_hugetlb_pages(h, pfns, nr_pfns);
	KUNIT_EXPECT_EQ_MSG(test, res->stale_pages, 0,
			    "pages of freed folios still typed hugetlb");
}

static const enum hugetlb_bulk_free_impl impls[] = { HUGETLB_BULK_FREE_RUST, HUGETLB_BULK_FREE_C };

static void impl_desc(const enum hugetlb_bulk_free_impl *impl, char *desc)
{
	strscpy(desc, *impl == HUGETLB_BULK_FREE_RUST ? "rust" : "c", KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(impl, impls, impl_desc);

struct success_case {
	unsigned int n;
	enum hugetlb_bulk_free_impl impl;
};

static const struct success_case success_cases[] = {
	{ 1, HUGETLB_BULK_FREE_RUST }, { 1, HUGETLB_BULK_FREE_C },
	{ 2, HUGETLB_BULK_FREE_RUST }, { 2, HUGETLB_BULK_FREE_C },
	{ 64, HUGETLB_BULK_FREE_RUST }, { 64, HUGETLB_BULK_FREE_C },
	{ 512, HUGETLB_BULK_FREE_RUST }, { 512, HUGETLB_BULK_FREE_C },
};

static void success_desc(const struct success_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s N=%u",
		 c->impl == HUGETLB_BULK_FREE_RUST ? "rust" : "c", c->n);
}
KUNIT_ARRAY_PARAM(success, success_cases, success_desc);

/*
 * One bulk free: one lock cycle, one TLB flush and one decision on the RCU
 * grace period (the restore's wait for speculative refcount writers: taken,
 * or skipped by hugetlb_vmemmap_gp_impl=polled if one already passed since
 * the pool was filled) with HVO, none without.
 */
static void test_bulk_free_one_lock_cycle_one_flush(struct kunit *test)
{
	const struct success_case *c = test->param_value;
	struct bulk_result r;

	run_bulk_free(test, c->impl, c->n, 0, 0, &r);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_FREES], 1);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_LOCK_CYCLES], r.hvo ? 1 : 0);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_TLB_FLUSHES], r.hvo ? 1 : 0);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_RCU_WAITS] +
			r.stat[HUGETLB_BULK_RCU_WAITS_SKIPPED], r.hvo ? 1 : 0);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_INJECTED_FAILURES], 0);
	KUNIT_EXPECT_EQ(test, r.after.nr, 0);
}

/*
 * Every page of every freed folio leaves without the hugetlb page type:
 * the vmemmap restore must not copy the head's struct page over tails.
 */
static void test_freed_folio_pages_not_hugetlb(struct kunit *test)
{
	const enum hugetlb_bulk_free_impl *impl = test->param_value;
	struct bulk_result r;

	run_bulk_free(test, *impl, 64, 0, 0, &r);
	KUNIT_EXPECT_EQ(test, r.after.nr, 0);
	KUNIT_EXPECT_EQ(test, r.stale_pages, 0);
}

static void breakdown_off(void *unused)
{
	static_branch_disable(&hugetlb_bulk_breakdown);
}

/*
 * The parts of the restores (debugfs breakdown): with breakdown on and
 * HVO, each folio's vmemmap allocation and remap walk and each new page's
 * filling are timed, the filling inside the walk; off, only the batch's
 * flush is.  Counted, as the clock may be coarser than a part (the debug
 * image's clocksource: whole ticks).  Without HVO nothing is restored.
 */
static void test_breakdown_times_each_part(struct kunit *test)
{
	const enum hugetlb_bulk_free_impl *impl = test->param_value;
	struct hstate *h = test_hstate(test);
	unsigned long pages = pages_per_huge_page(h) * sizeof(struct page) / PAGE_SIZE - 1;
	struct bulk_result on, off;

	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, breakdown_off, NULL));
	static_branch_enable(&hugetlb_bulk_breakdown);
	run_bulk_free(test, *impl, 64, 0, 0, &on);
	static_branch_disable(&hugetlb_bulk_breakdown);
	run_bulk_free(test, *impl, 64, 0, 0, &off);
	if (!on.hvo) {
		KUNIT_EXPECT_EQ(test, on.phase_n[HUGETLB_BULK_PH_ALLOC], 0);
		KUNIT_EXPECT_EQ(test, on.phase_n[HUGETLB_BULK_PH_REMAP], 0);
		KUNIT_EXPECT_EQ(test, on.phase_n[HUGETLB_BULK_PH_FILL], 0);
		KUNIT_EXPECT_EQ(test, on.phase_n[HUGETLB_BULK_PH_FLUSH], 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, on.phase_n[HUGETLB_BULK_PH_ALLOC], 64);
	KUNIT_EXPECT_EQ(test, on.phase_n[HUGETLB_BULK_PH_REMAP], 64);
	KUNIT_EXPECT_EQ(test, on.phase_n[HUGETLB_BULK_PH_FILL], 64 * pages);
	KUNIT_EXPECT_EQ(test, on.phase_n[HUGETLB_BULK_PH_FLUSH], 1);
	KUNIT_EXPECT_LE(test, on.phase_ns[HUGETLB_BULK_PH_FILL],
			on.phase_ns[HUGETLB_BULK_PH_REMAP]);
	KUNIT_EXPECT_EQ(test, off.phase_n[HUGETLB_BULK_PH_ALLOC], 0);
	KUNIT_EXPECT_EQ(test, off.phase_n[HUGETLB_BULK_PH_REMAP], 0);
	KUNIT_EXPECT_EQ(test, off.phase_n[HUGETLB_BULK_PH_FILL], 0);
	KUNIT_EXPECT_EQ(test, off.phase_n[HUGETLB_BULK_PH_FLUSH], 1);
}

#define FAIL_N 64

struct failure_case {
	const char *name;
	unsigned int first, count;
	enum hugetlb_bulk_free_impl impl;
};

static const struct failure_case failure_cases[] = {
	{ "first", 1, 1, HUGETLB_BULK_FREE_RUST },
	{ "first", 1, 1, HUGETLB_BULK_FREE_C },
	{ "middle", MIDDLE, 1, HUGETLB_BULK_FREE_RUST },
	{ "middle", MIDDLE, 1, HUGETLB_BULK_FREE_C },
	{ "last", FAIL_N, 1, HUGETLB_BULK_FREE_RUST },
	{ "last", FAIL_N, 1, HUGETLB_BULK_FREE_C },
	{ "every", 1, EVERY, HUGETLB_BULK_FREE_RUST },
	{ "every", 1, EVERY, HUGETLB_BULK_FREE_C },
};

static void failure_desc(const struct failure_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s",
		 c->impl == HUGETLB_BULK_FREE_RUST ? "rust" : "c", c->name);
}
KUNIT_ARRAY_PARAM(failure, failure_cases, failure_desc);

/*
 * A restore failure at folio k of N (HVO): the k - 1 restored before it
 * are freed one lock cycle each, the retry frees the rest in one: k lock
 * cycles; the failed batch and the retry flush once each (k = 1: the
 * retry of folio 1 alone flushes instead of the failed batch).  Every
 * restore failing: each folio goes back as surplus, one cycle each.
 * HVO is turned on for the case (hugetlb_bulk_kunit_use_hvo()), whatever the boot chose;
 * skipped in a kernel without HVO, which has no restore to fail (that
 * behaviour is test_bulk_free_restore_failure_hvo_off's).
 */
static void test_bulk_free_restore_failure(struct kunit *test)
{
	const struct failure_case *c = test->param_value;
	unsigned int k = c->first == MIDDLE ? FAIL_N / 2 + 1 : c->first;
	struct bulk_result r;

	hugetlb_bulk_kunit_use_hvo(test, true);
	run_bulk_free(test, c->impl, FAIL_N, c->first, c->count, &r);
	KUNIT_ASSERT_TRUE_MSG(test, r.hvo, "the pool's folios were not optimized");
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_FREES], 1);
	if (c->count == EVERY) {
		KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_INJECTED_FAILURES], FAIL_N + 1);
		KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_LOCK_CYCLES], FAIL_N);
		KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_TLB_FLUSHES], 0);
		KUNIT_EXPECT_EQ(test, r.after.nr, FAIL_N);
		KUNIT_EXPECT_EQ(test, r.after.surplus, FAIL_N);
		return;
	}
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_INJECTED_FAILURES], 1);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_LOCK_CYCLES], k == 1 ? 2 : k);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_TLB_FLUSHES], 2);
	KUNIT_EXPECT_EQ(test, r.after.nr, 0);
}

/*
 * HVO off (hugetlb_free_vmemmap=off, or no HVO in this kernel): the folios
 * were never optimized, so even with every restore set to fail nothing is
 * restored and nothing fails: each folio is freed directly, with no lock
 * cycle of the restore path, no TLB flush and no grace period decision.
 * HVO is turned off for the case (hugetlb_bulk_kunit_use_hvo()), whatever the boot chose.
 */
static void test_bulk_free_restore_failure_hvo_off(struct kunit *test)
{
	const enum hugetlb_bulk_free_impl *impl = test->param_value;
	struct bulk_result r;

	hugetlb_bulk_kunit_use_hvo(test, false);
	run_bulk_free(test, *impl, FAIL_N, 1, EVERY, &r);
	KUNIT_ASSERT_FALSE_MSG(test, r.hvo, "the pool's folios were optimized");
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_FREES], 1);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_INJECTED_FAILURES], 0);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_LOCK_CYCLES], 0);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_TLB_FLUSHES], 0);
	KUNIT_EXPECT_EQ(test, r.stat[HUGETLB_BULK_RCU_WAITS] +
			r.stat[HUGETLB_BULK_RCU_WAITS_SKIPPED], 0);
	KUNIT_EXPECT_EQ(test, r.after.nr, 0);
	KUNIT_EXPECT_EQ(test, r.after.surplus, 0);
}

/*
 * A shrink list holding optimized folios and plain ones (HVO turned off
 * between two grows of MIXED_N each), every restore failing: the optimized
 * folios stay as surplus pages, and the plain ones are freed with no
 * restore tried on them.  6.12's C error path tried one on each, which
 * returns at once for a folio never optimized but first warns, under
 * CONFIG_DEBUG_VM, that its hugetlb flag is already cleared (patch 0025):
 * the debug image's dmesg_clean fails on that warning.
 */
#define MIXED_N 4
static void test_bulk_free_mixed_list_restores_optimized_only(struct kunit *test)
{
	const enum hugetlb_bulk_free_impl *impl = test->param_value;
	struct hstate *h = test_hstate(test);
	unsigned long injected;
	struct pool_state after;

	if (!IS_ENABLED(CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP))
		kunit_skip(test, "no HVO in this kernel (CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP): no optimized folio");
	use_impl(test, *impl);
	empty_pool(test, h);
	hugetlb_bulk_kunit_use_hvo(test, true);
	KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, MIXED_N));
	hugetlb_bulk_kunit_use_hvo(test, false);
	KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 2 * MIXED_N));
	KUNIT_ASSERT_EQ_MSG(test, READ_ONCE(h->nr_huge_pages), 2 * MIXED_N,
			    "cannot allocate %u huge pages", 2 * MIXED_N);
	injected = hugetlb_bulk_stat_read(HUGETLB_BULK_INJECTED_FAILURES);
	hugetlb_bulk_inject_restore_failures(1, EVERY);
	KUNIT_EXPECT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 0));
	hugetlb_bulk_inject_restore_failures(0, 0);
	injected = hugetlb_bulk_stat_read(HUGETLB_BULK_INJECTED_FAILURES) - injected;
	after = pool_state(h);
	/* Each optimized folio failed (alone at least) and was kept. */
	KUNIT_EXPECT_GE(test, injected, MIXED_N);
	KUNIT_EXPECT_EQ(test, after.nr, MIXED_N);
	KUNIT_EXPECT_EQ(test, after.surplus, MIXED_N);
	KUNIT_EXPECT_EQ(test, after.free, MIXED_N);
	empty_pool(test, h);
}

/* Same scenario, same final state and counters, from Rust and from C. */
static void test_bulk_free_rust_matches_c(struct kunit *test)
{
	static const struct { unsigned int n, first, count; } scenarios[] = {
		{ 64, 0, 0 }, { 64, 1, 1 }, { 64, 33, 1 }, { 64, 64, 1 },
		{ 64, 1, EVERY }, { 64, 10, 5 }, { 3, 2, EVERY },
	};
	unsigned int i, s;

	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		struct bulk_result r[2];

		for (s = 0; s < 2; s++)
			run_bulk_free(test, impls[s], scenarios[i].n, scenarios[i].first,
				      scenarios[i].count, &r[s]);
		KUNIT_EXPECT_EQ_MSG(test, r[0].after.nr, r[1].after.nr, "scenario %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r[0].after.surplus, r[1].after.surplus,
				    "scenario %u", i);
		for (s = 0; s < NR_HUGETLB_BULK_STATS; s++)
			if (s != HUGETLB_BULK_RCU_WAITS && s != HUGETLB_BULK_RCU_WAITS_SKIPPED)
				KUNIT_EXPECT_EQ_MSG(test, r[0].stat[s], r[1].stat[s],
						    "scenario %u counter %u", i, s);
		/* Whether a grace period passed in between is up to RCU. */
		KUNIT_EXPECT_EQ_MSG(test, r[0].stat[HUGETLB_BULK_RCU_WAITS] +
				    r[0].stat[HUGETLB_BULK_RCU_WAITS_SKIPPED],
				    r[1].stat[HUGETLB_BULK_RCU_WAITS] +
				    r[1].stat[HUGETLB_BULK_RCU_WAITS_SKIPPED], "scenario %u", i);
	}
}

/*
 * A migration's temporary folio is not persistent: a pool shrink while it
 * exists must not raise the surplus for it, which its free would leave
 * behind, the pool holding more surplus than pages for good (6.12 without
 * patches/0026).  The folio is the one a migration target allocation gets
 * from an empty pool.
 */
static void test_temporary_folio_leaves_no_surplus(struct kunit *test)
{
	struct hstate *h = test_hstate(test);
	struct pool_state after;
	struct folio *folio;

	empty_pool(test, h);
	folio = alloc_hugetlb_folio_nodemask(h, NUMA_NO_NODE, NULL, htlb_alloc_mask(h), false);
	KUNIT_ASSERT_NOT_NULL_MSG(test, folio, "no 2 MiB page for a migration target");
	KUNIT_EXPECT_TRUE(test, folio_test_hugetlb_temporary(folio));
	KUNIT_EXPECT_EQ(test, READ_ONCE(h->nr_huge_pages), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(h->surplus_huge_pages), 0);

	/* The shrink leaves the folio alone: there is no persistent page. */
	KUNIT_EXPECT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 0));
	KUNIT_EXPECT_EQ(test, READ_ONCE(h->surplus_huge_pages), 0);

	folio_put(folio);
	after = pool_state(h);
	KUNIT_EXPECT_EQ(test, after.nr, 0);
	KUNIT_EXPECT_EQ(test, after.surplus, 0);
	/* Undo a leak so that the cases after this one can run. */
	if (hugetlb_bulk_kunit_drop_leaked_counts(h))
		kunit_info(test, "leaked counts dropped for the cases after this one\n");
}

/*
 * A shrink to a size above zero while a temporary folio is in use keeps
 * that many persistent pages: with a persistent page and a temporary one
 * in use, a pool of 1 is the persistent page, and it stays in the pool
 * when both are freed.  Counted as persistent (6.12 without
 * patches/0026), the temporary folio made the shrink put the persistent
 * page into surplus, and its free then left the pool empty.
 */
static void test_temporary_folio_not_counted_by_a_shrink(struct kunit *test)
{
	struct hstate *h = test_hstate(test);
	struct folio *persistent, *temporary;
	struct pool_state after;

	empty_pool(test, h);
	KUNIT_ASSERT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 1));
	KUNIT_ASSERT_EQ_MSG(test, READ_ONCE(h->nr_huge_pages), 1, "cannot allocate a huge page");
	/* The pool's free page first, then a temporary one: the pool is empty. */
	persistent = alloc_hugetlb_folio_nodemask(h, NUMA_NO_NODE, NULL, htlb_alloc_mask(h), false);
	KUNIT_ASSERT_NOT_NULL(test, persistent);
	KUNIT_EXPECT_FALSE(test, folio_test_hugetlb_temporary(persistent));
	temporary = alloc_hugetlb_folio_nodemask(h, NUMA_NO_NODE, NULL, htlb_alloc_mask(h), false);
	if (!temporary)
		folio_put(persistent);
	KUNIT_ASSERT_NOT_NULL_MSG(test, temporary, "no 2 MiB page for a migration target");
	KUNIT_EXPECT_TRUE(test, folio_test_hugetlb_temporary(temporary));
	KUNIT_EXPECT_EQ(test, READ_ONCE(h->nr_huge_pages), 2);

	/* Already 1 persistent page: nothing to shrink, nothing surplus. */
	KUNIT_EXPECT_EQ(test, 0, hugetlb_bulk_set_pool_size(h, 1));
	KUNIT_EXPECT_EQ(test, READ_ONCE(h->surplus_huge_pages), 0);

	folio_put(temporary);
	folio_put(persistent);
	after = pool_state(h);
	KUNIT_EXPECT_EQ(test, after.nr, 1);
	KUNIT_EXPECT_EQ(test, after.free, 1);
	KUNIT_EXPECT_EQ(test, after.surplus, 0);
	empty_pool(test, h);
}

/*
 * A temporary folio migrated again is no pool folio, and neither is its
 * copy.  The old folio of a migration, temporary from then on, goes back
 * to the active list as migratable; isolated again while a passing
 * reference defeats the refcount-is-1 shortcut of
 * unmap_and_move_huge_page(), it is migrated to a new temporary folio
 * (from an empty pool).  move_hugetlb_state() then transfers nothing: both
 * folios stay temporary and counted, and once both are freed the pool is
 * as it was, empty.  6.12 (and mainline) take the temporary state off the
 * new folio whatever the old one is: freed, it joined the free list, the
 * pool one page above nr_hugepages, and with patches/0026's count a
 * temporary unit stayed behind.
 */
static void test_temporary_folio_migrated_again(struct kunit *test)
{
	struct hstate *h = test_hstate(test);
	struct folio *old, *new;
	unsigned long temporary;
	struct pool_state after;

	empty_pool(test, h);
	old = alloc_hugetlb_folio_nodemask(h, NUMA_NO_NODE, NULL, htlb_alloc_mask(h), false);
	KUNIT_ASSERT_NOT_NULL_MSG(test, old, "no 2 MiB page for a migration target");
	new = alloc_hugetlb_folio_nodemask(h, NUMA_NO_NODE, NULL, htlb_alloc_mask(h), false);
	if (!new)
		folio_put(old);
	KUNIT_ASSERT_NOT_NULL_MSG(test, new, "no 2 MiB page for a second migration target");
	KUNIT_ASSERT_TRUE(test, folio_test_hugetlb_temporary(old));
	KUNIT_ASSERT_TRUE(test, folio_test_hugetlb_temporary(new));
	temporary = READ_ONCE(h->temporary_huge_pages);
	KUNIT_EXPECT_EQ(test, temporary, 2);

	/* What a migration of @old to @new does to their hugetlb state. */
	move_hugetlb_state(old, new, MR_SYSCALL);
	KUNIT_EXPECT_TRUE(test, folio_test_hugetlb_temporary(old));
	KUNIT_EXPECT_TRUE_MSG(test, folio_test_hugetlb_temporary(new),
			      "the copy of a temporary folio was made a pool folio");
	temporary = READ_ONCE(h->temporary_huge_pages);
	KUNIT_EXPECT_EQ_MSG(test, temporary, 2, "temporary folios counted after the migration");

	folio_put(old);
	folio_put(new);
	after = pool_state(h);
	temporary = READ_ONCE(h->temporary_huge_pages);
	KUNIT_EXPECT_EQ_MSG(test, temporary, 0, "temporary folios counted with none left");
	KUNIT_EXPECT_EQ_MSG(test, after.nr, 0, "the migration grew the pool");
	KUNIT_EXPECT_EQ(test, after.free, 0);
	KUNIT_EXPECT_EQ(test, after.surplus, 0);
	/* Undo a leak so that the cases after this one can run. */
	if (hugetlb_bulk_kunit_drop_leaked_counts(h))
		kunit_info(test, "leaked counts dropped for the cases after this one\n");
	empty_pool(test, h);
}

/*
 * The surplus race (patch 0035): one thread reserves RACE_PAGES surplus
 * pages for a hugetlbfs file of its own and releases them, RACE_ROUNDS
 * times, while another shrinks the pool to 0 over and over.
 */
#define RACE_PAGES	8U
#define RACE_ROUNDS	256U

struct surplus_race {
	struct hstate *h;
	unsigned long overcommit;	/* the limit before the case */
	struct completion reserver_done, shrinker_done;
	bool stop;			/* set by the reserver when it is done */
	unsigned int rounds;		/* reservations made and released */
	unsigned long shrinks;		/* shrinks made meanwhile */
	long err;			/* why a reservation failed, or 0 */
	struct pool_state reserved;	/* the last round's, with its reservation */
	struct pool_state released;	/* the last round's, once released */
};

/*
 * A hugetlbfs file of RACE_PAGES pages with its reservation, as
 * shmget(SHM_HUGETLB) makes: from an empty pool, the reservation allocates
 * RACE_PAGES surplus folios (gather_surplus_pages()), one hold of
 * hugetlb_lock apart from the next, and the file's last fput() releases
 * them (return_unused_surplus_pages(), a bulk free).
 */
static struct file *reserve_surplus(struct hstate *h)
{
	return hugetlb_file_setup("kunit_surplus_race", RACE_PAGES * huge_page_size(h), 0,
				  HUGETLB_ANONHUGE_INODE, huge_page_shift(h));
}

/* Whether the pool holds @n pages, all free, surplus and reserved. */
static bool pool_holds(const struct pool_state *s, unsigned long n)
{
	return s->nr == n && s->free == n && s->surplus == n && s->resv == n;
}

static int surplus_race_reserver(void *data)
{
	struct surplus_race *r = data;

	while (r->rounds < RACE_ROUNDS) {
		struct file *file = reserve_surplus(r->h);

		if (IS_ERR(file)) {
			r->err = PTR_ERR(file);
			break;
		}
		r->reserved = pool_state(r->h);
		/* The last reference, dropped now: the reservation goes with it. */
		__fput_sync(file);
		r->released = pool_state(r->h);
		r->rounds++;
		if (!pool_holds(&r->reserved, RACE_PAGES) || !pool_holds(&r->released, 0))
			break;
	}
	WRITE_ONCE(r->stop, true);
	kthread_complete_and_exit(&r->reserver_done, 0);
}

static int surplus_race_shrinker(void *data)
{
	struct surplus_race *r = data;

	while (!READ_ONCE(r->stop)) {
		hugetlb_bulk_set_pool_size(r->h, 0);
		r->shrinks++;
		cond_resched();
	}
	kthread_complete_and_exit(&r->shrinker_done, 0);
}

/* Starts @fn on @r in a thread of its own, bound to @cpu if it is one. */
static int surplus_race_start(int (*fn)(void *), struct surplus_race *r, const char *name,
			      unsigned int cpu)
{
	struct task_struct *task = kthread_create(fn, r, "%s", name);

	if (IS_ERR(task))
		return PTR_ERR(task);
	if (cpu < nr_cpu_ids)
		kthread_bind(task, cpu);
	wake_up_process(task);
	return 0;
}

static void put_back_overcommit(void *data)
{
	struct surplus_race *r = data;

	hugetlb_bulk_kunit_set_overcommit(r->h, r->overcommit);
}

/*
 * A fresh surplus folio is counted in nr_huge_pages and surplus_huge_pages
 * in one hold of hugetlb_lock (patch 0035).  Counted in two, as 6.12 does,
 * a pool shrink between them took the folio for a persistent page and
 * raised the surplus for it: the surplus counted it twice, and once the
 * folio was freed the pool kept a surplus page it did not have.  The race
 * itself: one thread reserves RACE_PAGES surplus pages and releases them,
 * RACE_ROUNDS times, with the overcommit limit at RACE_PAGES, while
 * another, on another CPU, shrinks the pool to 0 over and over.  Every
 * round must find the pages counted once (as many pages as surplus pages,
 * all free and reserved), then none once released.
 *
 * The window lies between two lock holds of the base's code, where no
 * test can stop a thread, so the case makes hitting it likely, not
 * certain: RACE_ROUNDS * RACE_PAGES windows, each hit when a shrink takes
 * the lock inside it.  HVO is off for the case: the window does not
 * depend on it, and the rounds are cheaper without vmemmap restores.
 * Skipped when the pool cannot reserve RACE_PAGES surplus pages at all.
 */
static void test_surplus_folio_counted_once_beside_a_shrink(struct kunit *test)
{
	struct hstate *h = test_hstate(test);
	unsigned int cpu, other;
	struct surplus_race *r;
	struct pool_state end;
	struct file *file;
	int err;

	hugetlb_bulk_kunit_use_hvo(test, false);
	empty_pool(test, h);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->h = h;
	init_completion(&r->reserver_done);
	init_completion(&r->shrinker_done);
	r->overcommit = hugetlb_bulk_kunit_set_overcommit(h, RACE_PAGES);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, put_back_overcommit, r));

	/* One reservation alone, to know the pool can make it. */
	file = reserve_surplus(h);
	if (IS_ERR(file))
		kunit_skip(test, "no reservation of %u surplus 2 MiB pages: %ld", RACE_PAGES,
			   PTR_ERR(file));
	__fput_sync(file);
	end = pool_state(h);
	KUNIT_ASSERT_TRUE_MSG(test, pool_holds(&end, 0),
			      "a reservation alone left %lu pages, %lu surplus, %lu reserved",
			      end.nr, end.surplus, end.resv);

	cpu = cpumask_first(cpu_online_mask);
	other = cpumask_any_but(cpu_online_mask, cpu);
	if (other >= nr_cpu_ids) {
		kunit_info(test, "one CPU: the threads take turns, only a preemption hits the window\n");
		cpu = nr_cpu_ids;
	}
	/* From here on, nothing returns before both threads are done. */
	err = surplus_race_start(surplus_race_shrinker, r, "hugetlb_race_shrink", other);
	if (err) {
		KUNIT_FAIL(test, "no shrinking thread: %d", err);
		return;
	}
	err = surplus_race_start(surplus_race_reserver, r, "hugetlb_race_reserve", cpu);
	if (err) {
		WRITE_ONCE(r->stop, true);
		wait_for_completion(&r->shrinker_done);
		KUNIT_FAIL(test, "no reserving thread: %d", err);
		return;
	}
	wait_for_completion(&r->reserver_done);
	wait_for_completion(&r->shrinker_done);

	end = pool_state(h);
	kunit_info(test, "%u reservations of %u surplus pages, %lu shrinks beside them\n",
		   r->rounds, RACE_PAGES, r->shrinks);
	KUNIT_EXPECT_EQ_MSG(test, r->err, 0, "reservation %u failed", r->rounds + 1);
	KUNIT_EXPECT_EQ(test, r->rounds, RACE_ROUNDS);
	if (r->rounds) {
		/* The last round: with its reservation, then released. */
		KUNIT_EXPECT_LE_MSG(test, r->reserved.surplus, r->reserved.nr,
				    "more surplus pages than pages");
		KUNIT_EXPECT_EQ(test, r->reserved.nr, RACE_PAGES);
		KUNIT_EXPECT_EQ(test, r->reserved.free, RACE_PAGES);
		KUNIT_EXPECT_EQ(test, r->reserved.surplus, RACE_PAGES);
		KUNIT_EXPECT_EQ(test, r->reserved.resv, RACE_PAGES);
		KUNIT_EXPECT_EQ(test, r->released.nr, 0);
		KUNIT_EXPECT_EQ(test, r->released.free, 0);
		KUNIT_EXPECT_EQ(test, r->released.surplus, 0);
		KUNIT_EXPECT_EQ(test, r->released.resv, 0);
	}
	KUNIT_EXPECT_LE_MSG(test, end.surplus, end.nr, "more surplus pages than pages, for good");
	/* Undo a leak so that the cases after this one can run. */
	if (hugetlb_bulk_kunit_drop_leaked_counts(h))
		kunit_info(test, "leaked counts dropped for the cases after this one\n");
	empty_pool(test, h);
}

/*
 * Grows the empty pool to @n in one batch (one optimization of the new
 * folios), the batch split of folio @fail_split failing (0: none), and
 * records the grow_* counter deltas, how many new folios are
 * vmemmap-optimized and, when @pfns is not NULL, the first pfn of each
 * (@n of them at most).  Leaves the pool empty.
 *
 * Return: how many folios the pool grew by, @n at most.
 */
static unsigned int run_grow(struct kunit *test, unsigned int n, unsigned int fail_split,
			     unsigned long *stat, unsigned int *optimized, unsigned long *pfns)
{
	struct hstate *h = test_hstate(test);
	unsigned long before[NR_HUGETLB_BULK_STATS];
	unsigned int n_free;
	int i, ret;

	empty_pool(test, h);
	for (i = 0; i < NR_HUGETLB_BULK_STATS; i++)
		before[i] = hugetlb_bulk_stat_read(i);
	hugetlb_bulk_inject_split_failure(fail_split);
	ret = hugetlb_bulk_set_pool_size(h, n);
	hugetlb_bulk_inject_split_failure(0);
	for (i = 0; i < NR_HUGETLB_BULK_STATS; i++)
		stat[i] = hugetlb_bulk_stat_read(i) - before[i];
	n_free = hugetlb_bulk_kunit_free_folios(h, pfns, n, optimized);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(h->nr_huge_pages), n,
			    "cannot allocate %u huge pages: give the guest more memory", n);
	empty_pool(test, h);
	return min(n_free, n);
}

static const unsigned int grow_sizes[] = { 1, 8, 64 };

static void grow_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "N=%u", *n);
}
KUNIT_ARRAY_PARAM(grow, grow_sizes, grow_desc);

/*
 * Growing the pool by N folios costs two kernel TLB flushes, whatever N
 * is: one after the batch's vmemmap PMD splits, one after its remaps
 * (6.12 makes both even when HVO is off and nothing was optimized; a
 * kernel without HVO has neither).  With HVO on every new folio is
 * optimized.
 */
static void test_grow_two_flushes_per_batch(struct kunit *test)
{
	const unsigned int *n = test->param_value;
	unsigned long stat[NR_HUGETLB_BULK_STATS];
	unsigned int optimized;
	bool hvo = hvo_on(test);

	run_grow(test, *n, 0, stat, &optimized, NULL);
	KUNIT_EXPECT_EQ(test, stat[HUGETLB_BULK_GROW_TLB_FLUSHES],
			IS_ENABLED(CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP) ? 2 : 0);
	KUNIT_EXPECT_EQ(test, stat[HUGETLB_BULK_GROW_SPLIT_FLUSHES], 0);
	KUNIT_EXPECT_EQ(test, stat[HUGETLB_BULK_GROW_SPLIT_FAILURES], 0);
	KUNIT_EXPECT_EQ(test, optimized, hvo ? *n : 0);
}

/*
 * A batch split failing at folio 9 of 16 (as if out of memory): 6.12
 * stops splitting there, but neither stops optimizing nor adds a batch
 * flush: the two batch flushes, and every folio still optimized, folios 9
 * to 16 included.  Each of those remaps splits its vmemmap PMD itself
 * when that PMD is still mapped whole, with a flush of its own: at most
 * one per folio left unsplit.  How many depends on which PMDs earlier
 * pools split (6.12 never collapses one again; in the test boots they
 * all are, and the count printed is 0), so only the bound is checked.
 */
static void test_grow_split_failure_falls_back(struct kunit *test)
{
	unsigned long stat[NR_HUGETLB_BULK_STATS];
	unsigned int optimized;
	bool hvo = hvo_on(test);

	run_grow(test, 16, 9, stat, &optimized, NULL);
	kunit_info(test, "%lu vmemmap PMD split(s) by the remaps, a flush each\n",
		   stat[HUGETLB_BULK_GROW_SPLIT_FLUSHES]);
	KUNIT_EXPECT_EQ(test, stat[HUGETLB_BULK_GROW_SPLIT_FAILURES], hvo ? 1 : 0);
	KUNIT_EXPECT_EQ(test, stat[HUGETLB_BULK_GROW_TLB_FLUSHES],
			IS_ENABLED(CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP) ? 2 : 0);
	KUNIT_EXPECT_LE(test, stat[HUGETLB_BULK_GROW_SPLIT_FLUSHES], hvo ? 16 - 8 : 0);
	KUNIT_EXPECT_EQ(test, optimized, hvo ? 16 : 0);
}

/* The vmemmap PMD that maps the struct pages of @pfn (its address). */
static unsigned long vmemmap_pmd_of(unsigned long pfn)
{
	return (unsigned long)pfn_to_page(pfn) & PMD_MASK;
}

/* Whether one of the first @n pfns of @pfns has its struct pages in @pmd. */
static bool pmd_among(unsigned long pmd, const unsigned long *pfns, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (vmemmap_pmd_of(pfns[i]) == pmd)
			return true;
	return false;
}

/*
 * Free memory, in pages, left to the rest of the system while the case
 * holds 2 MiB blocks back (it stops taking more there).
 */
#define GROW_HOLD_RESERVE	(SZ_512M >> PAGE_SHIFT)
#define GROW_FALLBACK_N		16

static void put_folio_list(void *list)
{
	struct folio *folio, *next;

	list_for_each_entry_safe(folio, next, (struct list_head *)list, lru) {
		list_del(&folio->lru);
		folio_put(folio);
	}
}

/*
 * The fallback itself, made to run: the first batch split of 16 folios
 * fails (injected), so 6.12 splits none in the batch, and each folio's
 * own remap splits the vmemmap PMD mapping its struct pages when that PMD
 * is still whole, with a flush of its own: one per distinct whole PMD.
 * Earlier pools split the PMDs of the blocks the buddy hands out first,
 * so the case first takes free 2 MiB blocks and holds back those whose
 * PMD is split (the page tables say which) until it has 16 whose PMD is
 * whole, or until 512 MiB are left free (a KUnit boot's earlier suites
 * split the PMDs of more than 1 GiB); it gives the blocks of whole PMDs
 * back just before the grow, which takes them (the last freed is handed
 * out first).  The expected count comes from the
 * page tables read before the grow: the new folios' distinct PMDs that
 * were whole then; a folio from a block the case never saw adds at most
 * one.  Every folio is optimized all the same, after two batch flushes.
 */
static void test_grow_split_failure_remaps_split_whole_pmds(struct kunit *test)
{
	struct hstate *h = test_hstate(test);
	unsigned long whole[GROW_FALLBACK_N], pfns[GROW_FALLBACK_N];
	unsigned long stat[NR_HUGETLB_BULK_STATS], known = 0, unseen = 0;
	struct list_head *held;
	struct folio *folio;
	unsigned int i, n_whole = 0, n_held = 0, n_grown, optimized;
	bool exhausted = false;

	hugetlb_bulk_kunit_use_hvo(test, true);
	empty_pool(test, h);
	held = kunit_kzalloc(test, sizeof(*held), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, held);
	INIT_LIST_HEAD(held);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, put_folio_list, held));
	while (n_whole < GROW_FALLBACK_N &&
	       global_zone_page_state(NR_FREE_PAGES) > GROW_HOLD_RESERVE) {
		folio = folio_alloc(htlb_alloc_mask(h) | __GFP_NORETRY, huge_page_order(h));
		if (!folio) {
			exhausted = true;
			break;
		}
		list_add_tail(&folio->lru, held);
		if (hugetlb_bulk_vmemmap_pmd_whole(&folio->page))
			whole[n_whole++] = folio_pfn(folio);
		else
			n_held++;
	}
	if (!n_whole)
		kunit_skip(test, "no free 2 MiB block with its vmemmap PMD whole among %u", n_held);
	/* Short of blocks: the grow below could not get its 16 either. */
	if (n_whole < GROW_FALLBACK_N && exhausted)
		kunit_skip(test, "only %u free 2 MiB blocks, %u of them of a whole PMD: too few",
			   n_held + n_whole, n_whole);
	/* The blocks of whole PMDs go back to the buddy; the rest stay held. */
	for (i = 0; i < n_whole; i++) {
		folio = pfn_folio(whole[i]);
		list_del(&folio->lru);
		folio_put(folio);
	}

	n_grown = run_grow(test, GROW_FALLBACK_N, 1, stat, &optimized, pfns);
	for (i = 0; i < n_grown; i++) {
		unsigned long pmd = vmemmap_pmd_of(pfns[i]);

		if (pmd_among(pmd, pfns, i))
			continue;		/* counted with an earlier folio */
		if (pmd_among(pmd, whole, n_whole)) {
			known++;
		} else {
			bool seen = false;

			list_for_each_entry(folio, held, lru)
				seen |= vmemmap_pmd_of(folio_pfn(folio)) == pmd;
			unseen += !seen;	/* a held block's PMD was split */
		}
	}
	put_folio_list(held);
	kunit_info(test, "%u blocks held back; %lu whole PMD(s) among the new folios, %lu unseen; %lu split by the remaps\n",
		   n_held, known, unseen, stat[HUGETLB_BULK_GROW_SPLIT_FLUSHES]);
	KUNIT_EXPECT_GE_MSG(test, known, 1, "the grow took none of the blocks of a whole PMD");
	KUNIT_EXPECT_EQ(test, stat[HUGETLB_BULK_GROW_SPLIT_FAILURES], 1);
	KUNIT_EXPECT_EQ(test, stat[HUGETLB_BULK_GROW_TLB_FLUSHES], 2);
	KUNIT_EXPECT_GE(test, stat[HUGETLB_BULK_GROW_SPLIT_FLUSHES], known);
	KUNIT_EXPECT_LE(test, stat[HUGETLB_BULK_GROW_SPLIT_FLUSHES], known + unseen);
	KUNIT_EXPECT_EQ(test, optimized, GROW_FALLBACK_N);
}

/* The 2 MiB pool's persistent pages when the suite began, put back after. */
static unsigned long bulk_free_pool_before;

static int bulk_free_suite_init(struct kunit_suite *suite)
{
	struct hstate *h = size_to_hstate(PMD_SIZE);

	if (!h)
		return -ENODEV;
	bulk_free_pool_before = READ_ONCE(h->nr_huge_pages) - READ_ONCE(h->surplus_huge_pages);
	return 0;
}

static void bulk_free_suite_exit(struct kunit_suite *suite)
{
	hugetlb_bulk_set_pool_size(size_to_hstate(PMD_SIZE), bulk_free_pool_before);
}

static struct kunit_case hugetlb_bulk_free_test_cases[] = {
	KUNIT_CASE_PARAM_ATTR(test_bulk_free_one_lock_cycle_one_flush, success_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(test_bulk_free_restore_failure, failure_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(test_bulk_free_restore_failure_hvo_off, impl_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(test_freed_folio_pages_not_hugetlb, impl_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(test_bulk_free_mixed_list_restores_optimized_only, impl_gen_params),
	KUNIT_CASE_ATTR(test_bulk_free_rust_matches_c, { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(test_breakdown_times_each_part, impl_gen_params),
	KUNIT_CASE(test_temporary_folio_leaves_no_surplus),
	KUNIT_CASE(test_temporary_folio_not_counted_by_a_shrink),
	KUNIT_CASE(test_temporary_folio_migrated_again),
	KUNIT_CASE_ATTR(test_surplus_folio_counted_once_beside_a_shrink,
			{ .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(test_grow_two_flushes_per_batch, grow_gen_params),
	KUNIT_CASE(test_grow_split_failure_falls_back),
	KUNIT_CASE(test_grow_split_failure_remaps_split_whole_pmds),
	{}
};

static struct kunit_suite hugetlb_bulk_free_test_suite = {
	.name = "hugetlb_bulk_free_rust",
	.suite_init = bulk_free_suite_init,
	.suite_exit = bulk_free_suite_exit,
	.test_cases = hugetlb_bulk_free_test_cases,
};
kunit_test_suite(hugetlb_bulk_free_test_suite);

MODULE_DESCRIPTION("KUnit tests of the Rust hugetlb bulk free");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
