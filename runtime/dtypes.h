/* SPDX-License-Identifier: MIT */
#ifndef DC_DTYPES_H
#define DC_DTYPES_H

#include <stddef.h>

#include <datacrumbs/abi.h>

#include "session.h"

/* Fill @cfg's ompi_* and mpich_* fields from the MPI libraries that
 * @sess's probes with a datatype (@caps, @n of them) are on; what cannot
 * be found stays 0 and is said. */
void dc_dtypes_find(const struct dc_session *sess,
		    const struct dc_capture *caps, size_t n,
		    struct dc_config *cfg);

#endif
