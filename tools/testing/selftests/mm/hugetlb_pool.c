// SPDX-License-Identifier: GPL-2.0
/*
 * The hugetlb pool as user space sizes it: nr_hugepages, in /proc/sys/vm
 * for the default huge page size and in
 * /sys/kernel/mm/hugepages/hugepages-<size>kB/ for each size.
 *
 * bad_input: a write that is not one decimal unsigned long is refused
 * with the error of the file's parser (the sysctl's
 * proc_doulongvec_minmax(): EINVAL for anything it cannot read; sysfs's
 * kstrtoul(): EINVAL, or ERANGE for a number beyond an unsigned long),
 * and the pool keeps its size.
 *
 * restore_fails: shrinking a pool whose huge pages have their vmemmap
 * optimized (HVO, vm.hugetlb_optimize_vmemmap) first restores each
 * page's vmemmap, which allocates base pages.  With those allocations
 * failing (fault injection: fail_page_alloc, aimed with its stack filter
 * at __hugetlb_vmemmap_restore_folio() and at the shrinking task alone),
 * a page whose vmemmap cannot be restored is not freed: it stays in the
 * pool as a surplus page.  Afterwards every page is freed or surplus,
 * sysfs and /proc/meminfo agree, the failures injected are at least the
 * surplus pages, the surplus pages go once the injection stops, and the
 * free memory comes back.  Where every allocation fails, every page
 * stays.  Needs CONFIG_FAIL_PAGE_ALLOC with
 * CONFIG_FAULT_INJECTION_STACKTRACE_FILTER and debugfs, and HVO; skips
 * without them, and for a 1 GiB pool that finds no room.
 *
 * These hold for every kernel, whichever code frees the pool.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "knob_util.h"

#define SYSCTL_NR "/proc/sys/vm/nr_hugepages"
#define HVO "/proc/sys/vm/hugetlb_optimize_vmemmap"
#define POOLS "/sys/kernel/mm/hugepages"
#define FPA "/sys/kernel/debug/fail_page_alloc"
#define RESTORE_FN "__hugetlb_vmemmap_restore_folio"
/* fail_page_alloc's times: what is left of it counts the failures. */
#define FAULT_TIMES 1000000L
/* Free pages that may come and go around a test (per-cpu lists, slabs). */
#define FREE_PAGES_SLACK 384

static int write_str(const char *path, const char *val)
{
	return knob_write(path, val, strlen(val));
}

/* pool_file: <pool dir>/<name>. */
static const char *pool_file(const char *dir, const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static long pool_read(const char *dir, const char *name)
{
	return knob_read_long(pool_file(dir, name));
}

/*
 * empty_pool: the pool of <dir> shrunk to nothing.  A shrink frees
 * persistent pages only: surplus ones are made persistent first (a write
 * of the pool's size).
 */
static int empty_pool(const char *dir)
{
	long nr = pool_read(dir, "nr_hugepages");

	if (pool_read(dir, "surplus_hugepages") &&
	    knob_write_long(pool_file(dir, "nr_hugepages"), nr))
		return -1;
	return knob_write_long(pool_file(dir, "nr_hugepages"), 0);
}

/*
 * free_pages: the free base pages, per-cpu lists included, after every
 * cache shrank its slabs (so that slabs the test freed count).
 */
static long free_pages(void)
{
	char line[256], path[512];
	struct dirent *d;
	long n = 0, v;
	DIR *dir;
	FILE *f;

	dir = opendir("/sys/kernel/slab");
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", d->d_name);
		write_str(path, "1");
	}
	if (dir)
		closedir(dir);
	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " nr_free_pages %ld", &v) == 1 ||
		    sscanf(line, " count: %ld", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

/*
 * The bad values, written as "echo <value> > <file>" writes them (a
 * newline after).  nr_hugepages takes any unsigned long (2^32 is a valid
 * request for as many pages as fit), so 2^32 is not bad input here.
 */
enum bad_value { EMPTY, SPACE, NEGATIVE, WORD, TRAILING, TOO_BIG, LONG, LONG0, NR_BAD };

static const char * const bad_name[NR_BAD] = {
	"empty", "space", "negative", "word", "trailing", "2^64",
	"4096 ones", "1 in 4096 digits",
};

/* bad_write: the bytes of a bad value, with its newline, into buf. */
static size_t bad_write(enum bad_value v, char *buf)
{
	switch (v) {
	case EMPTY:
		return sprintf(buf, "\n");
	case SPACE:
		return sprintf(buf, "%c\n", ' ');
	case NEGATIVE:
		return sprintf(buf, "-1\n");
	case WORD:
		return sprintf(buf, "abc\n");
	case TRAILING:
		return sprintf(buf, "1x\n");
	case TOO_BIG:
		return sprintf(buf, "18446744073709551616\n");
	case LONG:
		memset(buf, '1', 4096);
		buf[4096] = '\n';
		return 4097;
	case LONG0:
		memset(buf, '0', 4095);
		buf[4095] = '1';
		buf[4096] = '\n';
		return 4097;
	default:
		return 0;
	}
}

FIXTURE(bad_input)
{
	char path[256];
};

/* errors[v]: the error the file's parser gives, 0 where v is not tried. */
FIXTURE_VARIANT(bad_input)
{
	const char *path;	/* NULL: the default size's sysfs file */
	int errors[NR_BAD];
};

/*
 * proc_doulongvec_minmax() reads at most 21 characters of a number:
 * anything longer, even a valid number with leading zeros, is EINVAL.
 */
FIXTURE_VARIANT_ADD(bad_input, sysctl)
{
	.path = SYSCTL_NR,
	.errors = { EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL },
};

/*
 * kstrtoul() gets the whole write, so 1 in 4096 digits is 1, good input
 * (not tried).
 */
FIXTURE_VARIANT_ADD(bad_input, sysfs)
{
	.path = NULL,
	.errors = { EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, ERANGE, ERANGE, 0 },
};

FIXTURE_SETUP(bad_input)
{
	long kb = meminfo_read("Hugepagesize");

	if (variant->path)
		snprintf(self->path, sizeof(self->path), "%s", variant->path);
	else
		snprintf(self->path, sizeof(self->path),
			 POOLS "/hugepages-%ldkB/nr_hugepages", kb);
	if (kb <= 0 || access(self->path, F_OK))
		SKIP(return, "no %s: no hugetlb", self->path);
	if (access(self->path, W_OK))
		SKIP(return, "%s not writable: needs root", self->path);
}

FIXTURE_TEARDOWN(bad_input)
{
}

TEST_F(bad_input, refused_and_pool_kept)
{
	static char buf[4100];
	long before = knob_read_long(self->path), after;
	int v, ret;

	ASSERT_LE(0, before);
	for (v = 0; v < NR_BAD; v++) {
		if (!variant->errors[v])
			continue;
		ret = knob_write(self->path, buf, bad_write(v, buf));
		EXPECT_EQ(-variant->errors[v], ret)
			TH_LOG("%s: \"%s\" gave %s, wanted %s", self->path, bad_name[v],
			       ret ? strerror(-ret) : "success", strerror(variant->errors[v]));
		after = knob_read_long(self->path);
		EXPECT_EQ(before, after)
			TH_LOG("%s: \"%s\" changed the pool from %ld to %ld pages",
			       self->path, bad_name[v], before, after);
		if (after != before)
			knob_write_long(self->path, before);
	}
}

/* The fail_page_alloc files the test sets, saved and put back. */
static const char * const fpa_files[] = {
	"probability", "interval", "times", "verbose", "space", "require-start",
	"require-end", "task-filter", "ignore-gfp-wait", "ignore-gfp-highmem",
	"min-order",
};

#define NR_FPA ARRAY_SIZE(fpa_files)

/*
 * kallsyms_range: the text of <fn> in /proc/kallsyms, from its address up
 * to the next symbol's: 0, or -1 where it is not there (or the addresses
 * are hidden).
 */
static int kallsyms_range(const char *fn, unsigned long *start, unsigned long *end)
{
	char line[512], name[256], type;
	unsigned long a;
	int pass;
	FILE *f;

	*start = 0;
	*end = ~0UL;
	for (pass = 0; pass < 2; pass++) {
		f = fopen("/proc/kallsyms", "r");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%lx %c %255s", &a, &type, name) != 3)
				continue;
			if (!pass && !strcmp(name, fn) && (type == 't' || type == 'T'))
				*start = a;
			else if (pass && a > *start && a < *end)
				*end = a;
		}
		fclose(f);
		if (!*start)
			return -1;
	}
	return *end == ~0UL ? -1 : 0;
}

FIXTURE(restore_fails)
{
	char dir[128];
	long pool;		/* the pool's size before */
	long hvo;		/* HVO before */
	char fpa[NR_FPA][64];	/* their values before, probability first */
	bool fpa_saved;		/* the above read: teardown puts them back */
	unsigned long start, end;	/* the restore's text */
	bool mounted;		/* debugfs mounted by the test */
};

FIXTURE_VARIANT(restore_fails)
{
	long kb;		/* the huge page size */
	long pages;		/* the pool shrunk */
	int probability;	/* fail_page_alloc's, % */
	long interval;		/* fail_page_alloc's */
	long surplus;		/* the pages that stay, -1: any */
};

/*
 * Every allocation failing: no vmemmap can be restored, every page stays.
 * A 2 MiB restore allocates 7 base pages, a 1 GiB one 4095.
 */
FIXTURE_VARIANT_ADD(restore_fails, 2m_every_alloc)
{
	.kb = 2048, .pages = 32, .probability = 100, .interval = 1, .surplus = 32,
};

/*
 * By probability, with enough restores that nothing injected is below one
 * in a million (each page's restore is at least one allocation):
 * 0.7^64 = 1.2e-10, 0.95^320 = 7.4e-8.
 */
FIXTURE_VARIANT_ADD(restore_fails, 2m_probability_30)
{
	.kb = 2048, .pages = 64, .probability = 30, .interval = 1, .surplus = -1,
};

FIXTURE_VARIANT_ADD(restore_fails, 2m_probability_5)
{
	.kb = 2048, .pages = 320, .probability = 5, .interval = 1, .surplus = -1,
};

/* Every 40th allocation: 64 pages hold at least one (deterministic). */
FIXTURE_VARIANT_ADD(restore_fails, 2m_interval_40)
{
	.kb = 2048, .pages = 64, .probability = 100, .interval = 40, .surplus = -1,
};

FIXTURE_VARIANT_ADD(restore_fails, 1g_every_alloc)
{
	.kb = 1048576, .pages = 1, .probability = 100, .interval = 1, .surplus = 1,
};

/* One in 100 of 4095 allocations: nothing injected, 0.99^4095 = 1.3e-18. */
FIXTURE_VARIANT_ADD(restore_fails, 1g_probability_1)
{
	.kb = 1048576, .pages = 1, .probability = 1, .interval = 1, .surplus = -1,
};

/*
 * Every 1000th allocation: each try to restore the page's 4095 fails
 * within its first 1000, so the page stays (deterministic).
 */
FIXTURE_VARIANT_ADD(restore_fails, 1g_interval_1000)
{
	.kb = 1048576, .pages = 1, .probability = 100, .interval = 1000, .surplus = 1,
};

static const char *fpa_file(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), FPA "/%s", name);
	return path;
}

FIXTURE_SETUP(restore_fails)
{
	size_t i;

	self->fpa_saved = false;
	self->mounted = false;
	snprintf(self->dir, sizeof(self->dir), POOLS "/hugepages-%ldkB", variant->kb);
	if (geteuid())
		SKIP(return, "needs root: the pool, HVO and fault injection");
	if (access("/sys/kernel/debug/fail_page_alloc", F_OK))
		self->mounted = !mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(FPA, F_OK))
		SKIP(return, "no " FPA ": needs CONFIG_FAIL_PAGE_ALLOC and debugfs");
	if (access(FPA "/require-start", F_OK))
		SKIP(return, "no " FPA "/require-start: needs CONFIG_FAULT_INJECTION_STACKTRACE_FILTER");
	if (access(self->dir, F_OK))
		SKIP(return, "no %s", self->dir);
	if (access(HVO, F_OK))
		SKIP(return, "no " HVO ": no HVO in this kernel");
	if (kallsyms_range(RESTORE_FN, &self->start, &self->end))
		SKIP(return, "no " RESTORE_FN " in /proc/kallsyms");
	/* A pool in use is not this test's to shrink. */
	if (pool_read(self->dir, "free_hugepages") != pool_read(self->dir, "nr_hugepages") ||
	    pool_read(self->dir, "resv_hugepages") || pool_read(self->dir, "surplus_hugepages"))
		SKIP(return, "%s: pages in use, reserved or surplus", self->dir);

	/*
	 * Only reads here: teardown does not run after a failed assertion in
	 * setup.  The test changes the settings (arm()), teardown puts back
	 * what was read.
	 */
	for (i = 0; i < NR_FPA; i++) {
		const char *path = fpa_file(fpa_files[i]);

		ASSERT_EQ(0, knob_read(path, self->fpa[i], sizeof(self->fpa[i])))
			TH_LOG("cannot read %s", path);
	}
	self->hvo = knob_read_long(HVO);
	self->pool = pool_read(self->dir, "nr_hugepages");
	ASSERT_LE(0, self->hvo);
	ASSERT_LE(0, self->pool);
	self->fpa_saved = true;
}

FIXTURE_TEARDOWN(restore_fails)
{
	size_t i;

	/*
	 * The probability first, so that nothing fails while the rest is put
	 * back, and its own value last.
	 */
	if (self->fpa_saved) {
		write_str(fpa_file("probability"), "0");
		for (i = 0; i < NR_FPA; i++)
			if (strcmp(fpa_files[i], "probability"))
				write_str(fpa_file(fpa_files[i]), self->fpa[i]);
		write_str(fpa_file("probability"), self->fpa[0]);
		/* HVO before the pool grows back, as it was. */
		knob_write_long(HVO, self->hvo);
		empty_pool(self->dir);
		knob_write_long(pool_file(self->dir, "nr_hugepages"), self->pool);
	}
	if (self->mounted)
		umount("/sys/kernel/debug");
}

/*
 * arm: the pool of the test's size empty, HVO on, and fail_page_alloc
 * aimed at the allocations made under the restore, of any order, by the
 * tasks marked make-it-fail, quietly, with the probability still 0.
 */
static void arm(struct __test_metadata *_metadata, const char *dir, unsigned long start,
		unsigned long end)
{
	char buf[32];

	ASSERT_EQ(0, knob_write_long(pool_file(dir, "nr_hugepages"), 0));
	ASSERT_EQ(0, write_str(HVO, "1\n"));
	snprintf(buf, sizeof(buf), "0x%lx", start);
	ASSERT_EQ(0, write_str(fpa_file("require-start"), buf));
	snprintf(buf, sizeof(buf), "0x%lx", end);
	ASSERT_EQ(0, write_str(fpa_file("require-end"), buf));
	ASSERT_EQ(0, write_str(fpa_file("task-filter"), "Y"));
	ASSERT_EQ(0, write_str(fpa_file("ignore-gfp-wait"), "N"));
	ASSERT_EQ(0, write_str(fpa_file("ignore-gfp-highmem"), "N"));
	ASSERT_EQ(0, write_str(fpa_file("min-order"), "0"));
	ASSERT_EQ(0, write_str(fpa_file("verbose"), "0"));
	ASSERT_EQ(0, write_str(fpa_file("space"), "0"));
	ASSERT_EQ(0, write_str(fpa_file("probability"), "0"));
}

/*
 * shrink_failing: the pool of <dir> shrunk to 0 by a child marked
 * make-it-fail, so that only its allocations fail: 0, or -1 where the
 * write failed.
 */
static int shrink_failing(const char *dir)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (write_str("/proc/self/make-it-fail", "1"))
			_exit(2);
		_exit(write_str(pool_file(dir, "nr_hugepages"), "0\n") ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * pool_agrees: the pool holds <total> free pages, <surplus> of them
 * surplus, in sysfs and in /proc/meminfo (whose Hugetlb: counts every
 * size, <hugetlb_kb> without this pool; its HugePages_ lines the default
 * size).
 */
static bool pool_agrees(struct __test_metadata *_metadata, const char *dir, long kb,
			long total, long surplus, long hugetlb_kb)
{
	long nr = pool_read(dir, "nr_hugepages"), fr = pool_read(dir, "free_hugepages");
	long su = pool_read(dir, "surplus_hugepages"), hk = meminfo_read("Hugetlb");
	bool ok = nr == total && fr == total && su == surplus &&
		  hk == hugetlb_kb + total * kb;

	if (ok && kb == meminfo_read("Hugepagesize"))
		ok = meminfo_read("HugePages_Total") == total &&
		     meminfo_read("HugePages_Free") == total &&
		     meminfo_read("HugePages_Surp") == surplus;
	if (!ok)
		TH_LOG("%s: want %ld pages, %ld surplus; sysfs: nr %ld free %ld surplus %ld; meminfo: Hugetlb %ld kB (%ld without the pool), HugePages_Total %ld Free %ld Surp %ld",
		       dir, total, surplus, nr, fr, su, hk, hugetlb_kb,
		       meminfo_read("HugePages_Total"), meminfo_read("HugePages_Free"),
		       meminfo_read("HugePages_Surp"));
	return ok;
}

TEST_F(restore_fails, kept_as_surplus_then_freed)
{
	long hugetlb_kb, before, after, times, injected, surplus;
	char buf[32];

	arm(_metadata, self->dir, self->start, self->end);
	hugetlb_kb = meminfo_read("Hugetlb");
	ASSERT_LE(0, hugetlb_kb);
	before = free_pages();
	ASSERT_LT(0, before);
	ASSERT_EQ(0, knob_write_long(pool_file(self->dir, "nr_hugepages"), variant->pages));
	if (pool_read(self->dir, "nr_hugepages") != variant->pages && variant->kb >= 1048576)
		SKIP(return, "no room for %ld 1 GiB page(s)", variant->pages);
	ASSERT_TRUE(pool_agrees(_metadata, self->dir, variant->kb, variant->pages, 0, hugetlb_kb));

	snprintf(buf, sizeof(buf), "%ld", variant->interval);
	ASSERT_EQ(0, write_str(fpa_file("interval"), buf));
	snprintf(buf, sizeof(buf), "%ld", FAULT_TIMES);
	ASSERT_EQ(0, write_str(fpa_file("times"), buf));
	snprintf(buf, sizeof(buf), "%d", variant->probability);
	ASSERT_EQ(0, write_str(fpa_file("probability"), buf));
	ASSERT_EQ(0, shrink_failing(self->dir));
	ASSERT_EQ(0, write_str(fpa_file("probability"), "0"));
	times = knob_read_long(fpa_file("times"));
	ASSERT_LE(0, times);
	injected = FAULT_TIMES - times;
	surplus = pool_read(self->dir, "surplus_hugepages");
	ksft_print_msg("%s: %ld pages, probability %d%% interval %ld: %ld failures injected, %ld pages kept as surplus, %ld freed\n",
		       self->dir, variant->pages,
		       variant->probability, variant->interval, injected, surplus,
		       variant->pages - surplus);

	/* Each page freed or kept, and only a page whose restore failed kept. */
	EXPECT_TRUE(pool_agrees(_metadata, self->dir, variant->kb, surplus, surplus, hugetlb_kb));
	EXPECT_LT(0, injected);
	EXPECT_LE(surplus, injected);
	if (variant->surplus >= 0)
		EXPECT_EQ(variant->surplus, surplus);

	/* Without the injection the surplus pages go, and the memory comes back. */
	ASSERT_EQ(0, empty_pool(self->dir));
	EXPECT_TRUE(pool_agrees(_metadata, self->dir, variant->kb, 0, 0, hugetlb_kb));
	after = free_pages();
	ksft_print_msg("free pages: %ld before, %ld after\n", before, after);
	EXPECT_GT(FREE_PAGES_SLACK, before - after);
}

TEST_HARNESS_MAIN
