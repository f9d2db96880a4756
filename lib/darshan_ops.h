/* SPDX-License-Identifier: MIT */
#ifndef DC_DARSHAN_OPS_H
#define DC_DARSHAN_OPS_H

#include <stddef.h>

/*
 * Darshan's vocabulary: which operation of its POSIX and STDIO modules a
 * C library function is, as Darshan 3.4.7 wraps them. The report counts
 * them from events; the runtime tells profile mode's programs which
 * calls move a file's offset, for the pattern counters they keep.
 */
enum dc_dop {
	DC_DOP_NONE,
	DC_DOP_OPEN,
	DC_DOP_DUP,
	DC_DOP_FILENO,
	DC_DOP_READ,
	DC_DOP_WRITE,
	DC_DOP_SEEK,
	DC_DOP_STAT,
	DC_DOP_MMAP,
	DC_DOP_FSYNC,
	DC_DOP_FDSYNC,
	DC_DOP_SOPEN,
	DC_DOP_SFDOPEN, /* a stream on an fd: Darshan counts it apart */
	DC_DOP_SREAD,
	DC_DOP_SWRITE,
	DC_DOP_SFLUSH,
	DC_DOP_SSEEK,
	DC_DOP_REWIND,
	DC_DOP_CLOSE,
	DC_DOP_SCLOSE,
};

/* The operation a function named @name (@len bytes) is, or DC_DOP_NONE. */
enum dc_dop dc_darshan_op(const char *name, size_t len);
/* The module whose operation @op is (enum dc_dmod of abi.h). */
int dc_darshan_op_module(enum dc_dop op);
/* What @op does to its file's offset (enum dc_pat of abi.h). */
int dc_darshan_op_pattern(enum dc_dop op);

#endif
