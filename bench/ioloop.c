// SPDX-License-Identifier: MIT
/*
 * A loop of small I/O calls that times itself: pwrite, read or fwrite of
 * SIZE bytes, N times, on FILE; stat of FILE (the metadata calls mdtest
 * makes); or getppid, a syscall no probe names (what the syscall
 * programs cost the rest). Reports as JSON the ns per
 * call inside the loop and how many calls of each kind it made in all (a
 * warm-up included), so a tracer's counts can be checked against it.
 *   ioloop pwrite|read|fwrite|stat|getppid N SIZE FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 1000

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	const char *mode, *path;
	struct stat st;
	long n, size, calls = 0;
	double t0, t1;
	FILE *f = NULL;
	int fd;

	if (argc != 5 || (n = atol(argv[2])) <= 0 ||
	    (size = atol(argv[3])) <= 0 || size > (long)sizeof(buf)) {
		fprintf(stderr,
			"usage: ioloop pwrite|read|fwrite|stat|getppid N SIZE "
			"FILE\n");
		return 2;
	}
	mode = argv[1];
	path = argv[4];
	if (!strcmp(mode, "read")) {
		/* Room for every read, written before: reads never hit EOF. */
		fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, (n + WARMUP) * size))
			return 1;
	} else if (!strcmp(mode, "fwrite")) {
		f = fopen(path, "w");
		fd = f ? fileno(f) : -1;
	} else if (!strcmp(mode, "pwrite") || !strcmp(mode, "getppid") ||
		   !strcmp(mode, "stat")) {
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	} else {
		fprintf(stderr, "ioloop: unknown mode %s\n", mode);
		return 2;
	}
	if (fd < 0)
		return 1;
	t0 = 0;
	for (long i = -WARMUP; i < n; i++) {
		if (i == 0)
			t0 = now_ns();
		if (*mode == 'p')
			calls +=
			    pwrite(fd, buf, size, (i & 1023) * size) == size;
		else if (*mode == 's')
			calls += stat(path, &st) == 0;
		else if (*mode == 'g')
			calls += getppid() > 0;
		else if (*mode == 'r')
			calls += read(fd, buf, size) == size;
		else
			calls += fwrite(buf, size, 1, f) == 1;
	}
	t1 = now_ns();
	if (f ? fclose(f) : close(fd))
		return 1;
	printf("{\"mode\":\"%s\",\"calls\":%ld,\"ns_per_call\":%.1f}\n", mode,
	       calls, (t1 - t0) / n);
	return calls == n + WARMUP ? 0 : 1;
}
