// SPDX-License-Identifier: GPL-2.0
/*
 * fail_page_alloc and failslab for the mm kselftests and fail_alloc: see
 * fault_inject.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "fault_inject.h"
#include "thp_settings.h"

#define SLAB_DIR "/sys/kernel/slab"

/*
 * An attribute fault_inject_arm() sets, and the value it sets: NULL for
 * those it works out (the probability, interval and times, written last,
 * and the stack filter's range).
 */
struct attr {
	const char *name;
	const char *armed;
};

/*
 * The attributes set, in the order they are put back; the probability
 * first, so that nothing fails while the others change.  Each kind's
 * first three are the same.
 */
#define PROBABILITY 0
#define INTERVAL 1
#define TIMES 2

static const struct attr page_attrs[FAULT_INJECT_NR_ATTRS] = {
	{ "probability", NULL }, { "interval", NULL }, { "times", NULL }, { "space", "0" },
	{ "verbose", "0" }, { "task-filter", "Y" }, { "require-start", NULL },
	{ "require-end", NULL }, { "reject-start", "0" }, { "reject-end", "0" },
	{ "ignore-gfp-wait", "N" }, { "ignore-gfp-highmem", "N" }, { "min-order", "0" },
};

/*
 * failslab's stack filter, off, last: its files are there only with
 * CONFIG_FAULT_INJECTION_STACKTRACE_FILTER, which it does not need.
 */
#define SLAB_ATTRS_NO_STACK 8

static const struct attr slab_attrs[] = {
	{ "probability", NULL }, { "interval", NULL }, { "times", NULL }, { "space", "0" },
	{ "verbose", "0" }, { "task-filter", "N" }, { "cache-filter", "Y" },
	{ "ignore-gfp-wait", "N" }, { "require-start", NULL }, { "require-end", NULL },
	{ "reject-start", "0" }, { "reject-end", "0" },
};
_Static_assert(ARRAY_SIZE(slab_attrs) <= FAULT_INJECT_NR_ATTRS, "fi->saved too small");

static const struct attr *attrs_of(const struct fault_inject *fi)
{
	return fi->kind == FAULT_INJECT_PAGE ? page_attrs : slab_attrs;
}

/* attr_path: <name> in the directory of *fi's fault attribute. */
static const char *attr_path(const struct fault_inject *fi, const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", fi->dir, name);
	return path;
}

/* attr_write: <val> into the attribute <name> in one write: 0 or -errno. */
static int attr_write(const struct fault_inject *fi, const char *name, const char *val)
{
	return knob_write(attr_path(fi, name), val, strlen(val));
}

static int attr_write_num(const struct fault_inject *fi, const char *name,
			  const char *fmt, unsigned long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), fmt, v);
	return attr_write(fi, name, buf);
}

/* mark_path: the failslab mark of the <i>th cache of *fi. */
static const char *mark_path(const struct fault_inject *fi, int i)
{
	static char path[128];

	snprintf(path, sizeof(path), SLAB_DIR "/%s/failslab", fi->caches[i].name);
	return path;
}

/*
 * kallsyms_range: the text of <fn> in /proc/kallsyms, from its address up
 * to the next symbol's (the file is not sorted: the lowest address above
 * it): 0, or -1 where it is not there or the addresses are hidden.
 */
static int kallsyms_range(const char *fn, unsigned long *start, unsigned long *end)
{
	char line[512], name[256], type;
	unsigned long a;
	int pass;
	FILE *f;

	*start = 0;
	*end = ~0UL;
	for (pass = 0; pass < 2; pass++) {
		f = fopen("/proc/kallsyms", "r");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%lx %c %255s", &a, &type, name) != 3)
				continue;
			if (!pass && !*start && !strcmp(name, fn) &&
			    (type == 't' || type == 'T'))
				*start = a;
			else if (pass && a > *start && a < *end)
				*end = a;
		}
		fclose(f);
		if (!*start)
			return -1;
	}
	return *end == ~0UL ? -1 : 0;
}

/*
 * caches_find: the caches of SLAB_DIR named <prefix>..., each with its
 * failslab mark, into *fi: 0, or -1 with fi->why set.  (A merged cache
 * refuses the mark, -EINVAL: the cache filter takes caches of their own.)
 */
static int caches_find(struct fault_inject *fi, const char *prefix)
{
	struct dirent *d;
	char buf[8];
	DIR *dir;
	int err = -1;

	dir = opendir(SLAB_DIR);
	if (!dir) {
		snprintf(fi->why, sizeof(fi->why), "no " SLAB_DIR ": %s", strerror(errno));
		return -1;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || strncmp(d->d_name, prefix, strlen(prefix)))
			continue;
		if (fi->nr_caches == FAULT_INJECT_MAX_CACHES ||
		    strlen(d->d_name) >= sizeof(fi->caches[0].name)) {
			snprintf(fi->why, sizeof(fi->why), "more than %d caches named %s..., or %s",
				 FAULT_INJECT_MAX_CACHES, prefix, "a name too long");
			goto out;
		}
		memcpy(fi->caches[fi->nr_caches].name, d->d_name, strlen(d->d_name) + 1);
		if (!read_file(mark_path(fi, fi->nr_caches), buf, sizeof(buf))) {
			snprintf(fi->why, sizeof(fi->why), "cannot read %s: needs CONFIG_FAILSLAB",
				 mark_path(fi, fi->nr_caches));
			goto out;
		}
		fi->caches[fi->nr_caches++].saved = buf[0] == '1' ? '1' : '0';
	}
	err = 0;
	if (!fi->nr_caches) {
		snprintf(fi->why, sizeof(fi->why), "no cache named %s... in " SLAB_DIR, prefix);
		err = -1;
	}
out:
	closedir(dir);
	return err;
}

const char *fault_inject_open(struct fault_inject *fi, enum fault_inject_kind kind,
			      const char *target)
{
	bool page = kind == FAULT_INJECT_PAGE;
	char buf[sizeof(fi->saved[0])];
	const struct attr *attrs;
	int i, err;

	memset(fi, 0, sizeof(*fi));
	fi->kind = kind;
	fi->dir = page ? FAIL_PAGE_ALLOC : FAILSLAB;
	attrs = attrs_of(fi);
	err = debugfs_need(fi->dir, &fi->mounted);
	if (err) {
		snprintf(fi->why, sizeof(fi->why), "no %s (%s): needs %s, %s", fi->dir,
			 strerror(-err), page ? "CONFIG_FAIL_PAGE_ALLOC" : "CONFIG_FAILSLAB",
			 "CONFIG_FAULT_INJECTION_DEBUG_FS and debugfs");
		return fi->why;
	}
	if (page) {
		fi->nr_attrs = ARRAY_SIZE(page_attrs);
		if (access(attr_path(fi, "require-start"), F_OK)) {
			snprintf(fi->why, sizeof(fi->why), "no %s: needs %s",
				 attr_path(fi, "require-start"),
				 "CONFIG_FAULT_INJECTION_STACKTRACE_FILTER");
			goto out;
		}
		if (access("/proc/self/make-it-fail", W_OK)) {
			snprintf(fi->why, sizeof(fi->why), "/proc/self/make-it-fail: %s",
				 strerror(errno));
			goto out;
		}
		if (kallsyms_range(target, &fi->start, &fi->end)) {
			snprintf(fi->why, sizeof(fi->why), "no %s in /proc/kallsyms %s", target,
				 "(or its addresses hidden: kptr_restrict)");
			goto out;
		}
	} else {
		/* The whole address space: no stack filter. */
		fi->start = 0;
		fi->end = ~0UL;
		fi->nr_attrs = access(attr_path(fi, "require-start"), F_OK) ?
			SLAB_ATTRS_NO_STACK : (int)ARRAY_SIZE(slab_attrs);
		if (caches_find(fi, target))
			goto out;
	}
	for (i = 0; i < fi->nr_attrs; i++) {
		if (!read_file(attr_path(fi, attrs[i].name), buf, sizeof(buf))) {
			snprintf(fi->why, sizeof(fi->why), "cannot read %s",
				 attr_path(fi, attrs[i].name));
			goto out;
		}
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(fi->saved[i], sizeof(fi->saved[i]), "%s", buf);
	}
	/*
	 * Armed by someone else (another test, a user): not this test's to
	 * take over.  Idle is a probability of 0, or no failures left to
	 * inject (times 0; -1 is no limit).
	 */
	if (strtol(fi->saved[PROBABILITY], NULL, 10) && strtol(fi->saved[TIMES], NULL, 10)) {
		snprintf(fi->why, sizeof(fi->why), "%s is in use: probability %s, times %s",
			 fi->dir, fi->saved[PROBABILITY], fi->saved[TIMES]);
		goto out;
	}
	fi->open = true;
	return NULL;
out:
	debugfs_release(&fi->mounted);
	return fi->why;
}

int fault_inject_arm(struct fault_inject *fi, unsigned int probability,
		     unsigned long interval)
{
	const struct attr *attrs = attrs_of(fi);
	int i, err;

	if (!fi->open)
		return -EBADF;
	fi->armed = true;
	err = attr_write(fi, attrs[PROBABILITY].name, "0");
	for (i = 0; !err && i < fi->nr_caches; i++)
		err = knob_write(mark_path(fi, i), "1", 1);
	for (i = TIMES + 1; !err && i < fi->nr_attrs; i++) {
		if (attrs[i].armed)
			err = attr_write(fi, attrs[i].name, attrs[i].armed);
		else
			err = attr_write_num(fi, attrs[i].name, "0x%lx",
					     strcmp(attrs[i].name, "require-start") ?
					     fi->end : fi->start);
	}
	err = err ?: attr_write_num(fi, attrs[INTERVAL].name, "%lu", interval);
	err = err ?: attr_write_num(fi, attrs[TIMES].name, "%lu", FAULT_INJECT_TIMES);
	err = err ?: attr_write_num(fi, attrs[PROBABILITY].name, "%lu", probability);
	return err;
}

long fault_inject_disarm(struct fault_inject *fi)
{
	long left;

	if (!fi->armed || attr_write(fi, attrs_of(fi)[PROBABILITY].name, "0"))
		return -1;
	left = knob_read_long(attr_path(fi, attrs_of(fi)[TIMES].name));
	if (left < 0)
		return -1;
	return FAULT_INJECT_TIMES - left;
}

void fault_inject_close(struct fault_inject *fi)
{
	const struct attr *attrs = attrs_of(fi);
	int i;

	if (fi->open && fi->armed) {
		attr_write(fi, attrs[PROBABILITY].name, "0");
		for (i = 1; i < fi->nr_attrs; i++)
			if (attr_write(fi, attrs[i].name, fi->saved[i]))
				fprintf(stderr, "# cannot put back %s = %s\n",
					attr_path(fi, attrs[i].name), fi->saved[i]);
		for (i = fi->nr_caches - 1; i >= 0; i--)
			if (knob_write(mark_path(fi, i), &fi->caches[i].saved, 1))
				fprintf(stderr, "# cannot put back %s = %c\n",
					mark_path(fi, i), fi->caches[i].saved);
		if (attr_write(fi, attrs[PROBABILITY].name, fi->saved[PROBABILITY]))
			fprintf(stderr, "# cannot put back %s = %s\n",
				attr_path(fi, attrs[PROBABILITY].name), fi->saved[PROBABILITY]);
	}
	fi->open = false;
	fi->armed = false;
	debugfs_release(&fi->mounted);
}

int fault_inject_mark_self(void)
{
	return knob_write("/proc/self/make-it-fail", "1", 1);
}
