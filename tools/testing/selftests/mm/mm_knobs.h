/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the series' mm kselftests (hugetlb_pool, thp_huge_zero_page,
 * contpte_mthp, clear_pages_zero, slub_cpu_partial) share beside
 * vm_util.c and thp_settings.c: writes to sysfs, procfs and debugfs files
 * that return the error a bad value gets (thp_settings.c's write_file()
 * and write_num() exit the test instead, which a check of that error or a
 * teardown cannot use), files changed for a test and put back by its
 * teardown, reads that say when the file is not there, the counters of
 * /proc/vmstat and /proc/meminfo, and debugfs mounted where it is not.
 */
#ifndef __MM_KNOBS_H__
#define __MM_KNOBS_H__

#include <stdbool.h>
#include <stddef.h>

#define DEBUGFS "/sys/kernel/debug"

/*
 * knob_write: <len> bytes of <buf> to <path> in one write(): 0, or -errno
 * where it was refused (-EIO for a short write).  Never exits.
 */
int knob_write(const char *path, const char *buf, size_t len);

/* knob_write_long: <v> and a newline to <path>, as knob_write(). */
int knob_write_long(const char *path, long v);

/*
 * knob_read_long: the decimal number <path> holds, or -1 where the file is
 * not there, cannot be read or holds no number.
 */
long knob_read_long(const char *path);

/*
 * The files a test changed, each with what it held before, to be put back
 * in the reverse order (knob_put_back(), from a FIXTURE_TEARDOWN_PARENT:
 * kept in the fixture's shared data, it runs even where the test failed).
 */
#define KNOBS_MAX 32

struct knobs {
	int nr;
	struct {
		char path[128];
		char old[32];
	} saved[KNOBS_MAX];
};

/*
 * knob_change: what <path> holds saved into *kn (the bracketed choice of
 * a THP "always [madvise] never" file, else its first line), then <val>
 * written to it (knob_write()): 0, or -errno, with why set.
 */
int knob_change(struct knobs *kn, char *why, size_t why_size, const char *path,
		const char *val);

/* knob_put_back: every file of *kn back to what it held, the last first. */
void knob_put_back(struct knobs *kn);

/* vmstat_read: the counter <name> of /proc/vmstat, -1 if absent. */
long vmstat_read(const char *name);

/* meminfo_read: the number of the /proc/meminfo line "<key>:", -1 if absent. */
long meminfo_read(const char *key);

/*
 * debugfs_need: <path> under debugfs, which is mounted where it was not
 * (*mounted then true): 0; or -errno, with debugfs unmounted again if this
 * call mounted it.
 */
int debugfs_need(const char *path, bool *mounted);

/* debugfs_release: debugfs unmounted if debugfs_need() mounted it. */
void debugfs_release(bool *mounted);

#endif /* __MM_KNOBS_H__ */
