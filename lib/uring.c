// SPDX-License-Identifier: MIT
/* io_uring requests that move file data, by the name a spec gives them. */
#include <linux/io_uring.h>
#include <string.h>

#include <datacrumbs/abi.h>

#include "uring.h"

static const struct {
	const char *name;
	int op;
} ops[] = {
	{ "readv", IORING_OP_READV },
	{ "writev", IORING_OP_WRITEV },
	{ "fsync", IORING_OP_FSYNC },
	{ "read_fixed", IORING_OP_READ_FIXED },
	{ "write_fixed", IORING_OP_WRITE_FIXED },
	{ "read", IORING_OP_READ },
	{ "write", IORING_OP_WRITE },
};

_Static_assert(IORING_OP_WRITE < DC_URING_OPS, "opcodes fit the table");

int dc_uring_op(const char *name)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(name, ops[i].name))
			return ops[i].op;
	return -1;
}

const char *dc_uring_names(void)
{
	return "read, write, readv, writev, read_fixed, write_fixed, fsync";
}
