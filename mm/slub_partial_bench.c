// SPDX-License-Identifier: GPL-2.0
/*
 * Boot-time microbenchmark of the per-cpu partial push, Rust against C in
 * one boot.
 *
 * "slub_partial_bench=<rounds>" runs, late in boot, <rounds> rounds for
 * each implementation, alternating (rust then c in even rounds, c then rust
 * in odd ones, switched through slub_partial_switch), of: fill BENCH_SLABS
 * slabs of a private cache, then free one object of each.  Every such free
 * finds a full slab and pushes it onto this CPU's partial list
 * (put_cpu_partial(), draining at the limit), which is what the
 * implementations differ in.  Only the frees are timed.  Each round and the
 * medians are printed as
 *
 *   slub_partial_bench: impl=<rust|c> round=<i> ns_per_op=<x.yy>
 *   slub_partial_bench: impl=<rust|c> median ns_per_op=<x.yy> rounds=<n>
 *
 * and the implementation chosen at boot is selected again at the end.
 * Under QEMU's "-icount shift=0" the guest's nanoseconds are executed
 * instructions, so ns_per_op is then an instruction count per free.
 */
#define pr_fmt(fmt) "slub_partial_bench: " fmt

#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/slub_partial.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "slab.h"

#define BENCH_OBJ_SIZE	256
#define BENCH_SLABS	512
#define BENCH_MAX_ROUNDS 64

static unsigned int bench_rounds __initdata;

static int __init bench_setup(char *str)
{
	unsigned int rounds;

	if (kstrtouint(str, 10, &rounds) || rounds > BENCH_MAX_ROUNDS) {
		pr_err("slub_partial_bench=%s: -EINVAL, expected 0..%d; not running\n",
		       str, BENCH_MAX_ROUNDS);
		return 1;
	}
	bench_rounds = rounds;
	return 1;
}
__setup("slub_partial_bench=", bench_setup);

/*
 * One round; returns the mean cost of a push-through free in 1/100 ns, or
 * 0 when there was nothing to measure (no memory, or no full slab).
 */
static u64 __init bench_round(struct kmem_cache *s, void **objs, void **victims,
			      unsigned int nr_objs)
{
	unsigned int i, run = 0, nr_victims = 0;
	struct slab *prev = NULL;
	u64 start, elapsed;

	for (i = 0; i < nr_objs; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!objs[i]) {
			while (i--)
				kmem_cache_free(s, objs[i]);
			return 0;
		}
	}
	/* The first object of every slab filled entirely by this round. */
	for (i = 0; i <= nr_objs; i++) {
		struct slab *slab = i < nr_objs ? virt_to_slab(objs[i]) : NULL;

		if (slab == prev) {
			run++;
			continue;
		}
		if (prev && run == prev->objects) {
			victims[nr_victims++] = objs[i - run];
			objs[i - run] = NULL;
		}
		prev = slab;
		run = 1;
	}

	start = ktime_get_ns();
	for (i = 0; i < nr_victims; i++)
		kmem_cache_free(s, victims[i]);
	elapsed = ktime_get_ns() - start;

	for (i = 0; i < nr_objs; i++)
		if (objs[i])
			kmem_cache_free(s, objs[i]);
	return nr_victims ? div_u64(elapsed * 100, nr_victims) : 0;
}

static int __init cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void __init report_median(unsigned int impl, u64 *results, unsigned int n)
{
	u64 median;

	if (!n)
		return;
	sort(results, n, sizeof(u64), cmp_u64, NULL);
	median = n % 2 ? results[n / 2] : (results[n / 2 - 1] + results[n / 2]) / 2;
	pr_info("impl=%s median ns_per_op=%llu.%02llu rounds=%u\n",
		slub_partial_switch.impls[impl], div_u64(median, 100), median % 100, n);
}

static int __init slub_partial_bench(void)
{
	static u64 results[2][BENCH_MAX_ROUNDS] __initdata;
	unsigned int booted = mm_impl_switch_selected(&slub_partial_switch);
	unsigned int nr_objs, i, k, n[2] = { 0, 0 };
	struct kmem_cache *s;
	void **objs, **victims;

	if (!bench_rounds)
		return 0;
	s = kmem_cache_create("slub_partial_bench", BENCH_OBJ_SIZE, 0, SLAB_NO_MERGE, NULL);
	if (!s)
		return -ENOMEM;
	nr_objs = BENCH_SLABS * slub_cache_objects_per_slab(s) + 1;
	objs = vcalloc(nr_objs, sizeof(void *));
	victims = vcalloc(BENCH_SLABS + 1, sizeof(void *));
	if (!objs || !victims)
		goto out;

	for (i = 0; i < bench_rounds; i++) {
		for (k = 0; k < 2; k++) {
			/* Rust first in even rounds, C first in odd ones. */
			unsigned int impl = (i + k) % 2 ? SLUB_PARTIAL_C : SLUB_PARTIAL_RUST;
			u64 r;

			mm_impl_switch_select(&slub_partial_switch, impl);
			migrate_disable();
			r = bench_round(s, objs, victims, nr_objs);
			migrate_enable();
			if (!r) {
				pr_warn("impl=%s round=%u: nothing measured, round dropped\n",
					slub_partial_switch.impls[impl], i);
				continue;
			}
			results[impl][n[impl]++] = r;
			pr_info("impl=%s round=%u ns_per_op=%llu.%02llu\n",
				slub_partial_switch.impls[impl], i, div_u64(r, 100), r % 100);
		}
	}
	mm_impl_switch_select(&slub_partial_switch, booted);
	report_median(SLUB_PARTIAL_RUST, results[SLUB_PARTIAL_RUST], n[SLUB_PARTIAL_RUST]);
	report_median(SLUB_PARTIAL_C, results[SLUB_PARTIAL_C], n[SLUB_PARTIAL_C]);
out:
	vfree(victims);
	vfree(objs);
	kmem_cache_destroy(s);
	return 0;
}
late_initcall(slub_partial_bench);
