/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's text files as a test reads and writes them: sysfs, procfs
 * and debugfs knobs with the error a write gets (a bad value must be
 * refused with its parser's error, which the helpers of thp_settings.h
 * do not return), and the counters of /proc/vmstat and /proc/meminfo.
 */
#ifndef __KNOB_UTIL_H__
#define __KNOB_UTIL_H__

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* knob_read: <path> into buf, without its newline: 0 or -errno. */
static inline int knob_read(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (len < 0)
		return -err;
	buf[len] = '\0';
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return 0;
}

/* knob_write: one write() of len bytes of val to <path>: 0 or -errno. */
static inline int knob_write(const char *path, const char *val, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, len);
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* knob_read_long: <path> as one decimal number, or -1. */
static inline long knob_read_long(const char *path)
{
	char buf[64], *end;
	long v;

	if (knob_read(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end)
		return -1;
	return v;
}

/* knob_write_long: v and a newline to <path>: 0 or -errno. */
static inline int knob_write_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return knob_write(path, buf, strlen(buf));
}

/* vmstat_read: the counter <name> of /proc/vmstat, -1 if absent. */
static inline long vmstat_read(const char *name)
{
	char key[64];
	long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	if (f)
		fclose(f);
	return found;
}

/* meminfo_read: the number of the /proc/meminfo line <key>, -1 if absent. */
static inline long meminfo_read(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

#endif /* __KNOB_UTIL_H__ */
