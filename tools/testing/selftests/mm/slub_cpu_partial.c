// SPDX-License-Identifier: GPL-2.0
/*
 * SLUB's per-cpu partial lists as user space sees them, in
 * /sys/kernel/slab/<cache>/: cpu_partial (the objects a CPU may keep on
 * partial slabs, writable), objs_per_slab, and slabs_cpu_partial, "<objects>
 * (<slabs>)" for the cache and " C<cpu>=<objects>(<slabs>)" for each CPU
 * whose list is not empty, where <objects> is an estimate: half of the
 * objects of <slabs> slabs.
 *
 * A CPU's list holds at most limit = DIV_ROUND_UP(2 * cpu_partial,
 * objs_per_slab) slabs (half-full slabs, mm/slub.c's
 * slub_set_cpu_partial()) as far as frees push onto it, a push onto a
 * full list draining it first; a refill from the node (get_partial_node())
 * pushes at most limit / 2 + 1 more without a drain, onto what an
 * interrupt's frees may have pushed since the list was found empty, so a
 * list may hold limit + limit / 2 + 1 slabs until a free drains it.  The
 * list filled on purpose (below), which nothing but the test touches,
 * must hold no more than the limit.  A write of cpu_partial takes a
 * decimal unsigned int and refuses anything else with the error of
 * kstrtouint(), keeping the value it had.
 *
 * slabs_cpu_partial reads each CPU's list without a lock: a list caught
 * as it changes, or a slab that left it, can show a wrong count once.
 * So a cache whose line looks wrong is read again, up to SETTLED_READS
 * times, and is wrong only if every read is: what a kernel keeps wrong
 * shows in each.  The line stops at PAGE_SIZE - 1 bytes (sysfs_emit_at()),
 * where many CPUs have lists: its last entry, cut there, is not checked.
 *
 * These hold for every SLUB kernel, whichever code keeps the lists.  The
 * checks of every cache would pass with every list empty, so each test
 * also fills one list on purpose (fill_begin()) and fails unless the
 * checks saw at least one non-empty list.  A kernel that keeps no per-cpu
 * partial lists skips them: with CONFIG_SLUB_CPU_PARTIAL off (or every
 * cache debugged) cpu_partial reads 0 for every cache and
 * slabs_cpu_partial "0(0)" (mm/slub.c's cpu_partial_show() and
 * slabs_cpu_partial_show()); so does one whose FILL_CACHE alone is
 * debugged, when no other list happens to be non-empty.
 *
 * churn_failslab: the series' churn driver (CONFIG_SLUB_CPU_PARTIAL_RUST_CHURN,
 * mm/slub_partial_churn.c) on its private caches, with the kernel's
 * failslab failing their allocations (fault_inject.c): see the fixture.
 * churn_cross_cpu: the churn driver on every CPU at once, then in rounds
 * whose every free is remote, its counters matching: see the fixture.
 *
 * Reads go through read_file() of thp_settings.c and knob_read_long();
 * writes through knob_write() (mm_knobs.c), which returns the write's
 * error (a bad value must be refused with kstrtouint()'s), a short write
 * counting as -EIO.
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "fault_inject.h"
#include "mm_knobs.h"
#include "thp_settings.h"
#include "vm_util.h"

#define SLAB_DIR "/sys/kernel/slab"
/* The cache the write tests use: in every kernel, never merged away. */
#define WRITE_CACHE "kmalloc-256"
/*
 * The cache whose list fill_begin() fills: struct file, which open() and
 * close() allocate and free on the caller's CPU, in every kernel, never
 * merged (SLAB_TYPESAFE_BY_RCU).
 */
#define FILL_CACHE "filp"
#define SETTLED_READS 5
#define NO_CPU_PARTIAL "no cache keeps per-cpu partial slabs (cpu_partial 0 everywhere: " \
	"CONFIG_SLUB_CPU_PARTIAL off, or slub_debug on every cache)"

/* attr_path: SLAB_DIR/<cache>/<attr> (a static buffer). */
static const char *attr_path(const char *cache, const char *attr)
{
	static char path[512];

	snprintf(path, sizeof(path), SLAB_DIR "/%s/%s", cache, attr);
	return path;
}

/* read_attr: <cache>/<attr> into buf, without the newline: 0, or -1. */
static int read_attr(const char *cache, const char *attr, char *buf, size_t size)
{
	int len = read_file(attr_path(cache, attr), buf, size);

	if (len <= 0)
		return -1;
	if (buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return 0;
}

/* read_number: <cache>/<attr> as one decimal number, or -1. */
static long read_number(const char *cache, const char *attr)
{
	return knob_read_long(attr_path(cache, attr));
}

/*
 * check_cache: slabs_cpu_partial of <cache> is well formed, each CPU's
 * estimate is half the objects of its slabs, each CPU listed (a non-empty
 * list) holds at least one slab and none more than a refill can leave
 * (limit + limit / 2 + 1), CPU <filled> no more than the limit.  Adds the
 * CPUs listed to *lists (when not NULL) if all is well.  Returns NULL, or
 * what is wrong (static buffer).
 */
static const char *check_cache(const char *cache, int filled, int *lists)
{
	static char why[1024], *line;
	long objects, per_slab, limit, most, o, n, cpu;
	int len, listed = 0;
	char *p, *end;

	objects = read_number(cache, "cpu_partial");
	per_slab = read_number(cache, "objs_per_slab");
	if (objects < 0 || per_slab < 1) {
		snprintf(why, sizeof(why), "%s: cpu_partial %ld, objs_per_slab %ld",
			 cache, objects, per_slab);
		return why;
	}
	/* sysfs shows PAGE_SIZE - 1 bytes at most. */
	if (!line)
		line = malloc(psize() + 1);
	len = line ? read_file(attr_path(cache, "slabs_cpu_partial"), line, psize() + 1) : 0;
	if (len <= 0) {
		snprintf(why, sizeof(why), "%s: slabs_cpu_partial unreadable", cache);
		return why;
	}
	if (line[len - 1] == '\n') {
		line[len - 1] = '\0';
	} else if (len == (int)psize() - 1 && strrchr(line, ' ')) {
		/* Cut by sysfs_emit_at(): the last entry, maybe partly there. */
		*strrchr(line, ' ') = '\0';
	} else {
		goto malformed;
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
		most = cpu == filled ? limit : limit + limit / 2 + 1;
		if (n > most) {
			snprintf(why, sizeof(why),
				 "%s: CPU %ld holds %ld slabs, at most %ld (%s; cpu_partial %ld, %ld per slab)",
				 cache, cpu, n, most, cpu == filled ? "filled: the limit" :
				 "the limit and a refill", objects, per_slab);
			return why;
		}
		if (o != n * per_slab / 2) {
			snprintf(why, sizeof(why),
				 "%s: CPU %ld estimates %ld objects on %ld slabs of %ld",
				 cache, cpu, o, n, per_slab);
			return why;
		}
		listed++;
	}
	if (lists)
		*lists += listed;
	return NULL;
malformed:
	snprintf(why, sizeof(why), "%s: malformed slabs_cpu_partial \"%.900s\"", cache, line);
	return why;
}

/*
 * check_cache_settled: check_cache() read again where it finds something
 * wrong, up to SETTLED_READS times: NULL once a read is right, or what the
 * last one found.
 */
static const char *check_cache_settled(const char *cache, int filled, int *lists)
{
	const char *why = NULL;
	int i;

	for (i = 0; i < SETTLED_READS; i++) {
		if (i)
			usleep(10000);
		why = check_cache(cache, filled, lists);
		if (!why)
			break;
	}
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
		why = check_cache_settled(d->d_name, -1, &lists);
		EXPECT_EQ(NULL, why)
			TH_LOG("%s (in each of %d reads)", why, SETTLED_READS);
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
 * directory.  0: CONFIG_SLUB_CPU_PARTIAL off (cpu_partial reads 0), or
 * every cache debugged.
 */
static int cpu_partial_caches(void)
{
	char line[8192];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	dir = opendir(SLAB_DIR);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (!read_attr(d->d_name, "slabs_cpu_partial", line, sizeof(line)) &&
		    read_number(d->d_name, "cpu_partial") > 0)
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * no_survey: why the every-cache tests cannot run (not root, no SLUB, no
 * per-cpu partial lists), or NULL when they can.
 */
static const char *no_survey(void)
{
	int caches;

	if (geteuid())
		return "reading " SLAB_DIR " needs root (its files are 0400 or 0600)";
	caches = cpu_partial_caches();
	if (caches < 0)
		return "no " SLAB_DIR ": not SLUB, or no sysfs";
	if (!caches)
		return NO_CPU_PARTIAL;
	return NULL;
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
	bool unfillable;	/* FILL_CACHE keeps no per-cpu partial slabs */
	int lists;		/* FILL_CACHE's non-empty lists, checked once filled */
	char line[1024];	/* its slabs_cpu_partial then, for the messages */
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
 * KASAN, does not come back) use the list up.  f->why_not says what went
 * wrong on the way; f->unfillable that FILL_CACHE has no per-cpu partial
 * slabs to fill (cpu_partial 0: the cache debugged).
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
		f->unfillable = true;
		return;
	}
	limit = (2 * objects + per_slab - 1) / per_slab;
	want = 2 * (limit + 4) * per_slab;
	if (want > 65536)
		want = 65536;
	/* Root may raise the hard limit too; else up to it. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)want + 64) {
		struct rlimit more = { (rlim_t)want + 64, (rlim_t)want + 64 };

		if (rl.rlim_max >= more.rlim_max)
			more.rlim_max = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &more)) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
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
	err = knob_write(attr_path(FILL_CACHE, "shrink"), "1", 1);
	if (err) {
		snprintf(f->shrink_err, sizeof(f->shrink_err),
			 "the shrink of " FILL_CACHE " failed: %s", strerror(-err));
		f->why_not = f->shrink_err;
	} else if (f->nr > 1) {
		/* The refill. */
		f->fds[1] = open("/", O_RDONLY);
	}
	why = check_cache_settled(FILL_CACHE, f->cpu, &f->lists);
	EXPECT_EQ(NULL, why)
		TH_LOG("%s (in each of %d reads)", why, SETTLED_READS);
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
 * check_every_cache.  Fails unless the checks saw a non-empty list
 * (sv->lists > 0, FILL_CACHE's counted in), whatever went wrong with the
 * fill; NULL, or why the test skips: no list was non-empty and FILL_CACHE
 * has none to fill (a kernel where other caches keep lists but it is
 * debugged, slub_debug=<flags>,filp).
 */
static const char *checked_with_a_list(struct __test_metadata *_metadata, struct survey *sv,
				       struct fill *f)
{
	fill_begin(_metadata, f);
	check_every_cache(_metadata, sv);
	fill_end(f);
	ksft_print_msg("%s filled on CPU %d: slabs_cpu_partial %s\n", FILL_CACHE, f->cpu, f->line);
	sv->lists += f->lists;
	if (!sv->lists && f->unfillable)
		return "no per-cpu partial list is non-empty, and " FILL_CACHE
		       " keeps none (cpu_partial 0: slub_debug on it?)";
	ASSERT_LT(0, sv->lists)
		TH_LOG("no per-cpu partial list seen non-empty, %s's filled on CPU %d (%s)%s%s",
		       FILL_CACHE, f->cpu, f->line, f->why_not ? ": " : "",
		       f->why_not ? f->why_not : "");
	return NULL;
}

/*
 * Every cache within its limit as the kernel has them (at boot, in the
 * boot tests), then again with one list filled on purpose, which the
 * checks must have seen: empty lists alone do not pass them.
 */
TEST(every_cache_within_its_limit)
{
	struct survey sv;
	struct fill fill;
	const char *why;

	why = no_survey();
	if (why)
		SKIP(return, "%s", why);
	/* Any SLUB kernel has dozens (kmalloc-*, dentry, inode caches...). */
	ASSERT_GT(check_every_cache(_metadata, &sv), 20);
	why = checked_with_a_list(_metadata, &sv, &fill);
	if (why)
		SKIP(return, "%s", why);
}

#define CHURN_FILES 1500

/*
 * churn: creates and removes CHURN_FILES small files in <dir>: dentries,
 * inodes and kmalloc objects come and go.  Removes what it created, also
 * where a file could not be made: 0, or -1 for a failure.
 */
static int churn(const char *dir)
{
	char path[128];
	int i, n, fd, err;
	ssize_t ret;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	for (n = 0; n < CHURN_FILES; n++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, n);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			break;
		ret = write(fd, path, strlen(path));
		close(fd);
		if (ret < 0) {
			n++;
			break;
		}
	}
	err = n < CHURN_FILES ? -1 : 0;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	return rmdir(dir) ? -1 : err;
}

/* churn_clean: what churning tasks killed on the way left in <base>. */
static void churn_clean(const char *base, long tasks)
{
	char path[128];
	long i, j;

	for (i = 0; i < tasks && rmdir(base); i++) {
		for (j = 0; j < CHURN_FILES; j++) {
			snprintf(path, sizeof(path), "%s/%ld/f%ld", base, i, j);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/%ld", base, i);
		rmdir(path);
	}
	rmdir(base);
}

/*
 * After objects come and go from tasks on every CPU (one per online CPU,
 * the scheduler spreading them): slabs go onto and off the per-cpu
 * partial lists, and every cache stays within its limit; then again with
 * one list filled on purpose, which the checks must have seen.  Every
 * churning task is waited for, and its files removed, before a check can
 * end the test.
 */
TEST(every_cache_within_its_limit_after_churn)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char base[] = "/tmp/slub_cpu_partial.XXXXXX";
	int status, fork_err = 0, failed = 0;
	char dir[64];
	struct survey sv;
	struct fill fill;
	const char *why;
	long i;

	why = no_survey();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_NE(NULL, mkdtemp(base));
	if (cpus < 1)
		cpus = 1;
	for (i = 0; i < cpus; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fork_err = errno;
			break;
		}
		if (!pid) {
			snprintf(dir, sizeof(dir), "%s/%ld", base, i);
			_exit(churn(dir) ? 1 : 0);
		}
	}
	while (wait(&status) > 0)
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	churn_clean(base, cpus);
	ASSERT_EQ(0, fork_err)
		TH_LOG("fork() of a churning task: %s", strerror(fork_err));
	ASSERT_EQ(0, failed)
		TH_LOG("%d of %ld churning tasks failed or were killed", failed, cpus);
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
	if (geteuid())
		SKIP(return, "writing cpu_partial needs root");
	if (read_attr(WRITE_CACHE, "cpu_partial", self->old, sizeof(self->old)))
		SKIP(return, "no " SLAB_DIR "/" WRITE_CACHE "/cpu_partial");
	/*
	 * 0: the cache keeps no per-cpu partial lists (CONFIG_SLUB_CPU_PARTIAL
	 * off, or a debugged cache), and refuses any other value.
	 */
	if (!strcmp(self->old, "0"))
		SKIP(return, "%s has no per-cpu partial lists (cpu_partial 0: %s)",
		     WRITE_CACHE, "CONFIG_SLUB_CPU_PARTIAL off, or slub_debug on it");
}

/*
 * In the parent of the test's process: 6.12's harness skips a
 * FIXTURE_TEARDOWN() in the test's process after a failed ASSERT there
 * when the compiler kept its "child" in a register (-Wclobbered); self,
 * which holds the value, is shared for this.
 */
FIXTURE_TEARDOWN_PARENT(cpu_partial)
{
	if (self->old[0])
		knob_write(attr_path(WRITE_CACHE, "cpu_partial"), self->old, strlen(self->old));
}

TEST_F(cpu_partial, write_reads_back)
{
	const char *why;

	ASSERT_EQ(0, knob_write(attr_path(WRITE_CACHE, "cpu_partial"), "30\n", 3));
	ASSERT_EQ(30, read_number(WRITE_CACHE, "cpu_partial"));
	why = check_cache_settled(WRITE_CACHE, -1, NULL);
	EXPECT_EQ(NULL, why)
		TH_LOG("%s (in each of %d reads)", why, SETTLED_READS);
	ASSERT_EQ(0, knob_write(attr_path(WRITE_CACHE, "cpu_partial"), "7", 1));
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
	ASSERT_EQ(0, knob_write(attr_path(WRITE_CACHE, "cpu_partial"), "30", 2));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		len = snprintf(buf, sizeof(buf), "%s\n", bad[i].val);
		EXPECT_EQ(-bad[i].err, knob_write(attr_path(WRITE_CACHE, "cpu_partial"), buf, len))
			TH_LOG("writing %s: want %s", bad[i].name, strerror(bad[i].err));
		EXPECT_EQ(30, read_number(WRITE_CACHE, "cpu_partial"))
			TH_LOG("writing %s changed cpu_partial", bad[i].name);
	}
}

/*
 * The churn driver (CONFIG_SLUB_CPU_PARTIAL_RUST_CHURN,
 * mm/slub_partial_churn.c): <n> written to its run file runs <n> rounds
 * on its private caches (CHURN_CACHES<object size>) in the writing task,
 * on the CPU it is on, each round checking that CPU's partial list; <n>
 * written to its remote file runs <n> rounds whose every free is remote
 * (each batch allocated on the writer's CPU, freed by a worker on the next
 * online CPU, which checks its own list; refused with ENODEV on one CPU);
 * its stats file holds its counters since boot, one "<name> <value>" a
 * line.
 */
#define CHURN_DRIVER DEBUGFS "/slub_partial_churn"
#define CHURN_CACHES "slub_partial_churn-"
#define CHURN_ROUNDS 100

struct churn_stats {
	long rounds, allocs, alloc_failures, frees, remote_frees, bound_violations;
	long outstanding;
};

/* churn_stats_read: the churn driver's counters into *st: 0, or -1. */
static int churn_stats_read(struct churn_stats *st)
{
	const struct {
		const char *name;
		long *v;
	} want[] = {
		{ "rounds", &st->rounds }, { "allocs", &st->allocs },
		{ "alloc_failures", &st->alloc_failures }, { "frees", &st->frees },
		{ "remote_frees", &st->remote_frees },
		{ "bound_violations", &st->bound_violations },
		{ "outstanding", &st->outstanding },
	};
	unsigned int i, found = 0;
	char name[32];
	FILE *f;
	long v;

	f = fopen(CHURN_DRIVER "/stats", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%31s %ld", name, &v) == 2)
		for (i = 0; i < ARRAY_SIZE(want); i++)
			if (!strcmp(name, want[i].name)) {
				*want[i].v = v;
				found++;
			}
	fclose(f);
	return found == ARRAY_SIZE(want) ? 0 : -1;
}

/*
 * churn_driver_need: the churn driver's files under debugfs, which is
 * mounted where it was not (*mounted then true, for debugfs_release()):
 * NULL; or why the test skips (a static buffer), with nothing left
 * mounted.
 */
static const char *churn_driver_need(bool *mounted)
{
	static char why[160];
	int err = debugfs_need(CHURN_DRIVER "/run", mounted);

	if (!err)
		return NULL;
	snprintf(why, sizeof(why), "no %s (%s): needs CONFIG_SLUB_CPU_PARTIAL_RUST_CHURN",
		 CHURN_DRIVER "/run", strerror(-err));
	return why;
}

/*
 * churn_writers: <rounds> written to the churn driver's run file by one
 * writer on each CPU of <cpus> at once, each kept on its CPU.  The
 * writers start together: each says it is ready, then spins until all
 * are (at most 10 s), as a run of a few hundred rounds can end before the
 * next writer is forked (a boot saw no remote free at all that way).
 * Returns, once every writer has ended, how many failed (a write refused,
 * a fork or an affinity that failed).
 */
static int churn_writers(const cpu_set_t *cpus, int rounds)
{
	struct {
		int ready, go;
	} *sync;
	int cpu, len, i, status, forked = 0, failed = 0;
	cpu_set_t one;
	time_t until;
	char buf[16];
	pid_t pid;

	sync = mmap(NULL, sizeof(*sync), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		    -1, 0);
	if (sync == MAP_FAILED)
		return CPU_COUNT(cpus);
	len = snprintf(buf, sizeof(buf), "%d", rounds);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, cpus))
			continue;
		pid = fork();
		if (pid < 0) {
			failed++;
			continue;
		}
		if (!pid) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (sched_setaffinity(0, sizeof(one), &one))
				_exit(1);
			__atomic_add_fetch(&sync->ready, 1, __ATOMIC_SEQ_CST);
			until = time(NULL) + 10;
			while (!__atomic_load_n(&sync->go, __ATOMIC_ACQUIRE) && time(NULL) < until)
				;
			_exit(knob_write(CHURN_DRIVER "/run", buf, len) ? 1 : 0);
		}
		forked++;
	}
	for (i = 0; i < 1000 && __atomic_load_n(&sync->ready, __ATOMIC_SEQ_CST) < forked; i++)
		usleep(10000);
	__atomic_store_n(&sync->go, 1, __ATOMIC_RELEASE);
	while (wait(&status) > 0)
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	munmap(sync, sizeof(*sync));
	return failed;
}

/*
 * The churn driver on every CPU with the kernel's fault injection
 * (Documentation/fault-injection/) failing its caches' allocations:
 * failslab (CONFIG_FAILSLAB), with cache-filter on, fails the allocations
 * of the caches marked in sysfs (/sys/kernel/slab/<cache>/failslab), here
 * the churn driver's private caches alone, in any task, GFP_KERNEL
 * allocations included (fault_inject.c).  Each injected failure is one
 * failed allocation the driver saw (no other cache may fail), no per-cpu
 * partial list broke its bound, no object is left, and the frees match
 * the allocations.
 *
 * The test arms failslab with times = FAULT_INJECT_TIMES; what is left of
 * it afterwards tells how many failures were injected (times decrements
 * once per injection), which the test prints ("injected <n>") and checks
 * against what it asked for.  The framework's probability draws from
 * get_random_u32_below() (no seed to fix), so a test by probability makes
 * enough calls that it injects nothing with probability below 1e-6; an
 * interval-based one (probability 100) is deterministic: any <interval>
 * consecutive calls hold one multiple of it.
 *
 * It skips where the kernel has no churn driver or no failslab, or where
 * someone else armed failslab; the teardown, in the parent, puts back
 * failslab's attributes and the caches' marks, and unmounts debugfs if
 * the test mounted it.
 */
FIXTURE(churn_failslab)
{
	struct fault_inject fi;
};

FIXTURE_VARIANT(churn_failslab)
{
	unsigned int probability;	/* failslab's, % */
	unsigned long interval;		/* failslab's */
};

/*
 * On every CPU at once.  A run makes at least 100 rounds x 32 allocations
 * (one CPU, one cache): P(nothing injected) <= 0.9^3200 < 1e-146.  The
 * count is exact: each injection is one failed allocation the driver
 * counted.
 */
FIXTURE_VARIANT_ADD(churn_failslab, probability_10)
{
	.probability = 10, .interval = 1,
};

/* Deterministic (one CPU): 3200 calls at least, so 457 injections at least. */
FIXTURE_VARIANT_ADD(churn_failslab, interval_7)
{
	.probability = 100, .interval = 7,
};

/* Only reads, and fault_inject_open() last: it leaves nothing mounted where it fails. */
FIXTURE_SETUP(churn_failslab)
{
	const char *why;
	bool mounted;

	if (geteuid())
		SKIP(return, "needs root: debugfs and " SLAB_DIR "/<cache>/failslab");
	why = churn_driver_need(&mounted);
	debugfs_release(&mounted);
	if (why)
		SKIP(return, "%s", why);
	why = fault_inject_open(&self->fi, FAULT_INJECT_SLAB, CHURN_CACHES);
	if (why)
		SKIP(return, "%s", why);
}

/* In the parent: 6.12's harness may skip a FIXTURE_TEARDOWN() (above). */
FIXTURE_TEARDOWN_PARENT(churn_failslab)
{
	fault_inject_close(&self->fi);
}

TEST_F_TIMEOUT(churn_failslab, failures_counted_nothing_left, 120)
{
	long r, a, f, fr, v, injected, ival = variant->interval;
	struct churn_stats before, after;
	int cpu, cpus, failed;
	cpu_set_t set;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	if (ival > 1) {
		/*
		 * One CPU (the first the test may run on: CPU 0 in the test
		 * guests): the fault attribute's call count is not atomic
		 * (should_fail_ex()'s count++), so calls from several CPUs
		 * at once could make the interval count inexact.
		 */
		for (cpu = 0; cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set); cpu++)
			;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
	}
	cpus = CPU_COUNT(&set);
	ASSERT_EQ(0, churn_stats_read(&before))
		TH_LOG("cannot read %s", CHURN_DRIVER "/stats");
	ASSERT_EQ(0, fault_inject_arm(&self->fi, variant->probability, ival));
	failed = churn_writers(&set, CHURN_ROUNDS);
	injected = fault_inject_disarm(&self->fi);
	ASSERT_EQ(0, failed)
		TH_LOG("%d of %d writes to %s failed", failed, cpus, CHURN_DRIVER "/run");
	ASSERT_LE(0, injected);
	ASSERT_EQ(0, churn_stats_read(&after))
		TH_LOG("cannot read %s", CHURN_DRIVER "/stats");
	r = after.rounds - before.rounds;
	a = after.allocs - before.allocs;
	f = after.alloc_failures - before.alloc_failures;
	fr = after.frees - before.frees;
	v = after.bound_violations - before.bound_violations;
	ksft_print_msg("churn on %d CPUs, probability %u%% interval %ld: %ld rounds, %ld allocations,\n",
		       cpus, variant->probability, ival, r, a);
	ksft_print_msg("injected %ld, failed %ld, %ld frees, %ld bound violations, %ld outstanding\n",
		       injected, f, fr, v, after.outstanding);

	EXPECT_EQ((long)CHURN_ROUNDS * cpus, r)
		TH_LOG("rounds: %ld", r);
	EXPECT_LT(0, injected);
	EXPECT_EQ(injected, f)
		TH_LOG("failed allocations %ld, injected failures %ld", f, injected);
	/*
	 * Every <ival>th of the a + f calls on the marked caches fails: the
	 * count is (a + f) / ival, rounded down or up.
	 */
	if (ival > 1) {
		EXPECT_LE((a + f) / ival, injected)
			TH_LOG("injected %ld, want %ld / %ld", injected, a + f, ival);
		EXPECT_GE((a + f + ival - 1) / ival, injected)
			TH_LOG("injected %ld, want %ld / %ld", injected, a + f, ival);
	}
	EXPECT_EQ(a, fr)
		TH_LOG("%ld allocations, %ld frees, %ld outstanding", a, fr, after.outstanding);
	EXPECT_EQ(0, after.outstanding)
		TH_LOG("%ld allocations, %ld frees, %ld outstanding", a, fr, after.outstanding);
	EXPECT_EQ(0, v)
		TH_LOG("per-cpu partial bound broken %ld times", v);
}

#define CHURN_ALL_CPUS_ROUNDS 200
#define CHURN_REMOTE_ROUNDS 100

/*
 * The churn driver on every CPU the test may run on at once
 * (CHURN_ALL_CPUS_ROUNDS rounds each, the writers started together by
 * churn_writers()), then CHURN_REMOTE_ROUNDS rounds of its remote file.
 * How many frees the run on every CPU makes remote rests on how the
 * writers interleave (from none to 17104 of 38400 in boots of the boot
 * test this was), so the remote rounds follow, every free of them remote.
 * Over what the counters moved: no allocation failed, the frees match the
 * allocations, no object is left, the remote rounds allocated and freed
 * remotely each object they allocated, and no per-cpu partial list broke
 * its bound (checked by the driver after each round, on the CPU that
 * freed).
 *
 * It skips without root, without the churn driver, or with one CPU to
 * run on; the teardown, in the parent, unmounts debugfs if the setup
 * mounted it.
 */
FIXTURE(churn_cross_cpu)
{
	cpu_set_t cpus;		/* the CPUs the test may run on */
	bool mounted;		/* debugfs, by the setup */
};

FIXTURE_SETUP(churn_cross_cpu)
{
	const char *why;

	if (geteuid())
		SKIP(return, "needs root: debugfs");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->cpus), &self->cpus));
	why = churn_driver_need(&self->mounted);
	if (why)
		SKIP(return, "%s", why);
	if (CPU_COUNT(&self->cpus) < 2) {
		debugfs_release(&self->mounted);
		SKIP(return, "one CPU to run on: no free can be remote");
	}
}

/* In the parent: 6.12's harness may skip a FIXTURE_TEARDOWN() (above). */
FIXTURE_TEARDOWN_PARENT(churn_cross_cpu)
{
	debugfs_release(&self->mounted);
}

TEST_F_TIMEOUT(churn_cross_cpu, counts_match, 120)
{
	long a, f, fr, v, rf, remote_a, remote_rf;
	struct churn_stats before, mid, after;
	int cpus = CPU_COUNT(&self->cpus), failed, err;

	ASSERT_EQ(0, churn_stats_read(&before))
		TH_LOG("cannot read %s", CHURN_DRIVER "/stats");
	failed = churn_writers(&self->cpus, CHURN_ALL_CPUS_ROUNDS);
	ASSERT_EQ(0, failed)
		TH_LOG("%d of %d writes to %s failed", failed, cpus, CHURN_DRIVER "/run");
	ASSERT_EQ(0, churn_stats_read(&mid))
		TH_LOG("cannot read %s", CHURN_DRIVER "/stats");
	err = knob_write_long(CHURN_DRIVER "/remote", CHURN_REMOTE_ROUNDS);
	ASSERT_EQ(0, err)
		TH_LOG("writing %d to %s: %s", CHURN_REMOTE_ROUNDS, CHURN_DRIVER "/remote",
		       strerror(-err));
	ASSERT_EQ(0, churn_stats_read(&after))
		TH_LOG("cannot read %s", CHURN_DRIVER "/stats");
	a = after.allocs - before.allocs;
	f = after.alloc_failures - before.alloc_failures;
	fr = after.frees - before.frees;
	v = after.bound_violations - before.bound_violations;
	rf = mid.remote_frees - before.remote_frees;
	remote_a = after.allocs - mid.allocs;
	remote_rf = after.remote_frees - mid.remote_frees;
	ksft_print_msg("%ld allocations, %ld failed, %ld frees (%ld remote on %d CPUs at once,\n",
		       a, f, fr, rf, cpus);
	ksft_print_msg("then %ld of %ld in remote rounds), %ld bound violations, %ld outstanding\n",
		       remote_rf, remote_a, v, after.outstanding);

	EXPECT_EQ(0, f)
		TH_LOG("%ld of %ld allocations failed", f, a + f);
	EXPECT_EQ(a, fr)
		TH_LOG("%ld allocations, %ld frees, %ld outstanding", a, fr, after.outstanding);
	EXPECT_EQ(0, after.outstanding)
		TH_LOG("%ld allocations, %ld frees, %ld outstanding", a, fr, after.outstanding);
	EXPECT_LT(0, remote_a)
		TH_LOG("remote rounds: %ld allocations, %ld remote frees", remote_a, remote_rf);
	EXPECT_EQ(remote_a, remote_rf)
		TH_LOG("remote rounds: %ld allocations, %ld remote frees", remote_a, remote_rf);
	EXPECT_EQ(0, v)
		TH_LOG("per-cpu partial bound broken %ld times", v);
}

TEST_HARNESS_MAIN
