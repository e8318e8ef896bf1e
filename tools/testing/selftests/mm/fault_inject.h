/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's fault injection (Documentation/fault-injection/
 * fault-injection.rst) as the mm kselftests and the boot tests (through
 * fail_alloc.c) use it, one of two fault attributes in debugfs:
 *
 *   - fail_page_alloc (FAULT_INJECT_PAGE), aimed with its stack filter
 *     (require-start, require-end) at one function of /proc/kallsyms and
 *     with its task filter at the tasks marked in /proc/<pid>/make-it-fail;
 *   - failslab (FAULT_INJECT_SLAB), aimed with its cache filter at every
 *     cache whose name starts with a prefix (marked in
 *     /sys/kernel/slab/<cache>/failslab), in any task, its stack filter
 *     off where the kernel has one.
 *
 * Either quietly (verbose 0), sleeping allocations included, by
 * probability and interval, at most FAULT_INJECT_TIMES failures: what is
 * left of "times" afterwards counts the failures injected.
 *
 * debugfs is mounted only where it was not, and unmounted by whoever
 * mounted it; the attributes a test changes, and the caches' marks, are
 * saved first and put back.
 */
#ifndef __FAULT_INJECT_H__
#define __FAULT_INJECT_H__

#include <stdbool.h>

#include "mm_knobs.h"

#define FAIL_PAGE_ALLOC DEBUGFS "/fail_page_alloc"
#define FAILSLAB DEBUGFS "/failslab"
/* The attributes' times when armed. */
#define FAULT_INJECT_TIMES 1000000L
/* The most attributes fault_inject_arm() sets, saved by fault_inject_open(). */
#define FAULT_INJECT_NR_ATTRS 13
/* The most caches a failslab prefix may match. */
#define FAULT_INJECT_MAX_CACHES 16

enum fault_inject_kind {
	FAULT_INJECT_PAGE,	/* fail_page_alloc, aimed at a function */
	FAULT_INJECT_SLAB,	/* failslab, aimed at caches by name */
};

struct fault_inject {
	enum fault_inject_kind kind;
	const char *dir;		/* FAIL_PAGE_ALLOC or FAILSLAB */
	unsigned long start, end;	/* the stack filter's range */
	int nr_attrs;			/* attributes saved */
	char saved[FAULT_INJECT_NR_ATTRS][32];	/* the attributes before */
	int nr_caches;			/* the caches failslab is aimed at */
	struct {
		char name[64];
		char saved;		/* their failslab before: '0' or '1' */
	} caches[FAULT_INJECT_MAX_CACHES];
	bool mounted;			/* debugfs, by fault_inject_open() */
	bool open;			/* saved: fault_inject_close() has work */
	bool armed;			/* changed: to put back */
	char why[256];			/* why not, for a skip */
};

/*
 * fault_inject_open: the fault attribute of <kind> (fail_page_alloc with
 * its stack filter, or failslab) found and idle (its probability or its
 * times 0: nobody else armed it), and its target: for FAULT_INJECT_PAGE
 * the text of the function <target>, for FAULT_INJECT_SLAB the caches of
 * /sys/kernel/slab whose names start with <target> (one at least); the
 * attributes, and those caches' failslab marks, saved.  Nothing is
 * written.  NULL, or why not (a skip reason naming what the kernel lacks,
 * or who holds it), with nothing left mounted.
 */
const char *fault_inject_open(struct fault_inject *fi, enum fault_inject_kind kind,
			      const char *target);

/*
 * fault_inject_arm: failures from now on, sleeping allocations included:
 * for FAULT_INJECT_PAGE, in the allocations of any order, highmem ones
 * too, made under the function of fault_inject_open() by the tasks marked
 * make-it-fail; for FAULT_INJECT_SLAB, in the allocations of its caches
 * (marked for the cache filter) by any task.  <probability> % of the
 * calls that pass the filters, every <interval>th of them, at most
 * FAULT_INJECT_TIMES.  0 or -errno.
 */
int fault_inject_arm(struct fault_inject *fi, unsigned int probability,
		     unsigned long interval);

/* fault_inject_disarm: no more failures; the failures injected, or -1. */
long fault_inject_disarm(struct fault_inject *fi);

/*
 * fault_inject_close: the attributes put back (the probability first at 0,
 * its own value last), the caches' marks before it, and debugfs unmounted
 * if fault_inject_open() mounted it.  Does nothing twice, nor after a
 * fault_inject_open() that failed or never ran on a zeroed *fi.
 */
void fault_inject_close(struct fault_inject *fi);

/* fault_inject_mark_self: this task's make-it-fail set, 0 or -errno. */
int fault_inject_mark_self(void);

#endif /* __FAULT_INJECT_H__ */
