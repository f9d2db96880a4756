/* SPDX-License-Identifier: MIT */
#ifndef DC_KCHOOSE_H
#define DC_KCHOOSE_H

#include <stdbool.h>

#include "session.h"

/* Whether the object has probes of @mech this run keeps. */
bool dc_has_mech(const struct dc_session *sess, enum dc_mech mech);
/* Before load: leave out what this kernel cannot trace (named in the
 * start record's "unsupported"), pick tracepoint stand-ins, and give each
 * mechanism the programs and fallbacks this kernel runs. 0 or -errno. */
int dc_choose_for_kernel(struct dc_session *sess);
/* Before load, after dc_choose_for_kernel(): size the maps only the
 * chosen fallbacks use. 0 or -errno. */
int dc_size_fallback_maps(struct dc_session *sess);

#endif
