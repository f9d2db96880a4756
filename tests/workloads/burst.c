// SPDX-License-Identifier: MIT
/*
 * A burst of small calls that knows exactly how many it made: N one-byte
 * writes to FILE and N one-byte reads from /dev/zero, as fast as it can,
 * then one write of its report to standard output. Nothing else in the
 * process calls read or write, so the totals are the ground truth of an
 * overload test.  Usage: burst N FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char c = 'x', report[128];
	long n;
	int fd, zero, len;

	if (argc != 3 || (n = atol(argv[1])) <= 0)
		return 2;
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	zero = open("/dev/zero", O_RDONLY);
	if (fd < 0 || zero < 0)
		return 2;
	for (long i = 0; i < n; i++)
		if (write(fd, &c, 1) != 1)
			return 2;
	for (long i = 0; i < n; i++)
		if (read(zero, &c, 1) != 1)
			return 2;
	close(fd);
	close(zero);
	/* This report is the process's one other write. */
	len = snprintf(report, sizeof(report),
		       "{\"pid\":%d,\"write\":%ld,\"read\":%ld}\n", getpid(),
		       n + 1, n);
	return write(1, report, len) == len ? 0 : 2;
}
