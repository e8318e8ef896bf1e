// SPDX-License-Identifier: GPL-2.0
/*
 * The switch between the original and the new implementation of an mm
 * component: boot parameter, static key, boot log line, call counters,
 * debugfs files, shared by every component (see <linux/mm_impl_switch.h>;
 * the KUnit helpers are in mm/mm_impl_switch_kunit.h).
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/mm_impl_switch.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <kunit/visibility.h>

/*
 * "<name>_impl=<value>", parsed with the other kernel parameters before any
 * initcall: only the wish is recorded here, mm_impl_switch_boot() applies
 * it.  A value that is not one of the two is reported and ignored, so the
 * default stays; returning 0 keeps the kernel's own, vaguer, message out.
 */
static int mm_impl_switch_param_set(const char *val, const struct kernel_param *kp)
{
	struct mm_impl_switch *sw = kp->arg;
	int i = val ? match_string(sw->impls, ARRAY_SIZE(sw->impls), val) : -EINVAL;

	if (i < 0) {
		pr_err("%s_impl=%s: -EINVAL, expected '%s' or '%s'; keeping %s\n",
		       sw->name, val ?: "", sw->impls[1], sw->impls[0],
		       sw->impls[sw->boot]);
		return 0;
	}
	sw->boot = i;
	return 0;
}

const struct kernel_param_ops mm_impl_switch_param_ops = {
	.set = mm_impl_switch_param_set,
};
EXPORT_SYMBOL_IF_KUNIT(mm_impl_switch_param_ops);

/**
 * mm_impl_switch_select() - Select the implementation a component uses.
 * @sw: The component's switch.
 * @impl: 0 for the original, 1 for the new implementation.
 *
 * Calls already running finish in the implementation they started in.
 *
 * Context: Process context; may sleep (it patches the static key).
 */
void mm_impl_switch_select(struct mm_impl_switch *sw, unsigned int impl)
{
	if (impl)
		static_branch_enable(sw->key);
	else
		static_branch_disable(sw->key);
}
EXPORT_SYMBOL_IF_KUNIT(mm_impl_switch_select);

/**
 * mm_impl_switch_selected() - The implementation a component uses.
 * @sw: The component's switch.
 *
 * Return: 0 for the original, 1 for the new implementation.
 */
unsigned int mm_impl_switch_selected(const struct mm_impl_switch *sw)
{
	return static_key_enabled(sw->key);
}
EXPORT_SYMBOL_IF_KUNIT(mm_impl_switch_selected);

/**
 * mm_impl_switch_calls() - How often a component ran one implementation.
 * @sw: The component's switch.
 * @impl: 0 for the original, 1 for the new implementation.
 *
 * The calls mm_impl_switch_count() counted since boot, at the component's
 * dispatch point, summed over the CPUs.  The sum is not a snapshot: calls
 * counted while it is taken may or may not be in it.
 *
 * Return: the number of calls; 0 for a switch without counters or an
 * @impl out of range.
 */
unsigned long mm_impl_switch_calls(const struct mm_impl_switch *sw,
				   unsigned int impl)
{
	unsigned long sum = 0;
	int cpu;

	if (!sw->calls || impl >= NR_MM_IMPLS)
		return 0;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(sw->calls, cpu)->calls[impl]);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(mm_impl_switch_calls);

/**
 * mm_impl_switch_snapshot() - Read both call counters of a switch.
 * @sw: The component's switch.
 * @snap: Where mm_impl_switch_calls() of each implementation goes.
 */
void mm_impl_switch_snapshot(const struct mm_impl_switch *sw,
			     struct mm_impl_switch_snapshot *snap)
{
	unsigned int i;

	for (i = 0; i < NR_MM_IMPLS; i++)
		snap->calls[i] = mm_impl_switch_calls(sw, i);
}
EXPORT_SYMBOL_IF_KUNIT(mm_impl_switch_snapshot);

/**
 * mm_impl_switch_boot() - Apply the boot parameter and log the choice.
 * @sw: The component's switch.
 *
 * Called once, from the early_initcall DEFINE_MM_IMPL_SWITCH() defines.
 * What ran before it (early allocations, for instance) ran in the default,
 * new implementation.
 *
 * Return: 0.
 */
int __init mm_impl_switch_boot(struct mm_impl_switch *sw)
{
	mm_impl_switch_select(sw, sw->boot);
	pr_info("%s: %s: %s\n", sw->name, sw->desc,
		sw->impls[mm_impl_switch_selected(sw)]);
	return 0;
}

#ifdef CONFIG_DEBUG_FS
/*
 * simple_attr_write() copies at most this many bytes of a write, parses
 * them and reports the whole write as taken: "0000...0001" in 4096 digits
 * would be read as 0.  The longest unsigned 64-bit value with a newline
 * fits.
 */
#define MM_DEBUGFS_ATTR_MAX_LEN	23

/**
 * mm_debugfs_attr_write() - Write to a DEFINE_MM_DEBUGFS_ATTRIBUTE() file.
 * @file: The file.
 * @buf: What user space writes.
 * @len: Its length.
 * @ppos: The file position.
 *
 * debugfs_attr_write(), for a write the kernel's parser reads whole.
 *
 * Return: @len when taken; -EINVAL, and nothing changes, for a write
 * longer than 23 bytes; otherwise what debugfs_attr_write() returns.
 */
ssize_t mm_debugfs_attr_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	if (len > MM_DEBUGFS_ATTR_MAX_LEN)
		return -EINVAL;
	return debugfs_attr_write(file, buf, len, ppos);
}

static int mm_impl_switch_debugfs_get(void *data, u64 *val)
{
	*val = mm_impl_switch_selected(data);
	return 0;
}

/* 1: the new implementation, 0: the original; anything else changes nothing. */
static int mm_impl_switch_debugfs_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	mm_impl_switch_select(data, val);
	return 0;
}
DEFINE_MM_DEBUGFS_ATTRIBUTE(mm_impl_switch_fops, mm_impl_switch_debugfs_get,
			    mm_impl_switch_debugfs_set, "%llu\n");

/* calls_<original> and calls_<new>: read only, one fops per implementation. */
static int mm_impl_switch_calls_orig_get(void *data, u64 *val)
{
	*val = mm_impl_switch_calls(data, MM_IMPL_ORIG);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(mm_impl_switch_calls_orig_fops,
			 mm_impl_switch_calls_orig_get, NULL, "%llu\n");

static int mm_impl_switch_calls_new_get(void *data, u64 *val)
{
	*val = mm_impl_switch_calls(data, MM_IMPL_NEW);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(mm_impl_switch_calls_new_fops,
			 mm_impl_switch_calls_new_get, NULL, "%llu\n");

/**
 * mm_impl_switch_debugfs() - Create the debugfs file of a switch.
 * @sw: The component's switch.
 * @parent: The component's debugfs directory.
 *
 * The file is named after the new implementation (for example "rust"),
 * reads 1 while it is in use and 0 otherwise, and takes 1 or 0; any other
 * write fails with -EINVAL and changes nothing.  Next to it, for a switch
 * with call counters, "calls_<implementation>" for each of the two (for
 * example "calls_c" and "calls_rust"), read only: mm_impl_switch_calls().
 *
 * Return: the switch file's dentry (an error pointer if debugfs failed,
 * which callers may ignore, as with every debugfs file).
 */
struct dentry *mm_impl_switch_debugfs(struct mm_impl_switch *sw,
				      struct dentry *parent)
{
	static const struct file_operations *const calls_fops[NR_MM_IMPLS] = {
		[MM_IMPL_ORIG] = &mm_impl_switch_calls_orig_fops,
		[MM_IMPL_NEW] = &mm_impl_switch_calls_new_fops,
	};
	char name[64];
	unsigned int i;

	for (i = 0; sw->calls && i < NR_MM_IMPLS; i++) {
		snprintf(name, sizeof(name), "calls_%s", sw->impls[i]);
		debugfs_create_file_unsafe(name, 0444, parent, sw, calls_fops[i]);
	}
	return debugfs_create_file_unsafe(sw->impls[1], 0644, parent, sw,
					  &mm_impl_switch_fops);
}
#endif /* CONFIG_DEBUG_FS */
