// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the batched clearing of huge folios
 * (mm/clear_pages_batch.c) and of the clear_pages() primitives under it
 * (include/linux/clear_pages.h, arch/x86/lib/clear_pages_64.S).
 *
 * Memory is filled with a pattern first, so that a page left uncleared or
 * a byte cleared outside the range shows.  The order and the chunking of
 * the clearing are observed through clear_pages_set_hook(), never through
 * timing.  The 1 GiB cases take a page from the 1 GiB hugetlb pool (grown
 * by one for the test; hugetlb_cma=1G makes room) and are skipped when
 * there is none.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/clear_pages.h>
#include <linux/hugetlb.h>
#include <linux/hugetlb_bulk_free.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "mm_impl_switch_kunit.h"

#define PATTERN		0xa5
#define BATCH		PROCESS_PAGES_NON_PREEMPT_BATCH
/* A user address aligned to every folio size used here, on 32-bit too. */
#define TEST_UADDR	(1UL * SZ_1G)

/* clear_pages() and the variants it may pick, each called directly. */
enum variant {
	VARIANT_CLEAR_PAGES,	/* clear_pages(): what the boot chose */
	VARIANT_GENERIC,	/* clear_pages_generic() */
#ifdef CONFIG_X86_64
	VARIANT_ORIG,		/* clear_pages_orig: unrolled movq */
	VARIANT_REP,		/* clear_pages_rep: rep stosq */
	VARIANT_ERMS,		/* clear_pages_erms: rep stosb */
#endif
	NR_VARIANTS,
};

static const char * const variant_names[NR_VARIANTS] = {
	[VARIANT_CLEAR_PAGES] = "clear_pages",
	[VARIANT_GENERIC] = "generic",
#ifdef CONFIG_X86_64
	[VARIANT_ORIG] = "unrolled",
	[VARIANT_REP] = "stosq",
	[VARIANT_ERMS] = "stosb",
#endif
};

static void clear_with(enum variant v, void *addr, unsigned int npages)
{
	switch (v) {
	case VARIANT_GENERIC:
		clear_pages_generic(addr, npages);
		break;
#ifdef CONFIG_X86_64
	case VARIANT_ORIG:
		clear_pages_orig(addr, (unsigned long)npages << PAGE_SHIFT);
		break;
	case VARIANT_REP:
		clear_pages_rep(addr, (unsigned long)npages << PAGE_SHIFT);
		break;
	case VARIANT_ERMS:
		clear_pages_erms(addr, (unsigned long)npages << PAGE_SHIFT);
		break;
#endif
	default:
		clear_pages(addr, npages);
		break;
	}
}

static const enum variant variants[] = {
	VARIANT_CLEAR_PAGES, VARIANT_GENERIC,
#ifdef CONFIG_X86_64
	VARIANT_ORIG, VARIANT_REP, VARIANT_ERMS,
#endif
};

static void variant_desc(const enum variant *v, char *desc)
{
	strscpy(desc, variant_names[*v], KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(variant, variants, variant_desc);

/*
 * clear_pages() of each length zeroes exactly the range: one guard page
 * on each side keeps the pattern.
 */
static void test_clear_pages_zeroes_only_the_range(struct kunit *test)
{
	static const unsigned int lengths[] = {
		1, 2, 511, 512, 513, BATCH - 1, BATCH, BATCH + 1,
	};
	enum variant v = *(const enum variant *)test->param_value;
	/* The longest range and a guard page on each side. */
	unsigned int i, pages = max(513, BATCH + 1) + 2;
	u8 *buf;

	buf = vmalloc(pages * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(lengths); i++) {
		unsigned int n = lengths[i];
		u8 *range = buf + PAGE_SIZE;

		if (!n)		/* BATCH - 1 where the batch is one page */
			continue;
		memset(buf, PATTERN, (n + 2) * PAGE_SIZE);
		clear_with(v, range, n);
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(buf, PATTERN, PAGE_SIZE),
				      "%u pages: guard page before the range written", n);
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(range, 0, n * PAGE_SIZE),
				      "%u pages: a byte of the range is not zero", n);
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(range + n * PAGE_SIZE, PATTERN,
						       PAGE_SIZE),
				      "%u pages: guard page after the range written", n);
	}
	vfree(buf);
}

/* A folio under test, with what it takes to give it back. */
struct test_folio {
	struct folio *folio;
	struct hstate *h;		/* 1 GiB: the hstate whose pool grew */
	unsigned long pool_before;	/* 1 GiB: the pool size to go back to */
};

static void put_test_folio(void *data)
{
	struct test_folio *tf = data;

	folio_put(tf->folio);
#if IS_ENABLED(CONFIG_HUGETLB_BULK_FREE_RUST)
	if (tf->h)
		hugetlb_bulk_set_pool_size(tf->h, tf->pool_before);
#endif
}

/*
 * A folio of @order: from the page allocator up to PMD order, from the
 * hugetlb pool (grown by one page, shrunk back at the end) for PUD order.
 * Skips the test when there is no room.
 */
static struct folio *get_test_folio(struct kunit *test, unsigned int order)
{
	struct test_folio *tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tf);
	if (order <= PMD_ORDER) {
		tf->folio = folio_alloc(GFP_KERNEL, order);
		if (!tf->folio)
			kunit_skip(test, "no free folio of order %u", order);
	} else {
#if IS_ENABLED(CONFIG_HUGETLB_BULK_FREE_RUST)
		struct hstate *h = size_to_hstate(PAGE_SIZE << order);

		if (!h)
			kunit_skip(test, "no hstate of order %u (hugepagesz=1G)", order);
		tf->pool_before = READ_ONCE(h->nr_huge_pages);
		if (hugetlb_bulk_set_pool_size(h, tf->pool_before + 1) ||
		    READ_ONCE(h->nr_huge_pages) != tf->pool_before + 1) {
			hugetlb_bulk_set_pool_size(h, tf->pool_before);
			kunit_skip(test,
				   "no room for a 1 GiB hugetlb page (boot with hugetlb_cma=1G)");
		}
		tf->folio = alloc_hugetlb_folio_nodemask(h, NUMA_NO_NODE, NULL,
							 htlb_alloc_mask(h), false);
		if (!tf->folio) {
			hugetlb_bulk_set_pool_size(h, tf->pool_before);
			kunit_skip(test, "the 1 GiB hugetlb pool page could not be taken");
		}
		tf->h = h;
#else
		kunit_skip(test, "growing a hugetlb pool needs CONFIG_HUGETLB_BULK_FREE_RUST");
#endif
	}
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, put_test_folio, tf));
	return tf->folio;
}

static void fill_folio(struct folio *folio, int c)
{
	long i;

	for (i = 0; i < folio_nr_pages(folio); i++)
		memset(page_address(folio_page(folio, i)), c, PAGE_SIZE);
}

/* The index of the first page of @folio that is not all @c, or -1. */
static long folio_first_not(struct folio *folio, int c)
{
	long i;

	for (i = 0; i < folio_nr_pages(folio); i++)
		if (memchr_inv(page_address(folio_page(folio, i)), c, PAGE_SIZE))
			return i;
	return -1;
}

/* Where folio_zero_user() is told the fault is. */
enum hint { HINT_FIRST, HINT_MIDDLE, HINT_LAST };

static unsigned long hint_page(struct folio *folio, enum hint hint)
{
	switch (hint) {
	case HINT_FIRST:
		return 0;
	case HINT_MIDDLE:
		return folio_nr_pages(folio) / 2;
	default:
		return folio_nr_pages(folio) - 1;
	}
}

/* An address inside the hinted page, not at its start. */
static unsigned long hint_addr(struct folio *folio, enum hint hint)
{
	return TEST_UADDR + hint_page(folio, hint) * PAGE_SIZE + 0x123;
}

struct zero_case {
	unsigned int order;
	enum hint hint;
	const char *desc;
};

static const struct zero_case zero_cases[] = {
	{ PMD_ORDER, HINT_FIRST, "2M, hint at the first page" },
	{ PMD_ORDER, HINT_MIDDLE, "2M, hint at the middle page" },
	{ PMD_ORDER, HINT_LAST, "2M, hint at the last page" },
	{ PUD_ORDER, HINT_FIRST, "1G, hint at the first page" },
	{ PUD_ORDER, HINT_MIDDLE, "1G, hint at the middle page" },
	{ PUD_ORDER, HINT_LAST, "1G, hint at the last page" },
};

static void zero_case_desc(const struct zero_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(zero, zero_cases, zero_case_desc);

/* folio_zero_user(), batched, leaves every byte of the folio zero. */
static void test_folio_zero_user_zeroes_every_byte(struct kunit *test)
{
	const struct zero_case *c = test->param_value;
	struct folio *folio = get_test_folio(test, c->order);
	struct mm_impl_switch_snapshot calls;

	mm_impl_switch_kunit_use(test, &clear_pages_switch, 1);
	fill_folio(folio, PATTERN);
	mm_impl_switch_snapshot(&clear_pages_switch, &calls);
	folio_zero_user(folio, hint_addr(folio, c->hint));
	mm_impl_switch_kunit_expect_ran(test, &clear_pages_switch, &calls, MM_IMPL_NEW, 1);
	KUNIT_EXPECT_EQ_MSG(test, folio_first_not(folio, 0), -1,
			    "page left non-zero (-1: none)");
}

/* What the hook saw of one clearing. */
struct recording {
	unsigned long nr;		/* pages in the folio */
	unsigned long lo, hi;		/* the hot window [lo, hi) */
	unsigned long *seen;		/* pages cleared so far */
	unsigned long calls, resched;
	unsigned long twice;		/* pages cleared more than once */
	unsigned long outside_after_hot; /* calls outside the window after one in it */
	unsigned int max_call;		/* longest call, pages */
	bool in_hot;			/* a call inside the window was seen */
	unsigned long last_first;	/* the last call: first page, length */
	unsigned int last_n;
};

static void record_clear(const struct clear_pages_hook *hook,
			 unsigned long first, unsigned int npages)
{
	struct recording *r = hook->priv;
	bool hot = first >= r->lo && first + npages <= r->hi;

	r->calls++;
	r->max_call = max(r->max_call, npages);
	if (find_next_bit(r->seen, first + npages, first) < first + npages)
		r->twice++;
	bitmap_set(r->seen, first, npages);
	if (hot)
		r->in_hot = true;
	else if (r->in_hot)
		r->outside_after_hot++;
	r->last_first = first;
	r->last_n = npages;
}

static void record_resched(const struct clear_pages_hook *hook)
{
	struct recording *r = hook->priv;

	r->resched++;
}

static void unset_hook(void *data)
{
	clear_pages_set_hook(NULL);
}

/* Hooks the batched clearing of @folio until the test ends. */
static void watch_clearing(struct kunit *test, struct folio *folio,
			   void (*clear)(const struct clear_pages_hook *hook,
					 unsigned long first, unsigned int npages),
			   void (*resched)(const struct clear_pages_hook *hook),
			   void *priv)
{
	struct clear_pages_hook *hook = kunit_kzalloc(test, sizeof(*hook), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, hook);
	hook->folio = folio;
	hook->clear = clear;
	hook->resched = resched;
	hook->priv = priv;
	clear_pages_set_hook(hook);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, unset_hook, NULL));
}

/* Records the batched clearing of @folio from now until the test ends. */
static struct recording *record(struct kunit *test, struct folio *folio,
				unsigned long hint)
{
	struct recording *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->nr = folio_nr_pages(folio);
	r->lo = hint - min_t(unsigned long, hint, CLEAR_PAGES_HOT_RADIUS);
	r->hi = min(hint + CLEAR_PAGES_HOT_RADIUS + 1, r->nr);
	r->seen = kunit_kcalloc(test, BITS_TO_LONGS(r->nr), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->seen);
	watch_clearing(test, folio, record_clear, record_resched, r);
	return r;
}

/* Calls expected for the three ranges of a folio at @unit pages a call. */
static unsigned long expected_calls(const struct recording *r, unsigned int unit)
{
	unsigned long len[] = { r->lo, r->nr - r->hi, r->hi - r->lo };
	unsigned long calls = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(len); i++)
		calls += unit == UINT_MAX ? !!len[i] : DIV_ROUND_UP(len[i], unit);
	return calls;
}

/*
 * Every page once, the window around the hint after everything else: the
 * last call ends the window, and is the whole window where the calls may
 * be as long (a unit of one page, the generic batch, clears it page by
 * page).
 */
static void expect_hot_window_last(struct kunit *test, struct recording *r,
				   unsigned long hint)
{
	KUNIT_EXPECT_EQ(test, bitmap_weight(r->seen, r->nr), r->nr);
	KUNIT_EXPECT_EQ(test, r->twice, 0);
	KUNIT_EXPECT_EQ(test, r->outside_after_hot, 0);
	KUNIT_EXPECT_LE(test, r->lo, hint);
	KUNIT_EXPECT_GT(test, r->hi, hint);
	KUNIT_EXPECT_GE(test, r->last_first, r->lo);
	KUNIT_EXPECT_EQ(test, r->last_first + r->last_n, r->hi);
	if (r->max_call >= r->hi - r->lo)
		KUNIT_EXPECT_EQ(test, r->last_first, r->lo);
}

/*
 * The pages around the faulting address are cleared last, for a hint at
 * the first, the middle and the last page of a 2 MiB folio and next to
 * both ends.
 */
static void test_hot_window_cleared_last(struct kunit *test)
{
	struct folio *folio = get_test_folio(test, PMD_ORDER);
	unsigned long nr = folio_nr_pages(folio);
	unsigned long hints[] = { 0, 1, nr / 2, nr - 2, nr - 1 };
	int i;

	for (i = 0; i < ARRAY_SIZE(hints); i++) {
		struct recording *r = record(test, folio, hints[i]);

		folio_zero_user_batched(folio, TEST_UADDR + hints[i] * PAGE_SIZE, 64);
		KUNIT_EXPECT_EQ(test, r->calls, expected_calls(r, 64));
		expect_hot_window_last(test, r, hints[i]);
	}
}

/*
 * A folio that the batch splits into several calls per range: 1 GiB where
 * the batch is 32 MiB, 2 MiB where the architecture has no clear_pages()
 * and the batch is one page (then every call clears one page).
 */
#define CHUNKED_ORDER	(BATCH > 1 ? PUD_ORDER : PMD_ORDER)

/*
 * Not preemptible: each range in ceil(pages / batch) calls, none longer
 * than the batch; on a folio of CHUNKED_ORDER, and on a 2 MiB folio with
 * the unit lowered to 64 pages.  That the clearing yields between calls is
 * observed by test_clearing_yields_to_a_thread_on_its_cpu (a thread runs
 * at a reschedule point); the reschedule counter, bumped in the same loop
 * as the calls, would prove nothing here.
 */
static void test_voluntary_chunks_at_the_batch(struct kunit *test)
{
	struct folio *folio = get_test_folio(test, CHUNKED_ORDER);
	unsigned long hint = folio_nr_pages(folio) / 3;
	unsigned int unit = clear_pages_unit(0);
	struct recording *r = record(test, folio, hint);

	KUNIT_ASSERT_EQ(test, unit, BATCH);
	folio_zero_user_batched(folio, TEST_UADDR + hint * PAGE_SIZE, unit);
	KUNIT_EXPECT_EQ(test, r->calls, expected_calls(r, BATCH));
	KUNIT_EXPECT_LE(test, r->max_call, BATCH);
	KUNIT_EXPECT_GT(test, r->calls, 3);
	expect_hot_window_last(test, r, hint);
}

/* Preemptible: one call per range. */
static void test_full_one_call_per_range(struct kunit *test)
{
	struct folio *folio = get_test_folio(test, CHUNKED_ORDER);
	unsigned long hint = folio_nr_pages(folio) / 3;
	unsigned int unit = clear_pages_unit(CLEAR_PAGES_PREEMPTIBLE);
	struct recording *r = record(test, folio, hint);

	KUNIT_ASSERT_EQ(test, unit, UINT_MAX);
	folio_zero_user_batched(folio, TEST_UADDR + hint * PAGE_SIZE, unit);
	KUNIT_EXPECT_EQ(test, r->calls, 3);
	KUNIT_EXPECT_EQ(test, r->max_call, folio_nr_pages(folio) - r->hi);
	expect_hot_window_last(test, r, hint);
}

/*
 * folio_zero_user() takes the unit of the preemption model the kernel
 * runs under (preempt=full: whole ranges; voluntary, none: the batch).
 */
static void test_folio_zero_user_follows_preempt_model(struct kunit *test)
{
	struct folio *folio = get_test_folio(test, CHUNKED_ORDER);
	unsigned long hint = folio_nr_pages(folio) - 1;
	bool full = preempt_model_preemptible();
	struct recording *r;

	mm_impl_switch_kunit_use(test, &clear_pages_switch, 1);
	r = record(test, folio, hint);
	folio_zero_user(folio, TEST_UADDR + hint * PAGE_SIZE);
	kunit_info(test, "preempt model %s: %lu calls", full ? "full" : "none/voluntary",
		   r->calls);
	KUNIT_EXPECT_EQ(test, r->calls, expected_calls(r, full ? UINT_MAX : BATCH));
}

/*
 * The unit set at run time applies under every model; values above the
 * batch are refused and change nothing.
 */
static void reset_unit(void *data)
{
	clear_pages_set_unit(0);
}

static void test_unit_setting(struct kunit *test)
{
	struct folio *folio = get_test_folio(test, PMD_ORDER);
	unsigned long hint = folio_nr_pages(folio) / 2;
	/* A unit below the batch (the batch itself where it is one page). */
	unsigned int unit = min(64, BATCH);
	struct recording *r;

	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, reset_unit, NULL));
	KUNIT_ASSERT_EQ(test, clear_pages_unit(0), BATCH);
	KUNIT_EXPECT_EQ(test, clear_pages_set_unit(BATCH + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, clear_pages_unit(0), BATCH);
	KUNIT_EXPECT_EQ(test, clear_pages_set_unit(UINT_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, clear_pages_unit(CLEAR_PAGES_PREEMPTIBLE), UINT_MAX);

	KUNIT_ASSERT_EQ(test, clear_pages_set_unit(unit), 0);
	KUNIT_EXPECT_EQ(test, clear_pages_unit(0), unit);
	KUNIT_EXPECT_EQ(test, clear_pages_unit(CLEAR_PAGES_PREEMPTIBLE), unit);
	r = record(test, folio, hint);
	mm_impl_switch_kunit_use(test, &clear_pages_switch, 1);
	folio_zero_user(folio, TEST_UADDR + hint * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, clear_pages_set_unit(0), 0);
	KUNIT_EXPECT_EQ(test, r->calls, expected_calls(r, unit));
	KUNIT_EXPECT_LE(test, r->max_call, unit);
	KUNIT_EXPECT_EQ(test, clear_pages_unit(0), BATCH);
}

/*
 * The 6.12 per-page clearing and the batched one leave the same bytes
 * (all zero), and only the batched one goes through the hook.
 */
static void test_batched_and_per_page_same_bytes(struct kunit *test)
{
	struct folio *folio = get_test_folio(test, PMD_ORDER);
	unsigned long addr = hint_addr(folio, HINT_MIDDLE);
	size_t size = folio_size(folio);
	struct mm_impl_switch_snapshot calls;
	struct recording *r;
	u8 *per_page;

	per_page = kunit_kmalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, per_page);
	r = record(test, folio, hint_page(folio, HINT_MIDDLE));

	mm_impl_switch_kunit_use(test, &clear_pages_switch, 0);
	fill_folio(folio, PATTERN);
	mm_impl_switch_snapshot(&clear_pages_switch, &calls);
	folio_zero_user(folio, addr);
	mm_impl_switch_kunit_expect_ran(test, &clear_pages_switch, &calls, MM_IMPL_ORIG, 1);
	KUNIT_EXPECT_EQ(test, r->calls, 0);
	memcpy(per_page, folio_address(folio), size);

	mm_impl_switch_kunit_use(test, &clear_pages_switch, 1);
	fill_folio(folio, PATTERN);
	mm_impl_switch_snapshot(&clear_pages_switch, &calls);
	folio_zero_user(folio, addr);
	mm_impl_switch_kunit_expect_ran(test, &clear_pages_switch, &calls, MM_IMPL_NEW, 1);
	KUNIT_EXPECT_GT(test, r->calls, 0);
	KUNIT_EXPECT_EQ(test, memcmp(per_page, folio_address(folio), size), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(per_page, 0, size));
}

/* A thread on the clearing's CPU, and where in the clearing it ran. */
struct yield_watch {
	unsigned long runs;		/* the thread's loop turns */
	unsigned long runs_at_call;	/* runs when the last clearing call ended */
	unsigned long calls;		/* clearing calls of the current clear */
	unsigned long yields;		/* its reschedule points at which the thread ran */
	unsigned long first_yield;	/* its calls before the first of them; 0: none */
	unsigned long rounds;		/* clears of the folio */
};

/* Always runnable: counts its turns, and gives the CPU up when asked. */
static int yield_watch_fn(void *data)
{
	struct yield_watch *w = data;

	while (!kthread_should_stop()) {
		WRITE_ONCE(w->runs, w->runs + 1);
		cond_resched();
	}
	return 0;
}

static void yield_watch_clear(const struct clear_pages_hook *hook, unsigned long first,
			      unsigned int npages)
{
	struct yield_watch *w = hook->priv;

	w->calls++;
	w->runs_at_call = READ_ONCE(w->runs);
}

/* After the reschedule point: did the thread run since the call ended? */
static void yield_watch_resched(const struct clear_pages_hook *hook)
{
	struct yield_watch *w = hook->priv;

	if (READ_ONCE(w->runs) == w->runs_at_call)
		return;
	w->yields++;
	if (!w->first_yield)
		w->first_yield = w->calls;
}

/*
 * Not preemptible (preempt=none or voluntary): while a 1 GiB folio is
 * cleared, a runnable thread on the same CPU gets it at the reschedule
 * points between the batches.  The thread, bound to the CPU this test is
 * pinned to, never sleeps; it runs when the clearing's cond_resched()
 * finds need_resched set, which the scheduler tick sets once the clearing
 * has used its slice (a few ms; a 1 GiB clear takes tens of ms natively,
 * seconds under QEMU TCG, in 33 calls).  Nothing else in the loop can
 * switch tasks, so without the cond_resched() the thread never runs
 * between the calls and the case fails.  A clear in which it did not run
 * before the last call (a 2 MiB folio, one page a call, can fit in one
 * slice) is repeated, for at most 10 s; the last clear is judged.
 * Skipped under preempt=full, where the scheduler preempts the clearing
 * anywhere.
 */
static void test_clearing_yields_to_a_thread_on_its_cpu(struct kunit *test)
{
	struct task_struct *task;
	struct yield_watch *w;
	unsigned long deadline, hint;
	struct folio *folio;
	unsigned int cpu;

	if (preempt_model_preemptible())
		kunit_skip(test, "preempt=full: the clearing is preempted anywhere");
	folio = get_test_folio(test, CHUNKED_ORDER);
	hint = folio_nr_pages(folio) / 3;
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	/* This test's thread, made for this case alone, stays on its CPU. */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current, cpumask_of(cpu)));
	watch_clearing(test, folio, yield_watch_clear, yield_watch_resched, w);

	/* No assertion from here until the thread is stopped. */
	task = kthread_create(yield_watch_fn, w, "clear_pages_yield");
	if (IS_ERR(task)) {
		KUNIT_FAIL(test, "no thread: %ld", PTR_ERR(task));
		return;
	}
	kthread_bind(task, cpu);
	wake_up_process(task);
	/* Let it start: it is runnable from here on. */
	deadline = jiffies + 10 * HZ;
	while (!READ_ONCE(w->runs) && time_before(jiffies, deadline))
		schedule_timeout_uninterruptible(1);
	if (!READ_ONCE(w->runs))
		KUNIT_FAIL(test, "the thread did not run in 10 s");
	/* Clear until the thread runs before a clear's last call, at most 10 s. */
	deadline = jiffies + 10 * HZ;
	while (READ_ONCE(w->runs) && time_before(jiffies, deadline)) {
		w->calls = 0;
		w->yields = 0;
		w->first_yield = 0;
		folio_zero_user_batched(folio, TEST_UADDR + hint * PAGE_SIZE, BATCH);
		w->rounds++;
		if (w->yields && w->first_yield < w->calls)
			break;
	}
	kthread_stop(task);

	kunit_info(test, "clear %lu: the thread ran at %lu of %lu reschedule points, first after call %lu",
		   w->rounds, w->yields, w->calls, w->first_yield);
	KUNIT_EXPECT_GT(test, w->calls, 3);
	KUNIT_EXPECT_GT_MSG(test, w->yields, 0,
			    "a runnable thread on the CPU never ran between clearing calls");
	KUNIT_EXPECT_LT_MSG(test, w->first_yield, w->calls,
			    "the thread ran only after the last clearing call");
}

/*
 * The batch follows the architecture, not the other way round: x86_64 and
 * arm64 bring a clear_pages() of their own (a string operation, a DC ZVA
 * loop: patches 0015 and 0018), so one call may clear 32 MiB, 8192 pages of
 * 4 KiB; any other architecture gets the generic loop of clear_page() and
 * a batch of one page: the matrix boots this suite on i386 to see it
 * (tools/testing/mmrust/matrix.sh, generic-clear-pages).
 */
static void test_batch_follows_the_arch(struct kunit *test)
{
	bool arch_range = IS_ENABLED(CONFIG_X86_64) || IS_ENABLED(CONFIG_ARM64);
	void (*range)(void *, unsigned int) = clear_pages;

	KUNIT_EXPECT_EQ(test, range != clear_pages_generic, arch_range);
	KUNIT_EXPECT_EQ(test, PROCESS_PAGES_NON_PREEMPT_BATCH,
			arch_range ? SZ_32M / PAGE_SIZE : 1);
	/* What a kernel that is not preemptible clears per call. */
	KUNIT_EXPECT_EQ(test, clear_pages_unit(0), arch_range ? SZ_32M / PAGE_SIZE : 1);
	if (arch_range && PAGE_SIZE == SZ_4K)
		KUNIT_EXPECT_EQ(test, PROCESS_PAGES_NON_PREEMPT_BATCH, 8192);
}

static struct kunit_case clear_pages_batch_cases[] = {
	KUNIT_CASE_PARAM(test_clear_pages_zeroes_only_the_range, variant_gen_params),
	KUNIT_CASE_PARAM(test_folio_zero_user_zeroes_every_byte, zero_gen_params),
	KUNIT_CASE(test_hot_window_cleared_last),
	KUNIT_CASE(test_voluntary_chunks_at_the_batch),
	KUNIT_CASE(test_full_one_call_per_range),
	KUNIT_CASE(test_folio_zero_user_follows_preempt_model),
	KUNIT_CASE(test_unit_setting),
	KUNIT_CASE(test_batched_and_per_page_same_bytes),
	KUNIT_CASE(test_clearing_yields_to_a_thread_on_its_cpu),
	KUNIT_CASE(test_batch_follows_the_arch),
	{}
};

static struct kunit_suite clear_pages_batch_suite = {
	.name = "clear_pages_batch",
	.test_cases = clear_pages_batch_cases,
};
kunit_test_suite(clear_pages_batch_suite);

MODULE_DESCRIPTION("KUnit tests of the batched clearing of huge folios");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
