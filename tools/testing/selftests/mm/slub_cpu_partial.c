// SPDX-License-Identifier: GPL-2.0
/*
 * SLUB's per-cpu partial lists as user space sees them, in
 * /sys/kernel/slab/<cache>/: cpu_partial (the objects a CPU may keep on
 * partial slabs, writable), objs_per_slab, and slabs_cpu_partial, "<objects>
 * (<slabs>)" for the cache and " C<cpu>=<objects>(<slabs>)" for each CPU
 * whose list is not empty, where <objects> is an estimate: half of the
 * objects of <slabs> slabs.
 *
 * A CPU keeps at most DIV_ROUND_UP(2 * cpu_partial, objs_per_slab) slabs
 * (half-full slabs, mm/slub.c's slub_set_cpu_partial()); a write of
 * cpu_partial takes a decimal unsigned int and refuses anything else with
 * the error of kstrtouint(), keeping the value it had.
 *
 * These hold for every SLUB kernel, whichever code keeps the lists.  The
 * checks of every cache would pass with every list empty, so each test
 * also fills one list on purpose (fill_begin()) and requires the checks to
 * have seen at least one non-empty list.  A kernel that keeps no per-cpu
 * partial lists (CONFIG_SLUB_CPU_PARTIAL off, or every cache debugged:
 * cpu_partial 0 everywhere) skips them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* sched_getcpu(), CPU_SET() */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "knob_util.h"

#define SLAB_DIR "/sys/kernel/slab"
/* The cache the write tests use: in every kernel, never merged away. */
#define WRITE_CACHE "kmalloc-256"
/*
 * The cache whose list fill_begin() fills: struct file, which open() and
 * close() allocate and free on the caller's CPU, in every kernel, never
 * merged (SLAB_TYPESAFE_BY_RCU).
 */
#define FILL_CACHE "filp"
#define NO_CPU_PARTIAL "no cache keeps per-cpu partial slabs (cpu_partial 0 everywhere: " \
	"CONFIG_SLUB_CPU_PARTIAL off, or slub_debug on every cache)"

/*
 * no_survey: why the every-cache tests cannot run, given what
 * cpu_partial_caches() returned (a negative errno, or the number of
 * caches with per-cpu partial slabs), or NULL when they can.
 */
static const char *no_survey(int caches)
{
	if (caches == -EACCES)
		return "reading " SLAB_DIR " needs root (its files are 0400 or 0600)";
	if (caches < 0)
		return "no " SLAB_DIR ": not SLUB, or no sysfs";
	if (!caches)
		return NO_CPU_PARTIAL;
	return NULL;
}

/* attr_path: SLAB_DIR/<cache>/<attr> (a static buffer). */
static const char *attr_path(const char *cache, const char *attr)
{
	static char path[512];

	snprintf(path, sizeof(path), SLAB_DIR "/%s/%s", cache, attr);
	return path;
}

/* read_attr: <cache>/<attr> into buf, without the newline: 0 or -errno. */
static int read_attr(const char *cache, const char *attr, char *buf, size_t size)
{
	return knob_read(attr_path(cache, attr), buf, size);
}

/* read_number: <cache>/<attr> as a decimal number, or -1. */
static long read_number(const char *cache, const char *attr)
{
	return knob_read_long(attr_path(cache, attr));
}

/* write_attr: one write() of len bytes to <cache>/<attr>: 0 or -errno. */
static int write_attr(const char *cache, const char *attr, const char *val, size_t len)
{
	return knob_write(attr_path(cache, attr), val, len);
}

/*
 * check_cache: slabs_cpu_partial of <cache> is well formed, each CPU's
 * estimate is half the objects of its slabs, each CPU listed (a non-empty
 * list) holds at least one slab and no CPU more than cpu_partial allows.
 * Adds the CPUs listed to *lists (when not NULL).  Returns NULL, or what is
 * wrong (static buffer).
 */
static const char *check_cache(const char *cache, int *lists)
{
	static char why[1024];
	char line[4096], *p, *end;
	long objects, per_slab, limit, o, n, cpu;

	objects = read_number(cache, "cpu_partial");
	per_slab = read_number(cache, "objs_per_slab");
	if (objects < 0 || per_slab < 1) {
		snprintf(why, sizeof(why), "%s: cpu_partial %ld, objs_per_slab %ld",
			 cache, objects, per_slab);
		return why;
	}
	if (read_attr(cache, "slabs_cpu_partial", line, sizeof(line))) {
		snprintf(why, sizeof(why), "%s: slabs_cpu_partial unreadable", cache);
		return why;
	}
	limit = (2 * objects + per_slab - 1) / per_slab;
	/* The cache's total: "<objects>(<slabs>)". */
	p = line;
	o = strtol(p, &end, 10);
	if (end == p || *end != '(')
		goto malformed;
	p = end + 1;
	n = strtol(p, &end, 10);
	if (end == p || *end != ')')
		goto malformed;
	p = end + 1;
	/* Then " C<cpu>=<objects>(<slabs>)" per CPU. */
	while (*p) {
		if (strncmp(p, " C", 2))
			goto malformed;
		p += 2;
		cpu = strtol(p, &end, 10);
		if (end == p || *end != '=')
			goto malformed;
		p = end + 1;
		o = strtol(p, &end, 10);
		if (end == p || *end != '(')
			goto malformed;
		p = end + 1;
		n = strtol(p, &end, 10);
		if (end == p || *end != ')')
			goto malformed;
		p = end + 1;
		if (n < 1) {
			snprintf(why, sizeof(why), "%s: CPU %ld listed with %ld slabs",
				 cache, cpu, n);
			return why;
		}
		if (n > limit) {
			snprintf(why, sizeof(why),
				 "%s: CPU %ld holds %ld slabs, limit %ld (cpu_partial %ld, %ld per slab)",
				 cache, cpu, n, limit, objects, per_slab);
			return why;
		}
		if (o != n * per_slab / 2) {
			snprintf(why, sizeof(why),
				 "%s: CPU %ld estimates %ld objects on %ld slabs of %ld",
				 cache, cpu, o, n, per_slab);
			return why;
		}
		if (lists)
			(*lists)++;
	}
	return NULL;
malformed:
	snprintf(why, sizeof(why), "%s: malformed slabs_cpu_partial \"%.900s\"", cache, line);
	return why;
}

/* What check_every_cache() saw. */
struct survey {
	int caches;		/* names in SLAB_DIR, aliases of merged caches too */
	int partial_caches;	/* caches (not aliases) with cpu_partial > 0 */
	int lists;		/* their non-empty per-cpu partial lists */
};

/*
 * check_every_cache: check_cache for every cache of /sys/kernel/slab
 * (merged caches are links: each name, counted once in partial_caches and
 * lists).  Returns the number of caches, or -1 without the directory.
 */
static int check_every_cache(struct __test_metadata *_metadata, struct survey *sv)
{
	struct dirent *d;
	const char *why;
	DIR *dir;

	memset(sv, 0, sizeof(*sv));
	dir = opendir(SLAB_DIR);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		int lists = 0;

		if (d->d_name[0] == '.')
			continue;
		why = check_cache(d->d_name, &lists);
		EXPECT_EQ(NULL, why)
			TH_LOG("%s", why);
		sv->caches++;
		if (d->d_type == DT_LNK)
			continue;
		sv->partial_caches += read_number(d->d_name, "cpu_partial") > 0;
		sv->lists += lists;
	}
	closedir(dir);
	ksft_print_msg("%d caches checked, %d with per-cpu partial slabs, %d non-empty lists\n",
		       sv->caches, sv->partial_caches, sv->lists);
	return sv->caches;
}

/*
 * cpu_partial_caches: the caches of SLAB_DIR that keep per-cpu partial
 * slabs (cpu_partial > 0, slabs_cpu_partial readable), -1 without the
 * directory, -EACCES where its files cannot be read (not root).  0:
 * CONFIG_SLUB_CPU_PARTIAL off (cpu_partial reads 0), or every cache
 * debugged.
 */
static int cpu_partial_caches(void)
{
	char line[4096];
	struct dirent *d;
	int n = 0, err;
	DIR *dir;

	dir = opendir(SLAB_DIR);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		err = read_attr(d->d_name, "slabs_cpu_partial", line, sizeof(line));
		if (err == -EACCES) {
			n = err;
			break;
		}
		if (!err && read_number(d->d_name, "cpu_partial") > 0)
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * A per-cpu partial list filled on purpose: FILL_CACHE's on the CPU the
 * task is kept on, from fill_begin() to fill_end().
 */
struct fill {
	int *fds, nr;
	int cpu;		/* the CPU kept on, or -1 */
	cpu_set_t old;		/* the task's affinity before */
	const char *why_not;	/* why the list may not have been filled, or NULL */
	int lists;		/* FILL_CACHE's non-empty lists, checked once filled */
	char line[4096];	/* its slabs_cpu_partial then */
	char shrink_err[128];
};

/*
 * fill_begin: on one CPU, opens enough files for 2 * (limit + 4) slabs of
 * FILL_CACHE (limit: its slabs per CPU; at most 65536 files), then closes
 * every other one.  On a kernel without generic KASAN each slab, full
 * until then, goes onto this CPU's partial list at its first free; under
 * KASAN the frees wait in its quarantine.  So then a shrink of FILL_CACHE
 * (its quarantined objects freed, every CPU's slabs to the node, the
 * half-used ones kept) and one more open, whose refill from the node puts
 * limit / 2 + 1 slabs on this CPU's list, with or without KASAN
 * (mm/slub.c's get_partial_node()).  FILL_CACHE is checked at once,
 * before the opens of the other checks (each one object that, under
 * KASAN, does not come back) use the list up.  f->why_not says why its
 * list may be empty anyway.
 */
static void fill_begin(struct __test_metadata *_metadata, struct fill *f)
{
	long objects = read_number(FILL_CACHE, "cpu_partial");
	long per_slab = read_number(FILL_CACHE, "objs_per_slab");
	long limit, want;
	const char *why;
	struct rlimit rl;
	cpu_set_t one;
	int i, err;

	memset(f, 0, sizeof(*f));
	snprintf(f->line, sizeof(f->line), "not filled");
	f->cpu = sched_getcpu();
	if (f->cpu >= 0 && !sched_getaffinity(0, sizeof(f->old), &f->old)) {
		CPU_ZERO(&one);
		CPU_SET(f->cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			f->cpu = -1;
	} else {
		f->cpu = -1;
	}
	if (f->cpu < 0)
		f->why_not = "cannot keep the task on one CPU";
	if (objects < 1 || per_slab < 1) {
		f->why_not = FILL_CACHE " keeps no per-cpu partial slabs";
		return;
	}
	limit = (2 * objects + per_slab - 1) / per_slab;
	want = 2 * (limit + 4) * per_slab;
	if (want > 65536)
		want = 65536;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)want + 64 &&
	    rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)want + 64 ? rl.rlim_max : (rlim_t)want + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	f->fds = calloc(want, sizeof(*f->fds));
	if (!f->fds) {
		f->why_not = "out of memory";
		return;
	}
	for (f->nr = 0; f->nr < want; f->nr++) {
		f->fds[f->nr] = open("/", O_RDONLY);
		if (f->fds[f->nr] < 0)
			break;
	}
	if (f->nr < want)
		f->why_not = "too few files open (RLIMIT_NOFILE)";
	for (i = 1; i < f->nr; i += 2) {
		close(f->fds[i]);
		f->fds[i] = -1;
	}
	err = write_attr(FILL_CACHE, "shrink", "1", 1);
	if (err) {
		snprintf(f->shrink_err, sizeof(f->shrink_err),
			 "the shrink of " FILL_CACHE " failed: %s", strerror(-err));
		f->why_not = f->shrink_err;
	} else if (f->nr > 1) {
		/* The refill. */
		f->fds[1] = open("/", O_RDONLY);
	}
	why = check_cache(FILL_CACHE, &f->lists);
	EXPECT_EQ(NULL, why)
		TH_LOG("%s", why);
	if (read_attr(FILL_CACHE, "slabs_cpu_partial", f->line, sizeof(f->line)))
		snprintf(f->line, sizeof(f->line), "unreadable");
}

/* fill_end: the files closed, the task's affinity restored. */
static void fill_end(struct fill *f)
{
	int i;

	for (i = 0; i < f->nr; i++)
		if (f->fds[i] >= 0)
			close(f->fds[i]);
	free(f->fds);
	f->fds = NULL;
	if (f->cpu >= 0)
		sched_setaffinity(0, sizeof(f->old), &f->old);
}

/*
 * checked_with_a_list: FILL_CACHE checked with its list filled, then
 * check_every_cache; NULL, or why the tests skip: no list was non-empty
 * and none could be filled on purpose.  Otherwise it asserts that the
 * checks saw a non-empty list: sv->lists > 0, FILL_CACHE's counted in.
 */
static const char *checked_with_a_list(struct __test_metadata *_metadata, struct survey *sv,
				       struct fill *f)
{
	static char why[256];

	fill_begin(_metadata, f);
	check_every_cache(_metadata, sv);
	fill_end(f);
	ksft_print_msg("%s filled on CPU %d: slabs_cpu_partial %s\n", FILL_CACHE, f->cpu, f->line);
	sv->lists += f->lists;
	if (!sv->lists && f->why_not) {
		snprintf(why, sizeof(why), "no per-cpu partial list is non-empty, and %s",
			 f->why_not);
		return why;
	}
	ASSERT_LT(0, sv->lists)
		TH_LOG("no per-cpu partial list seen non-empty, %s's filled on CPU %d (%s)",
		       FILL_CACHE, f->cpu, f->line);
	return NULL;
}

/*
 * Every cache within its limit as the kernel has them (at boot, in the
 * boot tests), then again with one list filled on purpose, which the
 * checks must have seen: empty lists alone do not pass them.
 */
TEST(every_cache_within_its_limit)
{
	int caches = cpu_partial_caches();
	struct survey sv;
	struct fill fill;
	const char *why;

	why = no_survey(caches);
	if (why)
		SKIP(return, "%s", why);
	/* Any SLUB kernel has dozens (kmalloc-*, dentry, inode caches...). */
	ASSERT_GT(check_every_cache(_metadata, &sv), 20);
	why = checked_with_a_list(_metadata, &sv, &fill);
	if (why)
		SKIP(return, "%s", why);
}

/*
 * churn: creates and removes <files> small files in <dir>: dentries,
 * inodes and kmalloc objects come and go.
 */
static int churn(const char *dir, int files)
{
	char path[128];
	int i, fd;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, path, strlen(path)) < 0)
			return -1;
		close(fd);
	}
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	return rmdir(dir);
}

/*
 * After objects come and go from tasks on every CPU (one per online CPU,
 * the scheduler spreading them): slabs go onto and off the per-cpu
 * partial lists, and every cache stays within its limit; then again with
 * one list filled on purpose, which the checks must have seen.
 */
TEST(every_cache_within_its_limit_after_churn)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char base[] = "/tmp/slub_cpu_partial.XXXXXX";
	char dir[64];
	int caches = cpu_partial_caches();
	int status, failed = 0;
	struct survey sv;
	struct fill fill;
	const char *why;
	long i;

	why = no_survey(caches);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_NE(NULL, mkdtemp(base));
	if (cpus < 1)
		cpus = 1;
	for (i = 0; i < cpus; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			snprintf(dir, sizeof(dir), "%s/%ld", base, i);
			_exit(churn(dir, 1500) ? 1 : 0);
		}
	}
	while (wait(&status) > 0)
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	rmdir(base);
	ASSERT_EQ(0, failed)
		TH_LOG("%d churning tasks failed (files in %s)", failed, base);
	ASSERT_GT(check_every_cache(_metadata, &sv), 20);
	/* The same with a list filled on purpose, which they must have seen. */
	why = checked_with_a_list(_metadata, &sv, &fill);
	if (why)
		SKIP(return, "%s", why);
}

/* kmalloc-256's cpu_partial, put back after each test. */
FIXTURE(cpu_partial)
{
	char old[64];
};

FIXTURE_SETUP(cpu_partial)
{
	if (read_attr(WRITE_CACHE, "cpu_partial", self->old, sizeof(self->old)))
		SKIP(return, "no " SLAB_DIR "/" WRITE_CACHE "/cpu_partial");
	if (geteuid())
		SKIP(return, "writing cpu_partial needs root");
	/*
	 * 0: the cache keeps no per-cpu partial lists (CONFIG_SLUB_CPU_PARTIAL
	 * off, or a debugged cache), and refuses any other value.
	 */
	if (!strcmp(self->old, "0"))
		SKIP(return, WRITE_CACHE " has no per-cpu partial lists");
}

FIXTURE_TEARDOWN(cpu_partial)
{
	if (self->old[0])
		write_attr(WRITE_CACHE, "cpu_partial", self->old, strlen(self->old));
}

TEST_F(cpu_partial, write_reads_back)
{
	const char *why;

	ASSERT_EQ(0, write_attr(WRITE_CACHE, "cpu_partial", "30\n", 3));
	ASSERT_EQ(30, read_number(WRITE_CACHE, "cpu_partial"));
	why = check_cache(WRITE_CACHE, NULL);
	EXPECT_EQ(NULL, why)
		TH_LOG("%s", why);
	ASSERT_EQ(0, write_attr(WRITE_CACHE, "cpu_partial", "7", 1));
	ASSERT_EQ(7, read_number(WRITE_CACHE, "cpu_partial"));
}

/*
 * Each bad value (written with a newline, as echo does) refused with
 * kstrtouint()'s error, the value kept.
 */
TEST_F(cpu_partial, bad_input_refused)
{
	static char long_ones[4097];
	const struct {
		const char *name, *val;
		int err;
	} bad[] = {
		{ "empty", "", EINVAL },
		{ "space", " ", EINVAL },
		{ "negative", "-1", EINVAL },
		{ "word", "abc", EINVAL },
		{ "trailing", "1x", EINVAL },
		{ "2^32", "4294967296", ERANGE },
		{ "2^64", "18446744073709551616", ERANGE },
		{ "4096 digits", long_ones, ERANGE },
	};
	char buf[4098];
	unsigned int i;
	int len;

	memset(long_ones, '1', 4096);
	ASSERT_EQ(0, write_attr(WRITE_CACHE, "cpu_partial", "30", 2));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		len = snprintf(buf, sizeof(buf), "%s\n", bad[i].val);
		EXPECT_EQ(-bad[i].err, write_attr(WRITE_CACHE, "cpu_partial", buf, len))
			TH_LOG("writing %s: want %s", bad[i].name, strerror(bad[i].err));
		EXPECT_EQ(30, read_number(WRITE_CACHE, "cpu_partial"))
			TH_LOG("writing %s changed cpu_partial", bad[i].name);
	}
}

TEST_HARNESS_MAIN
