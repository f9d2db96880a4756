/* SPDX-License-Identifier: MIT */
#ifndef DC_PYSETUP_H
#define DC_PYSETUP_H

#include <sys/types.h>

#include "session.h"

/*
 * What a command needs in its environment for the object's Python
 * function probes (probes.d/python.yaml) to see calls: the directory of
 * probes.d/python/sitecustomize.py first on PYTHONPATH, the command's
 * own PYTHONPATH kept after it (that sitecustomize runs the one it hides).
 *
 * Returns 0 with *@env a malloc'd "PYTHONPATH=..." to give the command,
 * or NULL when nothing is needed (no enabled Python probe, or the
 * directory is already first). The directory and every one above it
 * must be owned by root or @runs_as and writable by no one else: the
 * command would run code from it. Otherwise -errno after a warning (the
 * calls are then seen as returns only); -ENOMEM.
 */
int dc_python_env(const struct dc_session *sess, uid_t runs_as, char **env);

#endif
