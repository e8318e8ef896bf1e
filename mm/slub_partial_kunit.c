// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the SLUB per-cpu partial accounting (mm/slub_partial.rs)
 * against values derived here and against the C original.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/kernfs.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/slub_partial.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "slab.h"
#include "mm_impl_switch_kunit.h"

/* Object size and slab geometry of the caches the list tests create. */
#define TEST_OBJ_SIZE		256
#define TEST_SLABS		40
#define TEST_CPU_PARTIAL	30	/* the seed's object target */

static const enum slub_partial_impl impls[] = { SLUB_PARTIAL_RUST, SLUB_PARTIAL_C };

static void impl_to_desc(const enum slub_partial_impl *impl, char *desc)
{
	strscpy(desc, *impl == SLUB_PARTIAL_RUST ? "rust" : "c", KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(impl, impls, impl_to_desc);

/* Runs the rest of the test with @impl, restoring the boot choice after. */
static void use_impl(struct kunit *test, enum slub_partial_impl impl)
{
	mm_impl_switch_kunit_use(test, &slub_partial_switch, impl);
}

/*
 * Checks that the dispatch points of mm/slub.c (the push, the refill stop,
 * the cpu_partial store) ran @impl at least @min_calls times since
 * @before, and never the other one: a switch wired the wrong way round
 * gives the same lists and values from both, and is caught only here.
 */
static void expect_ran(struct kunit *test, const struct mm_impl_switch_snapshot *before,
		       enum slub_partial_impl impl, unsigned long min_calls)
{
	mm_impl_switch_kunit_expect_ran(test, &slub_partial_switch, before, impl, min_calls);
}

static void destroy_cache(void *s)
{
	kmem_cache_destroy(s);
}

static struct kmem_cache *test_cache_args(struct kunit *test, const char *name,
					  unsigned int size, slab_flags_t flags)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, SLAB_NO_MERGE | flags, NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, destroy_cache, s));
	return s;
}

static struct kmem_cache *test_cache(struct kunit *test, const char *name,
				     slab_flags_t flags)
{
	return test_cache_args(test, name, TEST_OBJ_SIZE, flags);
}

static struct kmem_cache *test_cache_sized(struct kunit *test, const char *name,
					   unsigned int size)
{
	return test_cache_args(test, name, size, 0);
}

/*
 * Generic KASAN (the debug image) holds freed objects in its quarantine and
 * gives them back to SLUB later, in batches, so the push a free causes
 * would come long after a case looks.  kasan_cache_shrink() (nothing
 * without generic KASAN; called through mm/slub_partial_impl.c, as it is
 * not exported to a module) hands this cache's quarantined objects to SLUB
 * now, in the order they were freed, on this CPU for the frees this CPU
 * made.
 */
static void flush_quarantine(struct kmem_cache *s)
{
	slub_partial_kunit_flush_quarantine(s);
}

static void enable_migration(void *unused)
{
	migrate_enable();
}

/* Keeps the test on one CPU, so that "this CPU's list" stays the same. */
static void pin_cpu(struct kunit *test)
{
	migrate_disable();
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, enable_migration, NULL));
}

/* Smallest n with n * per_slab >= 2 * objects: the half-full assumption. */
static unsigned int expected_slabs(unsigned int objects, unsigned int per_slab)
{
	unsigned long long need = 2ULL * objects, n = 0;

	while (n * per_slab < need)
		n++;
	return n;
}

static void test_default_cpu_partial_table(struct kunit *test)
{
	unsigned int size;

	for (size = 8; size <= 2 * PAGE_SIZE; size += 8) {
		unsigned int want = size < 256 ? 120 : size < 1024 ? 52 :
				    size < PAGE_SIZE ? 24 : 6;

		KUNIT_EXPECT_EQ_MSG(test, slub_rust_default_cpu_partial(size, true), want,
				    "size %u", size);
		KUNIT_EXPECT_EQ_MSG(test, slub_c_default_cpu_partial(size, true), want,
				    "size %u", size);
		KUNIT_EXPECT_EQ(test, slub_rust_default_cpu_partial(size, false), 0);
	}
}

static void test_cpu_partial_slabs_sweep(struct kunit *test)
{
	static const unsigned int objects[] = { 0, 1, 2, 3, 6, 24, 30, 52, 119, 120,
						121, 1000, 65535, 1000000 };
	unsigned int order, size, i;

	for (order = 0; order <= 3; order++) {
		for (size = 8; size <= (PAGE_SIZE << order); size *= 2) {
			unsigned int per_slab = (PAGE_SIZE << order) / size;

			for (i = 0; i < ARRAY_SIZE(objects); i++) {
				unsigned int nr = objects[i];
				unsigned int want = expected_slabs(nr, per_slab);
				unsigned int rust = slub_rust_cpu_partial_slabs(nr, per_slab);
				unsigned int c = slub_c_cpu_partial_slabs(nr, per_slab);

				KUNIT_EXPECT_EQ_MSG(test, rust, want, "order %u size %u objects %u",
						    order, size, nr);
				KUNIT_EXPECT_EQ_MSG(test, c, want, "order %u size %u objects %u",
						    order, size, nr);
			}
		}
	}
}

/* The C original wraps nr_objects * 2; Rust saturates instead. */
static void test_cpu_partial_slabs_no_wrap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, slub_rust_cpu_partial_slabs(UINT_MAX, 16),
			(unsigned int)((2ULL * UINT_MAX + 15) / 16));
	KUNIT_EXPECT_EQ(test, slub_rust_cpu_partial_slabs(UINT_MAX, 1), UINT_MAX);
	KUNIT_EXPECT_EQ(test, slub_rust_cpu_partial_slabs(5, 0), 0);
}

/* A refill from an endless node list pushes limit / 2 + 1 slabs. */
static void test_partial_node_done_refill_length(struct kunit *test)
{
	unsigned int limit, pushed;

	for (limit = 0; limit <= 128; limit++) {
		bool (*const done[])(unsigned int, unsigned int) = {
			slub_rust_partial_node_done, slub_c_partial_node_done,
		};
		unsigned int want = limit ? limit / 2 + 1 : 0;
		int i;

		for (i = 0; i < ARRAY_SIZE(done); i++) {
			for (pushed = 0; !done[i](pushed, limit); pushed++)
				if (pushed > limit + 1)
					break;
			KUNIT_EXPECT_EQ_MSG(test, pushed, want, "limit %u impl %d", limit, i);
		}
	}
}

static void test_partial_objects_estimate(struct kunit *test)
{
	unsigned int slabs, per_slab;

	for (slabs = 0; slabs <= 64; slabs++)
		for (per_slab = 1; per_slab <= 512; per_slab *= 2) {
			KUNIT_EXPECT_EQ(test, slub_rust_partial_objects(slabs, per_slab),
					slabs * per_slab / 2);
			KUNIT_EXPECT_EQ(test, slub_c_partial_objects(slabs, per_slab),
					slabs * per_slab / 2);
		}
}

/* Same decisions from both on random inputs where C does not overflow. */
static void test_rust_matches_c(struct kunit *test)
{
	struct rnd_state rnd;
	int i;

	prandom_seed_state(&rnd, 3);
	for (i = 0; i < 100000; i++) {
		unsigned int a = prandom_u32_state(&rnd) >> 2;
		unsigned int b = (prandom_u32_state(&rnd) & 0xffff) + 1;
		unsigned int small = prandom_u32_state(&rnd) & 0x7fff;
		bool has = prandom_u32_state(&rnd) & 1;

		KUNIT_ASSERT_EQ(test, slub_rust_default_cpu_partial(a >> 14, has),
				slub_c_default_cpu_partial(a >> 14, has));
		KUNIT_ASSERT_EQ_MSG(test, slub_rust_cpu_partial_slabs(a, b),
				    slub_c_cpu_partial_slabs(a, b), "%u %u", a, b);
		KUNIT_ASSERT_EQ(test, slub_rust_partial_node_done(small, b),
				slub_c_partial_node_done(small, b));
		KUNIT_ASSERT_EQ(test, slub_rust_partial_objects(small, b),
				slub_c_partial_objects(small, b));
	}
}

/*
 * The cases of mm/slub_partial_cases.h, which the host test of the same
 * Rust functions reads too (tools/testing/slub_partial/).
 */
enum shared_case_kind { DEFAULT, SLABS, NODE_DONE, OBJECTS };

static const char *const shared_case_names[] = {
	[DEFAULT] = "DEFAULT_CASE", [SLABS] = "SLABS_CASE",
	[NODE_DONE] = "NODE_DONE_CASE", [OBJECTS] = "OBJECTS_CASE",
};

static const struct shared_case {
	enum shared_case_kind kind;
	unsigned int a, b, want;
} shared_cases[] = {
#define DEFAULT_CASE(a, b, want)	{ DEFAULT, a, b, want },
#define SLABS_CASE(a, b, want)		{ SLABS, a, b, want },
#define NODE_DONE_CASE(a, b, want)	{ NODE_DONE, a, b, want },
#define OBJECTS_CASE(a, b, want)	{ OBJECTS, a, b, want },
#include "slub_partial_cases.h"
#undef DEFAULT_CASE
#undef SLABS_CASE
#undef NODE_DONE_CASE
#undef OBJECTS_CASE
};

/*
 * The C original's own results where its unsigned int arithmetic wraps
 * (Rust saturates there: the table's value), worked by hand modulo 2^32:
 * cpu_partial_slabs is (2a + b - 1) / b, partial_objects (a * b) / 2.
 * SLABS_CASE(5, 0) has none: C would divide by zero.
 */
static const struct shared_case c_wraps[] = {
	{ SLABS, 2147483648U, 1, 0 },		/* 2a = 2^32 -> 0 */
	{ SLABS, 2147483648U, 2, 0 },		/* (0 + 1) / 2 */
	{ SLABS, 4294967295U, 1, 4294967294U },	/* 2a = 2^33 - 2 -> 2^32 - 2 */
	{ SLABS, 4294967295U, 16, 0 },		/* 2^32 - 2 + 15 -> 13, / 16 */
	{ SLABS, 4294967295U, 4294967295U, 0 },	/* 2 (2^32 - 2) -> 2^32 - 4 */
	{ OBJECTS, 65536, 65536, 0 },		/* 2^32 -> 0 */
	{ OBJECTS, 4294967295U, 2, 2147483647 },	/* 2^33 - 2 -> 2^32 - 2 */
	{ OBJECTS, 4294967295U, 4294967295U, 0 },	/* (2^32 - 1)^2 -> 1, / 2 */
};

/* The C original's value for a case: the table's, or its own where it wraps. */
static bool c_want(const struct shared_case *t, bool wraps, unsigned int *want)
{
	unsigned int i;

	if (!wraps) {
		*want = t->want;
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(c_wraps); i++) {
		if (c_wraps[i].kind == t->kind && c_wraps[i].a == t->a && c_wraps[i].b == t->b) {
			*want = c_wraps[i].want;
			return true;
		}
	}
	return false;
}

/*
 * Each case: the Rust function, and the C original (but for a division by
 * zero), against the table; where C wraps, against its own worked value.
 */
static void test_shared_cases(struct kunit *test)
{
	unsigned int i, c_wrapped = 0;

	if (PAGE_SIZE != 4096)
		kunit_skip(test, "the object sizes of the table assume 4 KiB pages");
	/* The table is there: an empty include would pass everything. */
	KUNIT_ASSERT_GE(test, ARRAY_SIZE(shared_cases), 50);

	for (i = 0; i < ARRAY_SIZE(shared_cases); i++) {
		const struct shared_case *t = &shared_cases[i];
		unsigned int a = t->a, b = t->b, rust, c = 0, want_c;
		bool wraps = false, has_c = true;

		switch (t->kind) {
		case DEFAULT:
			rust = slub_rust_default_cpu_partial(a, b);
			c = slub_c_default_cpu_partial(a, b);
			break;
		case SLABS:
			rust = slub_rust_cpu_partial_slabs(a, b);
			has_c = b != 0;
			wraps = 2ULL * a + b - 1 > UINT_MAX;
			if (has_c)
				c = slub_c_cpu_partial_slabs(a, b);
			break;
		case NODE_DONE:
			rust = slub_rust_partial_node_done(a, b);
			c = slub_c_partial_node_done(a, b);
			break;
		case OBJECTS:
			rust = slub_rust_partial_objects(a, b);
			wraps = (unsigned long long)a * b > UINT_MAX;
			c = slub_c_partial_objects(a, b);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, rust, t->want, "%s(%u, %u)",
				    shared_case_names[t->kind], a, b);
		if (!has_c)
			continue;
		if (!c_want(t, wraps, &want_c)) {
			KUNIT_FAIL(test, "%s(%u, %u): C wraps, and c_wraps[] has no value for it",
				   shared_case_names[t->kind], a, b);
			continue;
		}
		c_wrapped += wraps;
		KUNIT_EXPECT_EQ_MSG(test, c, want_c, "%s(%u, %u), C%s",
				    shared_case_names[t->kind], a, b, wraps ? " (wraps)" : "");
	}
	/* Every worked C value was used: none is stale. */
	KUNIT_EXPECT_EQ(test, c_wrapped, ARRAY_SIZE(c_wraps));
}

/* Checks this CPU's list: its stored count is real and within the limit. */
static unsigned int check_bound(struct kunit *test, struct kmem_cache *s)
{
	int head_slabs;
	unsigned int nr = slub_cpu_partial_count(s, &head_slabs);

	KUNIT_EXPECT_EQ(test, nr, (unsigned int)head_slabs);
	KUNIT_EXPECT_LE(test, nr, s->cpu_partial_slabs);
	return nr;
}

static void set_cpu_partial_objects(struct kunit *test, struct kmem_cache *s,
				    unsigned int objects)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", objects);
	KUNIT_ASSERT_EQ(test, 0, slub_rust_cpu_partial_store(s, buf));
}

/*
 * The seed's pattern: fill TEST_SLABS slabs, then free one object of each.
 * Each free finds a full slab and pushes it, with one free object, onto
 * this CPU's partial list.  Counting objects let such a list reach 30
 * slabs; counting slabs keeps it at cpu_partial_slabs and drains it there.
 * Records the list length after each free in @trace.  The caller pins
 * the task to its CPU.
 */
static void run_one_free_object_pattern(struct kunit *test, struct kmem_cache *s,
					unsigned int *trace, unsigned int *nr_trace)
{
	unsigned int per_slab = slub_cache_objects_per_slab(s);
	unsigned int nr_objs = TEST_SLABS * per_slab + 1, i, j, n = 0;
	void **objs = kunit_kcalloc(test, nr_objs, sizeof(void *), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, objs);
	for (i = 0; i < nr_objs; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	/* Free one object of every slab all of whose objects are ours. */
	for (i = 0; i < nr_objs; i++) {
		struct slab *slab;
		unsigned int mine = 0;

		if (!objs[i])
			continue;
		slab = virt_to_slab(objs[i]);
		for (j = 0; j < nr_objs; j++)
			if (objs[j] && virt_to_slab(objs[j]) == slab)
				mine++;
		/* Not full (the last slab, still the CPU slab): no push. */
		if (mine != slab->objects)
			continue;
		kmem_cache_free(s, objs[i]);
		flush_quarantine(s);
		objs[i] = NULL;
		trace[n++] = check_bound(test, s);
	}
	*nr_trace = n;
	for (i = 0; i < nr_objs; i++)
		if (objs[i])
			kmem_cache_free(s, objs[i]);
}

static void test_push_bound_one_free_object(struct kunit *test)
{
	const enum slub_partial_impl *impl = test->param_value;
	struct kmem_cache *s = test_cache(test, "slub_partial_test_bound", 0);
	unsigned int trace[TEST_SLABS + 1], n, i, limit;
	struct mm_impl_switch_snapshot calls;

	use_impl(test, *impl);
	set_cpu_partial_objects(test, s, TEST_CPU_PARTIAL);
	limit = s->cpu_partial_slabs;
	KUNIT_ASSERT_EQ(test, limit, expected_slabs(TEST_CPU_PARTIAL,
						    slub_cache_objects_per_slab(s)));
	KUNIT_ASSERT_LT(test, limit, TEST_CPU_PARTIAL);

	pin_cpu(test);
	mm_impl_switch_snapshot(&slub_partial_switch, &calls);
	run_one_free_object_pattern(test, s, trace, &n);
	KUNIT_ASSERT_GE(test, n, TEST_SLABS - 2);
	/* Each of the n frees pushed a slab through put_cpu_partial(). */
	expect_ran(test, &calls, *impl, n);
	/* Grows one by one to the limit, drains, starts again at one. */
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, trace[i], i % limit + 1, "free %u", i);
}

static void test_push_rust_matches_c(struct kunit *test)
{
	unsigned int trace[2][TEST_SLABS + 1], n[2], i;
	struct kmem_cache *s[2] = {
		test_cache(test, "slub_partial_test_diff_rust", 0),
		test_cache(test, "slub_partial_test_diff_c", 0),
	};

	use_impl(test, impls[0]);
	for (i = 0; i < 2; i++) {
		struct mm_impl_switch_snapshot calls;

		mm_impl_switch_select(&slub_partial_switch, impls[i]);
		set_cpu_partial_objects(test, s[i], TEST_CPU_PARTIAL);
		pin_cpu(test);
		mm_impl_switch_snapshot(&slub_partial_switch, &calls);
		run_one_free_object_pattern(test, s[i], trace[i], &n[i]);
		/* The two traces come from two implementations, not one. */
		expect_ran(test, &calls, impls[i], n[i]);
		kunit_release_action(test, enable_migration, NULL);
	}
	KUNIT_ASSERT_EQ(test, n[0], n[1]);
	/* Not equal by doing nothing: the first free pushed a slab. */
	KUNIT_EXPECT_EQ(test, trace[0][0], 1);
	for (i = 0; i < n[0]; i++)
		KUNIT_EXPECT_EQ_MSG(test, trace[0][i], trace[1][i], "free %u", i);
}

/* Random allocs and frees: the bound holds after every operation. */
static void test_push_bound_random_pattern(struct kunit *test)
{
	const enum slub_partial_impl *impl = test->param_value;
	struct kmem_cache *s = test_cache(test, "slub_partial_test_random", 0);
	unsigned int nr_objs = 1024, i, max = 0;
	void **objs = kunit_kcalloc(test, nr_objs, sizeof(void *), GFP_KERNEL);
	struct mm_impl_switch_snapshot calls;
	struct rnd_state rnd;

	KUNIT_ASSERT_NOT_NULL(test, objs);
	use_impl(test, *impl);
	set_cpu_partial_objects(test, s, TEST_CPU_PARTIAL);
	prandom_seed_state(&rnd, 42);
	pin_cpu(test);
	mm_impl_switch_snapshot(&slub_partial_switch, &calls);
	for (i = 0; i < 20000; i++) {
		unsigned int k = prandom_u32_state(&rnd) % nr_objs;

		if (objs[k]) {
			kmem_cache_free(s, objs[k]);
			objs[k] = NULL;
		} else {
			objs[k] = kmem_cache_alloc(s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, objs[k]);
		}
		/* A flush per free would take minutes under KASAN: one per 64 steps. */
		if (IS_ENABLED(CONFIG_KASAN_GENERIC) && i % 64 == 63)
			flush_quarantine(s);
		max = max_t(unsigned int, max, check_bound(test, s));
	}
	for (i = 0; i < nr_objs; i++)
		if (objs[i])
			kmem_cache_free(s, objs[i]);
	/* The pattern does fill the list: the bound was reached, not idle. */
	KUNIT_EXPECT_EQ(test, max, s->cpu_partial_slabs);
	/* Filling it took at least that many pushes, all by @impl. */
	expect_ran(test, &calls, *impl, max);
}

/* One CPU's partial list of a cache, counted on that CPU (work_on_cpu()). */
struct cpu_walk {
	struct kmem_cache *s;
	int head_slabs;
};

static long walk_this_cpu(void *arg)
{
	struct cpu_walk *w = arg;

	return slub_cpu_partial_count(w->s, &w->head_slabs);
}

/*
 * The walk of the churn driver's debugfs "walk" (mm/slub_partial_churn.c:
 * every online CPU's list, each counted on its own CPU, against the count
 * its head records and the limit), over a cache of the test's own, one of
 * whose lists the test fills first: the seed's pattern leaves this CPU's
 * list as long as its last push made it, the other CPUs' empty (the cache
 * is the test's alone).  The walk must find that list: a walk that passes
 * with every list empty proves nothing.  The suite needs
 * CONFIG_SLUB_CPU_PARTIAL; a cache may still keep no per-cpu partial slabs
 * (slub_debug), and the case skips there.
 */
static void test_walk_finds_the_filled_list(struct kunit *test)
{
	const enum slub_partial_impl *impl = test->param_value;
	struct kmem_cache *s = test_cache(test, "slub_partial_test_walk", 0);
	unsigned int trace[TEST_SLABS + 1], n, lists = 0, limit;
	struct mm_impl_switch_snapshot calls;
	int cpu, filled;

	/* mm/slub.c's kmem_cache_has_cpu_partial(), which a module cannot call. */
	if (s->flags & SLAB_DEBUG_FLAGS)
		kunit_skip(test, "%s keeps no per-cpu partial slabs (a debugged cache: slub_debug)",
			   s->name);
	use_impl(test, *impl);
	set_cpu_partial_objects(test, s, TEST_CPU_PARTIAL);
	limit = s->cpu_partial_slabs;

	pin_cpu(test);
	filled = smp_processor_id();
	mm_impl_switch_snapshot(&slub_partial_switch, &calls);
	run_one_free_object_pattern(test, s, trace, &n);
	KUNIT_ASSERT_GE(test, n, TEST_SLABS - 2);
	expect_ran(test, &calls, *impl, n);
	/* Nothing else uses the cache: the list stays as the last push left it. */
	kunit_release_action(test, enable_migration, NULL);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct cpu_walk w = { .s = s };
		long nr = work_on_cpu(cpu, walk_this_cpu, &w);

		KUNIT_EXPECT_EQ_MSG(test, nr, (long)w.head_slabs, "CPU %d", cpu);
		KUNIT_EXPECT_LE_MSG(test, nr, (long)limit, "CPU %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, nr, cpu == filled ? (long)trace[n - 1] : 0L,
				    "CPU %d (the list filled: CPU %d's)", cpu, filled);
		lists += nr > 0;
	}
	cpus_read_unlock();
	KUNIT_ASSERT_GT_MSG(test, lists, 0U,
			    "the walk found no non-empty per-cpu partial list of %s, after %u pushes on CPU %d",
			    s->name, n, filled);
}

/* Writes @buf to /sys/kernel/slab/<s>/cpu_partial through its sysfs ops. */
static ssize_t cpu_partial_write(struct kunit *test, struct kmem_cache *s, const char *buf)
{
	struct kernfs_node *kn = kernfs_find_and_get(s->kobj.sd, "cpu_partial");
	ssize_t ret;

	KUNIT_ASSERT_NOT_NULL(test, kn);
	ret = s->kobj.ktype->sysfs_ops->store(&s->kobj, kn->priv, buf, strlen(buf));
	kernfs_put(kn);
	return ret;
}

static void test_cpu_partial_store_accepts(struct kunit *test)
{
	const enum slub_partial_impl *impl = test->param_value;
	struct kmem_cache *s = test_cache(test, "slub_partial_test_store", 0);
	struct kmem_cache *dbg = test_cache(test, "slub_partial_test_store_dbg",
					    SLAB_RED_ZONE);
	unsigned int per_slab = slub_cache_objects_per_slab(s);
	struct mm_impl_switch_snapshot calls;

	use_impl(test, *impl);
	mm_impl_switch_snapshot(&slub_partial_switch, &calls);
	KUNIT_EXPECT_EQ(test, cpu_partial_write(test, s, "30"), 2);
	KUNIT_EXPECT_EQ(test, s->cpu_partial, 30);
	KUNIT_EXPECT_EQ(test, s->cpu_partial_slabs, expected_slabs(30, per_slab));
	KUNIT_EXPECT_EQ(test, cpu_partial_write(test, s, "7\n"), 2);
	KUNIT_EXPECT_EQ(test, s->cpu_partial, 7);
	KUNIT_EXPECT_EQ(test, s->cpu_partial_slabs, expected_slabs(7, per_slab));
	KUNIT_EXPECT_EQ(test, cpu_partial_write(test, s, "0"), 1);
	KUNIT_EXPECT_EQ(test, s->cpu_partial_slabs, 0);
	/* A cache without per-cpu partial slabs still takes zero. */
	KUNIT_EXPECT_EQ(test, cpu_partial_write(test, dbg, "0"), 1);
	KUNIT_EXPECT_EQ(test, dbg->cpu_partial_slabs, 0);
	/* The four writes went to @impl's store. */
	expect_ran(test, &calls, *impl, 4);
}

static void test_cpu_partial_store_rejects(struct kunit *test)
{
	static const char *const bad[] = { "", "abc", "-1", "12x", "4294967296", " 5" };
	const enum slub_partial_impl *impl = test->param_value;
	struct kmem_cache *s = test_cache(test, "slub_partial_test_reject", 0);
	struct kmem_cache *dbg = test_cache(test, "slub_partial_test_reject_dbg",
					    SLAB_RED_ZONE);
	struct mm_impl_switch_snapshot calls;
	unsigned int objects, slabs, i;

	use_impl(test, *impl);
	mm_impl_switch_snapshot(&slub_partial_switch, &calls);
	KUNIT_ASSERT_EQ(test, cpu_partial_write(test, s, "13"), 2);
	objects = s->cpu_partial;
	slabs = s->cpu_partial_slabs;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_LT_MSG(test, cpu_partial_write(test, s, bad[i]), 0,
				    "'%s'", bad[i]);
		KUNIT_EXPECT_EQ(test, s->cpu_partial, objects);
		KUNIT_EXPECT_EQ(test, s->cpu_partial_slabs, slabs);
	}
	KUNIT_EXPECT_EQ(test, cpu_partial_write(test, s, "4294967296"), -ERANGE);
	KUNIT_EXPECT_EQ(test, cpu_partial_write(test, s, "abc"), -EINVAL);

	/* Objects on a cache that keeps no per-cpu partial slabs. */
	objects = dbg->cpu_partial;
	slabs = dbg->cpu_partial_slabs;
	KUNIT_EXPECT_EQ(test, cpu_partial_write(test, dbg, "30"), -EINVAL);
	KUNIT_EXPECT_EQ(test, dbg->cpu_partial, objects);
	KUNIT_EXPECT_EQ(test, dbg->cpu_partial_slabs, slabs);
	/* Every write, taken or refused, went to @impl's store. */
	expect_ran(test, &calls, *impl, ARRAY_SIZE(bad) + 4);
}

/*
 * Reads the number /sys/kernel/slab/<s>/<name> starts with, through its
 * sysfs ops.  Return: 0, -ENOENT without the attribute (a statistic of
 * CONFIG_SLUB_STATS), or another negative errno.
 */
static int slab_attr_read(struct kunit *test, struct kmem_cache *s, const char *name,
			  unsigned long *val)
{
	struct kernfs_node *kn = kernfs_find_and_get(s->kobj.sd, name);
	char *buf;
	ssize_t len;

	if (!kn)
		return -ENOENT;
	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = s->kobj.ktype->sysfs_ops->show(&s->kobj, kn->priv, buf);
	kernfs_put(kn);
	if (len <= 0)
		return -EINVAL;
	buf[strcspn(buf, "\n ")] = '\0';
	return kstrtoul(buf, 10, val);
}

/* The object target 6.12 gives a new cache whose objects take @size bytes. */
static unsigned int seed_default_target(unsigned int size)
{
	return size >= PAGE_SIZE ? 6 : size >= 1024 ? 24 : size >= 256 ? 52 : 120;
}

/*
 * New caches of several object sizes: the cpu_partial they get, read back
 * from sysfs, and the slab limit derived from it, set by @impl when the
 * cache is created.
 */
static void test_new_cache_defaults(struct kunit *test)
{
	static const unsigned int sizes[] = { 8, 64, 192, 256, 512, 1000, 1024,
					      2048, 4000, 4096, 8192 };
	const enum slub_partial_impl *impl = test->param_value;
	struct mm_impl_switch_snapshot calls;
	unsigned int i;

	use_impl(test, *impl);
	mm_impl_switch_snapshot(&slub_partial_switch, &calls);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		char name[48];
		struct kmem_cache *s;
		unsigned long objects;
		unsigned int want;

		snprintf(name, sizeof(name), "slub_partial_test_default_%u", sizes[i]);
		s = test_cache_sized(test, name, sizes[i]);
		/* By the size an object takes in the slab, as 6.12 decides. */
		want = seed_default_target(s->size);
		KUNIT_ASSERT_EQ(test, slab_attr_read(test, s, "cpu_partial", &objects), 0);
		KUNIT_EXPECT_EQ_MSG(test, objects, want, "object size %u (%u in the slab)",
				    sizes[i], s->size);
		KUNIT_EXPECT_EQ_MSG(test, s->cpu_partial_slabs,
				    expected_slabs(want, slub_cache_objects_per_slab(s)),
				    "object size %u", sizes[i]);
	}
	/* Each creation asked @impl for the target and its slab limit. */
	expect_ran(test, &calls, *impl, 2 * ARRAY_SIZE(sizes));
}

/*
 * One refill from the node partial list (get_partial_node()) with the
 * object target @target: more than limit + 4 partial slabs on the node,
 * this CPU's slabs flushed, then one allocation.  It takes one slab as the
 * CPU slab and moves limit / 2 + 1 more to this CPU's partial list, none
 * for a limit of 0: 6.12's rule.  Seen on the list and, with
 * CONFIG_SLUB_STATS (the debug image), in the cpu_partial_node statistic.
 * The caller pins the task to its CPU.
 */
static void check_refill(struct kunit *test, enum slub_partial_impl impl, unsigned int target)
{
	unsigned int per_slab, limit, want, nr, freed = 0, i, j, count;
	unsigned long stat_before = 0, stat_after = 0;
	struct mm_impl_switch_snapshot calls;
	struct kmem_cache *s;
	char name[48];
	bool stats;
	void **objs, *obj;
	int head;

	snprintf(name, sizeof(name), "slub_partial_test_refill_%u", target);
	s = test_cache(test, name, 0);
	set_cpu_partial_objects(test, s, target);
	limit = s->cpu_partial_slabs;
	want = limit ? limit / 2 + 1 : 0;
	per_slab = slub_cache_objects_per_slab(s);
	nr = (limit + 6) * per_slab;
	objs = kunit_kcalloc(test, nr, sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	for (i = 0; i < nr; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	/* One free object in every slab all of whose objects are ours. */
	for (i = 0; i < nr; i++) {
		struct slab *slab = virt_to_slab(objs[i]);
		unsigned int mine = 0;

		for (j = 0; j < nr; j++)
			if (objs[j] && virt_to_slab(objs[j]) == slab)
				mine++;
		if (mine != slab->objects)
			continue;
		kmem_cache_free(s, objs[i]);
		objs[i] = NULL;
		freed++;
	}
	KUNIT_ASSERT_GE(test, freed, limit + 5);
	/* Every CPU's slabs to the node lists, the fullest first. */
	flush_quarantine(s);
	kmem_cache_shrink(s);
	KUNIT_ASSERT_EQ(test, slub_cpu_partial_count(s, &head), 0);

	stats = !slab_attr_read(test, s, "cpu_partial_node", &stat_before);
	mm_impl_switch_snapshot(&slub_partial_switch, &calls);
	obj = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	count = slub_cpu_partial_count(s, &head);
	KUNIT_EXPECT_EQ_MSG(test, count, want, "cpu_partial %u, limit %u", target, limit);
	KUNIT_EXPECT_EQ(test, (unsigned int)head, want);
	if (stats) {
		KUNIT_ASSERT_EQ(test, slab_attr_read(test, s, "cpu_partial_node", &stat_after), 0);
		KUNIT_EXPECT_EQ_MSG(test, stat_after - stat_before, want,
				    "cpu_partial_node, cpu_partial %u", target);
	}
	/* The stop rule was asked after the first slab and each one moved. */
	expect_ran(test, &calls, impl, want + 1);

	kmem_cache_free(s, obj);
	for (i = 0; i < nr; i++)
		if (objs[i])
			kmem_cache_free(s, objs[i]);
}

static void test_refill_from_node(struct kunit *test)
{
	static const unsigned int targets[] = { 0, TEST_CPU_PARTIAL, 120 };
	const enum slub_partial_impl *impl = test->param_value;
	unsigned int i;

	use_impl(test, *impl);
	pin_cpu(test);
	for (i = 0; i < ARRAY_SIZE(targets); i++)
		check_refill(test, *impl, targets[i]);
}

static struct kunit_case slub_partial_test_cases[] = {
	KUNIT_CASE(test_default_cpu_partial_table),
	KUNIT_CASE(test_cpu_partial_slabs_sweep),
	KUNIT_CASE(test_cpu_partial_slabs_no_wrap),
	KUNIT_CASE(test_partial_node_done_refill_length),
	KUNIT_CASE(test_partial_objects_estimate),
	KUNIT_CASE(test_rust_matches_c),
	KUNIT_CASE(test_shared_cases),
	KUNIT_CASE_PARAM(test_push_bound_one_free_object, impl_gen_params),
	KUNIT_CASE_PARAM(test_push_bound_random_pattern, impl_gen_params),
	KUNIT_CASE(test_push_rust_matches_c),
	KUNIT_CASE_PARAM(test_walk_finds_the_filled_list, impl_gen_params),
	KUNIT_CASE_PARAM(test_cpu_partial_store_accepts, impl_gen_params),
	KUNIT_CASE_PARAM(test_cpu_partial_store_rejects, impl_gen_params),
	KUNIT_CASE_PARAM(test_new_cache_defaults, impl_gen_params),
	KUNIT_CASE_PARAM(test_refill_from_node, impl_gen_params),
	{}
};

static struct kunit_suite slub_partial_test_suite = {
	.name = "slub_partial_rust",
	.test_cases = slub_partial_test_cases,
};
kunit_test_suite(slub_partial_test_suite);

MODULE_DESCRIPTION("KUnit tests of the Rust SLUB per-cpu partial accounting");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
