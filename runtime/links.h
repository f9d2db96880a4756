/* SPDX-License-Identifier: MIT */
#ifndef DC_LINKS_H
#define DC_LINKS_H

#include <bpf/libbpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The links a run holds: libbpf's, USDT links (libbpf's USDT bookkeeping
 * is not thread-safe: destroyed one by one), and the fds of links libbpf
 * cannot make (uprobe.session). The first ones track processes and stay
 * while the probes come and go (a server with no job).
 */
struct dc_usdt_link {
	struct bpf_link *l;
	__u32 pid; /* the one process it is for (no BPF cookies), or 0 */
};

struct dc_links {
	struct bpf_link **l;
	size_t n;
	size_t ntracking; /* l[0..ntracking) track processes */
	struct dc_usdt_link *usdt;
	size_t nusdt;
	int *fds;
	size_t nfds;
};

/* Keep @l to destroy at detach; on failure it is destroyed. 0 or
 * -ENOMEM. */
int dc_links_add(struct dc_links *k, struct bpf_link *l);
/* The same for a USDT link, for process @pid only or 0 for all. */
int dc_links_add_usdt(struct dc_links *k, struct bpf_link *l, __u32 pid);
/* Process @pid is gone: destroy the USDT links made for it alone. */
void dc_links_drop_pid(struct dc_links *k, __u32 pid);
/* A batch made link by link, all or none: with @err 0, keep the
 * @n links of @made (NULL ones skipped), else destroy them. @err, or
 * -ENOMEM when one could not be kept. */
int dc_links_add_all(struct dc_links *k, struct bpf_link **made, size_t n,
		     int err);
/* The same for a link's fd; on failure it is closed. */
int dc_links_add_fd(struct dc_links *k, int fd);
/* Destroy the links added after the first @n (not USDT's). */
void dc_links_truncate(struct dc_links *k, size_t n);
/* The links held so far track processes. */
void dc_links_tracking(struct dc_links *k);
/* Destroy the probes' links (and with @all, process tracking's too). */
void dc_links_detach(struct dc_links *k, bool all);

#endif
