/* SPDX-License-Identifier: GPL-2.0 */
/* As include/linux/math.h defines it. */
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
