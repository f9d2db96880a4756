// SPDX-License-Identifier: MIT
/* Asynchronous requests that move file data, io_uring's, Linux AIO's
 * (libaio) and POSIX AIO's, by the names a spec gives them. */
#include <aio.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stddef.h>
#include <linux/io_uring.h>
#include <string.h>

#include <datacrumbs/abi.h>

#include "aioops.h"

struct op {
	const char *name;
	int op;
};

static int lookup(const struct op *ops, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, ops[i].name))
			return ops[i].op;
	return -1;
}

static const struct op uring_ops[] = {
	{ "readv", IORING_OP_READV },
	{ "writev", IORING_OP_WRITEV },
	{ "fsync", IORING_OP_FSYNC },
	{ "read_fixed", IORING_OP_READ_FIXED },
	{ "write_fixed", IORING_OP_WRITE_FIXED },
	{ "read", IORING_OP_READ },
	{ "write", IORING_OP_WRITE },
};

_Static_assert(IORING_OP_WRITE < DC_URING_OPS, "opcodes fit the table");

static const struct op libaio_ops[] = {
	{ "pread", IOCB_CMD_PREAD },   { "pwrite", IOCB_CMD_PWRITE },
	{ "fsync", IOCB_CMD_FSYNC },   { "fdsync", IOCB_CMD_FDSYNC },
	{ "preadv", IOCB_CMD_PREADV }, { "pwritev", IOCB_CMD_PWRITEV },
};

_Static_assert(IOCB_CMD_PWRITEV < DC_LIBAIO_OPS, "commands fit the table");

static const struct op paio_ops[] = {
	{ "read", DC_PAIO_READ },
	{ "write", DC_PAIO_WRITE },
	{ "fsync", DC_PAIO_FSYNC },
	{ "fdsync", DC_PAIO_FDSYNC },
};

/* The programs read glibc's struct aiocb at fixed offsets: this C
 * library's <aio.h> must agree, or the build stops here. */
_Static_assert((int)LIO_READ == (int)DC_PAIO_READ &&
		   (int)LIO_WRITE == (int)DC_PAIO_WRITE,
	       "lio_listio's commands are the table's");
_Static_assert(offsetof(struct aiocb, aio_fildes) == DC_AIOCB_FILDES &&
		   offsetof(struct aiocb, aio_lio_opcode) ==
		       DC_AIOCB_LIO_OPCODE &&
		   offsetof(struct aiocb, aio_nbytes) == DC_AIOCB_NBYTES &&
		   offsetof(struct aiocb, __error_code) == DC_AIOCB_ERROR &&
		   offsetof(struct aiocb, __return_value) == DC_AIOCB_RETURN &&
		   offsetof(struct aiocb, aio_offset) == DC_AIOCB_OFFSET &&
		   sizeof(((struct aiocb *)0)->aio_offset) == 8,
	       "struct aiocb is laid out as the programs read it");

int dc_uring_op(const char *name)
{
	return lookup(uring_ops, sizeof(uring_ops) / sizeof(uring_ops[0]),
		      name);
}

int dc_libaio_op(const char *name)
{
	return lookup(libaio_ops, sizeof(libaio_ops) / sizeof(libaio_ops[0]),
		      name);
}

const char *dc_libaio_names(void)
{
	return "pread, pwrite, preadv, pwritev, fsync, fdsync";
}

const char *dc_uring_names(void)
{
	return "read, write, readv, writev, read_fixed, write_fixed, fsync";
}

int dc_paio_op(const char *name)
{
	return lookup(paio_ops, sizeof(paio_ops) / sizeof(paio_ops[0]), name);
}

const char *dc_paio_names(void)
{
	return "read, write, fsync, fdsync";
}
