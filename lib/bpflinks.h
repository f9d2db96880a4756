/* SPDX-License-Identifier: MIT */
#ifndef DC_BPFLINKS_H
#define DC_BPFLINKS_H

/*
 * The links the running kernel can make, asked of it, and uprobes
 * without links: for the runtime and the explorer's --check alike.
 */

/* Whether the kernel makes uprobe links of attach type @type
 * (BPF_TRACE_UPROBE_MULTI, Linux 6.6; the session type, 6.13): 1, 0, or
 * -EPERM when the caller may not load BPF programs. */
int dc_uprobe_link_supported(int type);

/* Whether kprobe_multi links can be made: 1, 0 where the kernel lacks
 * the link type (before Linux 5.18), -EOPNOTSUPP where it was built
 * without fprobes. */
int dc_kprobe_multi_supported(void);

/* A perf-event uprobe on @path at @offset, running program @prog: its
 * descriptor (closing it detaches), or -errno. The way to attach
 * uprobes before uprobe links; one descriptor a function. */
int dc_uprobe_perf_attach(const char *path, unsigned long offset, int prog);

#endif
