// SPDX-License-Identifier: GPL-2.0
/*
 * host_clear: what the extent of a clearing call does on this (host) CPU.
 *
 * QEMU TCG models no caches, so the effect the batched clearing is after
 * (a CPU that sees a large extent can skip allocating cache lines) cannot
 * show in the guest.  This program runs the three sequences of
 * arch/x86/lib/clear_pages_64.S (unrolled 8 x movq per line, rep stosq,
 * rep stosb) and the C library's memset() over one pre-faulted buffer, in
 * calls of a given extent (4 KiB: the 6.12 per-page clearing; 2 MiB: a THP
 * in one call; 32 MiB: PROCESS_PAGES_NON_PREEMPT_BATCH; 1 GiB: a gigantic
 * page in one call under preempt=full), and prints GB/s per extent, the
 * best of several passes over the whole buffer.
 *
 *   host_clear [buffer MiB (1024)] [passes (5)] [extents in KiB...]
 *
 * Output: one line per sequence and extent
 *   host_clear: <sequence> <extent KiB> KiB: <GB/s> GB/s
 * then, per sequence, the extent that cleared fastest.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static void clear_unrolled(void *addr, size_t len)
{
	uint64_t *p = addr;
	size_t lines = len / 64;

	/* The compiler must not turn this into a memset() call. */
	while (lines--) {
		asm volatile("movq %1, 0x00(%0)\n\tmovq %1, 0x08(%0)\n\t"
			     "movq %1, 0x10(%0)\n\tmovq %1, 0x18(%0)\n\t"
			     "movq %1, 0x20(%0)\n\tmovq %1, 0x28(%0)\n\t"
			     "movq %1, 0x30(%0)\n\tmovq %1, 0x38(%0)"
			     : : "r" (p), "r" (0UL) : "memory");
		p += 8;
	}
}

static void clear_stosq(void *addr, size_t len)
{
	size_t n = len / 8;

	asm volatile("rep stosq" : "+D" (addr), "+c" (n) : "a" (0UL) : "memory");
}

static void clear_stosb(void *addr, size_t len)
{
	asm volatile("rep stosb" : "+D" (addr), "+c" (len) : "a" (0) : "memory");
}

static void clear_memset(void *addr, size_t len)
{
	memset(addr, 0, len);
	asm volatile("" : : "r" (addr) : "memory");
}

static const struct {
	const char *name;
	void (*clear)(void *addr, size_t len);
} seqs[] = {
	{ "unrolled", clear_unrolled },
	{ "stosq", clear_stosq },
	{ "stosb", clear_stosb },
	{ "memset", clear_memset },
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const unsigned long default_kib[] = {
		4, 16, 64, 256, 1024, 2048, 8192, 32768, 131072, 524288, 1048576,
	};
	size_t size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 1024) << 20;
	int passes = argc > 2 ? atoi(argv[2]) : 5;
	unsigned long kib[32];
	int nk = 0, s, k, i;
	char *buf;

	for (i = 3; i < argc && nk < 32; i++)
		kib[nk++] = strtoul(argv[i], NULL, 0);
	if (!nk)
		for (nk = 0; nk < (int)(sizeof(default_kib) / sizeof(*default_kib)); nk++)
			kib[nk] = default_kib[nk];
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		   -1, 0);
	if (buf == MAP_FAILED || passes < 1) {
		perror("host_clear: mmap");
		return 1;
	}
	memset(buf, 1, size);

	for (s = 0; s < (int)(sizeof(seqs) / sizeof(*seqs)); s++) {
		double best_gbs = 0;
		unsigned long best_kib = 0;

		for (k = 0; k < nk; k++) {
			size_t ext = kib[k] << 10;
			double best = 1e30;

			if (ext > size)
				continue;
			for (i = 0; i < passes; i++) {
				double t = now();
				size_t off;

				for (off = 0; off + ext <= size; off += ext)
					seqs[s].clear(buf + off, ext);
				t = now() - t;
				if (t < best)
					best = t;
			}
			best = (size / ext) * ext / best / 1e9;
			printf("host_clear: %s %lu KiB: %.2f GB/s\n", seqs[s].name, kib[k], best);
			fflush(stdout);
			if (best > best_gbs) {
				best_gbs = best;
				best_kib = kib[k];
			}
		}
		printf("host_clear: %s best extent %lu KiB (%.2f GB/s)\n", seqs[s].name,
		       best_kib, best_gbs);
	}
	return 0;
}
