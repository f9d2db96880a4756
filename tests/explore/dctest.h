/* SPDX-License-Identifier: MIT */
/* The public header of the explorer's test library. */
#ifndef DCTEST_H
#define DCTEST_H

#include <stdio.h>
#include <sys/types.h>

int dct_open(const char *path, int flags);
ssize_t dct_read(int fd, void *buf, size_t count);
ssize_t dct_pwrite(int fd, const void *buf, size_t nbytes, off_t offset);
int dct_close(int fd);
int dct_flush(FILE *stream);
size_t dct_copy(void *buf, size_t size, size_t n);
int dct_weak(int fd);
long dct_fast(long x);
int dct_versioned(int fd);

#endif
