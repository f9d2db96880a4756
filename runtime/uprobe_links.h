/* SPDX-License-Identifier: MIT */
/* A binary's uprobes, made into kernel links (uprobe_links.c). */
#ifndef DC_UPROBE_LINKS_H
#define DC_UPROBE_LINKS_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>

#include "session.h"

struct dc_ubatch {
	struct dc_probe **probes;
	unsigned long *offsets;
	__u64 *cookies;
	unsigned long *ret_sites; /* a return site's offset, or 0: none */
	size_t n;
};

/* A batch to attach at @path, its programs, and the uprobes the kernel
 * refused. */
struct dc_uattach {
	struct dc_session *sess;
	struct bpf_program *entry, *exit;
	const char *path, *name; /* attached at, and said */
	struct dc_ubatch *b;
	size_t refused;
};

/* Attach @m's batch, as much of it as the kernel takes (lib/bisect.c):
 * each probe refused is said and counted in m->refused, the others are
 * marked attached. 0 or -errno. */
int dc_ulinks_attach(struct dc_uattach *m);

#endif
