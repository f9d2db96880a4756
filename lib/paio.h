/* SPDX-License-Identifier: MIT */
#ifndef DC_PAIO_H
#define DC_PAIO_H

#include <datacrumbs/abi.h>

/* The C library function (enum dc_paio_at) a POSIX AIO program is
 * attached to: "aio_write" for DC_PAIO_AT_WRITE. */
const char *dc_paio_function(int at);

#endif
