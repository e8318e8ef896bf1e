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
 * grow_shrink: a pool of 128 pages of 2 MiB, or one of 1 GiB, grown and
 * shrunk to 0 with HVO (vm.hugetlb_optimize_vmemmap) on or off: sysfs and
 * /proc/meminfo agree with the pool at each step, and the free memory
 * comes back (within less than half a huge page and at most 1 MiB, so
 * that a folio lost shows; measured up to 3 times).  Where the kernel
 * has the series' counters (/sys/kernel/debug/hugetlb_bulk_free,
 * CONFIG_HUGETLB_BULK_FREE_DEBUG), the shrink is exactly one bulk free,
 * with one hugetlb_lock cycle and one TLB flush with HVO, none without,
 * and no failure injected.
 *
 * surplus_return: with the 2 MiB pool empty and 8 pages of overcommit, an
 * untouched private MAP_HUGETLB mapping of 16 MiB reserves 8 surplus
 * pages (HugePages_Total, _Rsvd and _Surp 8); unmapping it releases the
 * reservation, and return_unused_surplus_pages() frees the 8 pages: the
 * pool is empty again and the memory back.  With the series' counters,
 * that is one bulk free, through C and through Rust (the debugfs switch
 * hugetlb_bulk_free/rust at 0, then 1, then put back; calls_c and
 * calls_rust, with CONFIG_MM_IMPL_SWITCH_CALLS, tell which ran).
 *
 * restore_fails: shrinking a pool whose huge pages have their vmemmap
 * optimized first restores each page's vmemmap, which allocates base
 * pages.  With those allocations failing (fail_page_alloc, aimed with its
 * stack filter at __hugetlb_vmemmap_restore_folio() and at the shrinking
 * task alone: fault_inject.c), a page whose vmemmap cannot be restored is
 * not freed: it stays in the pool as a surplus page.  Afterwards every
 * page is freed or surplus, sysfs and /proc/meminfo agree, the failures
 * injected are at least the surplus pages, the surplus pages go once the
 * injection stops, and the free memory comes back.  Where every
 * allocation fails, every page stays.
 *
 * mixed_list: 4 pages grown with HVO, then 4 without, the 8 shrunk with
 * every restore failing: the 4 optimized pages stay as surplus pages, the
 * 4 plain ones are freed without a restore tried on them, and the kernel
 * logs no "WARNING:" (/dev/kmsg).  With the series' restore (its debugfs
 * counters present) the failures are exactly 10: the batch's restore
 * fails at the first optimized page, then each of the 4 alone, two
 * injections each (the bulk allocation, then the first single page).
 *
 * fail_first: one 1 GiB page grown with HVO and shrunk in one bulk free
 * whose vmemmap restores fail by the series' own injection (debugfs
 * hugetlb_bulk_free/fail_first 1, fail_count 1 or every one, 2^32 - 1).
 * The batch's restore fails first; the folio is then restored alone, which
 * succeeds with one failure (1g_once: the page freed, 1 injected) and
 * fails again with every one failing (1g_every: the page kept as a
 * surplus page, 2 injected).  Sysfs and /proc/meminfo agree, the surplus
 * page goes once the injection stops, and the free memory comes back.
 *
 * The fault cases need CONFIG_FAIL_PAGE_ALLOC with
 * CONFIG_FAULT_INJECTION_STACKTRACE_FILTER and debugfs, and HVO;
 * fail_first the series' CONFIG_HUGETLB_BULK_FREE_DEBUG and HVO.  Every
 * case skips, naming what is missing, where the kernel lacks what it
 * needs (HVO: no /proc/sys/vm/hugetlb_optimize_vmemmap, as on 6.12's
 * arm64), where a pool is in use, where a pool finds no room to grow,
 * where 1 GiB pages are there already (from boot: a shrink may not get
 * them back) or cannot be allocated at run time (CONFIG_CONTIG_ALLOC),
 * or where someone else armed fail_page_alloc or fail_first; it leaves
 * the pool, HVO, overcommit, the fault attributes, fail_first and
 * fail_count, and the switch as it found them, and unmounts debugfs if it
 * mounted it.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mman.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "fault_inject.h"
#include "mm_knobs.h"
#include "vm_util.h"

#define SYSCTL_NR "/proc/sys/vm/nr_hugepages"
#define HVO "/proc/sys/vm/hugetlb_optimize_vmemmap"
#define POOLS "/sys/kernel/mm/hugepages"
#define BULK DEBUGFS "/hugetlb_bulk_free"
#define RESTORE_FN "__hugetlb_vmemmap_restore_folio"
#define NO_HVO "no " HVO ": no HVO in this kernel (CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP)"
#define NO_BULK "no " BULK ": needs the series' CONFIG_HUGETLB_BULK_FREE_DEBUG"
#define KB_2M 2048L
#define KB_1G 1048576L
/*
 * The free memory that may come and go around a test (other tasks, the
 * page cache) at most, in bytes; less where half a huge page is less.
 */
#define FREE_SLACK_BYTES (1024L * 1024)
/* The free pages measured this many times before a test fails on them. */
#define FREE_TRIES 3

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
 * pool_write: <name> of the pool of <dir> set to <v>; a refusal fails.
 * Also for a file of the series' debugfs (<dir> BULK).
 */
static void pool_write(struct __test_metadata *_metadata, const char *dir,
		       const char *name, long v)
{
	int err = knob_write_long(pool_file(dir, name), v);

	ASSERT_EQ(0, err)
		TH_LOG("%s/%s = %ld: %s", dir, name, v, strerror(-err));
}

/* hvo_write: HVO (vm.hugetlb_optimize_vmemmap) set to <v>; a refusal fails. */
static void hvo_write(struct __test_metadata *_metadata, long v)
{
	int err = knob_write_long(HVO, v);

	ASSERT_EQ(0, err)
		TH_LOG("%s = %ld: %s", HVO, v, strerror(-err));
}

/*
 * empty_pool: the pool of <dir> shrunk to nothing.  A shrink frees
 * persistent pages only: surplus ones are made persistent first (a write
 * of the pool's size).
 */
static void empty_pool(struct __test_metadata *_metadata, const char *dir)
{
	if (pool_read(dir, "surplus_hugepages"))
		pool_write(_metadata, dir, "nr_hugepages", pool_read(dir, "nr_hugepages"));
	pool_write(_metadata, dir, "nr_hugepages", 0);
}

/*
 * What a test changes of a pool, saved by its setup and put back by its
 * teardown.
 */
struct pool {
	char dir[128];
	long kb;		/* the huge page size */
	long size;		/* nr_hugepages before */
	long overcommit;	/* nr_overcommit_hugepages before */
	long hvo;		/* HVO before, -1: no HVO sysctl */
	bool saved;
};

/*
 * gigantic: pages of <kb> come from the buddy allocator only through
 * alloc_contig_range() (CONFIG_CONTIG_ALLOC) or at boot: 1 GiB at every
 * base page size this test knows.
 */
static bool gigantic(long kb)
{
	return kb >= KB_1G;
}

/*
 * grow_to: the pool grown to <n> pages: true; or false where it skipped
 * (the pool emptied again): no room, or gigantic pages refused at run
 * time (set_max_huge_pages()'s EINVAL without CONFIG_CONTIG_ALLOC).  Any
 * other refusal fails.
 */
static bool grow_to(struct __test_metadata *_metadata, const struct pool *p, long n)
{
	int err = knob_write_long(pool_file(p->dir, "nr_hugepages"), n);
	long nr = pool_read(p->dir, "nr_hugepages");

	if (err && gigantic(p->kb)) {
		empty_pool(_metadata, p->dir);
		SKIP(return false, "%s/nr_hugepages = %ld: %s: %s", p->dir, n, strerror(-err),
		     "gigantic pages at run time need CONFIG_CONTIG_ALLOC");
	}
	ASSERT_EQ(0, err)
		TH_LOG("%s/nr_hugepages = %ld: %s", p->dir, n, strerror(-err));
	if (nr != n) {
		empty_pool(_metadata, p->dir);
		SKIP(return false, "no room for %ld pages of %ld kB: the pool grew to %ld",
		     n, p->kb, nr);
	}
	return true;
}

/*
 * pool_unusable: why the pool of <kb> pages is not for this test (needs
 * HVO where <hvo>), or NULL.  Only reads.
 */
static const char *pool_unusable(struct pool *p, long kb, bool hvo)
{
	static char why[256];
	long nr;

	p->kb = kb;
	snprintf(p->dir, sizeof(p->dir), POOLS "/hugepages-%ldkB", kb);
	if (geteuid())
		return "needs root: the pool, HVO and debugfs";
	if (access(p->dir, F_OK)) {
		snprintf(why, sizeof(why), "no %s: no %ld kB huge pages in this kernel",
			 p->dir, kb);
		return why;
	}
	if (hvo && access(HVO, F_OK))
		return NO_HVO;
	/* A pool in use is not this test's to shrink. */
	nr = pool_read(p->dir, "nr_hugepages");
	if (pool_read(p->dir, "free_hugepages") != nr ||
	    pool_read(p->dir, "resv_hugepages") || pool_read(p->dir, "surplus_hugepages")) {
		snprintf(why, sizeof(why), "%s: pages in use, reserved or surplus", p->dir);
		return why;
	}
	/* Gigantic pages freed may not come back (boot time ones, say). */
	if (gigantic(kb) && nr) {
		snprintf(why, sizeof(why), "%s: %ld pages there: a shrink may not get them back",
			 p->dir, nr);
		return why;
	}
	return NULL;
}

static void pool_save(struct pool *p)
{
	p->size = pool_read(p->dir, "nr_hugepages");
	p->overcommit = pool_read(p->dir, "nr_overcommit_hugepages");
	p->hvo = knob_read_long(HVO);
	p->saved = true;
}

/* pool_put_back: as pool_save() found it, HVO first; never exits. */
static void pool_put_back(struct pool *p)
{
	long nr;

	if (!p->saved)
		return;
	if (p->hvo >= 0)
		knob_write_long(HVO, p->hvo);
	knob_write_long(pool_file(p->dir, "nr_overcommit_hugepages"), p->overcommit);
	nr = pool_read(p->dir, "nr_hugepages");
	if (pool_read(p->dir, "surplus_hugepages"))
		knob_write_long(pool_file(p->dir, "nr_hugepages"), nr);
	knob_write_long(pool_file(p->dir, "nr_hugepages"), 0);
	if (knob_write_long(pool_file(p->dir, "nr_hugepages"), p->size) ||
	    pool_read(p->dir, "nr_hugepages") != p->size)
		fprintf(stderr, "# %s: cannot put the pool back to %ld pages\n", p->dir, p->size);
	p->saved = false;
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
		knob_write(path, "1", 1);
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
 * pool_agrees: the pool holds <total> free pages, <surplus> of them
 * surplus, in sysfs and in /proc/meminfo (whose Hugetlb: counts every
 * size, <hugetlb_kb> without this pool; its HugePages_ lines the default
 * size).
 */
static bool pool_agrees(struct __test_metadata *_metadata, const struct pool *p,
			long total, long surplus, long hugetlb_kb)
{
	long nr = pool_read(p->dir, "nr_hugepages"), fr = pool_read(p->dir, "free_hugepages");
	long su = pool_read(p->dir, "surplus_hugepages"), hk = meminfo_read("Hugetlb");
	bool ok = nr == total && fr == total && su == surplus &&
		  hk == hugetlb_kb + total * p->kb;

	if (ok && p->kb == meminfo_read("Hugepagesize"))
		ok = meminfo_read("HugePages_Total") == total &&
		     meminfo_read("HugePages_Free") == total &&
		     meminfo_read("HugePages_Surp") == surplus;
	if (!ok) {
		TH_LOG("%s: want %ld pages, %ld surplus; sysfs: nr %ld free %ld surplus %ld",
		       p->dir, total, surplus, nr, fr, su);
		TH_LOG("meminfo: Hugetlb %ld kB (%ld kB without the pool)", hk, hugetlb_kb);
		TH_LOG("meminfo: HugePages_Total %ld, HugePages_Free %ld, HugePages_Surp %ld",
		       meminfo_read("HugePages_Total"), meminfo_read("HugePages_Free"),
		       meminfo_read("HugePages_Surp"));
	}
	return ok;
}

/*
 * free_pages_back: the free pages are back within a slack below half a
 * huge page of <p> (so that one huge page lost shows at any base page
 * size) and FREE_SLACK_BYTES; measured up to FREE_TRIES times, a short
 * while apart, before the test fails (another task may hold some pages
 * for a moment).
 */
static void free_pages_back(struct __test_metadata *_metadata, const struct pool *p,
			    long before)
{
	long bytes = p->kb * 1024 / 2 < FREE_SLACK_BYTES ? p->kb * 1024 / 2 : FREE_SLACK_BYTES;
	long slack = bytes / psize(), after = before;
	int i;

	for (i = 0; i < FREE_TRIES; i++) {
		if (i)
			usleep(200 * 1000);
		after = free_pages();
		ksft_print_msg("free pages: %ld before, %ld after (tolerance %ld, try %d)\n",
			       before, after, slack, i + 1);
		if (before - after < slack)
			break;
	}
	EXPECT_GT(slack, before - after)
		TH_LOG("%ld free pages not back after %d tries", before - after, FREE_TRIES);
}

/*
 * The series' counters (hugetlb_bulk_free in debugfs), as a test reads
 * them before and after what it does.
 */
enum bulk_stat { FREES, LOCKS, FLUSHES, INJECTED, CALLS_C, CALLS_RUST, NR_BULK };

static const char * const bulk_name[NR_BULK] = {
	"bulk_frees", "lock_cycles", "tlb_flushes", "injected_failures", "calls_c",
	"calls_rust",
};

static void bulk_read(long v[NR_BULK])
{
	char path[128];
	int i;

	for (i = 0; i < NR_BULK; i++) {
		snprintf(path, sizeof(path), BULK "/%s", bulk_name[i]);
		v[i] = knob_read_long(path);
	}
}

/* bulk_since: what moved since <v> was read, in <v>. */
static void bulk_since(long v[NR_BULK])
{
	long now[NR_BULK];
	int i;

	bulk_read(now);
	for (i = 0; i < NR_BULK; i++)
		v[i] = now[i] - v[i];
}

/*
 * bulk_open: the series' counters, debugfs mounted for them where it was
 * not (*mounted): NULL, or why not.
 */
static const char *bulk_open(bool *mounted)
{
	if (debugfs_need(BULK, mounted))
		return NO_BULK;
	/* The series' own injection must be off. */
	if (knob_read_long(BULK "/fail_first") > 0) {
		debugfs_release(mounted);
		return BULK "/fail_first is set: its failure injection is in use";
	}
	return NULL;
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
	unsigned long kb = default_huge_page_size() / 1024;

	if (variant->path)
		snprintf(self->path, sizeof(self->path), "%s", variant->path);
	else
		snprintf(self->path, sizeof(self->path),
			 POOLS "/hugepages-%lukB/nr_hugepages", kb);
	if (!kb || access(self->path, F_OK))
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

FIXTURE(grow_shrink)
{
	struct pool pool;
	bool mounted;		/* debugfs, by the test */
};

FIXTURE_VARIANT(grow_shrink)
{
	long kb;		/* the huge page size */
	int hvo;		/* HVO while the pool grows */
	long pages;
};

FIXTURE_VARIANT_ADD(grow_shrink, 2m_hvo_on)
{
	.kb = KB_2M, .hvo = 1, .pages = 128,
};

FIXTURE_VARIANT_ADD(grow_shrink, 2m_hvo_off)
{
	.kb = KB_2M, .hvo = 0, .pages = 128,
};

FIXTURE_VARIANT_ADD(grow_shrink, 1g_hvo_on)
{
	.kb = KB_1G, .hvo = 1, .pages = 1,
};

FIXTURE_VARIANT_ADD(grow_shrink, 1g_hvo_off)
{
	.kb = KB_1G, .hvo = 0, .pages = 1,
};

/* Only reads: a skip here leaves nothing (teardown may not run). */
FIXTURE_SETUP(grow_shrink)
{
	const char *why = pool_unusable(&self->pool, variant->kb, variant->hvo);

	if (why)
		SKIP(return, "%s", why);
	pool_save(&self->pool);
}

/* In the parent: whatever the test process did, even exit(). */
FIXTURE_TEARDOWN_PARENT(grow_shrink)
{
	pool_put_back(&self->pool);
	debugfs_release(&self->mounted);
}

/*
 * grow_shrink_cycle: the pool emptied, HVO as the variant, grown to its
 * pages and shrunk to 0, checked after each; in <moved> (where not NULL)
 * what the shrink moved of the series' counters.  False where it skipped
 * (no room).
 */
static bool grow_shrink_cycle(struct __test_metadata *_metadata, const struct pool *p,
			      int hvo, long pages, long moved[NR_BULK])
{
	long hugetlb_kb, before;

	empty_pool(_metadata, p->dir);
	if (p->hvo >= 0)
		hvo_write(_metadata, hvo);
	hugetlb_kb = meminfo_read("Hugetlb");
	before = free_pages();
	if (!grow_to(_metadata, p, pages))
		return false;
	EXPECT_TRUE(pool_agrees(_metadata, p, pages, 0, hugetlb_kb));
	if (moved)
		bulk_read(moved);
	pool_write(_metadata, p->dir, "nr_hugepages", 0);
	if (moved)
		bulk_since(moved);
	EXPECT_TRUE(pool_agrees(_metadata, p, 0, 0, hugetlb_kb));
	free_pages_back(_metadata, p, before);
	return true;
}

TEST_F_TIMEOUT(grow_shrink, pool_freed, 180)
{
	grow_shrink_cycle(_metadata, &self->pool, variant->hvo, variant->pages, NULL);
}

/* The shrink, one bulk free: its lock cycles and flushes, HVO's alone. */
TEST_F_TIMEOUT(grow_shrink, one_bulk_free, 180)
{
	const char *why = bulk_open(&self->mounted);
	long moved[NR_BULK];

	if (why)
		SKIP(return, "%s", why);
	if (!grow_shrink_cycle(_metadata, &self->pool, variant->hvo, variant->pages, moved))
		return;
	ksft_print_msg("%s, HVO %d, %ld pages shrunk by %s: %ld bulk free(s),\n",
		       self->pool.dir, variant->hvo, variant->pages,
		       knob_read_long(BULK "/rust") == 1 ? "Rust" : "C", moved[FREES]);
	ksft_print_msg("%ld lock cycle(s), %ld TLB flush(es), %ld failure(s) injected\n",
		       moved[LOCKS], moved[FLUSHES], moved[INJECTED]);
	EXPECT_EQ(1, moved[FREES]);
	EXPECT_EQ(variant->hvo, moved[LOCKS]);
	EXPECT_EQ(variant->hvo, moved[FLUSHES]);
	EXPECT_EQ(0, moved[INJECTED]);
}

#define SURPLUS 8

FIXTURE(surplus_return)
{
	struct pool pool;
	bool mounted;		/* debugfs, by the test */
	long rust;		/* the switch before, where saved */
	bool rust_saved;
};

FIXTURE_SETUP(surplus_return)
{
	const char *why = pool_unusable(&self->pool, KB_2M, false);

	if (why)
		SKIP(return, "%s", why);
	pool_save(&self->pool);
}

FIXTURE_TEARDOWN_PARENT(surplus_return)
{
	if (self->rust_saved)
		knob_write_long(BULK "/rust", self->rust);
	pool_put_back(&self->pool);
	debugfs_release(&self->mounted);
}

/*
 * surplus_cycle: 16 MiB mapped with the pool empty and 8 pages of
 * overcommit, the reservation checked, unmapped, the pool checked empty.
 * False where it skipped (no room for the surplus pages).
 */
static bool surplus_cycle(struct __test_metadata *_metadata, const struct pool *p,
			  long hugetlb_kb)
{
	size_t size = SURPLUS * p->kb * 1024;
	long nr = -1, rsvd = -1, surp = -1, total = -1, mrsvd = -1, msurp = -1;
	bool is_default = p->kb == meminfo_read("Hugepagesize");
	int err;
	char *m;

	pool_write(_metadata, p->dir, "nr_overcommit_hugepages", SURPLUS);
	m = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
		 (__builtin_ctzl(p->kb * 1024) << MAP_HUGE_SHIFT), -1, 0);
	err = errno;
	if (m != MAP_FAILED) {
		nr = pool_read(p->dir, "nr_hugepages");
		rsvd = pool_read(p->dir, "resv_hugepages");
		surp = pool_read(p->dir, "surplus_hugepages");
		if (is_default) {
			total = meminfo_read("HugePages_Total");
			mrsvd = meminfo_read("HugePages_Rsvd");
			msurp = meminfo_read("HugePages_Surp");
		}
		munmap(m, size);
	}
	pool_write(_metadata, p->dir, "nr_overcommit_hugepages", p->overcommit);
	if (m == MAP_FAILED && err == ENOMEM)
		SKIP(return false, "no room for %d surplus pages of %ld kB", SURPLUS, p->kb);
	ASSERT_NE(MAP_FAILED, m)
		TH_LOG("mmap of %zu MiB MAP_HUGETLB: %s", size >> 20, strerror(err));
	ksft_print_msg("%zu MiB mapped: %s: nr %ld, resv %ld, surplus %ld\n",
		       size >> 20, p->dir, nr, rsvd, surp);
	ksft_print_msg("meminfo: HugePages_Total %ld, HugePages_Rsvd %ld, HugePages_Surp %ld\n",
		       total, mrsvd, msurp);
	EXPECT_EQ(SURPLUS, nr);
	EXPECT_EQ(SURPLUS, rsvd);
	EXPECT_EQ(SURPLUS, surp);
	if (is_default) {
		EXPECT_EQ(SURPLUS, total);
		EXPECT_EQ(SURPLUS, mrsvd);
		EXPECT_EQ(SURPLUS, msurp);
	}
	/* Unmapped: the reservation released, the surplus pages freed. */
	EXPECT_TRUE(pool_agrees(_metadata, p, 0, 0, hugetlb_kb));
	return true;
}

TEST_F_TIMEOUT(surplus_return, pool_back, 180)
{
	long hugetlb_kb, before;

	empty_pool(_metadata, self->pool.dir);
	hugetlb_kb = meminfo_read("Hugetlb");
	before = free_pages();
	if (surplus_cycle(_metadata, &self->pool, hugetlb_kb))
		free_pages_back(_metadata, &self->pool, before);
}

/*
 * One bulk free, through each implementation (each alone); which one ran
 * is checked where the kernel counts the calls of each.
 */
TEST_F_TIMEOUT(surplus_return, one_bulk_free_each_impl, 180)
{
	const char *why = bulk_open(&self->mounted);
	long hugetlb_kb, before, moved[NR_BULK];
	bool calls;
	int impl, err;

	if (why)
		SKIP(return, "%s", why);
	calls = !access(BULK "/calls_c", F_OK) && !access(BULK "/calls_rust", F_OK);
	if (!calls)
		ksft_print_msg("no %s/calls_c, calls_rust (%s): which one ran is not checked\n",
			       BULK, "CONFIG_MM_IMPL_SWITCH_CALLS");
	empty_pool(_metadata, self->pool.dir);
	hugetlb_kb = meminfo_read("Hugetlb");
	before = free_pages();
	self->rust = knob_read_long(BULK "/rust");
	ASSERT_LE(0, self->rust)
		TH_LOG("no " BULK "/rust: the implementation switch");
	self->rust_saved = true;
	for (impl = 0; impl < 2; impl++) {
		err = knob_write_long(BULK "/rust", impl);
		ASSERT_EQ(0, err)
			TH_LOG(BULK "/rust = %d: %s", impl, strerror(-err));
		bulk_read(moved);
		if (!surplus_cycle(_metadata, &self->pool, hugetlb_kb))
			return;
		bulk_since(moved);
		ksft_print_msg("%s: %ld bulk free(s); calls_c +%ld, calls_rust +%ld\n",
			       impl ? "Rust" : "C", moved[FREES], moved[CALLS_C],
			       moved[CALLS_RUST]);
		EXPECT_EQ(1, moved[FREES]);
		/* The one selected ran, the other did not. */
		if (calls) {
			EXPECT_LT(0, moved[impl ? CALLS_RUST : CALLS_C]);
			EXPECT_EQ(0, moved[impl ? CALLS_C : CALLS_RUST]);
		}
	}
	knob_write_long(BULK "/rust", self->rust);
	self->rust_saved = false;
	free_pages_back(_metadata, &self->pool, before);
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
		if (fault_inject_mark_self())
			_exit(2);
		_exit(knob_write_long(pool_file(dir, "nr_hugepages"), 0) ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

FIXTURE(restore_fails)
{
	struct pool pool;
	struct fault_inject fi;
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
	.kb = KB_2M, .pages = 32, .probability = 100, .interval = 1, .surplus = 32,
};

/*
 * By probability, with enough restores that nothing injected is below one
 * in a million (each page's restore is at least one allocation):
 * 0.7^64 = 1.2e-10, 0.95^320 = 7.4e-8.
 */
FIXTURE_VARIANT_ADD(restore_fails, 2m_probability_30)
{
	.kb = KB_2M, .pages = 64, .probability = 30, .interval = 1, .surplus = -1,
};

FIXTURE_VARIANT_ADD(restore_fails, 2m_probability_5)
{
	.kb = KB_2M, .pages = 320, .probability = 5, .interval = 1, .surplus = -1,
};

/* Every 40th allocation: 64 pages hold at least one (deterministic). */
FIXTURE_VARIANT_ADD(restore_fails, 2m_interval_40)
{
	.kb = KB_2M, .pages = 64, .probability = 100, .interval = 40, .surplus = -1,
};

FIXTURE_VARIANT_ADD(restore_fails, 1g_every_alloc)
{
	.kb = KB_1G, .pages = 1, .probability = 100, .interval = 1, .surplus = 1,
};

/* One in 100 of 4095 allocations: nothing injected, 0.99^4095 = 1.3e-18. */
FIXTURE_VARIANT_ADD(restore_fails, 1g_probability_1)
{
	.kb = KB_1G, .pages = 1, .probability = 1, .interval = 1, .surplus = -1,
};

/*
 * Every 1000th allocation: each try to restore the page's 4095 fails
 * within its first 1000, so the page stays (deterministic).
 */
FIXTURE_VARIANT_ADD(restore_fails, 1g_interval_1000)
{
	.kb = KB_1G, .pages = 1, .probability = 100, .interval = 1000, .surplus = 1,
};

/*
 * Only reads, and fault_inject_open() last: it leaves nothing mounted
 * where it fails, and nothing after it can.
 */
FIXTURE_SETUP(restore_fails)
{
	const char *why = pool_unusable(&self->pool, variant->kb, true);

	if (why)
		SKIP(return, "%s", why);
	why = fault_inject_open(&self->fi, FAULT_INJECT_PAGE, RESTORE_FN);
	if (why)
		SKIP(return, "%s", why);
	pool_save(&self->pool);
}

/* The injection off first, then the pool, in the parent. */
FIXTURE_TEARDOWN_PARENT(restore_fails)
{
	fault_inject_close(&self->fi);
	pool_put_back(&self->pool);
}

TEST_F_TIMEOUT(restore_fails, kept_as_surplus_then_freed, 180)
{
	const struct pool *p = &self->pool;
	long hugetlb_kb, before, injected, surplus;

	empty_pool(_metadata, p->dir);
	hvo_write(_metadata, 1);
	hugetlb_kb = meminfo_read("Hugetlb");
	before = free_pages();
	if (!grow_to(_metadata, p, variant->pages))
		return;
	ASSERT_TRUE(pool_agrees(_metadata, p, variant->pages, 0, hugetlb_kb));

	ASSERT_EQ(0, fault_inject_arm(&self->fi, variant->probability, variant->interval));
	ASSERT_EQ(0, shrink_failing(p->dir));
	injected = fault_inject_disarm(&self->fi);
	ASSERT_LE(0, injected);
	surplus = pool_read(p->dir, "surplus_hugepages");
	ksft_print_msg("%s: %ld pages, probability %d%% interval %ld: %ld failures injected,\n",
		       p->dir, variant->pages, variant->probability, variant->interval, injected);
	ksft_print_msg("%ld pages kept as surplus, %ld freed\n",
		       surplus, variant->pages - surplus);

	/* Each page freed or kept, and only a page whose restore failed kept. */
	EXPECT_TRUE(pool_agrees(_metadata, p, surplus, surplus, hugetlb_kb));
	EXPECT_LT(0, injected);
	EXPECT_LE(surplus, injected);
	if (variant->surplus >= 0)
		EXPECT_EQ(variant->surplus, surplus);

	/* Without the injection the surplus pages go, and the memory comes back. */
	empty_pool(_metadata, p->dir);
	EXPECT_TRUE(pool_agrees(_metadata, p, 0, 0, hugetlb_kb));
	free_pages_back(_metadata, p, before);
}

/* kmsg_open: /dev/kmsg at its end (what is logged from now on), or -1. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* kmsg_count: the records logged since kmsg_open() holding <what>, shown. */
static long kmsg_count(int fd, const char *what)
{
	static char rec[8192];
	long found = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* records overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, what)) {
			found++;
			ksft_print_msg("kernel: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
		}
	}
	return found;
}

FIXTURE(mixed_list)
{
	struct pool pool;
	struct fault_inject fi;
};

FIXTURE_SETUP(mixed_list)
{
	const char *why = pool_unusable(&self->pool, KB_2M, true);

	if (why)
		SKIP(return, "%s", why);
	if (access("/dev/kmsg", R_OK))
		SKIP(return, "/dev/kmsg: %s: the kernel log is read for warnings",
		     strerror(errno));
	why = fault_inject_open(&self->fi, FAULT_INJECT_PAGE, RESTORE_FN);
	if (why)
		SKIP(return, "%s", why);
	pool_save(&self->pool);
}

FIXTURE_TEARDOWN_PARENT(mixed_list)
{
	fault_inject_close(&self->fi);
	pool_put_back(&self->pool);
}

/*
 * A shrink list holding optimized folios ahead of plain ones (HVO turned
 * off between two grows), every restore failing.
 */
TEST_F_TIMEOUT(mixed_list, optimized_kept_plain_freed, 180)
{
	const struct pool *p = &self->pool;
	long hugetlb_kb, injected, warnings;
	bool series;
	int kmsg;

	empty_pool(_metadata, p->dir);
	hugetlb_kb = meminfo_read("Hugetlb");
	hvo_write(_metadata, 1);
	if (!grow_to(_metadata, p, 4))
		return;
	hvo_write(_metadata, 0);
	if (!grow_to(_metadata, p, 8))
		return;
	ASSERT_TRUE(pool_agrees(_metadata, p, 8, 0, hugetlb_kb));

	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg)
		TH_LOG("/dev/kmsg: %s", strerror(errno));
	ASSERT_EQ(0, fault_inject_arm(&self->fi, 100, 1));
	ASSERT_EQ(0, shrink_failing(p->dir));
	injected = fault_inject_disarm(&self->fi);
	/*
	 * Any WARNING the kernel logged during the shrink counts, not only a
	 * WARN of the vmemmap restore or of the free path: the window is this
	 * one write, and a warning from elsewhere in it is worth a look too.
	 */
	warnings = kmsg_count(kmsg, "WARNING:");
	close(kmsg);
	series = !access(BULK, F_OK);
	ksft_print_msg("4 optimized and 4 plain pages, every restore failing:\n");
	ksft_print_msg("%ld failures injected,\n", injected);
	ksft_print_msg("%ld pages kept as surplus, %ld warnings\n",
		       pool_read(p->dir, "surplus_hugepages"), warnings);

	EXPECT_EQ(0, warnings);
	EXPECT_TRUE(pool_agrees(_metadata, p, 4, 4, hugetlb_kb));
	if (series) {
		/* 10, not 12: the plain pages never had a restore tried. */
		EXPECT_EQ(10, injected);
	} else {
		ksft_print_msg("%s: the count of failures is not checked\n", NO_BULK);
		EXPECT_LE(4, injected);
	}
	empty_pool(_metadata, p->dir);
	EXPECT_TRUE(pool_agrees(_metadata, p, 0, 0, hugetlb_kb));
}

FIXTURE(fail_first)
{
	struct pool pool;
	bool mounted;		/* debugfs, by the setup */
	long fail_count;	/* hugetlb_bulk_free/fail_count before */
};

FIXTURE_VARIANT(fail_first)
{
	long fail_count;	/* the restores failing from the first on */
	long surplus;		/* the pages that stay */
	long injected;		/* the failures injected */
};

/*
 * One restore failing, the batch's: the folio's own restore, tried after
 * it, succeeds, and the page is freed.
 */
FIXTURE_VARIANT_ADD(fail_first, 1g_once)
{
	.fail_count = 1, .surplus = 0, .injected = 1,
};

/*
 * Every restore failing (fail_count a u32, 2^32 - 1 every one): the
 * batch's, then the folio's alone, and the page stays as a surplus page.
 */
FIXTURE_VARIANT_ADD(fail_first, 1g_every)
{
	.fail_count = 4294967295L, .surplus = 1, .injected = 2,
};

/*
 * Only reads but for bulk_open(), which mounts debugfs where it is not: a
 * skip after it unmounts it again (no teardown runs after a skip here).
 */
FIXTURE_SETUP(fail_first)
{
	const char *why = pool_unusable(&self->pool, KB_1G, true);

	if (why)
		SKIP(return, "%s", why);
	why = bulk_open(&self->mounted);
	if (why)
		SKIP(return, "%s", why);
	self->fail_count = knob_read_long(BULK "/fail_count");
	if (self->fail_count < 0 || access(BULK "/fail_first", W_OK)) {
		debugfs_release(&self->mounted);
		SKIP(return, "no %s/fail_first, fail_count: %s", BULK,
		     "needs the series' CONFIG_HUGETLB_BULK_FREE_DEBUG");
	}
	pool_save(&self->pool);
}

/* The injection off first (bulk_open() found fail_first 0), then the pool. */
FIXTURE_TEARDOWN_PARENT(fail_first)
{
	knob_write_long(BULK "/fail_first", 0);
	knob_write_long(BULK "/fail_count", self->fail_count);
	pool_put_back(&self->pool);
	debugfs_release(&self->mounted);
}

/*
 * The shrink of the one optimized page, one bulk free with its restores
 * failing from the first on: the batch's restore, then the folio's alone
 * (the variant's counts).
 */
TEST_F_TIMEOUT(fail_first, retry_or_surplus, 180)
{
	const struct pool *p = &self->pool;
	long hugetlb_kb, before, moved[NR_BULK];

	empty_pool(_metadata, p->dir);
	hvo_write(_metadata, 1);
	hugetlb_kb = meminfo_read("Hugetlb");
	before = free_pages();
	if (!grow_to(_metadata, p, 1))
		return;
	ASSERT_TRUE(pool_agrees(_metadata, p, 1, 0, hugetlb_kb));

	bulk_read(moved);
	pool_write(_metadata, BULK, "fail_count", variant->fail_count);
	pool_write(_metadata, BULK, "fail_first", 1);
	pool_write(_metadata, p->dir, "nr_hugepages", 0);
	pool_write(_metadata, BULK, "fail_first", 0);
	bulk_since(moved);
	ksft_print_msg("%s: 1 page, fail_count %ld: %ld bulk free(s), %ld failure(s) injected,\n",
		       p->dir, variant->fail_count, moved[FREES], moved[INJECTED]);
	ksft_print_msg("%ld page(s) kept as surplus\n", pool_read(p->dir, "surplus_hugepages"));

	EXPECT_TRUE(pool_agrees(_metadata, p, variant->surplus, variant->surplus, hugetlb_kb));
	EXPECT_EQ(1, moved[FREES]);
	EXPECT_EQ(variant->injected, moved[INJECTED]);

	/* Without the injection the surplus page goes, and the memory comes back. */
	empty_pool(_metadata, p->dir);
	EXPECT_TRUE(pool_agrees(_metadata, p, 0, 0, hugetlb_kb));
	free_pages_back(_metadata, p, before);
}

TEST_HARNESS_MAIN
