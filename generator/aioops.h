/* SPDX-License-Identifier: MIT */
#ifndef DC_AIOOPS_H
#define DC_AIOOPS_H

/* The io_uring opcode a spec names ("read", "writev": IORING_OP_READ,
 * IORING_OP_WRITEV), or -1. */
int dc_uring_op(const char *name);
/* The names a spec may use, as "read, write, ...". */
const char *dc_uring_names(void);
/* The libaio (Linux AIO) iocb command a spec names ("pwrite":
 * IOCB_CMD_PWRITE), or -1. */
int dc_libaio_op(const char *name);
const char *dc_libaio_names(void);
/* The POSIX AIO request a spec names ("write": aio_write, or a
 * lio_listio entry of LIO_WRITE), or -1. */
int dc_paio_op(const char *name);
const char *dc_paio_names(void);

#endif
