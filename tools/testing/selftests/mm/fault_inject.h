/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's fault injection (Documentation/fault-injection/
 * fault-injection.rst) as the mm kselftests use it: fail_page_alloc in
 * debugfs, aimed with its stack filter (require-start, require-end) at one
 * function of /proc/kallsyms and with its task filter at the tasks marked
 * in /proc/<pid>/make-it-fail, quietly (verbose 0), by probability and
 * interval, at most FAULT_INJECT_TIMES failures: what is left of "times"
 * afterwards counts the failures injected.
 *
 * debugfs is mounted only where it was not, and unmounted by whoever
 * mounted it; the attributes a test changes are saved first and put back.
 */
#ifndef __FAULT_INJECT_H__
#define __FAULT_INJECT_H__

#include <stdbool.h>

#include "mm_knobs.h"

#define FAIL_PAGE_ALLOC DEBUGFS "/fail_page_alloc"
/* fail_page_alloc's times when armed. */
#define FAULT_INJECT_TIMES 1000000L
/* The attributes fault_inject_arm() sets, saved by fault_inject_open(). */
#define FAULT_INJECT_NR_ATTRS 13

struct fault_inject {
	unsigned long start, end;	/* the aimed function's text */
	char saved[FAULT_INJECT_NR_ATTRS][32];	/* the attributes before */
	bool mounted;			/* debugfs, by fault_inject_open() */
	bool open;			/* saved: fault_inject_close() has work */
	bool armed;			/* changed: to put back */
	char why[256];			/* why not, for a skip */
};

/*
 * fault_inject_open: fail_page_alloc with its stack filter, and the text
 * of <fn>, found, and idle (its probability or its times 0: nobody else
 * armed it); its attributes saved.  Nothing is written.  NULL, or why not
 * (a skip reason naming what the kernel lacks, or who holds it), with
 * nothing left mounted.
 */
const char *fault_inject_open(struct fault_inject *fi, const char *fn);

/*
 * fault_inject_arm: failures from now on, in the allocations of any order
 * made under the function of fault_inject_open() by the tasks marked
 * make-it-fail, sleeping and highmem ones included: <probability> % of
 * the calls that pass the filters, every <interval>th of them, at most
 * FAULT_INJECT_TIMES.  0 or -errno.
 */
int fault_inject_arm(struct fault_inject *fi, unsigned int probability,
		     unsigned long interval);

/* fault_inject_disarm: no more failures; the failures injected, or -1. */
long fault_inject_disarm(struct fault_inject *fi);

/*
 * fault_inject_close: the attributes put back (the probability first at 0,
 * its own value last) and debugfs unmounted if fault_inject_open()
 * mounted it.  Does nothing twice, nor after a fault_inject_open() that
 * failed or never ran on a zeroed *fi.
 */
void fault_inject_close(struct fault_inject *fi);

/* fault_inject_mark_self: this task's make-it-fail set, 0 or -errno. */
int fault_inject_mark_self(void);

#endif /* __FAULT_INJECT_H__ */
