/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Zeroing of a range of whole pages with one call, in three variants;
 * clear_pages() in asm/page_64.h picks one at boot through alternatives:
 * clear_pages_erms where the CPU has ERMS, clear_pages_rep where it has
 * REP_GOOD, clear_pages_orig otherwise.
 *
 * All three follow the C calling convention, so that tests can call each
 * directly:
 *	%rdi	start of the range, page aligned
 *	%rsi	length of the range in bytes, a non-zero multiple of PAGE_SIZE
 * and clobber only %rdi, %rcx and %rax (and the flags), which the
 * alternative_call_2() in clear_pages() declares.
 *
 * None of them handles a fault: the range must be mapped kernel memory.
 */
#include <linux/export.h>
#include <linux/linkage.h>
#include <asm/asm.h>

/* One string store of 8-byte words over the whole range. */
SYM_FUNC_START(clear_pages_rep)
	movq	%rsi, %rcx
	shrq	$3, %rcx
	xorl	%eax, %eax
	rep stosq
	RET
SYM_FUNC_END(clear_pages_rep)
EXPORT_SYMBOL_GPL(clear_pages_rep)

/* One string store of bytes over the whole range (fast with ERMS). */
SYM_FUNC_START(clear_pages_erms)
	movq	%rsi, %rcx
	xorl	%eax, %eax
	rep stosb
	RET
SYM_FUNC_END(clear_pages_erms)
EXPORT_SYMBOL_GPL(clear_pages_erms)

/* Eight 8-byte stores per 64-byte line, for CPUs with slow strings. */
SYM_FUNC_START(clear_pages_orig)
	movq	%rsi, %rcx
	shrq	$6, %rcx
	xorl	%eax, %eax
	.p2align 4
.Lclear_pages_line:
	movq	%rax, 0x00(%rdi)
	movq	%rax, 0x08(%rdi)
	movq	%rax, 0x10(%rdi)
	movq	%rax, 0x18(%rdi)
	movq	%rax, 0x20(%rdi)
	movq	%rax, 0x28(%rdi)
	movq	%rax, 0x30(%rdi)
	movq	%rax, 0x38(%rdi)
	addq	$64, %rdi
	decq	%rcx
	jnz	.Lclear_pages_line
	RET
SYM_FUNC_END(clear_pages_orig)
EXPORT_SYMBOL_GPL(clear_pages_orig)
