// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle of policy_test.rs: the C original of the SLUB
 * per-cpu partial decisions, the slub_c_*() of <linux/slub_partial.h> that
 * mm/slub.c runs with slub_partial_impl=c, compiled by the host's C
 * compiler with unsigned int arithmetic as the kernel has it (wrapping
 * modulo 2^32).  Another language, another compiler and the base's own
 * expressions: not a copy of the Rust under test.
 *
 * The Makefile builds it against the stand-in headers of this directory
 * (PAGE_SIZE 4096, DIV_ROUND_UP() as <linux/math.h> defines it) and links
 * it into the test.
 */
#include <linux/slub_partial.h>

unsigned int c_default_cpu_partial(unsigned int size, bool has_cpu_partial)
{
	return slub_c_default_cpu_partial(size, has_cpu_partial);
}

unsigned int c_cpu_partial_slabs(unsigned int nr_objects, unsigned int objects_per_slab)
{
	return slub_c_cpu_partial_slabs(nr_objects, objects_per_slab);
}

bool c_partial_node_done(unsigned int nr_pushed, unsigned int cpu_partial_slabs)
{
	return slub_c_partial_node_done(nr_pushed, cpu_partial_slabs);
}

unsigned int c_partial_objects(unsigned int slabs, unsigned int objects_per_slab)
{
	return slub_c_partial_objects(slabs, objects_per_slab);
}
