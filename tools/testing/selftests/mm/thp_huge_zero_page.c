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
 * page (6.12; later kernels may allocate a huge page there): RssAnon grows
 * by one page, not by a huge page.  The huge
 * zero page is allocated by the first read fault that wants it and freed
 * by its shrinker once no mm uses it.
 *
 * The per-process checks read /proc/self/pagemap (PFNs: needs root) and
 * /proc/self/smaps; /proc/vmstat's counters are system-wide, so they are
 * only checked to have moved (another process may move them too), but for
 * the lifetime test, which skips where it finds another process mapping
 * the page (in that process's pagemap).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "knob_util.h"
#include "thp_settings.h"
#include "vm_util.h"

/* The buffer: this many PMD-sized ranges. */
#define NR_RANGES 16

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
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "2\n", 2) != 2)
			ksft_print_msg("drop_caches: %s\n", strerror(errno));
		close(fd);
	}
}

/*
 * A mapping of NR_RANGES PMD-sized ranges, PMD-aligned (the unaligned head
 * and tail of a larger mapping unmapped, so that smaps has one entry
 * starting at mem), THP "always", use_zero_page set or not.
 */
struct buffer {
	size_t pmd_size, size;
	char *mem;		/* PMD-aligned, size bytes, or MAP_FAILED */
	int pagemap;
	bool saved;		/* the THP settings, to put back */
};

static void buffer_setup(struct __test_metadata *_metadata, struct buffer *self,
			 bool use_zero_page)
{
	struct thp_settings settings;
	size_t head;
	char *map;

	self->mem = MAP_FAILED;
	self->pagemap = -1;
	if (!thp_is_enabled())
		SKIP(return, "transparent huge pages not available");
	if (geteuid())
		SKIP(return, "needs root: THP settings and PFNs in pagemap");
	self->pmd_size = read_pmd_pagesize();
	ASSERT_NE(0, self->pmd_size);
	self->size = NR_RANGES * self->pmd_size;

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
	self->pagemap = open("/proc/self/pagemap", O_RDONLY);
	ASSERT_LE(0, self->pagemap);

	/*
	 * The settings last: teardown does not run after a failed assertion
	 * here, and would not put them back.
	 */
	thp_save_settings();
	self->saved = true;
	thp_read_settings(&settings);
	settings.thp_enabled = THP_ALWAYS;
	settings.use_zero_page = use_zero_page;
	/*
	 * khugepaged may not collapse a range of the buffer behind the test's
	 * back (a written range is one page and 511 zero-page entries).
	 */
	settings.khugepaged.max_ptes_none = 0;
	thp_push_settings(&settings);
}

static void buffer_teardown(struct buffer *self)
{
	if (self->pagemap >= 0)
		close(self->pagemap);
	if (self->mem != MAP_FAILED)
		munmap(self->mem, self->size);
	if (self->saved)
		thp_restore_settings();
}

FIXTURE(zero_page)
{
	struct buffer b;
};

FIXTURE_SETUP(zero_page)
{
	buffer_setup(_metadata, &self->b, true);
}

FIXTURE_TEARDOWN(zero_page)
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

FIXTURE_TEARDOWN(no_zero_page)
{
	buffer_teardown(&self->b);
}

/*
 * Reading every page maps the huge zero page in every range: nothing
 * allocated, each range maps the same huge page (contiguous PFNs).
 */
TEST_F(zero_page, read_faults_map_it)
{
	struct buffer *b = &self->b;
	unsigned long rss0, rss, pfn0, pfn;
	int i;

	rss0 = rss_anon();
	ASSERT_EQ(0, count_nonzero(b->mem, b->size));
	rss = rss_anon();
	ksft_print_msg("RssAnon %lu KiB before the reads, %lu KiB after\n", rss0, rss);
	/* Less than one huge page for NR_RANGES ranges read. */
	EXPECT_LT(rss - rss0, b->pmd_size / 1024);
	EXPECT_TRUE(check_huge_anon(b->mem, 0, b->pmd_size))
		TH_LOG("want no huge page in the buffer (smaps AnonHugePages 0)");
	pfn0 = pagemap_get_pfn(b->pagemap, b->mem);
	ASSERT_NE(-1UL, pfn0)
		TH_LOG("no PFN in pagemap for a read page");
	for (i = 1; i < NR_RANGES; i++) {
		pfn = pagemap_get_pfn(b->pagemap, b->mem + i * b->pmd_size);
		EXPECT_EQ(pfn0, pfn)
			TH_LOG("range %d maps PFN %lx, range 0 %lx", i, pfn, pfn0);
	}
	/* A huge page: the next base page is the next PFN. */
	EXPECT_EQ(pfn0 + 1, pagemap_get_pfn(b->pagemap, b->mem + psize()));
	/* At least one allocation so far, by anyone. */
	EXPECT_LT(0, vmstat_read("thp_zero_page_alloc"));
}

/*
 * Without use_zero_page each range read gets a huge page of its own,
 * cleared: RssAnon grows by all of them.
 */
TEST_F(no_zero_page, read_faults_allocate)
{
	struct buffer *b = &self->b;
	long zero0 = vmstat_read("thp_zero_page_alloc");
	unsigned long rss0, rss, pfn0;

	rss0 = rss_anon();
	ASSERT_EQ(0, count_nonzero(b->mem, b->size));
	rss = rss_anon();
	ksft_print_msg("RssAnon %lu KiB before the reads, %lu KiB after\n", rss0, rss);
	EXPECT_GE(rss - rss0, (NR_RANGES - 1) * b->pmd_size / 1024);
	EXPECT_TRUE(check_huge_anon(b->mem, NR_RANGES, b->pmd_size))
		TH_LOG("want %d huge pages in the buffer (smaps AnonHugePages)", NR_RANGES);
	pfn0 = pagemap_get_pfn(b->pagemap, b->mem);
	ASSERT_NE(-1UL, pfn0);
	EXPECT_NE(pfn0, pagemap_get_pfn(b->pagemap, b->mem + b->pmd_size));
	EXPECT_EQ(zero0, vmstat_read("thp_zero_page_alloc"))
		TH_LOG("the huge zero page was allocated without use_zero_page");
}

/* Whether the running kernel is 6.12 or older (uname's release). */
static bool kernel_up_to_6_12(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major < 6 || (major == 6 && minor <= 12);
}

/*
 * A write where a read mapped the huge zero page.  Up to 6.12 the PMD is
 * split and one base page copied (RssAnon + one page, no huge page, a PMD
 * split counted); later kernels may allocate a huge page instead
 * (RssAnon + the huge page, mapped by the PMD), which is checked as such
 * there.  Either way the rest still reads zero.
 */
TEST_F(zero_page, write_after_read)
{
	long split0 = vmstat_read("thp_split_pmd");
	struct buffer *b = &self->b;
	unsigned long rss0, grown;

	ASSERT_EQ(0, count_nonzero(b->mem, b->size));
	rss0 = rss_anon();
	b->mem[0] = 1;
	grown = rss_anon() - rss0;
	ksft_print_msg("a write: RssAnon +%lu KiB\n", grown);
	EXPECT_EQ(0, count_nonzero(b->mem + psize(), b->size - psize()));
	if (kernel_up_to_6_12() || grown == psize() / 1024) {
		EXPECT_EQ(psize() / 1024, grown);
		EXPECT_TRUE(check_huge_anon(b->mem, 0, b->pmd_size));
		EXPECT_LT(split0, vmstat_read("thp_split_pmd"));
	} else {
		EXPECT_EQ(b->pmd_size / 1024, grown);
		EXPECT_TRUE(check_huge_anon(b->mem, 1, b->pmd_size));
	}
}

/*
 * reader: a child that reads one PMD range; the thp_zero_page_alloc
 * increase meanwhile (-1 if the child failed), and in *pfn the PFN the
 * child's read mapped (the huge zero page's).
 */
static long reader(size_t pmd_size, unsigned long *pfn)
{
	long zero0 = vmstat_read("thp_zero_page_alloc");
	int status, fds[2];
	pid_t pid;

	*pfn = -1UL;
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char *map = mmap(NULL, 2 * pmd_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int pagemap = open("/proc/self/pagemap", O_RDONLY);
		unsigned long mapped;
		char *p;

		if (map == MAP_FAILED || pagemap < 0)
			_exit(1);
		p = (char *)(((unsigned long)map + pmd_size - 1) & ~(pmd_size - 1));
		if (count_nonzero(p, pmd_size))
			_exit(1);
		mapped = pagemap_get_pfn(pagemap, p);
		_exit(write(fds[1], &mapped, sizeof(mapped)) == sizeof(mapped) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], pfn, sizeof(*pfn)) != sizeof(*pfn))
		*pfn = -1UL;
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
TEST_F(zero_page, allocated_lazily_and_shrunk)
{
	const char *alone = getenv("THP_ZERO_PAGE_NO_OTHER_USERS");
	size_t pmd_size = self->b.pmd_size;
	unsigned long pfn1, pfn2, pfn3;
	long first, second, third;
	pid_t other;

	drop_slab_caches();
	first = reader(pmd_size, &pfn1);
	second = reader(pmd_size, &pfn2);
	drop_slab_caches();
	third = reader(pmd_size, &pfn3);
	ksft_print_msg("thp_zero_page_alloc: first reader +%ld, second +%ld, %s +%ld\n",
		       first, second, "after drop_caches", third);
	ASSERT_LE(0, first);
	ASSERT_LE(0, second);
	ASSERT_LE(0, third);
	ASSERT_NE(-1UL, pfn1);
	/* The second reader shares the first one's page. */
	EXPECT_EQ(pfn1, pfn2);
	EXPECT_EQ(0, second);
	if (first == 0) {
		other = holder(pfn1, pmd_size);
		if (other)
			SKIP(return, "PID %d maps the huge zero page: it cannot be freed", other);
		if (!alone || strcmp(alone, "1"))
			SKIP(return, "%s; %s",
			     "drop_caches did not free the huge zero page: another process may hold it",
			     "THP_ZERO_PAGE_NO_OTHER_USERS=1 where none can");
	}
	EXPECT_EQ(1, first)
		TH_LOG("drop_caches did not free the huge zero page (PFN %lx)", pfn1);
	/* Nobody held it at the first drop_caches: the second frees it too. */
	EXPECT_EQ(1, third)
		TH_LOG("the second drop_caches did not free the huge zero page (PFN %lx)", pfn1);
}

TEST_HARNESS_MAIN
