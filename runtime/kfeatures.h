/* SPDX-License-Identifier: MIT */
#ifndef DC_KFEATURES_H
#define DC_KFEATURES_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/* enum bpf_attach_type's BPF_TRACE_UPROBE_SESSION (Linux 6.13): newer
 * than bookworm's kernel headers and libbpf 1.4. */
#define DC_TRACE_UPROBE_SESSION 57

/*
 * Kernel features are asked of the running kernel, not read off uname:
 * distributions backport them and containers report the host's.
 */

/* 0, or -ENOTSUP after one line naming what the kernel lacks. Probes
 * refused for want of privilege pass: loading reports those. */
int dc_kernel_check(void);
bool dc_kernel_has_uprobe_session(void);
bool dc_kernel_has_uprobe_multi(void);
/* DC_FB_*: the features this kernel lacks, or that DATACRUMBS_FALLBACKS
 * asks to do without, each replaced by a slower way. Probed once. */
__u32 dc_kernel_fallbacks(void);
/* @fb's names, comma-separated, into @buf ("" for none). */
void dc_kernel_fallback_names(__u32 fb, char *buf, size_t size);
/* What one DC_FB_* bit stands for: the feature missing, the first
 * kernel with it, what is done instead; NULL for no such bit. */
const char *dc_kernel_fallback_why(__u32 bit);

#endif
