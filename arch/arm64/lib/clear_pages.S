/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Zeroing of a range of whole pages with one call: the loop of clear_pages()
 * in asm/page.h.
 *
 *	x0	start of the range, page aligned
 *	x1	length of the range in bytes, a non-zero multiple of PAGE_SIZE
 *
 * Uses DC ZVA (one cache-line-sized block per instruction, the block size
 * read from DCZID_EL0) when DCZID_EL0 does not prohibit it, as clear_page()
 * does; 64 bytes of non-temporal store pairs per step otherwise.  Takes no
 * fault (the range must be mapped kernel memory) and never reschedules.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>

SYM_FUNC_START(__clear_pages)
	add	x3, x0, x1		/* x3: end of the range */
	mrs	x1, dczid_el0
	tbnz	x1, #4, .Lclear_pages_stnp	/* DZP set: DC ZVA prohibited */
	and	w1, w1, #0xf		/* log2 of the block size in words */
	mov	x2, #4
	lsl	x1, x2, x1		/* block size in bytes */
.Lclear_pages_zva:
	dc	zva, x0
	add	x0, x0, x1
	cmp	x0, x3
	b.lo	.Lclear_pages_zva
	ret
.Lclear_pages_stnp:
	stnp	xzr, xzr, [x0]
	stnp	xzr, xzr, [x0, #16]
	stnp	xzr, xzr, [x0, #32]
	stnp	xzr, xzr, [x0, #48]
	add	x0, x0, #64
	cmp	x0, x3
	b.lo	.Lclear_pages_stnp
	ret
SYM_FUNC_END(__clear_pages)
EXPORT_SYMBOL(__clear_pages)
