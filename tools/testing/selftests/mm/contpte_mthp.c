// SPDX-License-Identifier: GPL-2.0
/*
 * 64 KiB mTHP as a process sees it, with arm64's contiguous PTEs.
 *
 * With the 64 KiB mTHP size on "madvise" (the PMD size "never") and a
 * region advised MADV_HUGEPAGE, each write fault of a 64 KiB block maps it
 * with one 64 KiB folio.  On arm64 the kernel marks the block's entries
 * contiguous (contpte: one TLB entry covers the block).  Changing one entry
 * (mprotect() of one page) unfolds its block; making the block uniform again
 * folds it back; fork() maps the child's copy; munmap() clears whole blocks.
 *
 * data_read_back: whatever the kernel does with the entries, every byte
 * reads back what was written, in the parent and in a child after fork(),
 * after the mprotect() round trip.  Any kernel with 64 KiB mTHP.
 *
 * contpte_events: the contpte vm events of /proc/vmstat (contpte_map,
 * contpte_fold, contpte_unfold, contpte_tlbi, added by the mm-rust
 * series) count each step: the touch maps the 16 blocks contiguous;
 * write-protecting the last page of block 0 unfolds it, with one TLB
 * invalidation; making it writable again folds it back, with another;
 * fork() maps the child's 16 blocks contiguous (the parent's are
 * write-protected whole, without unfolding); munmap() counts nothing.
 * The counters are global: with CONTPTE_NO_OTHER_USERS=1 in the
 * environment (a test system where nothing else runs) each step's counts
 * must be exact, else at least these, as another process can only add to
 * them.  Skipped where the kernel has no such events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "knob_util.h"
#include "thp_settings.h"
#include "vm_util.h"

#define BLOCK_SIZE	(64UL << 10)
#define NR_BLOCKS	16
#define REGION_SIZE	(NR_BLOCKS * BLOCK_SIZE)
#define MTHP_64K	"/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled"

enum step { TOUCH, MPROTECT_RO, MPROTECT_RW, FORK, MUNMAP, NR_STEPS };
static const char * const step_name[NR_STEPS] = {
	"touch", "mprotect_ro", "mprotect_rw", "fork", "munmap",
};

enum event { MAP, FOLD, UNFOLD, TLBI, NR_EVENTS };
static const char * const event_name[NR_EVENTS] = {
	"contpte_map", "contpte_fold", "contpte_unfold", "contpte_tlbi",
};

/* What each step counts, by the rules of the file's comment. */
static const long want_events[NR_STEPS][NR_EVENTS] = {
	[TOUCH]		= { NR_BLOCKS, 0, 0, 0 },
	[MPROTECT_RO]	= { 0, 0, 1, 1 },
	[MPROTECT_RW]	= { 0, 1, 0, 1 },
	[FORK]		= { NR_BLOCKS, 0, 0, 0 },
	[MUNMAP]	= { 0, 0, 0, 0 },
};

static void read_events(long ev[NR_EVENTS])
{
	int e;

	for (e = 0; e < NR_EVENTS; e++)
		ev[e] = vmstat_read(event_name[e]);
}

static unsigned char page_byte(size_t i)
{
	return (unsigned char)(i * 7 + 1);
}

/* The bytes of buf that do not read back what the touch wrote. */
static size_t bad_bytes(const char *buf)
{
	size_t i, j, bad = 0;

	for (i = 0; i < REGION_SIZE / psize(); i++)
		for (j = 0; j < psize(); j++)
			bad += (unsigned char)buf[i * psize() + j] != page_byte(i);
	return bad;
}

/* What run_steps() saw. */
struct steps {
	long events[NR_STEPS][NR_EVENTS];	/* each step's counts */
	size_t bad_parent;			/* bytes read back wrong */
	int child_status;			/* the child's, after its check */
};

FIXTURE(mthp)
{
	struct steps run;
	bool saved;
};

FIXTURE_SETUP(mthp)
{
	struct thp_settings settings;
	int order;

	self->saved = false;
	if (access(MTHP_64K, F_OK))
		SKIP(return, "no " MTHP_64K ": no 64 KiB mTHP size");
	if (geteuid())
		SKIP(return, "needs root: the THP settings");
	order = __builtin_ctzl(BLOCK_SIZE / psize());
	thp_save_settings();
	self->saved = true;
	thp_read_settings(&settings);
	settings.thp_enabled = THP_NEVER;
	settings.hugepages[order].enabled = THP_MADVISE;
	thp_push_settings(&settings);
}

FIXTURE_TEARDOWN(mthp)
{
	if (self->saved)
		thp_restore_settings();
}

/*
 * run_steps: maps the region (block-aligned), advises it, writes every
 * page its own byte, write-protects the last page of block 0 and makes it
 * writable again (with a write), forks a child that checks every byte,
 * checks every byte itself and unmaps; what it saw into *run.
 */
static void run_steps(struct __test_metadata *_metadata, struct steps *run)
{
	long before[NR_EVENTS], now[NR_EVENTS];
	char *map, *buf;
	size_t i, last = BLOCK_SIZE - psize();
	int s = TOUCH, e;
	pid_t pid;

	map = mmap(NULL, REGION_SIZE + BLOCK_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	buf = (char *)(((unsigned long)map + BLOCK_SIZE - 1) & ~(BLOCK_SIZE - 1));
	ASSERT_EQ(0, madvise(buf, REGION_SIZE, MADV_HUGEPAGE));

	read_events(before);
	for (s = TOUCH; s < NR_STEPS; s++) {
		switch (s) {
		case TOUCH:
			for (i = 0; i < REGION_SIZE / psize(); i++)
				memset(buf + i * psize(), page_byte(i), psize());
			break;
		case MPROTECT_RO:
			ASSERT_EQ(0, mprotect(buf + last, psize(), PROT_READ));
			break;
		case MPROTECT_RW:
			ASSERT_EQ(0, mprotect(buf + last, psize(), PROT_READ | PROT_WRITE));
			buf[last] = page_byte(last / psize());
			break;
		case FORK:
			pid = fork();
			ASSERT_LE(0, pid);
			if (!pid)
				_exit(bad_bytes(buf) ? 1 : 0);
			ASSERT_EQ(pid, waitpid(pid, &run->child_status, 0));
			run->bad_parent = bad_bytes(buf);
			break;
		case MUNMAP:
			ASSERT_EQ(0, munmap(map, REGION_SIZE + BLOCK_SIZE));
			break;
		}
		read_events(now);
		for (e = 0; e < NR_EVENTS; e++)
			run->events[s][e] = now[e] - before[e];
		memcpy(before, now, sizeof(now));
	}
}

TEST_F(mthp, data_read_back)
{
	run_steps(_metadata, &self->run);
	EXPECT_TRUE(WIFEXITED(self->run.child_status) && !WEXITSTATUS(self->run.child_status))
		TH_LOG("the child read wrong bytes after fork()");
	EXPECT_EQ(0, self->run.bad_parent)
		TH_LOG("%zu bytes read back wrong in the parent", self->run.bad_parent);
}

TEST_F(mthp, contpte_events)
{
	const char *env = getenv("CONTPTE_NO_OTHER_USERS");
	bool exact = env && !strcmp(env, "1");
	int s, e;

	if (vmstat_read("contpte_map") < 0)
		SKIP(return, "no contpte events in /proc/vmstat: not arm64, or no contpte vm events");
	run_steps(_metadata, &self->run);
	for (s = 0; s < NR_STEPS; s++) {
		ksft_print_msg("step=%s map=%ld fold=%ld unfold=%ld tlbi=%ld\n", step_name[s],
			       self->run.events[s][MAP], self->run.events[s][FOLD],
			       self->run.events[s][UNFOLD], self->run.events[s][TLBI]);
		for (e = 0; e < NR_EVENTS; e++) {
			if (exact) {
				EXPECT_EQ(want_events[s][e], self->run.events[s][e])
					TH_LOG("step %s: %s", step_name[s], event_name[e]);
			} else {
				EXPECT_LE(want_events[s][e], self->run.events[s][e])
					TH_LOG("step %s: %s", step_name[s], event_name[e]);
			}
		}
	}
}

TEST_HARNESS_MAIN
