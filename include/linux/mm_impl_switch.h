/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One switch between two implementations of an mm component that are both
 * in the kernel: the original (index 0: "c", per-page, off) and the new one
 * (index 1: "rust", batched, on), which is the default.
 *
 * A component defines its switch once, in one of its C files:
 *
 *	DEFINE_MM_IMPL_SWITCH(slub_partial, "per-cpu partial accounting",
 *			      "c", "rust");
 *
 * declares it in its header with DECLARE_MM_IMPL_SWITCH(slub_partial), and
 * gets:
 *
 * - the boot parameter "slub_partial_impl=c|rust"; any other value is
 *   refused with a message naming the accepted ones, and the default stays;
 * - the static key slub_partial_key, true while the new implementation is
 *   in use, tested on hot paths with mm_impl_switch_new(slub_partial);
 * - the boot log line "slub_partial: per-cpu partial accounting: rust",
 *   printed when the boot choice takes effect (early_initcall);
 * - with mm_impl_switch_debugfs(), a debugfs file named after the new
 *   implementation ("rust"): reads 1 or 0, takes 1 or 0, refuses anything
 *   else with -EINVAL and changes nothing;
 * - with mm_impl_switch_kunit_use() (mm/mm_impl_switch_kunit.h), a KUnit
 *   test's own choice, undone at the end of the test;
 * - with CONFIG_MM_IMPL_SWITCH_CALLS (test kernels), a call counter per
 *   implementation (per CPU, summed by mm_impl_switch_calls()), moved by
 *   mm_impl_switch_count() at the component's dispatch point, in the
 *   branch of the implementation that runs, and read in debugfs
 *   ("calls_rust", "calls_c") and by KUnit
 *   (mm_impl_switch_kunit_expect_ran()): the proof of which one ran.
 *   Without it, mm_impl_switch_count() compiles to nothing.
 *
 * Both implementations of a component must work on the same state with
 * the same meaning, so that switching needs no conversion: calls already
 * running finish in the implementation they started in.
 */
#ifndef _LINUX_MM_IMPL_SWITCH_H
#define _LINUX_MM_IMPL_SWITCH_H

#include <linux/err.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/types.h>

struct dentry;
struct file;
struct kunit;

/**
 * enum mm_impl - The two implementations of a component, by switch index.
 * @MM_IMPL_ORIG: The original ("c", "per_page", "sync", "off").
 * @MM_IMPL_NEW: The new one, the default.
 * @NR_MM_IMPLS: Number of implementations.
 */
enum mm_impl {
	MM_IMPL_ORIG,
	MM_IMPL_NEW,
	NR_MM_IMPLS,
};

/**
 * struct mm_impl_switch_calls - Calls of each implementation, on one CPU.
 * @calls: Indexed by enum mm_impl.
 */
struct mm_impl_switch_calls {
	unsigned long calls[NR_MM_IMPLS];
};

/**
 * struct mm_impl_switch - A component's choice between two implementations.
 * @name: The component; its boot parameter is "<name>_impl=".
 * @desc: What the component does, for the boot log line.
 * @impls: The values of the boot parameter: [0] the original, [1] the new
 *	implementation (the default, and the name of the debugfs file).
 * @key: True while the new implementation is in use.
 * @boot: The implementation the boot parameter asked for.
 * @calls: The per-cpu call counters, <name>_switch_calls (NULL: not counted).
 */
struct mm_impl_switch {
	const char *name;
	const char *desc;
	const char *impls[NR_MM_IMPLS];
	struct static_key_true *key;
	unsigned int boot;
	struct mm_impl_switch_calls __percpu *calls;
};

extern const struct kernel_param_ops mm_impl_switch_param_ops;
int mm_impl_switch_boot(struct mm_impl_switch *sw);
void mm_impl_switch_select(struct mm_impl_switch *sw, unsigned int impl);
unsigned int mm_impl_switch_selected(const struct mm_impl_switch *sw);
unsigned long mm_impl_switch_calls(const struct mm_impl_switch *sw,
				   unsigned int impl);

/**
 * struct mm_impl_switch_snapshot - Both call counters of a switch at one time.
 * @calls: mm_impl_switch_calls() of each implementation.
 */
struct mm_impl_switch_snapshot {
	unsigned long calls[NR_MM_IMPLS];
};

void mm_impl_switch_snapshot(const struct mm_impl_switch *sw,
			     struct mm_impl_switch_snapshot *snap);

#ifdef CONFIG_DEBUG_FS
struct dentry *mm_impl_switch_debugfs(struct mm_impl_switch *sw,
				      struct dentry *parent);
#else
static inline struct dentry *mm_impl_switch_debugfs(struct mm_impl_switch *sw,
						    struct dentry *parent)
{
	return ERR_PTR(-ENODEV);
}
#endif

#ifdef CONFIG_DEBUG_FS
ssize_t mm_debugfs_attr_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos);

/**
 * DEFINE_MM_DEBUGFS_ATTRIBUTE() - DEFINE_DEBUGFS_ATTRIBUTE(), whole values only.
 * @__fops: The file_operations to define.
 * @__get: Reads the value, as for DEFINE_DEBUGFS_ATTRIBUTE().
 * @__set: Takes a new value, as for DEFINE_DEBUGFS_ATTRIBUTE().
 * @__fmt: The read format.
 *
 * The same attribute, except that a write too long for the kernel's
 * simple_attr_write() to read whole is refused with -EINVAL instead of
 * being cut short and parsed (see mm_debugfs_attr_write()).  Every debugfs
 * file the mmrust components write through uses it.  For files created
 * with debugfs_create_file_unsafe().
 */
#define DEFINE_MM_DEBUGFS_ATTRIBUTE(__fops, __get, __set, __fmt)	\
static int __fops ## _open(struct inode *inode, struct file *file)	\
{									\
	__simple_attr_check_format(__fmt, 0ull);			\
	return simple_attr_open(inode, file, __get, __set, __fmt);	\
}									\
static const struct file_operations __fops = {				\
	.owner	 = THIS_MODULE,						\
	.open	 = __fops ## _open,					\
	.release = simple_attr_release,					\
	.read	 = debugfs_attr_read,					\
	.write	 = mm_debugfs_attr_write,				\
}
#endif

/**
 * DEFINE_MM_IMPL_SWITCH() - Define the switch of a component.
 * @_name: The component, a C identifier.
 * @_desc: What it does, for the boot log.
 * @_orig: Boot parameter value selecting the original implementation.
 * @_new: Boot parameter value selecting the new one, the default.
 *
 * Defines <_name>_switch, <_name>_key, the per-cpu call counters
 * <_name>_switch_calls (counted only with CONFIG_MM_IMPL_SWITCH_CALLS;
 * without it the switch's @calls is NULL) and the boot parameter
 * "<_name>_impl" (a core kernel parameter, without a module prefix), and
 * applies the boot choice at early_initcall time.
 */
#define DEFINE_MM_IMPL_SWITCH(_name, _desc, _orig, _new)		\
	DEFINE_STATIC_KEY_TRUE(_name##_key);				\
	DEFINE_PER_CPU(struct mm_impl_switch_calls, _name##_switch_calls); \
	struct mm_impl_switch _name##_switch = {			\
		.name = #_name,						\
		.desc = _desc,						\
		.impls = { _orig, _new },				\
		.key = &_name##_key,					\
		.boot = 1,						\
		.calls = IS_ENABLED(CONFIG_MM_IMPL_SWITCH_CALLS) ?	\
			 &_name##_switch_calls : NULL,			\
	};								\
	__module_param_call("", _name##_impl, &mm_impl_switch_param_ops, \
			    &_name##_switch, 0, -1, 0);			\
	static int __init _name##_switch_boot(void)			\
	{								\
		return mm_impl_switch_boot(&_name##_switch);		\
	}								\
	early_initcall(_name##_switch_boot)

/**
 * DEFINE_MM_IMPL_SWITCH_DEBUGFS() - Give a switch a debugfs directory of its own.
 * @_name: The component, as given to DEFINE_MM_IMPL_SWITCH().
 *
 * At late_initcall time, creates /sys/kernel/debug/<_name>/ holding the
 * switch's file (see mm_impl_switch_debugfs()), for a component that has
 * no other debugfs file.
 */
#define DEFINE_MM_IMPL_SWITCH_DEBUGFS(_name)				\
	static int __init _name##_switch_debugfs(void)			\
	{								\
		mm_impl_switch_debugfs(&_name##_switch,			\
				       debugfs_create_dir(#_name, NULL)); \
		return 0;						\
	}								\
	late_initcall(_name##_switch_debugfs)

/**
 * DECLARE_MM_IMPL_SWITCH() - Declare the switch of a component.
 * @_name: The component, as given to DEFINE_MM_IMPL_SWITCH().
 */
#define DECLARE_MM_IMPL_SWITCH(_name)					\
	DECLARE_STATIC_KEY_TRUE(_name##_key);				\
	DECLARE_PER_CPU(struct mm_impl_switch_calls, _name##_switch_calls); \
	extern struct mm_impl_switch _name##_switch

/**
 * mm_impl_switch_new() - Whether a component runs its new implementation.
 * @_name: The component.
 *
 * A static branch, laid out for the new implementation.
 */
#define mm_impl_switch_new(_name) static_branch_likely(&_name##_key)

/**
 * mm_impl_switch_count() - Count a call of one implementation of a component.
 * @_name: The component, as given to DEFINE_MM_IMPL_SWITCH().
 * @_impl: The implementation that runs: 0 (MM_IMPL_ORIG) or 1 (MM_IMPL_NEW),
 *	or the component's own enum for them.
 *
 * Placed at the dispatch point, inside the branch of the implementation
 * that runs (never before the test that picks it), so that a switch wired
 * the wrong way round counts on the wrong side.  One this_cpu_inc() of a
 * per-cpu variable whose address the linker knows (one instruction on
 * x86_64): both implementations pay the same, so comparisons stay fair.
 * Nothing without CONFIG_MM_IMPL_SWITCH_CALLS: a production kernel pays
 * no counter.
 * A statement; components wrap it in an inline function where they need
 * an expression.
 */
#ifdef CONFIG_MM_IMPL_SWITCH_CALLS
#define mm_impl_switch_count(_name, _impl)				\
	this_cpu_inc(_name##_switch_calls.calls[_impl])
#else
#define mm_impl_switch_count(_name, _impl)				\
	do {								\
		(void)(_impl);						\
		(void)&_name##_switch_calls;				\
	} while (0)
#endif

#endif /* _LINUX_MM_IMPL_SWITCH_H */
