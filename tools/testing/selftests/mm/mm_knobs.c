// SPDX-License-Identifier: GPL-2.0
/*
 * Knobs and counters for the series' mm kselftests: see mm_knobs.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../kselftest.h"
#include "mm_knobs.h"

#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC 0x64626720
#endif

int knob_write(const char *path, const char *buf, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	ret = ret < 0 ? -errno : (size_t)ret == len ? 0 : -EIO;
	close(fd);
	return ret;
}

int knob_write_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return knob_write(path, buf, strlen(buf));
}

long knob_read_long(const char *path)
{
	char buf[64], *end;
	ssize_t len;
	long v;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -1;
	return v;
}

/* knob_read: <path> into buf, NUL-terminated: 0, or -1 with errno set. */
static int knob_read(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len <= 0) {
		if (!len)
			errno = ENODATA;
		return -1;
	}
	buf[len] = '\0';
	return 0;
}

int knob_change(struct knobs *kn, char *why, size_t why_size, const char *path,
		const char *val)
{
	char buf[256], *b, *e;
	int err = -ENOSPC;

	if (kn->nr >= (int)ARRAY_SIZE(kn->saved))
		goto out;
	errno = 0;
	if (knob_read(path, buf, sizeof(buf))) {
		err = errno ? -errno : -ENODATA;
		goto out;
	}
	b = strchr(buf, '[');
	e = b ? strchr(b, ']') : NULL;
	if (e) {
		*e = '\0';
		b++;
	} else {
		b = buf;
		b[strcspn(b, "\n")] = '\0';
	}
	err = -E2BIG;	/* where it could not be put back whole */
	if (strlen(b) + 2 > sizeof(kn->saved[0].old) ||
	    strlen(path) + 1 > sizeof(kn->saved[0].path))
		goto out;
	snprintf(kn->saved[kn->nr].path, sizeof(kn->saved[0].path), "%s", path);
	snprintf(kn->saved[kn->nr].old, sizeof(kn->saved[0].old), "%.*s\n",
		 (int)sizeof(kn->saved[0].old) - 2, b);
	kn->nr++;	/* once saved: the teardown may run any time now */
	err = knob_write(path, val, strlen(val));
out:
	if (err)
		snprintf(why, why_size, "writing \"%.*s\" to %s: %s", (int)strcspn(val, "\n"),
			 val, path, strerror(-err));
	return err;
}

void knob_put_back(struct knobs *kn)
{
	int err;

	while (kn->nr > 0) {
		kn->nr--;
		err = knob_write(kn->saved[kn->nr].path, kn->saved[kn->nr].old,
				 strlen(kn->saved[kn->nr].old));
		if (err)
			ksft_print_msg("putting back %s: %s\n", kn->saved[kn->nr].path,
				       strerror(-err));
	}
}

long vmstat_read(const char *name)
{
	char key[64];
	long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, name)) {
			found = v;
			break;
		}
	fclose(f);
	return found;
}

long meminfo_read(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

int debugfs_need(const char *path, bool *mounted)
{
	struct statfs fs;
	int err;

	*mounted = false;
	if (statfs(DEBUGFS, &fs) || fs.f_type != DEBUGFS_MAGIC) {
		if (mount("debugfs", DEBUGFS, "debugfs", 0, NULL))
			return -errno;
		*mounted = true;
	}
	if (!access(path, F_OK))
		return 0;
	err = -errno;
	debugfs_release(mounted);
	return err;
}

void debugfs_release(bool *mounted)
{
	/* Detached: an automount under it (tracing) does not keep it. */
	if (*mounted && !umount2(DEBUGFS, MNT_DETACH))
		*mounted = false;
}
