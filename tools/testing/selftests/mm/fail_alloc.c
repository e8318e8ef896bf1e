// SPDX-License-Identifier: GPL-2.0
/*
 * fail_alloc: the kernel's fault injection, as fault_inject.c drives it
 * for the kselftests, for shell scripts (the boot tests' stress):
 *
 *   fail_alloc page <probability> <interval> <function>
 *   fail_alloc slab <probability> <interval> <cache-name-prefix>
 *
 * arms fail_page_alloc, aimed at the allocations made under <function>
 * by the tasks marked in /proc/<pid>/make-it-fail, or failslab, aimed at
 * every cache whose name starts with <cache-name-prefix>, in any task;
 * prints "armed", then waits for SIGTERM or SIGINT; then disarms, prints
 * "injected <n>" (the failures injected), puts back everything it changed
 * and exits 0.  Where the kernel lacks what it needs, or someone else
 * armed the attribute, it says why on stderr and exits 4 (KSFT_SKIP); a
 * bad argument: the usage on stderr, exit 2, nothing changed; a write
 * refused, or the count unreadable: exit 1, everything put back.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kselftest.h"
#include "fault_inject.h"

/* number: <s>, a decimal number from <min> to <max>, or -1. */
static long number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return end != s && !*end && !errno && v >= min && v <= max ? v : -1;
}

int main(int argc, char **argv)
{
	long probability = -1, interval = -1, injected;
	struct fault_inject fi;
	const char *why;
	sigset_t stop;
	int sig, err;

	if (argc == 5 && (!strcmp(argv[1], "page") || !strcmp(argv[1], "slab")) && *argv[4]) {
		probability = number(argv[2], 0, 100);
		interval = number(argv[3], 1, LONG_MAX);
	}
	if (probability < 0 || interval < 0) {
		fprintf(stderr, "usage: %s page <probability> <interval> <function>\n"
			"       %s slab <probability> <interval> <cache-name-prefix>\n"
			"(<probability>: 0 to 100 %%, <interval>: 1 or more)\n", argv[0], argv[0]);
		return 2;
	}
	/*
	 * Blocked from now on, not lost: one that comes before the wait
	 * below ends it there, and what was changed is always put back.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	why = fault_inject_open(&fi, strcmp(argv[1], "page") ? FAULT_INJECT_SLAB :
				FAULT_INJECT_PAGE, argv[4]);
	if (why) {
		fprintf(stderr, "%s: %s\n", argv[0], why);
		return KSFT_SKIP;
	}
	err = fault_inject_arm(&fi, probability, interval);
	if (err) {
		fprintf(stderr, "%s: arming %s: %s\n", argv[0], fi.dir, strerror(-err));
		fault_inject_close(&fi);
		return 1;
	}
	printf("armed\n");
	fflush(stdout);
	while (sigwait(&stop, &sig))
		;
	injected = fault_inject_disarm(&fi);
	if (injected >= 0)
		printf("injected %ld\n", injected);
	else
		fprintf(stderr, "%s: cannot read %s/times\n", argv[0], fi.dir);
	fflush(stdout);
	fault_inject_close(&fi);
	return injected >= 0 ? 0 : 1;
}
