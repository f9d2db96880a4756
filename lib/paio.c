// SPDX-License-Identifier: MIT
/* Where POSIX AIO requests are followed: the generator checks that a
 * target defines these functions, the runtime attaches to them. */
#include "paio.h"

static const char *const functions[DC_PAIO_AT_NR] = {
	[DC_PAIO_AT_READ] = "aio_read",	    [DC_PAIO_AT_WRITE] = "aio_write",
	[DC_PAIO_AT_FSYNC] = "aio_fsync",   [DC_PAIO_AT_LISTIO] = "lio_listio",
	[DC_PAIO_AT_RETURN] = "aio_return",
};

const char *dc_paio_function(int at)
{
	return at >= 0 && at < DC_PAIO_AT_NR ? functions[at] : "";
}
