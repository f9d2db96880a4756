/* SPDX-License-Identifier: MIT */
#ifndef DC_URING_H
#define DC_URING_H

/* The io_uring opcode a spec names ("read", "writev": IORING_OP_READ,
 * IORING_OP_WRITEV), or -1. */
int dc_uring_op(const char *name);
/* The names a spec may use, as "read, write, ...". */
const char *dc_uring_names(void);

#endif
