// SPDX-License-Identifier: GPL-2.0
/*
 * contpte_fork: the seed's fork and munmap microbenchmarks of arm64
 * contpte (seed 002; benchmarking.rst).
 *
 *   contpte_fork bench <order0|64k|order9> <MiB> <rounds>
 *	For each round, with contpte on and off (/sys/kernel/debug/contpte/on;
 *	which goes first alternates), maps <MiB> and writes to every page,
 *	then times fork() in the parent (the child waits, and exits only
 *	after the parent's clock is read) and munmap() of the region.
 *	The kind sets the THP sysfs knobs: order0 (THP and mTHP never:
 *	4 KiB folios), 64k (the 64 KiB mTHP size always) or order9 (THP
 *	always, then the PMD of each 2 MiB folio split by an mprotect() of
 *	one page and back, and THP never again so that khugepaged leaves
 *	the PTE-mapped folios alone).  Prints one line per measurement:
 *	  contpte_bench: kind=<k> contpte=<on|off> round=<r> fork_ns=<n>
 *	  munmap_ns=<n> map=<blocks mapped contiguous> fold=<n> thp=<n>
 *	The caller restores the THP settings afterwards.  On a kernel built
 *	without contpte (no switch), one measurement per round, contpte=out.
 *
 * What contpte does for a process, and its events, is checked by the
 * kselftest tools/testing/selftests/mm/contpte_mthp.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#define PAGE		4096UL
#define BLOCK		(16 * PAGE)
#define PMD		(2UL << 20)
#define THP		"/sys/kernel/mm/transparent_hugepage"
#define SWITCH		"/sys/kernel/debug/contpte/on"

struct events {
	long map, fold, unfold, tlbi, thp_split_pmd;
};

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "contpte_fork: %s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * A kernel without contpte (CONFIG_ARM64_CONTPTE=n: no switch, no events),
 * found by the benchmark: it then measures that kernel, "contpte=out".
 */
static int compiled_out;

/* Returns how many of the four contpte events /proc/vmstat has. */
static int read_events(struct events *e)
{
	char name[64];
	long v;
	int seen = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("/proc/vmstat");
	memset(e, 0, sizeof(*e));
	while (fscanf(f, "%63s %ld", name, &v) == 2) {
		if (!strcmp(name, "contpte_map"))
			e->map = v, seen++;
		else if (!strcmp(name, "contpte_fold"))
			e->fold = v, seen++;
		else if (!strcmp(name, "contpte_unfold"))
			e->unfold = v, seen++;
		else if (!strcmp(name, "contpte_tlbi"))
			e->tlbi = v, seen++;
		else if (!strcmp(name, "thp_split_pmd"))
			e->thp_split_pmd = v;
	}
	fclose(f);
	if (seen != 4 && !compiled_out) {
		fprintf(stderr, "contpte_fork: no contpte events in /proc/vmstat\n");
		exit(2);
	}
	return seen;
}

static void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		die(path);
}

/* len bytes of anonymous memory at a 2 MiB-aligned address. */
static char *map_region(size_t len)
{
	char *p = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;

	if (p == MAP_FAILED)
		die("mmap");
	q = (char *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
	if (q > p)
		munmap(p, q - p);
	munmap(q + len, p + PMD - q);
	return q;
}

static unsigned char page_byte(size_t i)
{
	return (unsigned char)(i * 7 + 1);
}

static void fill(char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len / PAGE; i++)
		memset(buf + i * PAGE, page_byte(i), PAGE);
}

/* The last page of a block read-only (protect), then writable (unprotect). */
static void protect_last_page_of_block(char *block)
{
	if (mprotect(block + BLOCK - PAGE, PAGE, PROT_READ))
		die("mprotect PROT_READ");
}

static void unprotect_last_page_of_block(char *block)
{
	if (mprotect(block + BLOCK - PAGE, PAGE, PROT_READ | PROT_WRITE))
		die("mprotect PROT_READ|PROT_WRITE");
}

static int read_switch(void)
{
	FILE *f = fopen(SWITCH, "r");
	int on;

	if (!f || fscanf(f, "%d", &on) != 1)
		die(SWITCH);
	fclose(f);
	return on;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void set_kind(const char *kind)
{
	int order9 = !strcmp(kind, "order9");

	if (strcmp(kind, "order0") && strcmp(kind, "64k") && !order9) {
		fprintf(stderr, "contpte_fork: kind is order0, 64k or order9\n");
		exit(2);
	}
	write_file(THP "/enabled", order9 ? "always" : "never");
	write_file(THP "/hugepages-64kB/enabled", strcmp(kind, "64k") ? "never" : "always");
}

static void bench_one(const char *kind, size_t len, int on, int round)
{
	struct events e0, e1;
	long long t0, t1, t2, t3;
	int gate[2];
	size_t off;
	char *buf;
	pid_t pid;

	if (!compiled_out)
		write_file(SWITCH, on ? "1" : "0");
	set_kind(kind);
	read_events(&e0);
	buf = map_region(len);
	fill(buf, len);
	if (!strcmp(kind, "order9")) {
		/* Split each PMD into a PTE-mapped 2 MiB folio. */
		for (off = 0; off < len; off += PMD) {
			protect_last_page_of_block(buf + off);
			unprotect_last_page_of_block(buf + off);
		}
		write_file(THP "/enabled", "never");
	}
	read_events(&e1);

	/*
	 * The child waits on a pipe until the parent has read its clock: its
	 * exit, which tears down a copy of the whole region, must not fall
	 * in the window, as it would whenever the scheduler ran the child
	 * first (one vCPU) or, under -icount, whose clock counts every vCPU's
	 * instructions, beside the parent (two).
	 */
	if (pipe(gate))
		die("pipe");
	t0 = now_ns();
	pid = fork();
	if (pid == 0) {
		char c;

		_exit(read(gate[0], &c, 1) == 1 ? 0 : 1);
	}
	t1 = now_ns();
	if (pid < 0)
		die("fork");
	if (write(gate[1], "x", 1) != 1)
		die("write");
	close(gate[0]);
	close(gate[1]);
	if (waitpid(pid, NULL, 0) != pid)
		die("waitpid");
	t2 = now_ns();
	if (munmap(buf, len))
		die("munmap");
	t3 = now_ns();
	printf("contpte_bench: kind=%s contpte=%s round=%d fork_ns=%lld munmap_ns=%lld map=%ld fold=%ld thp=%ld\n",
	       kind, compiled_out ? "out" : on ? "on" : "off", round,
	       t1 - t0, t3 - t2, e1.map - e0.map, e1.fold - e0.fold,
	       e1.thp_split_pmd - e0.thp_split_pmd);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int r, rounds, first, was_on;

	if (argc == 5 && !strcmp(argv[1], "bench")) {
		size_t mib = strtoul(argv[3], NULL, 0);

		rounds = atoi(argv[4]);
		if (!mib || mib % 2 || rounds < 1) {
			fprintf(stderr, "contpte_fork: <MiB> even, <rounds> >= 1\n");
			return 2;
		}
		if (access(SWITCH, F_OK)) {
			struct events e;

			/* contpte compiled out: one measurement per round. */
			compiled_out = 1;
			if (read_events(&e)) {
				fprintf(stderr, "contpte_fork: contpte events but no %s (debugfs not mounted?)\n",
					SWITCH);
				return 2;
			}
			for (r = 1; r <= rounds; r++)
				bench_one(argv[2], mib << 20, 0, r);
			return 0;
		}
		was_on = read_switch();
		for (r = 1; r <= rounds; r++) {
			first = r % 2;	/* on first in odd rounds */
			bench_one(argv[2], mib << 20, first, r);
			bench_one(argv[2], mib << 20, !first, r);
		}
		write_file(SWITCH, was_on ? "1" : "0");
		return 0;
	}
	fprintf(stderr, "usage: contpte_fork bench <order0|64k|order9> <MiB> <rounds>\n");
	return 2;
}
