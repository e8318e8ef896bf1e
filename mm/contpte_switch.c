// SPDX-License-Identifier: GPL-2.0
/*
 * The contpte switch (CONFIG_CONTPTE_SWITCH): arm64 contpte on or off for
 * new user mappings in one image, so that every contpte comparison (the
 * fork and munmap benchmark, the boot tests) runs on the same kernel.
 *
 * "contpte_impl=off" at boot, or 0 written to /sys/kernel/debug/contpte/on,
 * turns it off; see <linux/contpte_control.h> for what off means.
 */
#include <linux/contpte_control.h>
#include <linux/debugfs.h>
#include <linux/init.h>

DEFINE_MM_IMPL_SWITCH(contpte, "contiguous PTEs for user mappings", "off", "on");
/* /sys/kernel/debug/contpte/on: 1 or 0, anything else is -EINVAL. */
DEFINE_MM_IMPL_SWITCH_DEBUGFS(contpte);
