// SPDX-License-Identifier: MIT
/*
 * POSIX AIO with known requests: N aio_write of SIZE bytes at offsets
 * i * SIZE, each waited for with aio_suspend and taken with aio_return;
 * then one lio_listio of LIO batches reading them back (LIO_WAIT), each
 * entry taken with aio_return; then one aio_fsync taken too, and one
 * more aio_write submitted twice on the same aiocb, never returned. It
 * prints every request it made, as JSON, the ground truth of
 * test_e2e_aio, and how long the N writes took (write_ns, for measuring
 * a request's cost).  Usage: posixaio N SIZE FILE
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LIO 8

static int wait_one(struct aiocb *cb)
{
	const struct aiocb *list[1] = { cb };

	while (aio_error(cb) == EINPROGRESS)
		if (aio_suspend(list, 1, NULL) && errno != EINTR)
			return -1;
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void req(const char *op, int fd, long off, long len, long ret,
		int *first)
{
	printf("%s{\"op\":\"%s\",\"fd\":%d,\"offset\":%ld,\"count\":%ld,"
	       "\"ret\":%ld}",
	       *first ? "" : ",", op, fd, off, len, ret);
	*first = 0;
}

int main(int argc, char **argv)
{
	struct aiocb cbs[LIO], *list[LIO], cb, last;
	long n, size, ret;
	long long t0, write_ns;
	int fd, first = 1;
	char *buf;

	if (argc != 4 || (n = atol(argv[1])) < LIO ||
	    (size = atol(argv[2])) <= 0)
		return 2;
	fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0644);
	buf = malloc(size * LIO);
	if (fd < 0 || !buf)
		return 2;
	memset(buf, 'a', size * LIO);
	printf("{\"pid\":%d,\"requests\":[", getpid());
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		memset(&cb, 0, sizeof(cb));
		cb.aio_fildes = fd;
		cb.aio_buf = buf;
		cb.aio_nbytes = size;
		cb.aio_offset = i * size;
		if (aio_write(&cb) || wait_one(&cb))
			return 2;
		ret = aio_return(&cb);
		req("write", fd, i * size, size, ret, &first);
	}
	write_ns = now_ns() - t0;
	for (int i = 0; i < LIO; i++) {
		memset(&cbs[i], 0, sizeof(cbs[i]));
		cbs[i].aio_fildes = fd;
		cbs[i].aio_buf = buf + i * size;
		cbs[i].aio_nbytes = size;
		cbs[i].aio_offset = i * size;
		cbs[i].aio_lio_opcode = LIO_READ;
		list[i] = &cbs[i];
	}
	if (lio_listio(LIO_WAIT, list, LIO, NULL))
		return 2;
	for (int i = 0; i < LIO; i++) {
		ret = aio_return(&cbs[i]);
		req("read", fd, i * size, size, ret, &first);
	}
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	if (aio_fsync(O_SYNC, &cb) || wait_one(&cb))
		return 2;
	req("fsync", fd, 0, 0, aio_return(&cb), &first);
	/* Done, but its result never taken; the aiocb used again. */
	for (int i = 0; i < 2; i++) {
		memset(&last, 0, sizeof(last));
		last.aio_fildes = fd;
		last.aio_buf = buf;
		last.aio_nbytes = size;
		last.aio_offset = n * size;
		if (aio_write(&last) || wait_one(&last))
			return 2;
	}
	printf("],\"unreturned\":2,\"write_ns\":%lld}\n", write_ns);
	return 0;
}
