// SPDX-License-Identifier: GPL-2.0
/*
 * 64 KiB mTHP as a process sees it, with arm64's contiguous PTEs.
 *
 * With the 64 KiB mTHP size on "madvise", every other size and the PMD
 * size "never", and a region advised MADV_HUGEPAGE, each write fault of a
 * 64 KiB block maps it with one 64 KiB folio.  On arm64 the kernel marks
 * the block's entries contiguous (contpte: one TLB entry covers the
 * block).  Changing one entry (mprotect() of one page) unfolds its block;
 * making the block uniform again folds it back; fork() maps the child's
 * copy; munmap() of one page unfolds its block, of whole blocks clears
 * them without unfolding.
 *
 * data_read_back: the touch allocated one 64 KiB mTHP per block (the
 * hugepages-64kB/stats/anon_fault_alloc counter grew by at least
 * NR_BLOCKS), and whatever the kernel does with the entries, every byte
 * reads back what was written, in the parent and in a child after fork(),
 * after the mprotect() round trip.  Any kernel with 64 KiB mTHP and its
 * stats (6.9 and later, x86_64 too); skipped without them.
 *
 * contpte_events: the contpte vm events of /proc/vmstat (contpte_map,
 * contpte_fold, contpte_unfold, contpte_tlbi, added by the mm-rust
 * series) count each step: the touch maps the 16 blocks contiguous;
 * write-protecting the last page of block 0 unfolds it, with one TLB
 * invalidation; making it writable again folds it back, with another;
 * fork() maps the child's 16 blocks contiguous (the parent's are
 * write-protected whole, without unfolding); munmap() of one page of
 * block 1 unfolds that block, with one TLB invalidation, and the munmap()
 * of the rest counts nothing.  Every step causes at least one event.
 * The counters are global, and another process can only add to them: with
 * CONTPTE_NO_OTHER_USERS=1 in the environment (a test system where
 * nothing else runs) one run's counts must be these exactly.  Else the
 * steps run up to CONTPTE_RUNS times, until a run counts exactly these,
 * and for each step and event the least count of the runs must be this
 * one: a kernel that counts too few or too many fails every run, and a
 * right one fails only where other processes made contpte events in the
 * same step of every run.  The steps are
 * written for 64 KiB blocks, arm64's contpte block (CONT_PTE_SIZE) with
 * 4 KiB pages only: skipped with other page sizes (16 and 64 KiB pages
 * have 2 MiB blocks), and where the kernel has no such events.
 *
 * switched_off_counts_nothing: the same steps with the series' contpte
 * switch off (/sys/kernel/debug/contpte/on at 0, CONFIG_CONTPTE_SWITCH, a
 * test option): the same bytes read back, and no step counts any contpte
 * event (exact, or the least of the runs as above).  Skipped where the
 * kernel has no switch or no events.
 *
 * The setup only skips, changing nothing; each test sets the THP files in
 * its body, with knob_write() (a refused write fails the test), each
 * file's value saved first into the fixture, which the harness shares
 * with the parent whose teardown puts them back.
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
#include "mm_knobs.h"
#include "thp_settings.h"
#include "vm_util.h"

#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"
#define BLOCK_SIZE	(64UL << 10)
#define NR_BLOCKS	16
#define REGION_SIZE	(NR_BLOCKS * BLOCK_SIZE)
#define MTHP_DIR	THP_DIR "/hugepages-64kB"
#define CONTPTE_RUNS	5
#define MTHP_ALLOC	MTHP_DIR "/stats/anon_fault_alloc"
#define CONTPTE_ON	"/sys/kernel/debug/contpte/on"

enum step { TOUCH, MPROTECT_RO, MPROTECT_RW, FORK, MUNMAP, NR_STEPS };
static const char * const step_name[NR_STEPS] = {
	"touch", "mprotect_ro", "mprotect_rw", "fork", "munmap",
};

enum event { MAP, FOLD, UNFOLD, TLBI, NR_EVENTS };
static const char * const event_name[NR_EVENTS] = {
	"contpte_map", "contpte_fold", "contpte_unfold", "contpte_tlbi",
};

/*
 * What each step counts, by the rules of the file's comment.  Each row
 * has a count above 0, so each step is checked by the lower bounds too.
 */
static const long want_events[NR_STEPS][NR_EVENTS] = {
	[TOUCH]		= { NR_BLOCKS, 0, 0, 0 },
	[MPROTECT_RO]	= { 0, 0, 1, 1 },
	[MPROTECT_RW]	= { 0, 1, 0, 1 },
	[FORK]		= { NR_BLOCKS, 0, 0, 0 },
	[MUNMAP]	= { 0, 0, 1, 1 },
};

/* The 64 KiB mTHP the kernel allocated at anonymous faults, -1 if unknown. */
static long mthp_allocs(void)
{
	return knob_read_long(MTHP_ALLOC);
}

static void read_events(long ev[NR_EVENTS])
{
	int e;

	for (e = 0; e < NR_EVENTS; e++)
		ev[e] = vmstat_read(event_name[e]);
}

/* CONTPTE_NO_OTHER_USERS=1: nothing else runs, global counts are exact. */
static bool counts_exact(void)
{
	const char *env = getenv("CONTPTE_NO_OTHER_USERS");

	return env && !strcmp(env, "1");
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
	long allocs[NR_STEPS];			/* each step's 64 KiB mTHP */
	size_t bad_parent;			/* bytes read back wrong */
	int child_status;			/* the child's, after its check */
};

FIXTURE(mthp)
{
	struct steps run;
	int order;		/* of the 64 KiB size */
	struct knobs knobs;	/* the THP files the test changed */
	bool debugfs_mounted;	/* by switched_off_counts_nothing */
	char why[256];		/* a write that failed */
};

/* The skips; nothing changes here. */
FIXTURE_SETUP(mthp)
{
	if (access(MTHP_DIR, F_OK))
		SKIP(return, "no " MTHP_DIR
		     ": no 64 KiB mTHP size (CONFIG_TRANSPARENT_HUGEPAGE off, or before 6.8)");
	if (mthp_allocs() < 0)
		SKIP(return, "no " MTHP_ALLOC ": no mTHP stats (a kernel before 6.9)");
	if (geteuid())
		SKIP(return, "needs root: the THP settings");
	self->order = __builtin_ctzl(BLOCK_SIZE / psize());
	if (!(thp_supported_orders() & (1UL << self->order)))
		SKIP(return, "64 KiB is not an mTHP size with %u KiB pages", psize() >> 10);
}

/*
 * In the parent of the test's process: 6.12's harness skips a
 * FIXTURE_TEARDOWN() in the test's process after a failed ASSERT there
 * when the compiler kept its "child" in a register (-Wclobbered), so the
 * settings to put back are in self, which the harness shares for this.
 */
FIXTURE_TEARDOWN_PARENT(mthp)
{
	knob_put_back(&self->knobs);
	debugfs_release(&self->debugfs_mounted);
}

/*
 * madvise_64k_only: the THP files set for the steps, each saved first:
 * the 64 KiB size on "madvise", every other size and the top level
 * "never".  A refused write fails the test.
 */
static void madvise_64k_only(struct __test_metadata *_metadata, FIXTURE_DATA(mthp) *self)
{
	unsigned long orders = thp_supported_orders();
	char path[128];
	int i, err;

	err = knob_change(&self->knobs, self->why, sizeof(self->why), THP_DIR "/enabled",
			  "never");
	for (i = 0; !err && i < NR_ORDERS; i++) {
		if (!(orders & (1UL << i)))
			continue;
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/enabled",
			 (psize() >> 10) << i);
		err = knob_change(&self->knobs, self->why, sizeof(self->why), path,
				  i == self->order ? "madvise" : "never");
	}
	ASSERT_EQ(0, err)
		TH_LOG("%s", self->why);
}

/*
 * run_steps: maps the region (block-aligned), advises it, writes every
 * page its own byte, write-protects the last page of block 0 and makes it
 * writable again (with a write), forks a child that checks every byte,
 * checks every byte itself, unmaps one page in the middle of block 1,
 * then everything; what it saw into *run.
 */
static void run_steps(struct __test_metadata *_metadata, struct steps *run)
{
	long before[NR_EVENTS], now[NR_EVENTS], allocs;
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
	allocs = mthp_allocs();
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
			ASSERT_EQ(0, munmap(buf + BLOCK_SIZE + BLOCK_SIZE / 2, psize()));
			ASSERT_EQ(0, munmap(map, REGION_SIZE + BLOCK_SIZE));
			break;
		}
		read_events(now);
		for (e = 0; e < NR_EVENTS; e++)
			run->events[s][e] = now[e] - before[e];
		memcpy(before, now, sizeof(now));
		run->allocs[s] = mthp_allocs() - allocs;
		allocs += run->allocs[s];
	}
}

TEST_F(mthp, data_read_back)
{
	madvise_64k_only(_metadata, self);
	run_steps(_metadata, &self->run);
	ksft_print_msg("64 KiB mTHP allocated: touch %ld, the other steps %ld\n",
		       self->run.allocs[TOUCH], self->run.allocs[MPROTECT_RO] +
		       self->run.allocs[MPROTECT_RW] + self->run.allocs[FORK] +
		       self->run.allocs[MUNMAP]);
	if (counts_exact()) {
		EXPECT_EQ(NR_BLOCKS, self->run.allocs[TOUCH])
			TH_LOG("touch: want one 64 KiB mTHP per block (anon_fault_alloc)");
	} else {
		EXPECT_LE(NR_BLOCKS, self->run.allocs[TOUCH])
			TH_LOG("touch: want one 64 KiB mTHP per block (anon_fault_alloc)");
	}
	EXPECT_TRUE(WIFEXITED(self->run.child_status) && !WEXITSTATUS(self->run.child_status))
		TH_LOG("the child read wrong bytes after fork()");
	EXPECT_EQ((size_t)0, self->run.bad_parent)
		TH_LOG("%zu bytes read back wrong in the parent", self->run.bad_parent);
}

/* The skips of the event tests: no contpte events, or no 64 KiB blocks. */
static const char *events_missing(void)
{
	if (vmstat_read("contpte_map") < 0)
		return "no contpte events in /proc/vmstat: not arm64, or CONFIG_CONTPTE_VMSTAT off";
	if (psize() != 4096)
		return "contpte blocks of 64 KiB need 4 KiB pages";
	return NULL;
}

/*
 * expect_events: the steps run (once with CONTPTE_NO_OTHER_USERS=1, else
 * up to CONTPTE_RUNS times until a run counts exactly @want), and each
 * step's least count of each event is @want's.
 */
static void expect_events(struct __test_metadata *_metadata, FIXTURE_DATA(mthp) *self,
			  const long want[NR_STEPS][NR_EVENTS])
{
	long least[NR_STEPS][NR_EVENTS];
	int runs = counts_exact() ? 1 : CONTPTE_RUNS;
	int r, s, e;

	for (r = 0; r < runs; r++) {
		run_steps(_metadata, &self->run);
		for (s = 0; s < NR_STEPS; s++) {
			ksft_print_msg("run %d: step=%s map=%ld fold=%ld unfold=%ld tlbi=%ld\n",
				       r + 1, step_name[s], self->run.events[s][MAP],
				       self->run.events[s][FOLD], self->run.events[s][UNFOLD],
				       self->run.events[s][TLBI]);
			for (e = 0; e < NR_EVENTS; e++)
				if (!r || self->run.events[s][e] < least[s][e])
					least[s][e] = self->run.events[s][e];
		}
		if (!memcmp(least, want, sizeof(least)))
			break;
	}
	for (s = 0; s < NR_STEPS; s++) {
		for (e = 0; e < NR_EVENTS; e++) {
			EXPECT_EQ(want[s][e], least[s][e])
				TH_LOG("step %s: %s %ld, want %ld (%s)", step_name[s],
				       event_name[e], least[s][e], want[s][e],
				       runs > 1 ? "the least of the runs" : "exact: one run");
		}
	}
}

TEST_F(mthp, contpte_events)
{
	const char *missing = events_missing();

	if (missing)
		SKIP(return, "%s", missing);
	madvise_64k_only(_metadata, self);
	expect_events(_metadata, self, want_events);
}

TEST_F(mthp, switched_off_counts_nothing)
{
	static const long none[NR_STEPS][NR_EVENTS];
	const char *missing = events_missing();

	if (missing)
		SKIP(return, "%s", missing);
	if (debugfs_need(CONTPTE_ON, &self->debugfs_mounted))
		SKIP(return, "no " CONTPTE_ON ": no contpte switch (CONFIG_CONTPTE_SWITCH off)");
	madvise_64k_only(_metadata, self);
	ASSERT_EQ(0, knob_change(&self->knobs, self->why, sizeof(self->why), CONTPTE_ON, "0"))
		TH_LOG("%s", self->why);
	expect_events(_metadata, self, none);
	/* No event counted must not be no 64 KiB mTHP mapped. */
	EXPECT_LE(NR_BLOCKS, self->run.allocs[TOUCH])
		TH_LOG("touch: want one 64 KiB mTHP per block (anon_fault_alloc), %ld",
		       self->run.allocs[TOUCH]);
	EXPECT_TRUE(WIFEXITED(self->run.child_status) && !WEXITSTATUS(self->run.child_status))
		TH_LOG("the child read wrong bytes after fork()");
	EXPECT_EQ((size_t)0, self->run.bad_parent)
		TH_LOG("%zu bytes read back wrong in the parent", self->run.bad_parent);
}

TEST_HARNESS_MAIN
