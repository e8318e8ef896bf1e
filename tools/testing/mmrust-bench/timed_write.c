// SPDX-License-Identifier: GPL-2.0
/*
 * timed_write - write a value to a file and print how long write(2) took.
 *
 *   timed_write <path> <value>
 *
 * Prints the duration in nanoseconds (CLOCK_MONOTONIC) on stdout; exits 1,
 * with the error on stderr, when the file cannot be opened or written.
 * Busybox's date has no sub-second format, and the sysfs writes measured
 * here (nr_hugepages) take from microseconds to seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long start, end;
	size_t len;
	ssize_t ret;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <path> <value>\n", argv[0]);
		return 1;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	len = strlen(argv[2]);
	start = now_ns();
	ret = write(fd, argv[2], len);
	end = now_ns();
	if (ret != (ssize_t)len) {
		fprintf(stderr, "%s: %s\n", argv[1], ret < 0 ? strerror(errno) : "short write");
		close(fd);
		return 1;
	}
	close(fd);
	printf("%lld\n", end - start);
	return 0;
}
