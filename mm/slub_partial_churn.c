// SPDX-License-Identifier: GPL-2.0
/*
 * Slab churn on private caches, for the stress and fault-injection tests
 * of the per-cpu partial accounting.
 *
 * Writing N to /sys/kernel/debug/slub_partial_churn/run runs N rounds in
 * the writing task.  A round, for each of the private caches: allocate
 * CHURN_BATCH objects on the CPU the task is on, free half of them there,
 * take up to as many objects as remain from the cache's exchange (left
 * there by writers on other CPUs) and leave the remaining ones in their
 * place; then free what was taken.  A free of an object allocated on
 * another CPU lands on a slab that CPU filled, which is the path that
 * pushes full slabs onto this CPU's partial list.  After each cache's
 * round, this CPU's partial list is checked: the slab count stored in its
 * head must be the real one and within the cache's cpu_partial_slabs.  A
 * run ends by freeing what is left in the exchanges, so that no object is
 * held between runs.
 *
 * With CONFIG_FAILSLAB, a test marks the caches for failslab's
 * cache-filter (/sys/kernel/slab/slub_partial_churn-<size>/failslab; a
 * cache cannot be created so marked): the kernel's fault injection then
 * fails their allocations alone, which the run counts (an allocation may
 * fail; nothing else may go wrong).
 *
 * Reading /sys/kernel/debug/slub_partial_churn/stats gives the counters
 * since boot, one "name value" per line: rounds, allocs, alloc_failures,
 * frees, remote_frees, bound_violations and outstanding (objects in the
 * exchanges now).
 */
#define pr_fmt(fmt) "slub_partial_churn: " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/mm_impl_switch.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/slub_partial.h>
#include <linux/spinlock.h>

#include "slab.h"

#define CHURN_BATCH		32
#define CHURN_EXCHANGE		512
#define CHURN_MAX_ROUNDS	1000000

/* An object left in an exchange, and the CPU that allocated it. */
struct churn_obj {
	void *obj;
	int cpu;
};

/**
 * struct churn_cache - A private cache and its exchange.
 * @s: The cache.
 * @size: Its object size.
 * @lock: Protects @nr and @objs.
 * @nr: Objects in the exchange.
 * @objs: The exchange: objects allocated by one writer, for another to free.
 */
struct churn_cache {
	struct kmem_cache *s;
	unsigned int size;
	spinlock_t lock;	/* protects nr and objs */
	unsigned int nr;
	struct churn_obj objs[CHURN_EXCHANGE];
};

static struct churn_cache churn_caches[] = {
	{ .size = 64 }, { .size = 256 }, { .size = 1024 },
};

static struct {
	atomic_long_t rounds, allocs, alloc_failures, frees, remote_frees,
		bound_violations;
} churn_stats;

/* Frees what was taken from an exchange on @cpu, counting remote frees. */
static void churn_free_taken(struct churn_cache *cc, struct churn_obj *taken,
			     unsigned int n, int cpu)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (taken[i].cpu != cpu)
			atomic_long_inc(&churn_stats.remote_frees);
		kmem_cache_free(cc->s, taken[i].obj);
	}
	atomic_long_add(n, &churn_stats.frees);
}

/* This CPU's partial list of @s: the stored count is real and bounded. */
static void churn_check_bound(struct kmem_cache *s)
{
	int head_slabs;
	unsigned int nr;

	if (!slub_cache_has_cpu_partial(s))
		return;
	nr = slub_cpu_partial_count(s, &head_slabs);
	if (nr == head_slabs && nr <= s->cpu_partial_slabs)
		return;
	atomic_long_inc(&churn_stats.bound_violations);
	pr_err_ratelimited("%s: %u slabs on the per-cpu partial list, its head says %d, the limit is %u\n",
			   s->name, nr, head_slabs, s->cpu_partial_slabs);
}

static void churn_round(struct churn_cache *cc)
{
	struct churn_obj mine[CHURN_BATCH], taken[CHURN_BATCH];
	unsigned int i, n = 0, nr_taken = 0, half;
	int cpu;

	/* Allocations may sleep; the task stays on this CPU for the checks. */
	migrate_disable();
	cpu = smp_processor_id();
	for (i = 0; i < CHURN_BATCH; i++) {
		void *obj = kmem_cache_alloc(cc->s, GFP_KERNEL);

		if (!obj) {
			atomic_long_inc(&churn_stats.alloc_failures);
			continue;
		}
		mine[n].obj = obj;
		mine[n++].cpu = cpu;
	}
	atomic_long_add(n, &churn_stats.allocs);

	half = n / 2;
	churn_free_taken(cc, mine, half, cpu);

	spin_lock(&cc->lock);
	while (nr_taken < n - half && cc->nr)
		taken[nr_taken++] = cc->objs[--cc->nr];
	for (i = half; i < n && cc->nr < CHURN_EXCHANGE; i++)
		cc->objs[cc->nr++] = mine[i];
	spin_unlock(&cc->lock);

	/* What found no room in the exchange is freed here. */
	churn_free_taken(cc, mine + i, n - i, cpu);
	churn_free_taken(cc, taken, nr_taken, cpu);
	churn_check_bound(cc->s);
	migrate_enable();
}

/* Empties the exchanges, freeing what other writers left there. */
static void churn_flush(void)
{
	struct churn_obj taken[CHURN_BATCH];
	unsigned int k, n;

	for (k = 0; k < ARRAY_SIZE(churn_caches); k++) {
		struct churn_cache *cc = &churn_caches[k];

		do {
			spin_lock(&cc->lock);
			for (n = 0; n < CHURN_BATCH && cc->nr; n++)
				taken[n] = cc->objs[--cc->nr];
			spin_unlock(&cc->lock);
			churn_free_taken(cc, taken, n, raw_smp_processor_id());
		} while (n);
	}
}

static int churn_run_get(void *data, u64 *val)
{
	*val = atomic_long_read(&churn_stats.rounds);
	return 0;
}

/* N rounds, 1 <= N <= CHURN_MAX_ROUNDS; a fatal signal stops the run. */
static int churn_run_set(void *data, u64 rounds)
{
	unsigned int k;
	int ret = 0;
	u64 i;

	if (!rounds || rounds > CHURN_MAX_ROUNDS)
		return -EINVAL;
	for (i = 0; i < rounds; i++) {
		for (k = 0; k < ARRAY_SIZE(churn_caches); k++)
			churn_round(&churn_caches[k]);
		atomic_long_inc(&churn_stats.rounds);
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	churn_flush();
	return ret;
}
DEFINE_MM_DEBUGFS_ATTRIBUTE(churn_run_fops, churn_run_get, churn_run_set, "%llu\n");

static int churn_stats_show(struct seq_file *m, void *v)
{
	unsigned int k, outstanding = 0;

	for (k = 0; k < ARRAY_SIZE(churn_caches); k++)
		outstanding += READ_ONCE(churn_caches[k].nr);
	seq_printf(m, "rounds %ld\nallocs %ld\nalloc_failures %ld\nfrees %ld\n"
		   "remote_frees %ld\nbound_violations %ld\noutstanding %u\n",
		   atomic_long_read(&churn_stats.rounds),
		   atomic_long_read(&churn_stats.allocs),
		   atomic_long_read(&churn_stats.alloc_failures),
		   atomic_long_read(&churn_stats.frees),
		   atomic_long_read(&churn_stats.remote_frees),
		   atomic_long_read(&churn_stats.bound_violations), outstanding);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(churn_stats);

static int __init slub_partial_churn_init(void)
{
	struct dentry *dir;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(churn_caches); k++) {
		struct churn_cache *cc = &churn_caches[k];
		char name[32];

		snprintf(name, sizeof(name), "slub_partial_churn-%u", cc->size);
		spin_lock_init(&cc->lock);
		cc->s = kmem_cache_create(name, cc->size, 0, SLAB_NO_MERGE, NULL);
		if (!cc->s) {
			pr_err("cannot create cache %s; no debugfs files\n", name);
			while (k--)
				kmem_cache_destroy(churn_caches[k].s);
			return -ENOMEM;
		}
	}
	dir = debugfs_create_dir("slub_partial_churn", NULL);
	debugfs_create_file_unsafe("run", 0644, dir, NULL, &churn_run_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &churn_stats_fops);
	return 0;
}
late_initcall(slub_partial_churn_init);
