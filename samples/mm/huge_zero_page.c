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
 * It then writes one byte and reads the buffer again.  In 6.12 a write to
 * the huge zero page splits its PMD into 4 KiB zero-page entries and
 * copies one 4 KiB page (thp_split_pmd moves, thp_fault_alloc does not):
 * its anonymous RSS grows by 4 KiB, not 2 MiB (VmRSS also counts the
 * program's own text pages, faulted in as code runs for the first time),
 * and the rest still reads zero.  The
 * /proc/vmstat counters that tell which path ran are printed as deltas.
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

/*
 * A field of /proc/self/status in KiB ("VmRSS", or "RssAnon": the
 * anonymous part, without the program's own file pages), -1 if absent.
 */
static long status_kib(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':' &&
		    sscanf(line + n + 1, "%ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* A counter of /proc/vmstat, -1 if absent. */
static long vmstat_read(const char *name)
{
	char key[64];
	long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	if (f)
		fclose(f);
	return found;
}

/* Pages of @p[0..@size) that are not zero at their first byte. */
static unsigned long count_nonzero(const char *p, unsigned long size)
{
	unsigned long i, n = 0;

	for (i = 0; i < size; i += PAGE)
		n += p[i] != 0;
	return n;
}

int main(int argc, char **argv)
{
	unsigned long size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 200) * MIB;
	char enabled[128], zero[16];
	unsigned long nonzero, others;
	long before, after, anon, written, zero0, fault0, split0;
	char *p;

	if (!size || posix_memalign((void **)&p, 2 * MIB, size)) {
		fprintf(stderr, "huge_zero_page: cannot allocate %lu MiB\n", size / MIB);
		return 1;
	}
	printf("huge_zero_page: THP enabled: %s; use_zero_page: %s\n",
	       read_line("/sys/kernel/mm/transparent_hugepage/enabled", enabled, sizeof(enabled)),
	       read_line("/sys/kernel/mm/transparent_hugepage/use_zero_page", zero, sizeof(zero)));

	zero0 = vmstat_read("thp_zero_page_alloc");
	fault0 = vmstat_read("thp_fault_alloc");
	before = status_kib("VmRSS");
	nonzero = count_nonzero(p, size);
	after = status_kib("VmRSS");
	anon = status_kib("RssAnon");

	printf("huge_zero_page: read %lu pages of a %lu MiB buffer, %lu not zero\n",
	       size / PAGE, size / MIB, nonzero);
	printf("huge_zero_page: RSS before %ld KiB, after %ld KiB\n", before, after);
	printf("huge_zero_page: reads: thp_zero_page_alloc +%ld, thp_fault_alloc +%ld\n",
	       vmstat_read("thp_zero_page_alloc") - zero0, vmstat_read("thp_fault_alloc") - fault0);

	fault0 = vmstat_read("thp_fault_alloc");
	split0 = vmstat_read("thp_split_pmd");
	p[0] = 1;
	written = status_kib("VmRSS");
	anon = status_kib("RssAnon") - anon;
	others = count_nonzero(p + PAGE, size - PAGE);
	printf("huge_zero_page: wrote 1 byte: RSS %ld KiB (%+ld KiB, anonymous %+ld KiB), %lu other pages not zero\n",
	       written, written - after, anon, others);
	printf("huge_zero_page: write: thp_fault_alloc +%ld, thp_split_pmd +%ld\n",
	       vmstat_read("thp_fault_alloc") - fault0, vmstat_read("thp_split_pmd") - split0);
	return nonzero || others ? 1 : 0;
}
