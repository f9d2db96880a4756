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

enum dc_dop dc_darshan_op(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (len == strlen(ops[i].name) &&
		    !memcmp(name, ops[i].name, len))
			return ops[i].op;
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
