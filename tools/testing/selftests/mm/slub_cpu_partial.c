// SPDX-License-Identifier: GPL-2.0
/*
 * SLUB's per-cpu partial lists as user space sees them, in
 * /sys/kernel/slab/<cache>/: cpu_partial (the objects a CPU may keep on
 * partial slabs, writable), objs_per_slab, and slabs_cpu_partial, "<objects>
 * (<slabs>)" for the cache and " C<cpu>=<objects>(<slabs>)" for each CPU
 * whose list is not empty, where <objects> is an estimate: half of the
 * objects of <slabs> slabs.
 *
 * A CPU keeps at most DIV_ROUND_UP(2 * cpu_partial, objs_per_slab) slabs
 * (half-full slabs, mm/slub.c's slub_set_cpu_partial()); a write of
 * cpu_partial takes a decimal unsigned int and refuses anything else with
 * the error of kstrtouint(), keeping the value it had.
 *
 * These hold for every SLUB kernel, whichever code keeps the lists.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "knob_util.h"

#define SLAB_DIR "/sys/kernel/slab"
/* The cache the write tests use: in every kernel, never merged away. */
#define WRITE_CACHE "kmalloc-256"

/* attr_path: SLAB_DIR/<cache>/<attr> (a static buffer). */
static const char *attr_path(const char *cache, const char *attr)
{
	static char path[512];

	snprintf(path, sizeof(path), SLAB_DIR "/%s/%s", cache, attr);
	return path;
}

/* read_attr: <cache>/<attr> into buf, without the newline: 0 or -errno. */
static int read_attr(const char *cache, const char *attr, char *buf, size_t size)
{
	return knob_read(attr_path(cache, attr), buf, size);
}

/* read_number: <cache>/<attr> as a decimal number, or -1. */
static long read_number(const char *cache, const char *attr)
{
	return knob_read_long(attr_path(cache, attr));
}

/* write_attr: one write() of len bytes to <cache>/<attr>: 0 or -errno. */
static int write_attr(const char *cache, const char *attr, const char *val, size_t len)
{
	return knob_write(attr_path(cache, attr), val, len);
}

/*
 * check_cache: slabs_cpu_partial of <cache> is well formed, each CPU's
 * estimate is half the objects of its slabs, and no CPU holds more slabs
 * than cpu_partial allows.  Returns NULL, or what is wrong (static buffer).
 */
static const char *check_cache(const char *cache)
{
	static char why[1024];
	char line[4096], *p, *end;
	long objects, per_slab, limit, o, n, cpu;

	objects = read_number(cache, "cpu_partial");
	per_slab = read_number(cache, "objs_per_slab");
	if (objects < 0 || per_slab < 1) {
		snprintf(why, sizeof(why), "%s: cpu_partial %ld, objs_per_slab %ld",
			 cache, objects, per_slab);
		return why;
	}
	if (read_attr(cache, "slabs_cpu_partial", line, sizeof(line))) {
		snprintf(why, sizeof(why), "%s: slabs_cpu_partial unreadable", cache);
		return why;
	}
	limit = (2 * objects + per_slab - 1) / per_slab;
	/* The cache's total: "<objects>(<slabs>)". */
	p = line;
	o = strtol(p, &end, 10);
	if (end == p || *end != '(')
		goto malformed;
	p = end + 1;
	n = strtol(p, &end, 10);
	if (end == p || *end != ')')
		goto malformed;
	p = end + 1;
	/* Then " C<cpu>=<objects>(<slabs>)" per CPU. */
	while (*p) {
		if (strncmp(p, " C", 2))
			goto malformed;
		p += 2;
		cpu = strtol(p, &end, 10);
		if (end == p || *end != '=')
			goto malformed;
		p = end + 1;
		o = strtol(p, &end, 10);
		if (end == p || *end != '(')
			goto malformed;
		p = end + 1;
		n = strtol(p, &end, 10);
		if (end == p || *end != ')')
			goto malformed;
		p = end + 1;
		if (n > limit) {
			snprintf(why, sizeof(why),
				 "%s: CPU %ld holds %ld slabs, limit %ld (cpu_partial %ld, %ld per slab)",
				 cache, cpu, n, limit, objects, per_slab);
			return why;
		}
		if (o != n * per_slab / 2) {
			snprintf(why, sizeof(why),
				 "%s: CPU %ld estimates %ld objects on %ld slabs of %ld",
				 cache, cpu, o, n, per_slab);
			return why;
		}
	}
	return NULL;
malformed:
	snprintf(why, sizeof(why), "%s: malformed slabs_cpu_partial \"%.900s\"", cache, line);
	return why;
}

/*
 * check_every_cache: check_cache for every cache of /sys/kernel/slab
 * (merged caches are links: each name); the number of caches, or -1
 * without the directory.
 */
static int check_every_cache(struct __test_metadata *_metadata)
{
	struct dirent *d;
	const char *why;
	int caches = 0;
	DIR *dir;

	dir = opendir(SLAB_DIR);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		why = check_cache(d->d_name);
		EXPECT_EQ(NULL, why)
			TH_LOG("%s", why);
		caches++;
	}
	closedir(dir);
	ksft_print_msg("%d caches checked\n", caches);
	return caches;
}

TEST(every_cache_within_its_limit)
{
	int caches = check_every_cache(_metadata);

	if (caches < 0)
		SKIP(return, "no " SLAB_DIR ": not SLUB, or no sysfs");
	/* Any SLUB kernel has dozens (kmalloc-*, dentry, inode caches...). */
	ASSERT_GT(caches, 20);
}

/*
 * churn: creates and removes <files> small files in <dir>: dentries,
 * inodes and kmalloc objects come and go.
 */
static int churn(const char *dir, int files)
{
	char path[128];
	int i, fd;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, path, strlen(path)) < 0)
			return -1;
		close(fd);
	}
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	return rmdir(dir);
}

/*
 * After objects come and go from tasks on every CPU (one per online CPU,
 * the scheduler spreading them): slabs go onto and off the per-cpu
 * partial lists, and every cache stays within its limit.
 */
TEST(every_cache_within_its_limit_after_churn)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char base[] = "/tmp/slub_cpu_partial.XXXXXX";
	char dir[64];
	int status, failed = 0;
	long i;

	if (access(SLAB_DIR, F_OK))
		SKIP(return, "no " SLAB_DIR ": not SLUB, or no sysfs");
	ASSERT_NE(NULL, mkdtemp(base));
	if (cpus < 1)
		cpus = 1;
	for (i = 0; i < cpus; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			snprintf(dir, sizeof(dir), "%s/%ld", base, i);
			_exit(churn(dir, 1500) ? 1 : 0);
		}
	}
	while (wait(&status) > 0)
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	rmdir(base);
	ASSERT_EQ(0, failed)
		TH_LOG("%d churning tasks failed (files in %s)", failed, base);
	ASSERT_GT(check_every_cache(_metadata), 20);
}

/* kmalloc-256's cpu_partial, put back after each test. */
FIXTURE(cpu_partial)
{
	char old[64];
};

FIXTURE_SETUP(cpu_partial)
{
	if (read_attr(WRITE_CACHE, "cpu_partial", self->old, sizeof(self->old)))
		SKIP(return, "no " SLAB_DIR "/" WRITE_CACHE "/cpu_partial");
	if (geteuid())
		SKIP(return, "writing cpu_partial needs root");
	/*
	 * 0: the cache keeps no per-cpu partial lists (CONFIG_SLUB_CPU_PARTIAL
	 * off, or a debugged cache), and refuses any other value.
	 */
	if (!strcmp(self->old, "0"))
		SKIP(return, WRITE_CACHE " has no per-cpu partial lists");
}

FIXTURE_TEARDOWN(cpu_partial)
{
	if (self->old[0])
		write_attr(WRITE_CACHE, "cpu_partial", self->old, strlen(self->old));
}

TEST_F(cpu_partial, write_reads_back)
{
	const char *why;

	ASSERT_EQ(0, write_attr(WRITE_CACHE, "cpu_partial", "30\n", 3));
	ASSERT_EQ(30, read_number(WRITE_CACHE, "cpu_partial"));
	why = check_cache(WRITE_CACHE);
	EXPECT_EQ(NULL, why)
		TH_LOG("%s", why);
	ASSERT_EQ(0, write_attr(WRITE_CACHE, "cpu_partial", "7", 1));
	ASSERT_EQ(7, read_number(WRITE_CACHE, "cpu_partial"));
}

/*
 * Each bad value (written with a newline, as echo does) refused with
 * kstrtouint()'s error, the value kept.
 */
TEST_F(cpu_partial, bad_input_refused)
{
	static char long_ones[4097];
	const struct {
		const char *name, *val;
		int err;
	} bad[] = {
		{ "empty", "", EINVAL },
		{ "space", " ", EINVAL },
		{ "negative", "-1", EINVAL },
		{ "word", "abc", EINVAL },
		{ "trailing", "1x", EINVAL },
		{ "2^32", "4294967296", ERANGE },
		{ "2^64", "18446744073709551616", ERANGE },
		{ "4096 digits", long_ones, ERANGE },
	};
	char buf[4098];
	unsigned int i;
	int len;

	memset(long_ones, '1', 4096);
	ASSERT_EQ(0, write_attr(WRITE_CACHE, "cpu_partial", "30", 2));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		len = snprintf(buf, sizeof(buf), "%s\n", bad[i].val);
		EXPECT_EQ(-bad[i].err, write_attr(WRITE_CACHE, "cpu_partial", buf, len))
			TH_LOG("writing %s: want %s", bad[i].name, strerror(bad[i].err));
		EXPECT_EQ(30, read_number(WRITE_CACHE, "cpu_partial"))
			TH_LOG("writing %s changed cpu_partial", bad[i].name);
	}
}

TEST_HARNESS_MAIN
