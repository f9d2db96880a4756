// SPDX-License-Identifier: MIT
/* Asynchronous requests that move file data, io_uring's and Linux AIO's
 * (libaio), by the names a spec gives them. */
#include <linux/aio_abi.h>
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
