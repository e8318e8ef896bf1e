// SPDX-License-Identifier: GPL-2.0
/*
 * Huge folios a process faults in read zero, through every caller of
 * folio_zero_user(), with the batched clearing of the mm-rust series
 * (CONFIG_CLEAR_PAGES_BATCH, mm/clear_pages_batch.c) and with 6.12's
 * per-page loop, selected through /sys/kernel/debug/clear_pages/batched.
 *
 * Each variant is a case and a clearing.  The cases: anonymous THP
 * ("always"; read faults first without the huge zero page, thp_rw, or
 * write faults, thp_w), THP on "madvise" after MADV_HUGEPAGE (thp_madvise),
 * a 64 KiB mTHP size alone (mthp), MAP_HUGETLB 2 MiB and 1 GiB pages
 * (hugetlb_2m, hugetlb_1g), a file on a hugetlbfs mount of 2 MiB pages
 * fallocate()d and read (fallocate; mounted nowhere, with fsmount(), and
 * gone with the test's process), and a 2 MiB MFD_HUGETLB memfd (memfd).
 * Anonymous memory is mapped alone between PROT_NONE guards, so that its
 * mapping is one VMA of its own in /proc/self/smaps.
 *
 * faults_zero maps the case's memory, writes a pattern over all of it,
 * frees it, maps it again the same way (the freed pages likely to come
 * back), faults it in as the case says and checks that every byte reads
 * zero.  A huge page must have been used by that mapping: THP mapped by
 * PMD in it (AnonHugePages of its smaps entry, check_huge_anon()), large
 * folios heading pages of it (mTHP: its pagemap and /proc/kpageflags;
 * where those cannot be read, the global hugepages-64kB anon_fault_alloc
 * grown), the hugetlb mapping or fallocate() succeeded (hugetlb cannot
 * fall back).  It passes on any kernel; without the series' switch it
 * says that the clearing was not selected.
 *
 * clearing_counted faults the case in once, likewise, and checks the
 * counters of /sys/kernel/debug/clear_pages: with "batched" the stats'
 * "folios" and calls_batched grew by at least the huge folios the mapping
 * was seen to hold (at least one) and calls_per_page not at all; with
 * "per_page" the reverse, and "folios" did not move.  The counters are
 * global, but the switch is too: another process can only add to the
 * lower bounds, never to what must stay 0.  It skips without that
 * directory (CONFIG_CLEAR_PAGES_BATCH off), mounting debugfs where it is
 * not mounted.
 *
 * A case without its page size or THP skips in the setup, which changes
 * nothing.  Each test then changes, in its own body, what the case needs:
 * the THP files (the PMD size alone, or the 64 KiB size alone), the
 * switch, the hugetlb pool (grown by what the case needs; the test skips
 * where it cannot get the pages: one 1 GiB page at most where the
 * kernel has no room), debugfs mounted, each write's error failing the
 * test.  Every file written is saved first into the fixture, which the
 * harness shares with its parent, and put back by the teardown there,
 * which 6.12's harness runs once the setup completed, however the test
 * ended (but after a timeout of the harness, which kills the test's
 * process group first).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kernel-page-flags.h>
#include <linux/mman.h>
#include <linux/memfd.h>
#include <linux/mount.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "mm_knobs.h"
#include "thp_settings.h"
#include "vm_util.h"

#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"
#define MTHP_ALLOC	THP_DIR "/hugepages-64kB/stats/anon_fault_alloc"
#define HUGETLB_DIR	"/sys/kernel/mm/hugepages"
#define CP_DIR		DEBUGFS "/clear_pages"
#define SZ_2M		(2UL << 20)
#define SZ_1G		(1024UL << 20)

enum kind {
	FC_THP_RW, FC_THP_W, FC_THP_MADVISE, FC_MTHP,
	FC_HUGETLB_2M, FC_HUGETLB_1G, FC_FALLOCATE, FC_MEMFD,
};

static const char * const kind_name[] = {
	[FC_THP_RW] = "thp-rw", [FC_THP_W] = "thp-w", [FC_THP_MADVISE] = "thp-madvise",
	[FC_MTHP] = "mthp", [FC_HUGETLB_2M] = "hugetlb-2m", [FC_HUGETLB_1G] = "hugetlb-1g",
	[FC_FALLOCATE] = "fallocate", [FC_MEMFD] = "memfd",
};

static bool is_thp(enum kind k)
{
	return k == FC_THP_RW || k == FC_THP_W || k == FC_THP_MADVISE;
}

/* The counters of the clearing: the switch's calls and the stats' folios. */
struct clear_counts {
	long folios, batched, per_page;
};

static void read_clear_counts(struct clear_counts *c)
{
	char line[128];
	FILE *f;

	c->folios = -1;
	f = fopen(CP_DIR "/stats", "r");
	if (f) {
		if (check_for_pattern(f, "folios ", line, sizeof(line)))
			c->folios = strtol(line + strlen("folios "), NULL, 10);
		fclose(f);
	}
	c->batched = knob_read_long(CP_DIR "/calls_batched");
	c->per_page = knob_read_long(CP_DIR "/calls_per_page");
}

/*
 * hugetlbfs_mount: a hugetlbfs of 2 MiB pages mounted nowhere (fsopen(),
 * fsmount()): its fd, gone with it, or -errno.
 */
static int hugetlbfs_mount(void)
{
	int fs, mnt, err;

	fs = syscall(__NR_fsopen, "hugetlbfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if (syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "pagesize", "2M", 0) ||
	    syscall(__NR_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		err = -errno;
		close(fs);
		return err;
	}
	mnt = syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	err = -errno;
	close(fs);
	return mnt < 0 ? err : mnt;
}

FIXTURE(clear_zero)
{
	size_t size;		/* the memory of the case */
	size_t hpage;		/* its huge page size, 0 for THP and mTHP */
	int pmd_order, mthp_order;
	int mnt;		/* the hugetlbfs mount (fallocate), or -1 */
	char pool[128];		/* the hugetlb size's nr_hugepages, or "" */
	struct knobs knobs;	/* the files the test changed */
	bool debugfs_mounted;	/* by the test, for the teardown to unmount */
	bool counters;		/* CP_DIR is there, its switch selected */
	char no_counters[128];	/* why not */
	char no_room[320];	/* why the pool lacks the case's pages, or "" */
	char why[256];		/* a write that failed */
};

FIXTURE_VARIANT(clear_zero)
{
	enum kind kind;
	int batched;		/* 1: batched clearing, 0: per page */
};

FIXTURE_VARIANT_ADD(clear_zero, thp_rw_batched)
{
	.kind = FC_THP_RW,
	.batched = 1,
};

FIXTURE_VARIANT_ADD(clear_zero, thp_rw_per_page)
{
	.kind = FC_THP_RW,
	.batched = 0,
};

FIXTURE_VARIANT_ADD(clear_zero, thp_w_batched)
{
	.kind = FC_THP_W,
	.batched = 1,
};

FIXTURE_VARIANT_ADD(clear_zero, thp_w_per_page)
{
	.kind = FC_THP_W,
	.batched = 0,
};

FIXTURE_VARIANT_ADD(clear_zero, thp_madvise_batched)
{
	.kind = FC_THP_MADVISE,
	.batched = 1,
};

FIXTURE_VARIANT_ADD(clear_zero, thp_madvise_per_page)
{
	.kind = FC_THP_MADVISE,
	.batched = 0,
};

FIXTURE_VARIANT_ADD(clear_zero, mthp_batched)
{
	.kind = FC_MTHP,
	.batched = 1,
};

FIXTURE_VARIANT_ADD(clear_zero, mthp_per_page)
{
	.kind = FC_MTHP,
	.batched = 0,
};

FIXTURE_VARIANT_ADD(clear_zero, hugetlb_2m_batched)
{
	.kind = FC_HUGETLB_2M,
	.batched = 1,
};

FIXTURE_VARIANT_ADD(clear_zero, hugetlb_2m_per_page)
{
	.kind = FC_HUGETLB_2M,
	.batched = 0,
};

FIXTURE_VARIANT_ADD(clear_zero, hugetlb_1g_batched)
{
	.kind = FC_HUGETLB_1G,
	.batched = 1,
};

FIXTURE_VARIANT_ADD(clear_zero, hugetlb_1g_per_page)
{
	.kind = FC_HUGETLB_1G,
	.batched = 0,
};

FIXTURE_VARIANT_ADD(clear_zero, fallocate_batched)
{
	.kind = FC_FALLOCATE,
	.batched = 1,
};

FIXTURE_VARIANT_ADD(clear_zero, fallocate_per_page)
{
	.kind = FC_FALLOCATE,
	.batched = 0,
};

FIXTURE_VARIANT_ADD(clear_zero, memfd_batched)
{
	.kind = FC_MEMFD,
	.batched = 1,
};

FIXTURE_VARIANT_ADD(clear_zero, memfd_per_page)
{
	.kind = FC_MEMFD,
	.batched = 0,
};

/*
 * The skips, before anything changes: not root, no THP or no such size, no
 * hugetlb pages of the size, no hugetlbfs mount.
 */
FIXTURE_SETUP(clear_zero)
{
	enum kind k = variant->kind;
	unsigned long orders, pmd = read_pmd_pagesize();

	self->mnt = -1;
	self->mthp_order = __builtin_ctzl((64UL << 10) / psize());
	if (geteuid())
		SKIP(return, "needs root: THP settings, hugetlb pools, debugfs");
	if (is_thp(k) || k == FC_MTHP) {
		if (access(THP_DIR "/enabled", F_OK) || !pmd)
			SKIP(return, "no THP (CONFIG_TRANSPARENT_HUGEPAGE off)");
		self->pmd_order = __builtin_ctzl(pmd / psize());
		orders = thp_supported_orders();
		if (k == FC_MTHP && (!(orders & (1UL << self->mthp_order)) ||
				     knob_read_long(MTHP_ALLOC) < 0))
			SKIP(return, "no 64 KiB mTHP size with stats (a kernel before 6.9)");
		if (is_thp(k) && !(orders & (1UL << self->pmd_order)))
			SKIP(return, "no hugepages-%lukB in " THP_DIR, pmd >> 10);
		self->size = is_thp(k) ? 4 * pmd : SZ_2M;
	} else {
		self->hpage = k == FC_HUGETLB_1G ? SZ_1G : SZ_2M;
		self->size = k == FC_HUGETLB_1G ? SZ_1G : 4 * SZ_2M;
		snprintf(self->pool, sizeof(self->pool),
			 HUGETLB_DIR "/hugepages-%lukB/nr_hugepages", self->hpage >> 10);
		if (knob_read_long(self->pool) < 0)
			SKIP(return, "no %lu MiB hugetlb pages (%s)", self->hpage >> 20,
			     "CONFIG_HUGETLBFS off, or no such size on this architecture");
	}
	if (k == FC_FALLOCATE) {
		self->mnt = hugetlbfs_mount();
		if (self->mnt < 0)
			SKIP(return, "cannot mount hugetlbfs with 2 MiB pages: %s",
			     strerror(-self->mnt));
	}
}

/*
 * In the parent of the test's process: 6.12's harness skips a
 * FIXTURE_TEARDOWN() in the test's process after a failed ASSERT there
 * when the compiler kept its "child" in a register (-Wclobbered), so what
 * to put back is in self, which the harness shares for this.  The switch
 * lives in debugfs: put back before debugfs is unmounted.
 */
FIXTURE_TEARDOWN_PARENT(clear_zero)
{
	knob_put_back(&self->knobs);
	debugfs_release(&self->debugfs_mounted);
}

/*
 * thp_set: THP for the case: thp_rw and thp_w "always" (the huge zero page
 * off for thp_rw, so that its read faults allocate), thp_madvise
 * "madvise", each with the PMD size alone; mthp the 64 KiB size alone,
 * "always".  Direct compaction at every fault, so that a huge page is
 * found where one can be made.  0, or the first write's error.
 */
static int thp_set(FIXTURE_DATA(clear_zero) *self, enum kind k)
{
	unsigned long orders = thp_supported_orders();
	char path[128];
	const char *mode;
	int i, err;

	mode = k == FC_THP_MADVISE ? "madvise" : k == FC_MTHP ? "never" : "always";
	err = knob_change(&self->knobs, self->why, sizeof(self->why), THP_DIR "/enabled", mode);
	if (!err)
		err = knob_change(&self->knobs, self->why, sizeof(self->why),
				  THP_DIR "/defrag", "always");
	if (!err)
		err = knob_change(&self->knobs, self->why, sizeof(self->why),
				  THP_DIR "/use_zero_page", k == FC_THP_RW ? "0\n" : "1\n");
	for (i = 0; !err && i < NR_ORDERS; i++) {
		if (!(orders & (1UL << i)))
			continue;
		mode = "never";
		if (k == FC_MTHP && i == self->mthp_order)
			mode = "always";
		else if (k != FC_MTHP && i == self->pmd_order)
			mode = "inherit";
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/enabled",
			 (psize() >> 10) << i);
		err = knob_change(&self->knobs, self->why, sizeof(self->why), path, mode);
	}
	return err;
}

/*
 * prepare: what the case needs, each change saved for the teardown:
 * debugfs and the switch (self->counters, or self->no_counters why not;
 * nothing more where the test needs_counters and they are not there), the
 * THP files, the hugetlb pool grown by the case's pages (self->no_room
 * where it does not have them then).  A refused write fails the test.
 */
static void prepare(struct __test_metadata *_metadata, FIXTURE_DATA(clear_zero) *self,
		    const FIXTURE_VARIANT(clear_zero) *variant, bool needs_counters)
{
	enum kind k = variant->kind;
	long need, nr_free, resv;
	char path[128], val[32];
	int err;

	err = debugfs_need(CP_DIR, &self->debugfs_mounted);
	if (err == -ENOENT)
		snprintf(self->no_counters, sizeof(self->no_counters),
			 "no " CP_DIR " (CONFIG_CLEAR_PAGES_BATCH off)");
	else if (err)
		snprintf(self->no_counters, sizeof(self->no_counters),
			 "no debugfs at " DEBUGFS ": %s", strerror(-err));
	else if (access(CP_DIR "/batched", W_OK) || access(CP_DIR "/stats", R_OK) ||
		 access(CP_DIR "/calls_batched", R_OK) || access(CP_DIR "/calls_per_page", R_OK))
		snprintf(self->no_counters, sizeof(self->no_counters),
			 "no batched, stats, calls_batched or calls_per_page in " CP_DIR);
	else
		self->counters = true;
	if (needs_counters && !self->counters)
		return;
	if (self->counters)
		ASSERT_EQ(0, knob_change(&self->knobs, self->why, sizeof(self->why),
					 CP_DIR "/batched", variant->batched ? "1\n" : "0\n"))
			TH_LOG("%s: %s", kind_name[k], self->why);
	if (is_thp(k) || k == FC_MTHP)
		ASSERT_EQ(0, thp_set(self, k))
			TH_LOG("%s: %s", kind_name[k], self->why);
	if (!self->pool[0])
		return;
	/* A write the pool refuses (no runtime 1 GiB pages) gives no room too. */
	need = self->size / self->hpage;
	snprintf(val, sizeof(val), "%ld\n", knob_read_long(self->pool) + need);
	err = knob_change(&self->knobs, self->why, sizeof(self->why), self->pool, val);
	snprintf(path, sizeof(path), HUGETLB_DIR "/hugepages-%lukB/free_hugepages",
		 self->hpage >> 10);
	nr_free = knob_read_long(path);
	snprintf(path, sizeof(path), HUGETLB_DIR "/hugepages-%lukB/resv_hugepages",
		 self->hpage >> 10);
	resv = knob_read_long(path);
	if (err || nr_free - resv < need)
		snprintf(self->no_room, sizeof(self->no_room),
			 "%ld free, %ld reserved, %ld wanted%s%s", nr_free, resv, need,
			 err ? "; " : "", err ? self->why : "");
}

/*
 * map_aligned: anonymous memory of size bytes aligned to align, with
 * PROT_NONE guards on both sides (left mapped until the process exits),
 * so that it is a VMA of its own that check_huge_anon() finds by its start.
 */
static char *map_aligned(size_t size, size_t align)
{
	char *map, *p;

	map = mmap(NULL, size + align + 2 * psize(), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return map;
	p = (char *)(((uintptr_t)map + psize() + align - 1) & ~(align - 1));
	if (mprotect(map, p - map, PROT_NONE) ||
	    mprotect(p + size, map + size + align + 2 * psize() - (p + size), PROT_NONE))
		return MAP_FAILED;
	return p;
}

/*
 * map_case: the size bytes of the case, faulted in by nothing yet but
 * fallocate() (on the hugetlbfs mount mnt); *fd: the file, if any.
 */
static char *map_case(struct __test_metadata *_metadata, enum kind k, size_t size, int mnt,
		      int *fd)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB;
	const char *name = "clear_pages_zero";
	char *p;
	int err;

	*fd = -1;
	switch (k) {
	case FC_HUGETLB_2M:
	case FC_HUGETLB_1G:
		flags |= k == FC_HUGETLB_1G ? MAP_HUGE_1GB : MAP_HUGE_2MB;
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
		err = errno;
		ASSERT_NE(MAP_FAILED, p)
			TH_LOG("%s: mmap(MAP_HUGETLB): %s", kind_name[k], strerror(err));
		return p;
	case FC_FALLOCATE:
		*fd = openat(mnt, name, O_RDWR | O_CREAT | O_TRUNC, 0600);
		err = errno;
		ASSERT_LE(0, *fd)
			TH_LOG("%s: open on hugetlbfs: %s", kind_name[k], strerror(err));
		unlinkat(mnt, name, 0);	/* its pages freed on close */
		err = fallocate(*fd, 0, 0, size) ? errno : 0;
		ASSERT_EQ(0, err)
			TH_LOG("%s: fallocate(): %s", kind_name[k], strerror(err));
		break;
	case FC_MEMFD:
		*fd = memfd_create(name, MFD_HUGETLB | MFD_HUGE_2MB);
		err = errno;
		ASSERT_LE(0, *fd)
			TH_LOG("%s: memfd_create(MFD_HUGETLB): %s", kind_name[k], strerror(err));
		err = ftruncate(*fd, size) ? errno : 0;
		ASSERT_EQ(0, err)
			TH_LOG("%s: ftruncate(): %s", kind_name[k], strerror(err));
		break;
	default:
		p = map_aligned(size, is_thp(k) ? read_pmd_pagesize() : SZ_2M);
		err = errno;
		ASSERT_NE(MAP_FAILED, p)
			TH_LOG("%s: mmap(): %s", kind_name[k], strerror(err));
		if (k == FC_THP_MADVISE) {
			err = madvise(p, size, MADV_HUGEPAGE) ? errno : 0;
			ASSERT_EQ(0, err)
				TH_LOG("%s: madvise(MADV_HUGEPAGE): %s", kind_name[k],
				       strerror(err));
		}
		return p;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	err = errno;
	ASSERT_NE(MAP_FAILED, p)
		TH_LOG("%s: mmap(): %s", kind_name[k], strerror(err));
	return p;
}

static void unmap_case(char *p, size_t size, int fd)
{
	munmap(p, size);
	if (fd >= 0)
		close(fd);
}

/*
 * fault_in: every page of p faulted in as the case says: a read first
 * (thp_rw, fallocate), a write (all but fallocate).  The pages whose read
 * did not see zero.
 */
static size_t fault_in(enum kind k, char *p, size_t size)
{
	size_t off, bad = 0;

	for (off = 0; off < size; off += psize()) {
		if (k == FC_THP_RW || k == FC_FALLOCATE)
			bad += p[off + 1] != 0;
		if (k != FC_FALLOCATE)
			p[off] = 0;
	}
	return bad;
}

/*
 * large_folios: the large folios that head pages of [p, p + size) (its
 * pagemap, then /proc/kpageflags: KPF_THP, KPF_COMPOUND_HEAD), or -1
 * where those cannot be read.
 */
static long large_folios(char *p, size_t size)
{
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	int kpageflags = open("/proc/kpageflags", O_RDONLY);
	const uint64_t head = 1ULL << KPF_THP | 1ULL << KPF_COMPOUND_HEAD;
	unsigned long pfn;
	uint64_t flags;
	long n = -1;
	size_t off;

	if (pagemap >= 0 && kpageflags >= 0) {
		for (n = 0, off = 0; off < size; off += psize()) {
			pfn = pagemap_get_pfn(pagemap, p + off);
			if (pfn == -1UL)
				continue;
			if (pread(kpageflags, &flags, sizeof(flags), pfn * sizeof(flags)) !=
			    sizeof(flags)) {
				n = -1;
				break;
			}
			n += (flags & head) == head;
		}
	}
	if (pagemap >= 0)
		close(pagemap);
	if (kpageflags >= 0)
		close(kpageflags);
	return n;
}

/* What huge_used() saw, and how. */
struct huge_seen {
	long folios;		/* the huge folios the mapping held */
	const char *how;
};

/*
 * huge_used: the huge folios of the case's mapping p, faulted in:
 * hugetlb's cannot fall back (its mmap() or fallocate() succeeded); THP:
 * those mapped by PMD (check_huge_anon() of every count from all down);
 * mTHP: large_folios(), or where that cannot tell, what anon_fault_alloc
 * of the 64 KiB size grew by since mthp0, for every process.
 */
static void huge_used(FIXTURE_DATA(clear_zero) *self, enum kind k, char *p, long mthp0,
		      struct huge_seen *seen)
{
	uint64_t pmd = read_pmd_pagesize();

	if (self->hpage) {
		seen->folios = self->size / self->hpage;
		seen->how = "hugetlb, which cannot fall back";
	} else if (is_thp(k)) {
		for (seen->folios = self->size / pmd; seen->folios > 0; seen->folios--)
			if (check_huge_anon(p, seen->folios, pmd))
				break;
		seen->how = "mapped by PMD: AnonHugePages of the mapping";
	} else {
		seen->folios = large_folios(p, self->size);
		seen->how = "large folios of the mapping: kpageflags";
		if (seen->folios < 0) {
			seen->folios = knob_read_long(MTHP_ALLOC) - mthp0;
			seen->how = "no kpageflags: anon_fault_alloc grown, any process's";
		}
	}
}

TEST_F_TIMEOUT(clear_zero, faults_zero, 180)
{
	enum kind k = variant->kind;
	struct huge_seen seen;
	size_t off, bad;
	long mthp0;
	char *p;
	int fd;

	prepare(_metadata, self, variant, false);
	if (self->no_room[0])
		SKIP(return, "%s: no room for %lu MiB hugetlb pages (%s)", kind_name[k],
		     self->hpage >> 20, self->no_room);

	/* Dirty it all, then free it. */
	p = map_case(_metadata, k, self->size, self->mnt, &fd);
	p[0] = 0x5a;	/* the first fault at the first page, whatever memset() does */
	memset(p, 0x5a, self->size);
	unmap_case(p, self->size, fd);

	/* Again: faulted in as the case says, then every word checked. */
	mthp0 = knob_read_long(MTHP_ALLOC);
	p = map_case(_metadata, k, self->size, self->mnt, &fd);
	bad = fault_in(k, p, self->size);
	for (off = 0; off < self->size; off += sizeof(uint64_t))
		bad += *(const uint64_t *)(p + off) != 0;
	huge_used(self, k, p, mthp0, &seen);
	unmap_case(p, self->size, fd);

	ksft_print_msg("%s: %zu MiB, %zu words not zero, %ld huge folios (%s)\n", kind_name[k],
		       self->size >> 20, bad, seen.folios, seen.how);
	ASSERT_EQ((size_t)0, bad)
		TH_LOG("%s: %zu words of %zu MiB faulted in again not zero",
		       kind_name[k], bad, self->size >> 20);
	ASSERT_LT(0, seen.folios)
		TH_LOG("%s: no huge page used by the mapping faulted in again (%s)",
		       kind_name[k], seen.how);
	if (!self->counters)
		ksft_print_msg("%s: the kernel's own clearing, none selected: %s\n",
			       kind_name[k], self->no_counters);
}

TEST_F_TIMEOUT(clear_zero, clearing_counted, 180)
{
	enum kind k = variant->kind;
	struct clear_counts c0, c1;
	struct huge_seen seen;
	long mthp0, want;
	char *p;
	int fd;

	prepare(_metadata, self, variant, true);
	if (!self->counters)
		SKIP(return, "%s: %s", kind_name[k], self->no_counters);
	if (self->no_room[0])
		SKIP(return, "%s: no room for %lu MiB hugetlb pages (%s)", kind_name[k],
		     self->hpage >> 20, self->no_room);

	read_clear_counts(&c0);
	mthp0 = knob_read_long(MTHP_ALLOC);
	p = map_case(_metadata, k, self->size, self->mnt, &fd);
	fault_in(k, p, self->size);
	huge_used(self, k, p, mthp0, &seen);
	unmap_case(p, self->size, fd);
	read_clear_counts(&c1);

	ksft_print_msg("%s: %ld huge folios (%s); %s %ld, %s %ld, %s %ld\n",
		       kind_name[k], seen.folios, seen.how, "folios", c1.folios - c0.folios,
		       "calls_batched", c1.batched - c0.batched, "calls_per_page",
		       c1.per_page - c0.per_page);
	/* Each huge folio the mapping held was cleared, and counted. */
	want = seen.folios;
	ASSERT_LT(0, want)
		TH_LOG("%s: no huge page used by the mapping (%s)", kind_name[k], seen.how);
	if (variant->batched) {
		ASSERT_LE(want, c1.folios - c0.folios)
			TH_LOG("%s: the batched clearing saw %ld folios (want >= %ld)",
			       kind_name[k], c1.folios - c0.folios, want);
		ASSERT_LE(want, c1.batched - c0.batched)
			TH_LOG("%s: batched selected, calls_batched moved by %ld (want >= %ld)",
			       kind_name[k], c1.batched - c0.batched, want);
		ASSERT_EQ(0, c1.per_page - c0.per_page)
			TH_LOG("%s: batched selected, but calls_per_page moved by %ld",
			       kind_name[k], c1.per_page - c0.per_page);
	} else {
		ASSERT_EQ(0, c1.folios - c0.folios)
			TH_LOG("%s: per_page selected, but the batched clearing saw %ld folios",
			       kind_name[k], c1.folios - c0.folios);
		ASSERT_LE(want, c1.per_page - c0.per_page)
			TH_LOG("%s: per_page selected, calls_per_page moved by %ld (want >= %ld)",
			       kind_name[k], c1.per_page - c0.per_page, want);
		ASSERT_EQ(0, c1.batched - c0.batched)
			TH_LOG("%s: per_page selected, but calls_batched moved by %ld",
			       kind_name[k], c1.batched - c0.batched);
	}
}

TEST_HARNESS_MAIN
