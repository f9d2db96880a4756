/* SPDX-License-Identifier: MIT */
#ifndef DC_TMPLDIR_H
#define DC_TMPLDIR_H

/*
 * Where the templates are: @opt if given, else $DATACRUMBS_TEMPLATES,
 * else the source tree's templates/ (a build run in place) or the
 * installed ones, whichever holds @marker.
 */
const char *dc_template_dir(const char *opt, const char *marker);

#endif
