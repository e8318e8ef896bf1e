// SPDX-License-Identifier: GPL-2.0
/*
 * The THP huge zero page as a process sees it.
 *
 * With transparent huge pages "always" and use_zero_page set (the
 * default), a read fault on untouched anonymous memory in a PMD-aligned
 * range maps the one shared huge zero page read-only: nothing is
 * allocated, RssAnon does not grow, and every range maps the same PFNs.
 * Without use_zero_page, each such read fault allocates and clears a huge
 * page.  A write to the huge zero page splits the PMD and copies one base
 * page (RssAnon grows by one page, not by a huge page), or, in kernels
 * that can, maps a new huge page there.  The huge zero page is allocated
 * by the first read fault that wants it and freed by its shrinker once no
 * mm uses it.  Where it cannot be allocated (fail_page_alloc aimed at
 * mm_get_huge_zero_folio(): fault_inject.c), each read fault that wanted
 * it counts thp_zero_page_alloc_failed and maps the base zero page: the
 * memory still reads zero and nothing is allocated.
 *
 * The tests set THP themselves (the top level "always", the PMD size
 * "inherit", defrag "madvise" with the no_zero_page buffer advised
 * MADV_HUGEPAGE), on a buffer of 16 PMD-sized ranges (fewer where PMDs
 * are large: 64 MiB at most, 2 ranges at least), and put the settings
 * back from the harness's parent process.  The per-process checks read
 * /proc/self/pagemap (PFNs: needs root), /proc/kpageflags (the huge zero
 * page's ZERO_PAGE and THP flags) and /proc/self/smaps; /proc/vmstat's
 * counters are system-wide, so they are only checked to have moved
 * (another process may move them too), but for the lifetime and
 * allocation failure tests, which skip where they find another process
 * mapping the page (in that process's pagemap).  no_zero_page skips where
 * no huge page could be had (thp_fault_fallback moved).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel-page-flags.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "fault_inject.h"
#include "mm_knobs.h"
#include "thp_settings.h"
#include "vm_util.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
/* The buffer: this many PMD-sized ranges, or fewer where PMDs are large, */
#define NR_RANGES 16
/* as many as fit in this (but 2 at least: ranges are compared). */
#define BUFFER_MAX (64UL << 20)
/* What the allocation failure test reads, rounded up to PMD-sized ranges. */
#define FAILING_READ (200UL << 20)
/* kpageflags of the huge zero page. */
#define HUGE_ZERO_FLAGS ((1ULL << KPF_ZERO_PAGE) | (1ULL << KPF_THP))

/* Pages of p[0..size) whose first byte is not zero. */
static unsigned long count_nonzero(const char *p, size_t size)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < size; i += psize())
		n += p[i] != 0;
	return n;
}

static void drop_slab_caches(void)
{
	int err = knob_write("/proc/sys/vm/drop_caches", "2\n", 2);

	if (err)
		ksft_print_msg("drop_caches: %s\n", strerror(-err));
}

/* page_flags: PFN <pfn>'s flags in /proc/kpageflags; false if unreadable. */
static bool page_flags(unsigned long pfn, unsigned long long *flags)
{
	int fd = open("/proc/kpageflags", O_RDONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = pread(fd, flags, sizeof(*flags), pfn * sizeof(*flags));
		close(fd);
	}
	return n == sizeof(*flags);
}

/*
 * zero_page_settings: <base> with THP "always" for PMD-sized pages (the
 * top level "always", the PMD size "inherit"), use_zero_page as
 * <use_zero_page>, defrag "madvise" (direct compaction for the ranges
 * advised MADV_HUGEPAGE), and khugepaged collapsing no range with an
 * empty entry (max_ptes_none 0), so that it does not collapse a range of
 * the buffer behind the test's back (a written range is one page and 511
 * zero-page entries).
 */
static void zero_page_settings(struct thp_settings *s, const struct thp_settings *base,
			       size_t pmd_size, bool use_zero_page)
{
	unsigned int order = __builtin_ctzl(pmd_size / psize());

	*s = *base;
	s->thp_enabled = THP_ALWAYS;
	if (order < NR_ORDERS && (thp_supported_orders() & (1UL << order)))
		s->hugepages[order].enabled = THP_INHERIT;
	s->thp_defrag = THP_DEFRAG_MADVISE;
	s->use_zero_page = use_zero_page;
	s->khugepaged.max_ptes_none = 0;
}

/*
 * A mapping of nr PMD-sized ranges, PMD-aligned (the unaligned head and
 * tail of a larger mapping unmapped, so that smaps has one entry starting
 * at mem), THP "always", use_zero_page set or not.
 */
struct buffer {
	size_t pmd_size, size;
	int nr;			/* PMD-sized ranges */
	char *mem;		/* PMD-aligned, size bytes, or MAP_FAILED */
	int pagemap;
	struct thp_settings saved;	/* the THP settings before */
	bool changed;		/* the THP settings, to put back */
};

/*
 * The skips and the mapping first, the THP settings last: 6.12's harness
 * runs no teardown after a setup that skipped or failed.
 */
static void buffer_setup(struct __test_metadata *_metadata, struct buffer *self,
			 bool use_zero_page)
{
	struct thp_settings settings;
	size_t head;
	char *map;

	self->mem = MAP_FAILED;
	self->pagemap = -1;
	if (access(THP_DIR, F_OK))
		SKIP(return, "no " THP_DIR ": needs CONFIG_TRANSPARENT_HUGEPAGE");
	if (geteuid())
		SKIP(return, "needs root: THP settings and PFNs in pagemap");
	self->pmd_size = read_pmd_pagesize();
	ASSERT_NE(0UL, self->pmd_size);
	self->nr = BUFFER_MAX / self->pmd_size;
	if (self->nr > NR_RANGES)
		self->nr = NR_RANGES;
	if (self->nr < 2)
		self->nr = 2;
	self->size = self->nr * self->pmd_size;

	map = mmap(NULL, self->size + self->pmd_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	self->mem = (char *)(((unsigned long)map + self->pmd_size - 1) &
			     ~(self->pmd_size - 1));
	head = self->mem - map;
	if (head)
		ASSERT_EQ(0, munmap(map, head));
	if (self->pmd_size - head)
		ASSERT_EQ(0, munmap(self->mem + self->size, self->pmd_size - head));
	/* Direct compaction for the huge pages of no_zero_page. */
	if (!use_zero_page)
		ASSERT_EQ(0, madvise(self->mem, self->size, MADV_HUGEPAGE));
	self->pagemap = open("/proc/self/pagemap", O_RDONLY);
	ASSERT_LE(0, self->pagemap);

	thp_read_settings(&self->saved);
	zero_page_settings(&settings, &self->saved, self->pmd_size, use_zero_page);
	self->changed = true;
	thp_write_settings(&settings);
}

/*
 * In the parent of the test's process (FIXTURE_TEARDOWN_PARENT): 6.12's
 * harness skips a FIXTURE_TEARDOWN() in the test's process after a failed
 * ASSERT there where the compiler kept its "child" in a register, and
 * after an exit(); the settings to put back are in self, which the
 * harness shares for this.  The mapping and pagemap are the test
 * process's, gone with it.
 */
static void buffer_teardown(struct buffer *self)
{
	if (self->changed)
		thp_write_settings(&self->saved);
	self->changed = false;
}

FIXTURE(zero_page)
{
	struct buffer b;
};

FIXTURE_SETUP(zero_page)
{
	buffer_setup(_metadata, &self->b, true);
}

FIXTURE_TEARDOWN_PARENT(zero_page)
{
	buffer_teardown(&self->b);
}

FIXTURE(no_zero_page)
{
	struct buffer b;
};

FIXTURE_SETUP(no_zero_page)
{
	buffer_setup(_metadata, &self->b, false);
}

FIXTURE_TEARDOWN_PARENT(no_zero_page)
{
	buffer_teardown(&self->b);
}

/*
 * Reading every page maps the huge zero page in every range: nothing
 * allocated, each range maps the same huge page (contiguous PFNs), which
 * /proc/kpageflags says is the huge zero page (ZERO_PAGE and THP).
 */
TEST_F_TIMEOUT(zero_page, read_faults_map_it, 120)
{
	struct buffer *b = &self->b;
	unsigned long rss0, rss, pfn0, pfn;
	unsigned long long flags;
	int i;

	rss0 = rss_anon();
	ASSERT_EQ(0UL, count_nonzero(b->mem, b->size));
	rss = rss_anon();
	ksft_print_msg("RssAnon %lu KiB before the reads, %lu KiB after\n", rss0, rss);
	/* Less than one huge page for the ranges read. */
	EXPECT_LT(rss - rss0, b->pmd_size / 1024);
	EXPECT_TRUE(check_huge_anon(b->mem, 0, b->pmd_size))
		TH_LOG("want no huge page in the buffer (smaps AnonHugePages 0)");
	pfn0 = pagemap_get_pfn(b->pagemap, b->mem);
	ASSERT_NE(-1UL, pfn0)
		TH_LOG("no PFN in pagemap for a read page");
	for (i = 1; i < b->nr; i++) {
		pfn = pagemap_get_pfn(b->pagemap, b->mem + i * b->pmd_size);
		EXPECT_EQ(pfn0, pfn)
			TH_LOG("range %d maps PFN %lx, range 0 %lx", i, pfn, pfn0);
	}
	/* A huge page: the next base page is the next PFN. */
	EXPECT_EQ(pfn0 + 1, pagemap_get_pfn(b->pagemap, b->mem + psize()));
	if (!page_flags(pfn0, &flags)) {
		ksft_print_msg("/proc/kpageflags: %s: the page is not checked to be %s\n",
			       strerror(errno), "the huge zero page");
		return;
	}
	EXPECT_EQ(HUGE_ZERO_FLAGS, flags & HUGE_ZERO_FLAGS)
		TH_LOG("PFN %lx: kpageflags %llx, want ZERO_PAGE and THP (the huge zero page)",
		       pfn0, flags);
}

/*
 * Without use_zero_page each range read gets a huge page of its own,
 * cleared: RssAnon grows by all of them, every range maps another PFN,
 * none of them the huge zero page (kpageflags).  Where no huge page could
 * be had (thp_fault_fallback moved, the buffer holds fewer), it skips.
 */
TEST_F_TIMEOUT(no_zero_page, read_faults_allocate, 120)
{
	long fallback0 = vmstat_read("thp_fault_fallback"), fallback;
	unsigned long rss0, rss, pfn[NR_RANGES];
	struct buffer *b = &self->b;
	unsigned long long flags;
	bool huge;
	int i, j;

	rss0 = rss_anon();
	ASSERT_EQ(0UL, count_nonzero(b->mem, b->size));
	rss = rss_anon();
	huge = check_huge_anon(b->mem, b->nr, b->pmd_size);
	fallback = vmstat_read("thp_fault_fallback") - fallback0;
	ksft_print_msg("RssAnon %lu KiB before the reads, %lu KiB after\n", rss0, rss);
	if (!huge && fallback0 >= 0 && fallback > 0)
		SKIP(return, "no free huge page: thp_fault_fallback +%ld", fallback);
	EXPECT_GE(rss - rss0, (b->nr - 1) * b->pmd_size / 1024);
	EXPECT_TRUE(huge)
		TH_LOG("want %d huge pages in the buffer (smaps AnonHugePages)", b->nr);
	for (i = 0; i < b->nr; i++) {
		pfn[i] = pagemap_get_pfn(b->pagemap, b->mem + i * b->pmd_size);
		ASSERT_NE(-1UL, pfn[i])
			TH_LOG("no PFN in pagemap for range %d", i);
		for (j = 0; j < i; j++)
			EXPECT_NE(pfn[j], pfn[i])
				TH_LOG("ranges %d and %d map the same PFN %lx", j, i, pfn[i]);
		if (!page_flags(pfn[i], &flags))
			continue;
		EXPECT_EQ(0ULL, flags & (1ULL << KPF_ZERO_PAGE))
			TH_LOG("range %d maps the huge zero page without use_zero_page", i);
	}
}

/*
 * A write where a read mapped the huge zero page.  6.12 splits the PMD and
 * copies one base page: RssAnon + one page, no huge page, a PMD split
 * counted.  Kernels with do_huge_zero_wp_pmd() map a new huge page there
 * instead where they can allocate one: RssAnon + the huge page, mapped by
 * the PMD, a THP fault allocation counted; and split as 6.12 where they
 * cannot.  Which one the kernel did is read from this process's smaps
 * (whether the buffer now holds a huge page), not from the system-wide
 * counters, and each is checked whole.  Either way the rest reads zero.
 */
TEST_F_TIMEOUT(zero_page, write_after_read, 120)
{
	long split0 = vmstat_read("thp_split_pmd"), fault0 = vmstat_read("thp_fault_alloc");
	struct buffer *b = &self->b;
	unsigned long rss0, grown;

	ASSERT_EQ(0UL, count_nonzero(b->mem, b->size));
	rss0 = rss_anon();
	b->mem[0] = 1;
	grown = rss_anon() - rss0;
	ksft_print_msg("a write: RssAnon +%lu KiB\n", grown);
	EXPECT_EQ(0UL, count_nonzero(b->mem + psize(), b->size - psize()));
	if (check_huge_anon(b->mem, 1, b->pmd_size)) {
		ksft_print_msg("the write mapped a new huge page\n");
		EXPECT_EQ(b->pmd_size / 1024, grown);
		EXPECT_LT(fault0, vmstat_read("thp_fault_alloc"));
	} else {
		ksft_print_msg("the write split the PMD\n");
		EXPECT_EQ(psize() / 1024, grown);
		EXPECT_TRUE(check_huge_anon(b->mem, 0, b->pmd_size))
			TH_LOG("want no huge page in the buffer (smaps AnonHugePages 0)");
		EXPECT_LT(split0, vmstat_read("thp_split_pmd"));
	}
}

/* What a reader saw: the PFN its first read mapped, its pages not zero. */
struct reading {
	unsigned long pfn;
	unsigned long nonzero;
};

/*
 * reader: a child that reads <size> bytes of a fresh PMD-aligned mapping,
 * marked make-it-fail first where <failing>; the thp_zero_page_alloc
 * increase meanwhile (-1 if the child failed), and in *r what it saw (the
 * PFN: the huge zero page's where its first read mapped it).
 */
static long reader(size_t size, size_t pmd_size, bool failing, struct reading *r)
{
	long zero0 = vmstat_read("thp_zero_page_alloc");
	int status, fds[2];
	pid_t pid;

	r->pfn = -1UL;
	r->nonzero = -1UL;
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		struct reading seen;
		int pagemap;
		char *map, *p;

		if (failing && fault_inject_mark_self())
			_exit(1);
		map = mmap(NULL, size + pmd_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pagemap = open("/proc/self/pagemap", O_RDONLY);
		if (map == MAP_FAILED || pagemap < 0)
			_exit(1);
		p = (char *)(((unsigned long)map + pmd_size - 1) & ~(pmd_size - 1));
		seen.nonzero = count_nonzero(p, size);
		seen.pfn = pagemap_get_pfn(pagemap, p);
		_exit(write(fds[1], &seen, sizeof(seen)) == sizeof(seen) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], r, sizeof(*r)) != sizeof(*r))
		r->pfn = -1UL;
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return vmstat_read("thp_zero_page_alloc") - zero0;
}

/*
 * holder: a process other than this one that maps PFN pfn (the huge zero
 * page: PMD-mapped, so the first page of each PMD-sized range of its
 * private, readable mappings is looked up in its pagemap), or 0.
 */
static pid_t holder(unsigned long pfn, size_t pmd_size)
{
	unsigned long start, end, addr;
	char path[64], line[512], perms[5];
	off_t off;
	struct dirent *d;
	pid_t pid, found = 0;
	unsigned long long entry;
	FILE *maps;
	DIR *proc;
	int pm;

	proc = opendir("/proc");
	if (!proc)
		return 0;
	while (!found && (d = readdir(proc))) {
		pid = atoi(d->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
		maps = fopen(path, "r");
		snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
		pm = open(path, O_RDONLY);
		while (maps && pm >= 0 && !found && fgets(line, sizeof(line), maps)) {
			/* Private, readable: where a read fault can map it. */
			if (sscanf(line, "%lx-%lx %4s", &start, &end, perms) != 3 ||
			    perms[0] != 'r' || perms[3] != 'p')
				continue;
			addr = (start + pmd_size - 1) & ~(pmd_size - 1);
			for (; !found && addr + pmd_size <= end; addr += pmd_size) {
				off = addr / psize() * sizeof(entry);
				if (pread(pm, &entry, sizeof(entry), off) != sizeof(entry))
					break;
				/* Present (bit 63), PFN in bits 0-54. */
				if ((entry >> 63) && (entry & ((1ULL << 55) - 1)) == pfn)
					found = pid;
			}
		}
		if (pm >= 0)
			close(pm);
		if (maps)
			fclose(maps);
	}
	closedir(proc);
	return found;
}

/*
 * held_elsewhere: why a case cannot tell whether drop_caches freed the
 * huge zero page (PFN <pfn>): a process maps it, or one may hold it
 * unless THP_ZERO_PAGE_NO_OTHER_USERS=1 in the environment says none can.
 * The skip reason, or NULL where the case is to fail.
 */
static const char *held_elsewhere(unsigned long pfn, size_t pmd_size)
{
	const char *alone = getenv("THP_ZERO_PAGE_NO_OTHER_USERS");
	static char why[128];
	pid_t other = holder(pfn, pmd_size);

	if (other) {
		snprintf(why, sizeof(why), "PID %d maps the huge zero page: it cannot be freed",
			 other);
		return why;
	}
	if (!alone || strcmp(alone, "1"))
		return "drop_caches did not free the huge zero page: another process may hold it; "
		       "THP_ZERO_PAGE_NO_OTHER_USERS=1 where none can";
	return NULL;
}

/*
 * Allocated on demand, shared, and freed by its shrinker ("thp-zero", run
 * by drop_caches) once no mm uses it: readers one after the other, each
 * in its own process, see +1, +0, then +1 after drop_caches.
 *
 * An mm keeps its reference until it exits, so another process that ever
 * read through the page (a virtual machine's memory, say) keeps it too:
 * then even the first reader sees +0, as it would with a shrinker that
 * does not free.  User space cannot tell the two apart, so the case skips
 * there, naming the process if it still maps the page (found in its
 * pagemap); with THP_ZERO_PAGE_NO_OTHER_USERS=1 in the environment (a test
 * system where nothing else runs) it fails instead.
 */
TEST_F_TIMEOUT(zero_page, allocated_lazily_and_shrunk, 120)
{
	size_t pmd_size = self->b.pmd_size;
	struct reading r1, r2, r3;
	long first, second, third;
	const char *why;

	drop_slab_caches();
	first = reader(pmd_size, pmd_size, false, &r1);
	second = reader(pmd_size, pmd_size, false, &r2);
	drop_slab_caches();
	third = reader(pmd_size, pmd_size, false, &r3);
	ksft_print_msg("thp_zero_page_alloc: first reader +%ld, second +%ld, %s +%ld\n",
		       first, second, "after drop_caches", third);
	ASSERT_LE(0, first);
	ASSERT_LE(0, second);
	ASSERT_LE(0, third);
	ASSERT_EQ(0UL, r1.nonzero + r2.nonzero + r3.nonzero)
		TH_LOG("a reader read bytes not zero");
	ASSERT_NE(-1UL, r1.pfn);
	/* The second reader shares the first one's page. */
	EXPECT_EQ(r1.pfn, r2.pfn);
	EXPECT_EQ(0, second);
	if (first == 0) {
		why = held_elsewhere(r1.pfn, pmd_size);
		if (why)
			SKIP(return, "%s", why);
	}
	EXPECT_EQ(1, first)
		TH_LOG("drop_caches did not free the huge zero page (PFN %lx)", r1.pfn);
	/* Nobody held it at the first drop_caches: the second frees it too. */
	EXPECT_EQ(1, third)
		TH_LOG("the second drop_caches did not free the huge zero page (PFN %lx)", r1.pfn);
}

/*
 * The huge zero page not allocatable: fail_page_alloc aimed at
 * mm_get_huge_zero_folio() (its allocations, of any order) and at the
 * tasks marked make-it-fail, every call failing.  Setup only reads, and
 * fault_inject_open() last: it skips where the kernel lacks the fault
 * injection or someone else armed it, leaving nothing mounted.  The test
 * sets the THP settings; the teardown, in the parent (as buffer_teardown()),
 * puts back the fault attributes, then the settings.
 */
FIXTURE(zero_page_alloc_fails)
{
	struct fault_inject fi;
	size_t pmd_size;
	struct thp_settings saved;	/* the THP settings before */
	bool changed;		/* the THP settings, to put back */
};

FIXTURE_SETUP(zero_page_alloc_fails)
{
	const char *why;

	if (access(THP_DIR, F_OK))
		SKIP(return, "no " THP_DIR ": needs CONFIG_TRANSPARENT_HUGEPAGE");
	if (geteuid())
		SKIP(return, "needs root: THP settings, drop_caches and fault injection");
	if (vmstat_read("thp_zero_page_alloc") < 0 ||
	    vmstat_read("thp_zero_page_alloc_failed") < 0)
		SKIP(return, "no thp_zero_page_alloc(_failed) in /proc/vmstat");
	self->pmd_size = read_pmd_pagesize();
	if (!self->pmd_size)
		SKIP(return, "no PMD size in " THP_DIR);
	thp_read_settings(&self->saved);
	why = fault_inject_open(&self->fi, FAULT_INJECT_PAGE, "mm_get_huge_zero_folio");
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN_PARENT(zero_page_alloc_fails)
{
	fault_inject_close(&self->fi);
	if (self->changed)
		thp_write_settings(&self->saved);
	self->changed = false;
}

/*
 * A reader marked make-it-fail reads 200 MiB of a THP "always" mapping:
 * every read fault on a PMD-sized range wants the huge zero page, whose
 * allocation fails, counted by thp_zero_page_alloc_failed (one per failure
 * injected, at least one), and maps the base zero page instead: every
 * page reads zero, and thp_zero_page_alloc does not move.  Once the
 * injection stops, the next reader allocates it (+1).  drop_caches first
 * frees an unused huge zero page (its shrinker); one that another process
 * holds is never allocated here, which skips as allocated_lazily_and_shrunk
 * does.
 */
TEST_F_TIMEOUT(zero_page_alloc_fails, reads_fall_back_then_allocate, 120)
{
	size_t pmd_size = self->pmd_size;
	size_t size = (FAILING_READ + pmd_size - 1) & ~(pmd_size - 1);
	long failed0, alloc0, failed, alloc, injected, ran, after;
	struct thp_settings settings;
	struct reading r, next;
	const char *why;

	zero_page_settings(&settings, &self->saved, pmd_size, true);
	self->changed = true;
	thp_write_settings(&settings);
	drop_slab_caches();
	failed0 = vmstat_read("thp_zero_page_alloc_failed");
	alloc0 = vmstat_read("thp_zero_page_alloc");
	ASSERT_EQ(0, fault_inject_arm(&self->fi, 100, 1));
	ran = reader(size, pmd_size, true, &r);
	injected = fault_inject_disarm(&self->fi);
	failed = vmstat_read("thp_zero_page_alloc_failed") - failed0;
	alloc = vmstat_read("thp_zero_page_alloc") - alloc0;
	ksft_print_msg("%zu MiB read by a task marked make-it-fail: %lu pages not zero;\n",
		       size >> 20, r.nonzero);
	ksft_print_msg("%ld failures injected, thp_zero_page_alloc_failed +%ld, %s +%ld\n",
		       injected, failed, "thp_zero_page_alloc", alloc);
	ASSERT_LE(0, ran)
		TH_LOG("the reader marked make-it-fail failed");
	ASSERT_LE(0, injected);
	EXPECT_EQ(0UL, r.nonzero)
		TH_LOG("reads under the injection: %lu pages not zero", r.nonzero);

	after = reader(pmd_size, pmd_size, false, &next);
	ksft_print_msg("after the injection: the next reader, thp_zero_page_alloc +%ld\n", after);
	ASSERT_LE(0, after);
	if (!injected && !failed && !alloc && !after) {
		/* Never freed: drop_caches found it held. */
		why = held_elsewhere(next.pfn, pmd_size);
		if (why)
			SKIP(return, "%s", why);
	}
	EXPECT_LE(1, injected)
		TH_LOG("no allocation of the huge zero page failed");
	EXPECT_EQ(injected, failed)
		TH_LOG("thp_zero_page_alloc_failed +%ld for %ld failures injected",
		       failed, injected);
	EXPECT_EQ(0, alloc)
		TH_LOG("the huge zero page was allocated while every allocation failed");
	EXPECT_EQ(1, after)
		TH_LOG("the first reader after the injection: thp_zero_page_alloc +%ld, want +1",
		       after);
}

TEST_HARNESS_MAIN
