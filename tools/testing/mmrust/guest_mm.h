/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest test programs of tools/testing/mmrust (built static by
 * guest.sh) share.
 */
#ifndef MMRUST_GUEST_MM_H
#define MMRUST_GUEST_MM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/*
 * map_aligned() - @size bytes of private anonymous memory at an address
 * aligned to @align (a power of two, for THP: 2 MiB), the rest of the
 * mapping given back.  Returns MAP_FAILED when mmap() fails.
 */
static inline char *map_aligned(size_t size, size_t align)
{
	char *p = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;

	if (p == MAP_FAILED)
		return MAP_FAILED;
	q = (char *)(((uintptr_t)p + align - 1) & ~(align - 1));
	if (q > p)
		munmap(p, q - p);
	munmap(q + size, p + align - q);
	return q;
}

#endif /* MMRUST_GUEST_MM_H */
