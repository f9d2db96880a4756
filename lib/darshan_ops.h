/* SPDX-License-Identifier: MIT */
#ifndef DC_DARSHAN_OPS_H
#define DC_DARSHAN_OPS_H

#include <stddef.h>

/*
 * Darshan's vocabulary: which operation of its POSIX, STDIO, MPI-IO and
 * HDF5 modules a library function is, as Darshan 3.4.7 wraps them. The
 * report counts them from events; the runtime tells profile mode's
 * programs which calls move a file's offset or read or write a handle,
 * for the pattern counters and size buckets they keep.
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

/* MPI-IO: reads and writes by kind, a read before its write. */
enum dc_mop {
	DC_MOP_NONE,
	DC_MOP_OPEN,
	DC_MOP_SYNC,
	DC_MOP_VIEW,
	DC_MOP_CLOSE,
	DC_MOP_INDEP_READ,
	DC_MOP_INDEP_WRITE,
	DC_MOP_COLL_READ, /* _all and _ordered */
	DC_MOP_COLL_WRITE,
	DC_MOP_SPLIT_READ, /* _begin */
	DC_MOP_SPLIT_WRITE,
	DC_MOP_NB_READ, /* MPI_File_i* */
	DC_MOP_NB_WRITE,
};

/* HDF5's H5F (files) and H5D (datasets) operations. */
enum dc_hop {
	DC_HOP_NONE,
	DC_HOP_FOPEN,
	DC_HOP_FFLUSH,
	DC_HOP_FCLOSE,
	DC_HOP_DOPEN,
	DC_HOP_DOPEN_DEPRECATED, /* H5Dcreate1, H5Dopen1 */
	DC_HOP_DREAD,
	DC_HOP_DWRITE,
	DC_HOP_DFLUSH,
	DC_HOP_DCLOSE,
};

/* The operation a function named @name (@len bytes) is, or DC_DOP_NONE. */
enum dc_dop dc_darshan_op(const char *name, size_t len);
/* The module whose operation @op is (enum dc_dmod of abi.h). */
int dc_darshan_op_module(enum dc_dop op);
/* The MPI-IO or HDF5 operation @name is, or 0: Darshan counts none. */
enum dc_mop dc_darshan_mpiio_op(const char *name, size_t len);
enum dc_hop dc_darshan_hdf5_op(const char *name, size_t len);
/* Whether MPI-IO operation @op reads or writes. */
static inline int dc_mop_is_io(enum dc_mop op)
{
	return op >= DC_MOP_INDEP_READ;
}
static inline int dc_mop_is_write(enum dc_mop op)
{
	return dc_mop_is_io(op) && ((op - DC_MOP_INDEP_READ) & 1);
}
/* What @op does to its file's offset (enum dc_pat of abi.h). */
int dc_darshan_op_pattern(enum dc_dop op);

#endif
