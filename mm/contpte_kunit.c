// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of arm64's transparent contiguous PTEs for user mappings
 * (contpte, arch/arm64/mm/contpte.c), through the public page-table API the
 * core mm uses: set_ptes(), ptep_get(), ptep_set_wrprotect(),
 * wrprotect_ptes(), clear_full_ptes(), get_and_clear_full_ptes(),
 * pte_batch_hint(), ptep_set_access_flags(), ptep_test_and_clear_young(),
 * ptep_clear_flush_young().
 *
 * Each case gets its own user mm (kunit_vm_mmap()), a page table for a
 * 64 KiB-aligned address in it (one page faulted in and zapped again), and
 * an order-5 folio (two 16-entry blocks) mapped there with set_ptes() under
 * the page-table lock.  The raw entries (__ptep_get()) show the contiguous
 * bit.  Each case clears the entries and frees the folio itself, at its
 * end (unmap_folio()), and checks with expectations only once the folio is
 * mapped, so that it always gets there.
 *
 * The fold rule of 6.12, as these cases check it: set_ptes() of a range
 * that covers whole aligned blocks of a folio with contiguous PFNs sets
 * PTE_CONT on them directly; a single-entry set_ptes() tries to fold only
 * when it writes the last entry of a block (virtually and physically
 * aligned) and every entry of the block then maps the same folio with
 * contiguous PFNs and equal permissions (access and dirty ignored).
 * Nothing else folds; any single-entry change to a folded block unfolds it
 * first.
 *
 * Each case also checks the contpte vm events its calls caused, exactly
 * (contpte_map, contpte_fold, contpte_unfold, contpte_tlbi), as counted
 * for the threads of KUnit tests alone (contpte_kunit_events()): user space
 * mapping memory meanwhile, as when the suite is loaded as a module into a
 * running system, adds nothing to them.  The cases run with the contpte
 * switch on but for the cases of the switch off.
 */
#include <kunit/test.h>
#include <linux/contpte_control.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pgtable.h>
#include <linux/uaccess.h>
#include <linux/vmstat.h>
#include "mm_impl_switch_kunit.h"

#define NR_BLOCKS	2
#define NR		(NR_BLOCKS * CONT_PTES)

/* The contpte vm events of KUnit tests' threads. */
struct contpte_events {
	unsigned long map, fold, unfold, tlbi;
};

static void contpte_events_read(struct contpte_events *e)
{
	e->map = contpte_kunit_events(CONTPTE_MAP);
	e->fold = contpte_kunit_events(CONTPTE_FOLD);
	e->unfold = contpte_kunit_events(CONTPTE_UNFOLD);
	e->tlbi = contpte_kunit_events(CONTPTE_TLBI);
}

/* One case's mapping. */
struct contpte_map {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	unsigned long addr;	/* CONT_PTE_SIZE aligned */
	pte_t *ptep;		/* the entry of addr, mapped */
	spinlock_t *ptl;
	struct folio *folio;	/* order ilog2(NR), mapped at addr */
	pte_t pte;		/* what set_ptes() got for the first page */
	struct contpte_events before;	/* just before the folio was mapped */
};

/*
 * expect_events() - The contpte events since the folio was mapped are
 * exactly these.
 */
static void expect_events(struct kunit *test, struct contpte_map *m,
			  unsigned long map, unsigned long fold,
			  unsigned long unfold, unsigned long tlbi)
{
	struct contpte_events now;

	contpte_events_read(&now);
	KUNIT_EXPECT_EQ_MSG(test, now.map - m->before.map, map, "contpte_map");
	KUNIT_EXPECT_EQ_MSG(test, now.fold - m->before.fold, fold, "contpte_fold");
	KUNIT_EXPECT_EQ_MSG(test, now.unfold - m->before.unfold, unfold, "contpte_unfold");
	KUNIT_EXPECT_EQ_MSG(test, now.tlbi - m->before.tlbi, tlbi, "contpte_tlbi");
}

/*
 * Undoes map_folio().  Called at the end of each case, in the case's own
 * thread: its mm goes with that thread, before any KUnit cleanup would run.
 */
static void unmap_folio(struct contpte_map *m)
{
	spin_lock(m->ptl);
	clear_full_ptes(m->mm, m->addr, m->ptep, NR, 0);
	spin_unlock(m->ptl);
	flush_tlb_mm(m->mm);
	pte_unmap(m->ptep);
	folio_put(m->folio);
}

/* A user mm with the folio mapped at a block-aligned address, folded. */
static struct contpte_map *map_folio(struct kunit *test)
{
	struct contpte_map *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	unsigned long start;
	pmd_t *pmd;
	char one = 1;

	KUNIT_ASSERT_NOT_NULL(test, m);
	/* 4 MiB of address space: a 2 MiB-aligned address inside it. */
	start = kunit_vm_mmap(test, NULL, 0, SZ_4M, PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, start, 0);
	m->mm = current->mm;
	m->addr = ALIGN(start, PMD_SIZE);

	/* No THP here: the fault below must leave a page table. */
	mmap_write_lock(m->mm);
	m->vma = find_vma(m->mm, m->addr);
	if (m->vma)
		vm_flags_set(m->vma, VM_NOHUGEPAGE);
	mmap_write_unlock(m->mm);
	KUNIT_ASSERT_NOT_NULL(test, m->vma);

	/* Fault a page in for the page table, then zap it again. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)m->addr, &one, 1), 0);
	mmap_read_lock(m->mm);
	zap_page_range_single(m->vma, m->addr, PMD_SIZE, NULL);
	mmap_read_unlock(m->mm);

	pmd = pmd_offset(pud_offset(p4d_offset(pgd_offset(m->mm, m->addr), m->addr),
				    m->addr), m->addr);
	KUNIT_ASSERT_TRUE(test, pmd_present(*pmd) && !pmd_leaf(*pmd));
	/* Allocated first: pte_offset_map() starts an RCU read section. */
	m->folio = folio_alloc(GFP_KERNEL, ilog2(NR));
	KUNIT_ASSERT_NOT_NULL_MSG(test, m->folio, "no folio of %d pages", NR);
	m->ptep = pte_offset_map_lock(m->mm, pmd, m->addr, &m->ptl);
	if (!m->ptep) {
		folio_put(m->folio);
		KUNIT_FAIL_AND_ABORT(test, "no page table at %lx", m->addr);
	}
	spin_unlock(m->ptl);
	m->pte = pte_mkyoung(mk_pte(&m->folio->page, m->vma->vm_page_prot));
	m->pte = pte_mkwrite(m->pte, m->vma);

	contpte_events_read(&m->before);
	spin_lock(m->ptl);
	set_ptes(m->mm, m->addr, m->ptep, m->pte, NR);
	spin_unlock(m->ptl);
	return m;
}

/* Number of entries in [first, first + n) with the contiguous bit. */
static int nr_cont(struct contpte_map *m, int first, int n)
{
	int i, c = 0;

	for (i = first; i < first + n; i++)
		c += pte_cont(__ptep_get(m->ptep + i));
	return c;
}

static int nr_writable(struct contpte_map *m, int first, int n)
{
	int i, c = 0;

	for (i = first; i < first + n; i++)
		c += pte_write(__ptep_get(m->ptep + i));
	return c;
}

/* set_ptes() of whole aligned blocks of one folio folds every block. */
static void test_set_ptes_folds_whole_blocks(struct kunit *test)
{
	struct mm_impl_switch_snapshot calls;
	struct contpte_map *m;
	int i;

	mm_impl_switch_snapshot(&contpte_switch, &calls);
	m = map_folio(test);
	/* The switch's "on" side mapped it, and only that side. */
	mm_impl_switch_kunit_expect_ran(test, &contpte_switch, &calls, MM_IMPL_NEW, 1);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, NR), NR);
	for (i = 0; i < NR; i++)
		KUNIT_EXPECT_EQ(test, pte_pfn(__ptep_get(m->ptep + i)),
				folio_pfn(m->folio) + i);
	/* Mapped contiguous at once: no fold, no TLB invalidation. */
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);
	unmap_folio(m);
}

/* Write-protecting one entry unfolds its block and only that block. */
static void test_one_entry_change_unfolds_its_block(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);

	spin_lock(m->ptl);
	ptep_set_wrprotect(m->mm, m->addr + 3 * PAGE_SIZE, m->ptep + 3);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, CONT_PTES), 0);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), CONT_PTES);
	KUNIT_EXPECT_EQ(test, nr_writable(m, 0, NR), NR - 1);
	KUNIT_EXPECT_FALSE(test, pte_write(__ptep_get(m->ptep + 3)));
	expect_events(test, m, NR_BLOCKS, 0, 1, 1);
	unmap_folio(m);
}

/* ptep_get() on any entry of a block reports young and dirty of all. */
static void test_ptep_get_gathers_young_and_dirty(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	pte_t raw;
	int i;

	spin_lock(m->ptl);
	for (i = 0; i < NR; i++) {
		raw = __ptep_get(m->ptep + i);
		__set_pte(m->ptep + i, pte_mkclean(pte_mkold(raw)));
	}
	/* Entry 9 of block 0 was written to; block 1 stays clean. */
	raw = __ptep_get(m->ptep + 9);
	__set_pte(m->ptep + 9, pte_mkdirty(pte_mkyoung(raw)));
	for (i = 0; i < CONT_PTES; i++) {
		pte_t pte = ptep_get(m->ptep + i);

		KUNIT_EXPECT_TRUE(test, pte_young(pte) && pte_dirty(pte));
	}
	for (i = CONT_PTES; i < NR; i++) {
		pte_t pte = ptep_get(m->ptep + i);

		KUNIT_EXPECT_FALSE(test, pte_young(pte) || pte_dirty(pte));
	}
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, NR), NR);
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);
	unmap_folio(m);
}

/* pte_batch_hint(): the entries left in a folded block, 1 otherwise. */
static void test_pte_batch_hint_counts_entries_left(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	int i;

	for (i = 0; i < NR; i++)
		KUNIT_EXPECT_EQ(test, pte_batch_hint(m->ptep + i, ptep_get(m->ptep + i)),
				CONT_PTES - i % CONT_PTES);
	spin_lock(m->ptl);
	ptep_set_wrprotect(m->mm, m->addr, m->ptep);
	spin_unlock(m->ptl);
	for (i = 0; i < CONT_PTES; i++)
		KUNIT_EXPECT_EQ(test, pte_batch_hint(m->ptep + i, ptep_get(m->ptep + i)), 1);
	expect_events(test, m, NR_BLOCKS, 0, 1, 1);
	unmap_folio(m);
}

/*
 * wrprotect_ptes() over a whole block keeps it folded; over part of a
 * block it unfolds that block first.
 */
static void test_wrprotect_ptes_whole_and_partial(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);

	spin_lock(m->ptl);
	wrprotect_ptes(m->mm, m->addr, m->ptep, CONT_PTES);
	wrprotect_ptes(m->mm, m->addr + CONT_PTE_SIZE, m->ptep + CONT_PTES, CONT_PTES / 2);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, CONT_PTES), CONT_PTES);
	KUNIT_EXPECT_EQ(test, nr_writable(m, 0, CONT_PTES), 0);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	KUNIT_EXPECT_EQ(test, nr_writable(m, CONT_PTES, CONT_PTES), CONT_PTES / 2);
	/* The whole block costs nothing; the partial one an unfold. */
	expect_events(test, m, NR_BLOCKS, 0, 1, 1);
	unmap_folio(m);
}

/*
 * get_and_clear_full_ptes() over a whole block returns the block's young
 * and dirty; over part of a block it unfolds the block and leaves the rest
 * mapped.
 */
static void test_get_and_clear_full_ptes(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	pte_t raw, got;
	int i;

	spin_lock(m->ptl);
	raw = __ptep_get(m->ptep + 5);
	__set_pte(m->ptep + 5, pte_mkdirty(raw));
	got = get_and_clear_full_ptes(m->mm, m->addr, m->ptep, CONT_PTES, 0);
	KUNIT_EXPECT_TRUE(test, pte_dirty(got));
	for (i = 0; i < CONT_PTES; i++)
		KUNIT_EXPECT_TRUE(test, pte_none(__ptep_get(m->ptep + i)));
	got = get_and_clear_full_ptes(m->mm, m->addr + CONT_PTE_SIZE, m->ptep + CONT_PTES,
				      4, 0);
	KUNIT_EXPECT_EQ(test, pte_pfn(got), folio_pfn(m->folio) + CONT_PTES);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	for (i = CONT_PTES + 4; i < NR; i++)
		KUNIT_EXPECT_TRUE(test, pte_present(__ptep_get(m->ptep + i)));
	/* Map the cleared entries back for the common teardown. */
	spin_lock(m->ptl);
	set_ptes(m->mm, m->addr, m->ptep, m->pte, CONT_PTES + 4);
	spin_unlock(m->ptl);
	/* Block 0 mapped again at once; block 1 stays unfolded. */
	expect_events(test, m, NR_BLOCKS + 1, 0, 1, 1);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, CONT_PTES), CONT_PTES);
	unmap_folio(m);
}

/*
 * ptep_set_access_flags() makes the target entry young even when a
 * neighbour in its block already is: the gathered view of ptep_get() would
 * call that a no-op, but a walker that reads the target entry alone would
 * keep faulting (the fix 6.12.78 carries).
 */
static void test_set_access_flags_with_young_neighbour(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	pte_t raw;
	int i, ret;

	spin_lock(m->ptl);
	for (i = 0; i < CONT_PTES; i++) {
		raw = __ptep_get(m->ptep + i);
		__set_pte(m->ptep + i, pte_mkold(raw));
	}
	raw = __ptep_get(m->ptep + 2);
	__set_pte(m->ptep + 2, pte_mkyoung(raw));
	KUNIT_EXPECT_TRUE(test, pte_young(ptep_get(m->ptep + 5)));
	ret = ptep_set_access_flags(m->vma, m->addr + 5 * PAGE_SIZE, m->ptep + 5,
				    pte_mkyoung(ptep_get(m->ptep + 5)), 0);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_TRUE(test, pte_young(__ptep_get(m->ptep + 5)));
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, CONT_PTES), CONT_PTES);
	/* Access flags are fixed up in place: no unfold, no invalidation. */
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);
	unmap_folio(m);
}

/*
 * An unfolded block folds back when, and only when, a single-entry
 * set_ptes() writes its last entry and the block is uniform again.
 */
static void test_uniform_block_folds_at_its_last_entry(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	pte_t ro = pte_wrprotect(m->pte);
	int i;

	spin_lock(m->ptl);
	ptep_set_wrprotect(m->mm, m->addr, m->ptep);	/* unfolds block 0 */
	for (i = 1; i < CONT_PTES - 1; i++)
		set_ptes(m->mm, m->addr + i * PAGE_SIZE, m->ptep + i,
			 pte_advance_pfn(ro, i), 1);
	spin_unlock(m->ptl);
	/* Uniform but for the last entry: not folded. */
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, CONT_PTES), 0);

	spin_lock(m->ptl);
	set_ptes(m->mm, m->addr + 7 * PAGE_SIZE, m->ptep + 7, pte_advance_pfn(ro, 7), 1);
	spin_unlock(m->ptl);
	/* Writing a middle entry does not try to fold. */
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, CONT_PTES), 0);

	spin_lock(m->ptl);
	set_ptes(m->mm, m->addr + (CONT_PTES - 1) * PAGE_SIZE, m->ptep + CONT_PTES - 1,
		 pte_advance_pfn(ro, CONT_PTES - 1), 1);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, CONT_PTES), CONT_PTES);
	KUNIT_EXPECT_EQ(test, nr_writable(m, 0, CONT_PTES), 0);
	/* One unfold and one fold, a block invalidation each. */
	expect_events(test, m, NR_BLOCKS, 1, 1, 2);
	unmap_folio(m);
}

/* The pte of the folio's page @i, as map_folio() maps its first. */
static pte_t folio_pte(struct contpte_map *m, int i)
{
	return pte_advance_pfn(m->pte, i);
}

/*
 * rewrite_entry() - Write entry @i alone, as a fault does: cleared first,
 * then a single-entry set_ptes(), which tries to fold at a block's last
 * entry.
 */
static void rewrite_entry(struct contpte_map *m, int i, pte_t pte)
{
	unsigned long addr = m->addr + i * PAGE_SIZE;

	spin_lock(m->ptl);
	clear_full_ptes(m->mm, addr, m->ptep + i, 1, 0);
	set_ptes(m->mm, addr, m->ptep + i, pte, 1);
	spin_unlock(m->ptl);
}

/*
 * refill_block1() - Clear block 1 whole (no unfold) and write its entries
 * one at a time, from @ptes: the last write is the fold attempt.
 */
static void refill_block1(struct contpte_map *m, const pte_t *ptes)
{
	int i;

	spin_lock(m->ptl);
	clear_full_ptes(m->mm, m->addr + CONT_PTE_SIZE, m->ptep + CONT_PTES, CONT_PTES, 0);
	spin_unlock(m->ptl);
	for (i = 0; i < CONT_PTES; i++)
		rewrite_entry(m, CONT_PTES + i, ptes[i]);
}

/* The ptes of block 1 as map_folio() maps them. */
static void block1_ptes(struct contpte_map *m, pte_t *ptes)
{
	int i;

	for (i = 0; i < CONT_PTES; i++)
		ptes[i] = folio_pte(m, CONT_PTES + i);
}

/*
 * The control of a refused fold: block 1 written again entry by entry, all
 * of them right, folds at its last entry (one fold, one invalidation since
 * the folio was mapped): what was refused was the one difference.
 */
static void expect_block1_folds_when_right(struct kunit *test, struct contpte_map *m)
{
	pte_t ptes[CONT_PTES];

	block1_ptes(m, ptes);
	refill_block1(m, ptes);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), CONT_PTES);
	expect_events(test, m, NR_BLOCKS, 1, 0, 1);
}

/*
 * No fold when the PFNs are not contiguous: block 1 written entry by entry
 * with the pages of entries 3 and 4 swapped.  Put right, the block folds at
 * its last entry: the rest of the block was foldable.
 */
static void test_no_fold_pfns_not_contiguous(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	pte_t ptes[CONT_PTES];

	block1_ptes(m, ptes);
	swap(ptes[3], ptes[4]);
	refill_block1(m, ptes);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);
	expect_block1_folds_when_right(test, m);
	unmap_folio(m);
}

/*
 * No fold when one entry's permissions differ: entry 5 of block 1 read-only.
 * Made writable again, the block folds at its last entry.
 */
static void test_no_fold_permissions_differ(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	pte_t ptes[CONT_PTES];

	block1_ptes(m, ptes);
	ptes[5] = pte_wrprotect(ptes[5]);
	refill_block1(m, ptes);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	KUNIT_EXPECT_EQ(test, nr_writable(m, CONT_PTES, CONT_PTES), CONT_PTES - 1);
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);
	expect_block1_folds_when_right(test, m);
	unmap_folio(m);
}

/*
 * No block when the PFNs are not aligned to a block: block 1 mapping the
 * folio's pages 1 to 16 (contiguous, one folio), neither by a set_ptes() of
 * the whole block nor entry by entry.  Entry by entry, two checks refuse
 * it (contpte_try_fold()'s alignment test, and __contpte_try_fold()'s
 * expected PFN, aligned down): this half checks the outcome, the first
 * half contpte_set_ptes()'s own alignment test.
 */
static void test_no_fold_pfns_not_aligned(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	pte_t ptes[CONT_PTES];
	int i;

	spin_lock(m->ptl);
	clear_full_ptes(m->mm, m->addr + CONT_PTE_SIZE, m->ptep + CONT_PTES, CONT_PTES, 0);
	set_ptes(m->mm, m->addr + CONT_PTE_SIZE, m->ptep + CONT_PTES, folio_pte(m, 1),
		 CONT_PTES);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	KUNIT_EXPECT_EQ(test, pte_pfn(__ptep_get(m->ptep + NR - 1)),
			folio_pfn(m->folio) + CONT_PTES);

	for (i = 0; i < CONT_PTES; i++)
		ptes[i] = folio_pte(m, 1 + i);
	refill_block1(m, ptes);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);
	unmap_folio(m);
}

/*
 * No fold when the block's entries belong to more than one folio: block 1
 * written entry by entry with sixteen one-page folios whose PFNs are
 * contiguous and aligned (an order-4 allocation, split): only the folio
 * check refuses it.
 */
static void test_no_fold_across_folios(struct kunit *test)
{
	/* Allocated first: map_folio() enters an RCU read section. */
	struct page *pages = alloc_pages(GFP_KERNEL, ilog2(CONT_PTES));
	struct contpte_map *m;
	pte_t ptes[CONT_PTES];
	int i;

	KUNIT_ASSERT_NOT_NULL_MSG(test, pages, "no %d pages", CONT_PTES);
	split_page(pages, ilog2(CONT_PTES));
	m = map_folio(test);
	for (i = 0; i < CONT_PTES; i++)
		ptes[i] = pte_mkwrite(pte_mkyoung(mk_pte(pages + i, m->vma->vm_page_prot)),
				      m->vma);
	refill_block1(m, ptes);
	KUNIT_EXPECT_PTR_EQ(test, page_folio(pages + 1), (struct folio *)(pages + 1));
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	for (i = 0; i < CONT_PTES; i++)
		KUNIT_EXPECT_EQ(test, pte_pfn(__ptep_get(m->ptep + CONT_PTES + i)),
				page_to_pfn(pages) + i);
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);

	spin_lock(m->ptl);
	clear_full_ptes(m->mm, m->addr + CONT_PTE_SIZE, m->ptep + CONT_PTES, CONT_PTES, 0);
	spin_unlock(m->ptl);
	for (i = 0; i < CONT_PTES; i++)
		__free_page(pages + i);
	unmap_folio(m);
}

/*
 * ptep_test_and_clear_young() on one entry of a folded block reports the
 * block young if any entry is, and clears the young bit of every entry of
 * the block (6.12 tracks access per folio, and a block is one folio),
 * without unfolding it.  The other block keeps its own.
 */
static void test_test_and_clear_young_whole_block(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	pte_t raw;
	int i, young, again;

	spin_lock(m->ptl);
	for (i = 0; i < CONT_PTES; i++) {
		raw = __ptep_get(m->ptep + i);
		__set_pte(m->ptep + i, pte_mkold(raw));
	}
	raw = __ptep_get(m->ptep + 9);
	__set_pte(m->ptep + 9, pte_mkyoung(raw));
	young = ptep_test_and_clear_young(m->vma, m->addr + 2 * PAGE_SIZE, m->ptep + 2);
	again = ptep_test_and_clear_young(m->vma, m->addr + 2 * PAGE_SIZE, m->ptep + 2);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, young, 1);
	KUNIT_EXPECT_EQ(test, again, 0);
	for (i = 0; i < CONT_PTES; i++)
		KUNIT_EXPECT_FALSE(test, pte_young(__ptep_get(m->ptep + i)));
	for (i = CONT_PTES; i < NR; i++)
		KUNIT_EXPECT_TRUE(test, pte_young(__ptep_get(m->ptep + i)));
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, NR), NR);
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);
	unmap_folio(m);
}

/*
 * ptep_clear_flush_young() likewise for the block of its entry (and flushes
 * the block's range, no contpte invalidation): young once, then not.
 */
static void test_clear_flush_young_whole_block(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	unsigned long addr = m->addr + (CONT_PTES + 4) * PAGE_SIZE;
	int i, young, again;
	pte_t last, first;

	spin_lock(m->ptl);
	young = ptep_clear_flush_young(m->vma, addr, m->ptep + CONT_PTES + 4);
	again = ptep_clear_flush_young(m->vma, addr, m->ptep + CONT_PTES + 4);
	last = ptep_get(m->ptep + NR - 1);
	first = ptep_get(m->ptep);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_FALSE(test, pte_young(last));
	KUNIT_EXPECT_TRUE(test, pte_young(first));
	KUNIT_EXPECT_EQ(test, young, 1);
	KUNIT_EXPECT_EQ(test, again, 0);
	for (i = CONT_PTES; i < NR; i++)
		KUNIT_EXPECT_FALSE(test, pte_young(__ptep_get(m->ptep + i)));
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, NR), NR);
	expect_events(test, m, NR_BLOCKS, 0, 0, 0);
	unmap_folio(m);
}

/*
 * clear_full_ptes() with full = 1, as exit_mmap() zaps: over a whole block
 * it clears the block without unfolding it; over part of a block it
 * unfolds the block first (6.12 does so whatever full is) and leaves the
 * rest mapped.
 */
static void test_clear_full_ptes_full(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);
	int i;

	spin_lock(m->ptl);
	clear_full_ptes(m->mm, m->addr, m->ptep, CONT_PTES, 1);
	clear_full_ptes(m->mm, m->addr + CONT_PTE_SIZE, m->ptep + CONT_PTES, 4, 1);
	spin_unlock(m->ptl);
	for (i = 0; i < CONT_PTES + 4; i++)
		KUNIT_EXPECT_TRUE(test, pte_none(__ptep_get(m->ptep + i)));
	for (i = CONT_PTES + 4; i < NR; i++)
		KUNIT_EXPECT_EQ(test, pte_pfn(__ptep_get(m->ptep + i)),
				folio_pfn(m->folio) + i);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	expect_events(test, m, NR_BLOCKS, 0, 1, 1);
	unmap_folio(m);
}

/*
 * With the switch off, set_ptes() maps whole blocks without the contiguous
 * bit and a uniform block is not folded at its last entry either.
 */
static void test_switch_off_makes_no_block(struct kunit *test)
{
	struct mm_impl_switch_snapshot calls;
	struct contpte_map *m;

	mm_impl_switch_kunit_use(test, &contpte_switch, 0);
	mm_impl_switch_snapshot(&contpte_switch, &calls);
	m = map_folio(test);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, NR), 0);
	spin_lock(m->ptl);
	set_ptes(m->mm, m->addr + (CONT_PTES - 1) * PAGE_SIZE, m->ptep + CONT_PTES - 1,
		 pte_advance_pfn(m->pte, CONT_PTES - 1), 1);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, NR), 0);
	KUNIT_EXPECT_EQ(test, nr_writable(m, 0, NR), NR);
	expect_events(test, m, 0, 0, 0, 0);
	/* The map and the fold attempt took the "off" side, and only it. */
	mm_impl_switch_kunit_expect_ran(test, &contpte_switch, &calls, MM_IMPL_ORIG, 2);
	unmap_folio(m);
}

/*
 * Blocks folded while the switch was on are still unfolded, one at a time,
 * after it is turned off: no entry of a folded block changes alone.
 */
static void test_switch_off_still_unfolds(struct kunit *test)
{
	struct contpte_map *m = map_folio(test);

	mm_impl_switch_kunit_use(test, &contpte_switch, 0);
	spin_lock(m->ptl);
	ptep_set_wrprotect(m->mm, m->addr + CONT_PTE_SIZE, m->ptep + CONT_PTES);
	spin_unlock(m->ptl);
	KUNIT_EXPECT_EQ(test, nr_cont(m, 0, CONT_PTES), CONT_PTES);
	KUNIT_EXPECT_EQ(test, nr_cont(m, CONT_PTES, CONT_PTES), 0);
	KUNIT_EXPECT_EQ(test, nr_writable(m, 0, NR), NR - 1);
	expect_events(test, m, NR_BLOCKS, 0, 1, 1);
	unmap_folio(m);
}

/* Every case runs with contpte on unless it turns it off itself. */
static int contpte_test_init(struct kunit *test)
{
	mm_impl_switch_kunit_use(test, &contpte_switch, 1);
	return 0;
}

static struct kunit_case contpte_cases[] = {
	KUNIT_CASE(test_set_ptes_folds_whole_blocks),
	KUNIT_CASE(test_one_entry_change_unfolds_its_block),
	KUNIT_CASE(test_ptep_get_gathers_young_and_dirty),
	KUNIT_CASE(test_pte_batch_hint_counts_entries_left),
	KUNIT_CASE(test_wrprotect_ptes_whole_and_partial),
	KUNIT_CASE(test_get_and_clear_full_ptes),
	KUNIT_CASE(test_set_access_flags_with_young_neighbour),
	KUNIT_CASE(test_uniform_block_folds_at_its_last_entry),
	KUNIT_CASE(test_no_fold_pfns_not_contiguous),
	KUNIT_CASE(test_no_fold_permissions_differ),
	KUNIT_CASE(test_no_fold_pfns_not_aligned),
	KUNIT_CASE(test_no_fold_across_folios),
	KUNIT_CASE(test_test_and_clear_young_whole_block),
	KUNIT_CASE(test_clear_flush_young_whole_block),
	KUNIT_CASE(test_clear_full_ptes_full),
	KUNIT_CASE(test_switch_off_makes_no_block),
	KUNIT_CASE(test_switch_off_still_unfolds),
	{}
};

static struct kunit_suite contpte_suite = {
	.name = "contpte",
	.init = contpte_test_init,
	.test_cases = contpte_cases,
};
kunit_test_suite(contpte_suite);

MODULE_DESCRIPTION("KUnit tests of arm64 contpte for user mappings");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
