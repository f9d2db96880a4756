/* SPDX-License-Identifier: MIT */
/* Perf-event kprobes, where the kernel has no kprobe.multi links
 * (kprobe_links.c). */
#ifndef DC_KPROBE_LINKS_H
#define DC_KPROBE_LINKS_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>

#include "session.h"

/* Kernels without cookies: each function's address, for the probe id
 * @cookies[i], into dc_kprobe_ids; @placed[i] says whether its address
 * was found. 0 or -errno. */
int dc_kprobes_place(struct dc_session *sess, const char *const *syms,
		     const __u64 *cookies, size_t n, bool *placed);

/* A kprobe with @entry and a kretprobe with @exit on each of the @n
 * functions @syms, all or none. 0 or -errno. */
int dc_kprobes_attach(struct dc_session *sess, struct bpf_program *entry,
		      struct bpf_program *exit, const char *const *syms,
		      const __u64 *cookies, size_t n);

#endif
