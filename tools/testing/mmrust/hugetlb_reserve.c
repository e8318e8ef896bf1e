// SPDX-License-Identifier: GPL-2.0
/*
 * hugetlb_reserve - map 2 MiB hugetlb memory without touching it, then
 * unmap it.
 *
 *   hugetlb_reserve <MiB>
 *
 * A private MAP_HUGETLB mapping reserves its huge pages at mmap() time;
 * with the pool too small and overcommit allowed, the reservation
 * allocates surplus pages (gather_surplus_pages()).  Unmapped untouched,
 * the reservation is released and return_unused_surplus_pages() frees the
 * unused surplus pages, in one bulk free.  While the memory is mapped it
 * prints the default huge page size's counters of /proc/meminfo:
 *
 *   hugetlb_reserve: <MiB> MiB mapped: HugePages_Total <t>, HugePages_Rsvd <r>, HugePages_Surp <s>
 *
 * Exits 1, with the error on stderr, when the mapping fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)

/* The value of a line of /proc/meminfo, or -1. */
static long meminfo_value(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long val = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			val = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

int main(int argc, char **argv)
{
	size_t mib, size;
	void *p;

	mib = argc == 2 ? strtoul(argv[1], NULL, 10) : 0;
	if (!mib || mib % 2) {
		fprintf(stderr, "usage: %s <MiB, even>\n", argv[0]);
		return 1;
	}
	size = mib << 20;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "hugetlb_reserve: mmap of %zu MiB: %s\n", mib, strerror(errno));
		return 1;
	}
	printf("hugetlb_reserve: %zu MiB mapped: HugePages_Total %ld, HugePages_Rsvd %ld, HugePages_Surp %ld\n",
	       mib, meminfo_value("HugePages_Total"), meminfo_value("HugePages_Rsvd"),
	       meminfo_value("HugePages_Surp"));
	if (munmap(p, size)) {
		fprintf(stderr, "hugetlb_reserve: munmap: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
