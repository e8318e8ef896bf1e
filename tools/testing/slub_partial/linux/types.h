/* SPDX-License-Identifier: GPL-2.0 */
/* What <linux/slub_partial.h> uses of the kernel's types, in user space. */
#include <stdbool.h>
#include <stddef.h>
#define __always_inline inline
