/* SPDX-License-Identifier: MIT */
#ifndef DC_WRAPPERS_H
#define DC_WRAPPERS_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>

#include <datacrumbs/abi.h>

#include "object.h"

/* Wrappers traced at sys_enter: where their syscall instructions are. */
struct dc_wrappers {
	struct dc_file_id lib[DC_WRAP_LIBS];
	char *lib_path[DC_WRAP_LIBS];
	size_t nlibs;
	__u64 *keys;  /* lib << 32 | file offset past the syscall */
	__u32 *byoff; /* syscall number << 12 | that offset's page offset */
	struct dc_wrap_site *sites;
	size_t nsites;
};

/* The index of library @path, added if new: 0.. or -ENOSPC when
 * DC_WRAP_LIBS libraries have wrappers already, or another -errno. */
int dc_wrappers_lib(struct dc_wrappers *w, const char *path);
/* Whether another function may reach the site ending at @off of @lib:
 * fewer than DC_WRAP_CANDS do. */
bool dc_wrappers_room(const struct dc_wrappers *w, int lib, __u64 off);
/* Syscall @nr's instruction ending at file offset @off of library @lib,
 * after the DC_WRAP_CODE bytes @code, is reached by @cand's function
 * (dc_wrappers_room() first). */
int dc_wrappers_add(struct dc_wrappers *w, int lib, __u64 off, int nr,
		    const struct dc_wrap_cand *cand, const __u8 *code);
/* Drop the sites that only inside candidates reach: with no wrapper's
 * call to tell apart there they change nothing, and they alone would
 * attach the syscall programs, which every syscall then pays for. */
void dc_wrappers_prune(struct dc_wrappers *w);
/* Fill the loaded object's site maps, and @libs with the libraries for
 * its dc_wraps. */
int dc_wrappers_install(const struct dc_wrappers *w, struct dc_obj *o,
			struct dc_wrap_libs *libs);
/* Add the syscalls the sites make to @bits, a bit each. */
void dc_wrappers_sysnrs(const struct dc_wrappers *w, __u64 *bits);
void dc_wrappers_free(struct dc_wrappers *w);

#endif
