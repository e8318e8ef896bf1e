// SPDX-License-Identifier: GPL-2.0
/*
 * fault_zero: memory that was dirtied, freed and faulted in again must read
 * back zero, through each caller of folio_zero_user().
 *
 *   fault_zero <case> <MiB>
 *
 * Each case maps <MiB> of memory, writes a pattern over all of it, frees
 * it, maps it again the same way (so that the same huge pages are likely
 * to come back), faults it in and checks every byte:
 *
 *   thp-rw      anonymous, THP-aligned: read each page, then write a byte
 *   thp-w       anonymous, THP-aligned: write a byte to each page first
 *   thp-madvise thp-w after madvise(MADV_HUGEPAGE)
 *   mthp        anonymous, write faults (the caller sets an mTHP size)
 *   hugetlb-2m  MAP_HUGETLB 2 MiB pages, write faults
 *   hugetlb-1g  MAP_HUGETLB 1 GiB pages, write faults
 *   fallocate   a file on hugetlbfs at $HUGETLBFS (default /mnt/huge),
 *               fallocate()d, then mapped and read
 *   memfd       memfd_create(MFD_HUGETLB), write faults
 *
 * Prints one line "fault_zero: <case>: <MiB> MiB, <n> words not zero" and
 * exits 0 when n is 0.  Which clearing ran (and how many huge folios) is
 * for the caller to check in the kernel's counters.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_mm.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

#define PAGE 4096UL
#define PMD (2UL << 20)

static const char *name;

static void die(const char *what)
{
	fprintf(stderr, "fault_zero: %s: ", name);
	perror(what);
	exit(2);
}

static char *map_hugetlb(size_t size, int flags)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | flags, -1, 0);

	if (p == MAP_FAILED)
		die("mmap(MAP_HUGETLB)");
	return p;
}

static char *map_fd(int fd, size_t size)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		die("mmap(fd)");
	return p;
}

/* A new file of @size on hugetlbfs, or a hugetlb memfd; @fallocate it. */
static int hugetlb_file(int memfd, size_t size, int alloc)
{
	static char path[256];
	int fd;

	if (memfd) {
		fd = memfd_create("fault_zero", MFD_HUGETLB);
		if (fd < 0)
			die("memfd_create(MFD_HUGETLB)");
	} else {
		const char *dir = getenv("HUGETLBFS");

		snprintf(path, sizeof(path), "%s/fault_zero", dir ? dir : "/mnt/huge");
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			die(path);
		unlink(path);	/* freed, with its pages, on close */
	}
	if (alloc) {
		if (fallocate(fd, 0, 0, size))
			die("fallocate");
	} else if (ftruncate(fd, size)) {
		die("ftruncate");
	}
	return fd;
}

/* Maps the memory of the case; *fd gets the file, if any. */
static char *map_case(size_t size, int *fd)
{
	char *p;

	*fd = -1;
	if (!strncmp(name, "thp", 3) || !strcmp(name, "mthp")) {
		p = map_aligned(size, PMD);
		if (p == MAP_FAILED)
			die("mmap");
		if (!strcmp(name, "thp-madvise") && madvise(p, size, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
		return p;
	}
	if (!strcmp(name, "hugetlb-2m"))
		return map_hugetlb(size, MAP_HUGE_2MB);
	if (!strcmp(name, "hugetlb-1g"))
		return map_hugetlb(size, MAP_HUGE_1GB);
	if (!strcmp(name, "fallocate") || !strcmp(name, "memfd")) {
		*fd = hugetlb_file(!strcmp(name, "memfd"), size, !strcmp(name, "fallocate"));
		return map_fd(*fd, size);
	}
	fprintf(stderr, "fault_zero: unknown case '%s'\n", name);
	exit(2);
}

static void unmap_case(char *p, size_t size, int fd)
{
	munmap(p, size);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	size_t size, off, bad = 0;
	char *p;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: fault_zero <case> <MiB>\n");
		return 2;
	}
	name = argv[1];
	size = strtoul(argv[2], NULL, 0) << 20;

	/* Dirty it all, then free it. */
	p = map_case(size, &fd);
	p[0] = 0x5a;	/* the first fault at the first page, whatever memset does */
	memset(p, 0x5a, size);
	unmap_case(p, size, fd);

	/* Again: fault it in as the case says, then check every byte. */
	p = map_case(size, &fd);
	for (off = 0; off < size; off += PAGE) {
		if (!strcmp(name, "thp-rw") || !strcmp(name, "fallocate"))
			bad += p[off + 1] != 0;
		if (strcmp(name, "fallocate"))
			p[off] = 0;	/* a write fault; the byte stays zero */
	}
	for (off = 0; off < size; off += sizeof(uint64_t))
		bad += *(const uint64_t *)(p + off) != 0;
	unmap_case(p, size, fd);

	printf("fault_zero: %s: %zu MiB, %zu words not zero\n", name, size >> 20, bad);
	return bad != 0;
}
