/* SPDX-License-Identifier: MIT */
#ifndef DC_UPROBELINK_H
#define DC_UPROBELINK_H

/*
 * How uprobes can be attached on the running kernel, asked of it, for
 * the runtime and the explorer's --check alike.
 */

/* Whether the kernel makes uprobe links of attach type @type
 * (BPF_TRACE_UPROBE_MULTI, Linux 6.6; the session type, 6.13): 1, 0, or
 * -EPERM when the caller may not load BPF programs. */
int dc_uprobe_link_supported(int type);

/* A perf-event uprobe on @path at @offset, running program @prog: its
 * descriptor (closing it detaches), or -errno. The way to attach
 * uprobes before uprobe links; one descriptor a function. */
int dc_uprobe_perf_attach(const char *path, unsigned long offset, int prog);

#endif
