// SPDX-License-Identifier: GPL-2.0
/*
 * Boot-time choice between the Rust and the C per-cpu partial accounting.
 *
 * Both implementations work on the same fields (struct slab's next/slabs,
 * struct kmem_cache's cpu_partial/cpu_partial_slabs) with the same meaning,
 * so switching between them needs no conversion of any state.
 */
#define pr_fmt(fmt) "slub_partial: " fmt

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/printk.h>
#include <linux/slub_partial.h>
#include <linux/string.h>

DEFINE_STATIC_KEY_TRUE(slub_partial_rust);

static enum slub_partial_impl slub_partial_boot_impl __initdata = SLUB_PARTIAL_RUST;

static const char *const slub_partial_impl_names[] = {
	[SLUB_PARTIAL_C] = "c",
	[SLUB_PARTIAL_RUST] = "rust",
};

/*
 * "slub_partial_impl=rust" (the default) or "slub_partial_impl=c".  Any
 * other value is reported and ignored: the default stays.
 */
static int __init slub_partial_impl_setup(char *str)
{
	int i = match_string(slub_partial_impl_names,
			     ARRAY_SIZE(slub_partial_impl_names), str);

	if (i < 0) {
		pr_err("slub_partial_impl=%s: -EINVAL, expected 'rust' or 'c'; keeping %s\n",
		       str, slub_partial_impl_names[slub_partial_boot_impl]);
		return 1;
	}
	slub_partial_boot_impl = i;
	return 1;
}
__setup("slub_partial_impl=", slub_partial_impl_setup);

/**
 * slub_partial_select() - Select the per-cpu partial accounting in use.
 * @impl: The implementation from now on.
 *
 * Safe at any time: calls already running finish in the implementation
 * they started in, on state both share.  May sleep.
 */
void slub_partial_select(enum slub_partial_impl impl)
{
	if (impl == SLUB_PARTIAL_RUST)
		static_branch_enable(&slub_partial_rust);
	else
		static_branch_disable(&slub_partial_rust);
}

/**
 * slub_partial_selected() - The per-cpu partial accounting in use.
 *
 * Return: %SLUB_PARTIAL_RUST or %SLUB_PARTIAL_C.
 */
enum slub_partial_impl slub_partial_selected(void)
{
	return slub_partial_use_rust() ? SLUB_PARTIAL_RUST : SLUB_PARTIAL_C;
}

/*
 * Caches created before this point were sized by the default (Rust), with
 * the same result the C original gives; from here on the boot choice holds.
 */
static int __init slub_partial_impl_init(void)
{
	slub_partial_select(slub_partial_boot_impl);
	pr_info("per-cpu partial accounting: %s\n",
		slub_partial_impl_names[slub_partial_selected()]);
	return 0;
}
early_initcall(slub_partial_impl_init);
