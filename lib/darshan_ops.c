// SPDX-License-Identifier: MIT
#include <string.h>

#include <datacrumbs/abi.h>

#include "darshan_ops.h"

static const struct {
	const char *name;
	enum dc_dop op;
} ops[] = {
	{ "open", DC_DOP_OPEN },	{ "open64", DC_DOP_OPEN },
	{ "openat", DC_DOP_OPEN },	{ "openat64", DC_DOP_OPEN },
	{ "creat", DC_DOP_OPEN },	{ "creat64", DC_DOP_OPEN },
	{ "mkstemp", DC_DOP_OPEN },	{ "mkostemp", DC_DOP_OPEN },
	{ "mkstemps", DC_DOP_OPEN },	{ "mkostemps", DC_DOP_OPEN },
	{ "dup", DC_DOP_DUP },		{ "dup2", DC_DOP_DUP },
	{ "dup3", DC_DOP_DUP },		{ "fileno", DC_DOP_FILENO },
	{ "read", DC_DOP_READ },	{ "readv", DC_DOP_READ },
	{ "pread", DC_DOP_READ },	{ "pread64", DC_DOP_READ },
	{ "preadv", DC_DOP_READ },	{ "preadv64", DC_DOP_READ },
	{ "preadv2", DC_DOP_READ },	{ "write", DC_DOP_WRITE },
	{ "writev", DC_DOP_WRITE },	{ "pwrite", DC_DOP_WRITE },
	{ "pwrite64", DC_DOP_WRITE },	{ "pwritev", DC_DOP_WRITE },
	{ "pwritev64", DC_DOP_WRITE },	{ "pwritev2", DC_DOP_WRITE },
	{ "lseek", DC_DOP_SEEK },	{ "lseek64", DC_DOP_SEEK },
	{ "stat", DC_DOP_STAT },	{ "stat64", DC_DOP_STAT },
	{ "lstat", DC_DOP_STAT },	{ "lstat64", DC_DOP_STAT },
	{ "fstat", DC_DOP_STAT },	{ "fstat64", DC_DOP_STAT },
	{ "__xstat", DC_DOP_STAT },	{ "__lxstat", DC_DOP_STAT },
	{ "__fxstat", DC_DOP_STAT },	{ "mmap", DC_DOP_MMAP },
	{ "mmap64", DC_DOP_MMAP },	{ "fsync", DC_DOP_FSYNC },
	{ "fdatasync", DC_DOP_FDSYNC }, { "fopen", DC_DOP_SOPEN },
	{ "fopen64", DC_DOP_SOPEN },	{ "fdopen", DC_DOP_SFDOPEN },
	{ "freopen", DC_DOP_SOPEN },	{ "freopen64", DC_DOP_SOPEN },
	{ "fread", DC_DOP_SREAD },	{ "fgets", DC_DOP_SREAD },
	{ "fgetc", DC_DOP_SREAD },	{ "getc", DC_DOP_SREAD },
	{ "_IO_getc", DC_DOP_SREAD },	{ "getw", DC_DOP_SREAD },
	{ "fscanf", DC_DOP_SREAD },	{ "__isoc99_fscanf", DC_DOP_SREAD },
	{ "vfscanf", DC_DOP_SREAD },	{ "fwrite", DC_DOP_SWRITE },
	{ "fputs", DC_DOP_SWRITE },	{ "fputc", DC_DOP_SWRITE },
	{ "putc", DC_DOP_SWRITE },	{ "_IO_putc", DC_DOP_SWRITE },
	{ "putw", DC_DOP_SWRITE },	{ "fprintf", DC_DOP_SWRITE },
	{ "vfprintf", DC_DOP_SWRITE },	{ "printf", DC_DOP_SWRITE },
	{ "vprintf", DC_DOP_SWRITE },	{ "fflush", DC_DOP_SFLUSH },
	{ "fseek", DC_DOP_SSEEK },	{ "fseeko", DC_DOP_SSEEK },
	{ "fseeko64", DC_DOP_SSEEK },	{ "rewind", DC_DOP_REWIND },
	{ "close", DC_DOP_CLOSE },	{ "fclose", DC_DOP_SCLOSE },
};

static const struct {
	const char *name;
	enum dc_mop op;
} mops[] = {
	{ "MPI_File_open", DC_MOP_OPEN },
	{ "MPI_File_sync", DC_MOP_SYNC },
	{ "MPI_File_set_view", DC_MOP_VIEW },
	{ "MPI_File_close", DC_MOP_CLOSE },
	{ "MPI_File_read", DC_MOP_INDEP_READ },
	{ "MPI_File_read_at", DC_MOP_INDEP_READ },
	{ "MPI_File_read_shared", DC_MOP_INDEP_READ },
	{ "MPI_File_read_all", DC_MOP_COLL_READ },
	{ "MPI_File_read_at_all", DC_MOP_COLL_READ },
	{ "MPI_File_read_ordered", DC_MOP_COLL_READ },
	{ "MPI_File_read_all_begin", DC_MOP_SPLIT_READ },
	{ "MPI_File_read_at_all_begin", DC_MOP_SPLIT_READ },
	{ "MPI_File_read_ordered_begin", DC_MOP_SPLIT_READ },
	{ "MPI_File_iread", DC_MOP_NB_READ },
	{ "MPI_File_iread_at", DC_MOP_NB_READ },
	{ "MPI_File_iread_shared", DC_MOP_NB_READ },
	{ "MPI_File_write", DC_MOP_INDEP_WRITE },
	{ "MPI_File_write_at", DC_MOP_INDEP_WRITE },
	{ "MPI_File_write_shared", DC_MOP_INDEP_WRITE },
	{ "MPI_File_write_all", DC_MOP_COLL_WRITE },
	{ "MPI_File_write_at_all", DC_MOP_COLL_WRITE },
	{ "MPI_File_write_ordered", DC_MOP_COLL_WRITE },
	{ "MPI_File_write_all_begin", DC_MOP_SPLIT_WRITE },
	{ "MPI_File_write_at_all_begin", DC_MOP_SPLIT_WRITE },
	{ "MPI_File_write_ordered_begin", DC_MOP_SPLIT_WRITE },
	{ "MPI_File_iwrite", DC_MOP_NB_WRITE },
	{ "MPI_File_iwrite_at", DC_MOP_NB_WRITE },
	{ "MPI_File_iwrite_shared", DC_MOP_NB_WRITE },
};

static const struct {
	const char *name;
	enum dc_hop op;
} hops[] = {
	{ "H5Fcreate", DC_HOP_FOPEN },
	{ "H5Fopen", DC_HOP_FOPEN },
	{ "H5Fflush", DC_HOP_FFLUSH },
	{ "H5Fclose", DC_HOP_FCLOSE },
	{ "H5Dcreate2", DC_HOP_DOPEN },
	{ "H5Dopen2", DC_HOP_DOPEN },
	{ "H5Dcreate1", DC_HOP_DOPEN_DEPRECATED },
	{ "H5Dopen1", DC_HOP_DOPEN_DEPRECATED },
	{ "H5Dread", DC_HOP_DREAD },
	{ "H5Dwrite", DC_HOP_DWRITE },
	{ "H5Dflush", DC_HOP_DFLUSH },
	{ "H5Dclose", DC_HOP_DCLOSE },
};

#define LOOKUP(table, name, len)                                               \
	do {                                                                   \
		for (size_t i = 0; i < sizeof(table) / sizeof(*table); i++)    \
			if (len == strlen(table[i].name) &&                    \
			    !memcmp(name, table[i].name, len))                 \
				return table[i].op;                            \
	} while (0)

enum dc_mop dc_darshan_mpiio_op(const char *name, size_t len)
{
	LOOKUP(mops, name, len);
	return DC_MOP_NONE;
}

enum dc_hop dc_darshan_hdf5_op(const char *name, size_t len)
{
	LOOKUP(hops, name, len);
	return DC_HOP_NONE;
}

enum dc_dop dc_darshan_op(const char *name, size_t len)
{
	LOOKUP(ops, name, len);
	return DC_DOP_NONE;
}

int dc_darshan_op_module(enum dc_dop op)
{
	switch (op) {
	case DC_DOP_NONE: return DC_DMOD_NONE;
	case DC_DOP_SOPEN:
	case DC_DOP_SFDOPEN:
	case DC_DOP_SREAD:
	case DC_DOP_SWRITE:
	case DC_DOP_SFLUSH:
	case DC_DOP_SSEEK:
	case DC_DOP_REWIND:
	case DC_DOP_SCLOSE: return DC_DMOD_STDIO;
	default: return DC_DMOD_POSIX;
	}
}

int dc_darshan_op_pattern(enum dc_dop op)
{
	switch (op) {
	case DC_DOP_READ:
	case DC_DOP_SREAD: return DC_PAT_READ;
	case DC_DOP_WRITE:
	case DC_DOP_SWRITE:
	/* Darshan counts a flush as a write of no bytes. */
	case DC_DOP_SFLUSH: return DC_PAT_WRITE;
	case DC_DOP_SEEK: return DC_PAT_SEEK;
	case DC_DOP_SSEEK: return DC_PAT_SSEEK;
	case DC_DOP_REWIND: return DC_PAT_REWIND;
	default: return DC_PAT_NONE;
	}
}
