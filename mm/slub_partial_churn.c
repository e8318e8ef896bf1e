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
 * Writing N to /sys/kernel/debug/slub_partial_churn/remote runs N rounds
 * whose frees are all remote: for each private cache, CHURN_BATCH objects
 * allocated on the CPU the task is on are freed by a worker on the next
 * online CPU, which then checks its own partial list.  Remote frees do not
 * depend on how concurrent writers interleave.  A kernel with one online
 * CPU refuses it with -ENODEV.
 *
 * Reading /sys/kernel/debug/slub_partial_churn/walk walks the per-cpu
 * partial list of every cache on every online CPU, each on its own CPU, and
 * prints one line per non-empty list, "<cache> <cpu> <slabs linked>
 * <slabs its head records> <cpu_partial_slabs>", then "walked <caches>
 * caches on <cpus> CPUs".  The boot tests judge every cache by it.
 *
 * Reading /sys/kernel/debug/slub_partial_churn/stats gives the counters
 * since boot, one "name value" per line: rounds, allocs, alloc_failures,
 * frees, remote_frees, bound_violations and outstanding (objects in the
 * exchanges now).
 */
#define pr_fmt(fmt) "slub_partial_churn: " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/mm_impl_switch.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/slub_partial.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

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

/*
 * Allocates CHURN_BATCH objects of @cc into @mine, noting @cpu, the CPU the
 * caller keeps the task on, as theirs; counts the allocations and failures.
 * Returns how many were allocated.
 */
static unsigned int churn_alloc(struct churn_cache *cc,
				struct churn_obj mine[CHURN_BATCH], int cpu)
{
	unsigned int i, n = 0;

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
	return n;
}

static void churn_round(struct churn_cache *cc)
{
	struct churn_obj mine[CHURN_BATCH], taken[CHURN_BATCH];
	unsigned int i, n, nr_taken = 0, half;
	int cpu;

	/* Allocations may sleep; the task stays on this CPU for the checks. */
	migrate_disable();
	cpu = smp_processor_id();
	n = churn_alloc(cc, mine, cpu);

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

/* A batch allocated on one CPU, freed by a worker on another. */
struct churn_remote {
	struct churn_cache *cc;
	struct churn_obj objs[CHURN_BATCH];
	unsigned int n;
};

/* On the freeing CPU (a bound worker): free the batch, check this CPU. */
static long churn_remote_free(void *arg)
{
	struct churn_remote *r = arg;

	churn_free_taken(r->cc, r->objs, r->n, raw_smp_processor_id());
	churn_check_bound(r->cc->s);
	return 0;
}

/* N rounds, 1 <= N <= CHURN_MAX_ROUNDS, every free remote; -ENODEV on one CPU. */
static int churn_remote_set(void *data, u64 rounds)
{
	struct churn_remote r;
	unsigned int k;
	int cpu, other;
	u64 i;

	if (!rounds || rounds > CHURN_MAX_ROUNDS)
		return -EINVAL;
	for (i = 0; i < rounds; i++) {
		for (k = 0; k < ARRAY_SIZE(churn_caches); k++) {
			r.cc = &churn_caches[k];
			cpus_read_lock();
			if (num_online_cpus() < 2) {
				cpus_read_unlock();
				return -ENODEV;
			}
			migrate_disable();
			cpu = smp_processor_id();
			r.n = churn_alloc(r.cc, r.objs, cpu);
			churn_check_bound(r.cc->s);
			migrate_enable();
			/* Another online CPU: the hotplug lock keeps it so. */
			other = cpumask_next_wrap(cpu, cpu_online_mask, cpu, false);
			work_on_cpu(other, churn_remote_free, &r);
			cpus_read_unlock();
		}
		atomic_long_inc(&churn_stats.rounds);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}
DEFINE_MM_DEBUGFS_ATTRIBUTE(churn_remote_fops, churn_run_get, churn_remote_set, "%llu\n");

/* One cache's partial list on one CPU, walked there (work_on_cpu()). */
struct churn_walk {
	struct kmem_cache *s;
	int head_slabs;
};

static long churn_walk_this_cpu(void *arg)
{
	struct churn_walk *w = arg;

	return slub_cpu_partial_count(w->s, &w->head_slabs);
}

static int churn_walk_show(struct seq_file *m, void *v)
{
	unsigned int caches = 0;
	struct kmem_cache *s;
	int cpu;

	cpus_read_lock();
	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		if (!slub_cache_has_cpu_partial(s))
			continue;
		caches++;
		for_each_online_cpu(cpu) {
			struct churn_walk w = { .s = s };
			long nr = work_on_cpu(cpu, churn_walk_this_cpu, &w);

			if (nr || w.head_slabs)
				seq_printf(m, "%s %d %ld %d %u\n", s->name, cpu, nr,
					   w.head_slabs, s->cpu_partial_slabs);
		}
	}
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
	seq_printf(m, "walked %u caches on %u CPUs\n", caches, num_online_cpus());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(churn_walk);

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
	debugfs_create_file_unsafe("remote", 0644, dir, NULL, &churn_remote_fops);
	debugfs_create_file("walk", 0444, dir, NULL, &churn_walk_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &churn_stats_fops);
	return 0;
}
late_initcall(slub_partial_churn_init);
