// SPDX-License-Identifier: MIT
/*
 * The explorer's test library. Its exports are known exactly: two names
 * at one address, a weak function, an IFUNC, a static function, a C++
 * method (dctest_cpp.cc) and a symbol with an old and a default version.
 */
#include <fcntl.h>
#include <unistd.h>

#include "dctest.h"

static int dct_hidden_helper(int x)
{
	return x + 1;
}

int dct_open(const char *path, int flags)
{
	return open(path, flags | O_CLOEXEC, 0644);
}

ssize_t dct_read(int fd, void *buf, size_t count)
{
	return read(fd, buf, count);
}

/* A second name for dct_read, at the same address. */
ssize_t dct_read_alias(int fd, void *buf, size_t count)
    __attribute__((alias("dct_read")));

ssize_t dct_pwrite(int fd, const void *buf, size_t nbytes, off_t offset)
{
	return pwrite(fd, buf, nbytes, offset);
}

int dct_close(int fd)
{
	return close(dct_hidden_helper(fd) - 1);
}

int dct_flush(FILE *stream)
{
	return fflush(stream);
}

size_t dct_copy(void *buf, size_t size, size_t n)
{
	return buf ? size * n : 0;
}

__attribute__((weak)) int dct_weak(int fd)
{
	return fd;
}

static long fast_impl(long x)
{
	return 2 * x;
}

static long (*resolve_fast(void))(long)
{
	return fast_impl;
}

long dct_fast(long x) __attribute__((ifunc("resolve_fast")));

/* dct_versioned@DCT_1.0 is the old one, @@DCT_2.0 the default. */
int impl_versioned_v1(int fd)
{
	return fd + 100;
}

int impl_versioned_v2(int fd)
{
	return fd + 200;
}

__asm__(".symver impl_versioned_v1, dct_versioned@DCT_1.0");
__asm__(".symver impl_versioned_v2, dct_versioned@@DCT_2.0");
