// SPDX-License-Identifier: GPL-2.0
/*
 * zero_memcmp: the memcmp microbenchmark of seed 001, scaled down.
 *
 *   zero_memcmp <MiB> <rounds>
 *
 * Allocates 2 x <MiB> of never-written THP-aligned memory and compares
 * the two halves <rounds> times.  The first round faults everything in:
 * with the huge zero page every 2 MiB range maps the same shared page of
 * zeros, without it each gets its own cleared huge page.  Prints
 *   zero_memcmp: <MiB> MiB x <rounds>: first <ms> ms, rest <ms> ms, RSS <KiB> KiB
 * (CLOCK_MONOTONIC; under QEMU -icount it counts instructions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB (1UL << 20)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

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
	unsigned long size;
	double t0, t1, t2;
	int rounds, i;
	char *p;

	if (argc != 3) {
		fprintf(stderr, "usage: zero_memcmp <MiB> <rounds>\n");
		return 2;
	}
	size = strtoul(argv[1], NULL, 0) * MIB;
	rounds = atoi(argv[2]);
	if (!size || rounds < 2 || posix_memalign((void **)&p, 2 * MIB, 2 * size)) {
		fprintf(stderr, "zero_memcmp: bad arguments or no memory\n");
		return 2;
	}
	t0 = now_ms();
	for (i = 0; i < rounds; i++) {
		if (memcmp(p, p + size, size)) {
			fprintf(stderr, "zero_memcmp: the halves differ\n");
			return 1;
		}
		asm volatile("" : : : "memory");
		if (!i)
			t1 = now_ms();
	}
	t2 = now_ms();
	printf("zero_memcmp: %lu MiB x %d: first %.1f ms, rest %.1f ms, RSS %ld KiB\n",
	       size / MIB, rounds, t1 - t0, t2 - t1, rss_kib());
	return 0;
}
