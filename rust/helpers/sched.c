// SPDX-License-Identifier: GPL-2.0

#include <linux/sched.h>

void rust_helper_cond_resched(void)
{
	cond_resched();
}
