// SPDX-License-Identifier: GPL-2.0
/*
 * The huge zero page demonstration of seed 001, as a program to read.
 *
 * Reads one byte of every 4 KiB page of a 2 MiB-aligned 200 MiB buffer
 * that was never written, then prints the process's resident set size.
 * Every read faults on memory that has no page yet; with transparent huge
 * pages on, each 2 MiB-aligned range is a candidate for a huge page:
 *
 * - with the huge zero page (/sys/kernel/mm/transparent_hugepage/
 *   use_zero_page = 1, the default), a read fault maps the one shared
 *   2 MiB page of zeros read-only: RSS stays at a few hundred KiB;
 * - without it, each read fault allocates and clears a 2 MiB page:
 *   RSS grows to about 200 MiB;
 * - with THP off (enabled = never), each read fault maps the 4 KiB zero
 *   page: RSS stays small too.
 *
 * Usage: huge_zero_page [MiB]   (default 200)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024UL * 1024)
#define PAGE 4096UL

/* The first line of @path, without its newline, in @buf; "?" if unreadable. */
static const char *read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, size, f))
		snprintf(buf, size, "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* VmRSS of this process in KiB, -1 if /proc/self/status has none. */
static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	unsigned long size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 200) * MIB;
	char enabled[128], zero[16];
	unsigned long i, nonzero = 0;
	char *p;
	long before, after;

	if (!size || posix_memalign((void **)&p, 2 * MIB, size)) {
		fprintf(stderr, "huge_zero_page: cannot allocate %lu MiB\n", size / MIB);
		return 1;
	}
	printf("huge_zero_page: THP enabled: %s; use_zero_page: %s\n",
	       read_line("/sys/kernel/mm/transparent_hugepage/enabled", enabled, sizeof(enabled)),
	       read_line("/sys/kernel/mm/transparent_hugepage/use_zero_page", zero, sizeof(zero)));

	before = rss_kib();
	for (i = 0; i < size; i += PAGE)
		nonzero += p[i] != 0;
	after = rss_kib();

	printf("huge_zero_page: read %lu pages of a %lu MiB buffer, %lu not zero\n",
	       size / PAGE, size / MIB, nonzero);
	printf("huge_zero_page: RSS before %ld KiB, after %ld KiB\n", before, after);
	return nonzero ? 1 : 0;
}
