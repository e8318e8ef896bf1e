// SPDX-License-Identifier: GPL-2.0
/*
 * demand_fault: the bandwidth of demand faults on huge pages, the
 * measurement of "perf bench mem mmap -f demand -p 2MB|1GB" (which the
 * 6.12 perf lacks): each loop maps a region, touches one byte per huge
 * page (every touch is a fault that allocates and clears a whole page)
 * and unmaps it; the figure is region size / time of the touches.
 *
 *   demand_fault <hugetlb-2m|hugetlb-1g|thp> <MiB> <loops>
 *
 * Prints each loop, then one line
 *   demand_fault: <page> <MiB> MiB x <loops>: <mean> GB/sec +- <stdev>%
 * (GB = 10^9 bytes; the stdev relative to the mean, as perf prints it).
 * Time is CLOCK_MONOTONIC: under QEMU -icount it counts instructions.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *map(const char *kind, size_t size, size_t *page)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *p, *q;

	if (!strcmp(kind, "thp")) {
		*page = 2UL << 20;
		p = mmap(NULL, size + *page, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		q = (char *)(((uintptr_t)p + *page - 1) & ~(*page - 1));
		if (q > p)
			munmap(p, q - p);
		munmap(q + size, p + *page - q);
		madvise(q, size, MADV_HUGEPAGE);
		return q;
	}
	if (!strcmp(kind, "hugetlb-2m")) {
		*page = 2UL << 20;
		flags |= MAP_HUGETLB | (21 << MAP_HUGE_SHIFT);
	} else if (!strcmp(kind, "hugetlb-1g")) {
		*page = 1UL << 30;
		flags |= MAP_HUGETLB | (30 << MAP_HUGE_SHIFT);
	} else {
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	double sum = 0, sq = 0, mean, sd;
	size_t size, page, off;
	int loops, i;

	if (argc != 4) {
		fprintf(stderr, "usage: demand_fault <hugetlb-2m|hugetlb-1g|thp> <MiB> <loops>\n");
		return 2;
	}
	size = strtoul(argv[2], NULL, 0) << 20;
	loops = atoi(argv[3]);
	if (!size || loops < 1) {
		fprintf(stderr, "demand_fault: bad size or loop count\n");
		return 2;
	}
	for (i = 0; i < loops; i++) {
		char *p = map(argv[1], size, &page);
		double t, gbs;

		if (!p) {
			fprintf(stderr, "demand_fault: cannot map %zu MiB of %s: %m\n",
				size >> 20, argv[1]);
			return 1;
		}
		t = now();
		for (off = 0; off < size; off += page)
			p[off] = 1;	/* p escapes to munmap(): the stores stay */
		t = now() - t;
		munmap(p, size);
		gbs = size / t / 1e9;
		printf("demand_fault: %s loop %d: %.3f GB/sec\n", argv[1], i + 1, gbs);
		sum += gbs;
		sq += gbs * gbs;
	}
	mean = sum / loops;
	sd = loops > 1 ? sqrt(fmax(0, (sq - loops * mean * mean) / (loops - 1))) : 0;
	printf("demand_fault: %s %zu MiB x %d: %.3f GB/sec +- %.2f%%\n",
	       argv[1], size >> 20, loops, mean, 100 * sd / mean);
	return 0;
}
