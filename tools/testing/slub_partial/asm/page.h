/* SPDX-License-Identifier: GPL-2.0 */
/* The page size of the cases (mm/slub_partial_cases.h). */
#define PAGE_SIZE 4096UL
