// SPDX-License-Identifier: GPL-2.0
/*
 * fail_page_alloc for the mm kselftests: see fault_inject.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_inject.h"
#include "thp_settings.h"

/*
 * The attributes set, in the order they are put back; the probability
 * first, so that nothing fails while the others change.
 */
static const char * const attrs[FAULT_INJECT_NR_ATTRS] = {
	"probability", "interval", "times", "space", "verbose", "task-filter",
	"require-start", "require-end", "reject-start", "reject-end",
	"ignore-gfp-wait", "ignore-gfp-highmem", "min-order",
};

#define PROBABILITY 0	/* attrs[] */
#define TIMES 2

static const char *attr_path(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), FAIL_PAGE_ALLOC "/%s", name);
	return path;
}

/* attr_write: <val> into the attribute <name> in one write: 0 or -errno. */
static int attr_write(const char *name, const char *val)
{
	return knob_write(attr_path(name), val, strlen(val));
}

static int attr_write_num(const char *name, const char *fmt, unsigned long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), fmt, v);
	return attr_write(name, buf);
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

const char *fault_inject_open(struct fault_inject *fi, const char *fn)
{
	char buf[sizeof(fi->saved[0])];
	int i, err;

	memset(fi, 0, sizeof(*fi));
	err = debugfs_need(FAIL_PAGE_ALLOC, &fi->mounted);
	if (err) {
		snprintf(fi->why, sizeof(fi->why), "no %s (%s): needs %s", FAIL_PAGE_ALLOC,
			 strerror(-err),
			 "CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS and debugfs");
		return fi->why;
	}
	if (access(attr_path("require-start"), F_OK)) {
		snprintf(fi->why, sizeof(fi->why), "no %s: needs %s", attr_path("require-start"),
			 "CONFIG_FAULT_INJECTION_STACKTRACE_FILTER");
		goto out;
	}
	if (access("/proc/self/make-it-fail", W_OK)) {
		snprintf(fi->why, sizeof(fi->why), "/proc/self/make-it-fail: %s",
			 strerror(errno));
		goto out;
	}
	if (kallsyms_range(fn, &fi->start, &fi->end)) {
		snprintf(fi->why, sizeof(fi->why), "no %s in /proc/kallsyms %s", fn,
			 "(or its addresses hidden: kptr_restrict)");
		goto out;
	}
	for (i = 0; i < FAULT_INJECT_NR_ATTRS; i++) {
		if (!read_file(attr_path(attrs[i]), buf, sizeof(buf))) {
			snprintf(fi->why, sizeof(fi->why), "cannot read %s", attr_path(attrs[i]));
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
			 FAIL_PAGE_ALLOC, fi->saved[PROBABILITY], fi->saved[TIMES]);
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
	int err;

	if (!fi->open)
		return -EBADF;
	fi->armed = true;
	err = attr_write("probability", "0");
	err = err ?: attr_write("verbose", "0");
	err = err ?: attr_write("space", "0");
	err = err ?: attr_write("task-filter", "Y");
	err = err ?: attr_write_num("require-start", "0x%lx", fi->start);
	err = err ?: attr_write_num("require-end", "0x%lx", fi->end);
	err = err ?: attr_write("reject-start", "0");
	err = err ?: attr_write("reject-end", "0");
	err = err ?: attr_write("ignore-gfp-wait", "N");
	err = err ?: attr_write("ignore-gfp-highmem", "N");
	err = err ?: attr_write("min-order", "0");
	err = err ?: attr_write_num("interval", "%lu", interval);
	err = err ?: attr_write_num("times", "%lu", FAULT_INJECT_TIMES);
	err = err ?: attr_write_num("probability", "%lu", probability);
	return err;
}

long fault_inject_disarm(struct fault_inject *fi)
{
	long left;

	if (!fi->armed || attr_write("probability", "0"))
		return -1;
	left = knob_read_long(attr_path("times"));
	if (left < 0)
		return -1;
	return FAULT_INJECT_TIMES - left;
}

void fault_inject_close(struct fault_inject *fi)
{
	int i;

	if (fi->open && fi->armed) {
		attr_write("probability", "0");
		for (i = 1; i < FAULT_INJECT_NR_ATTRS; i++)
			if (attr_write(attrs[i], fi->saved[i]))
				fprintf(stderr, "# cannot put back %s = %s\n",
					attr_path(attrs[i]), fi->saved[i]);
		if (attr_write(attrs[PROBABILITY], fi->saved[PROBABILITY]))
			fprintf(stderr, "# cannot put back %s = %s\n",
				attr_path(attrs[PROBABILITY]), fi->saved[PROBABILITY]);
	}
	fi->open = false;
	fi->armed = false;
	debugfs_release(&fi->mounted);
}

int fault_inject_mark_self(void)
{
	return knob_write("/proc/self/make-it-fail", "1", 1);
}
