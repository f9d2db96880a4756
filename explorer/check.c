// SPDX-License-Identifier: MIT
/* --check: attach an empty program to every function the way the runtime
 * will (one uprobe.multi link, or one perf-event uprobe a function where
 * the kernel has no such links, before Linux 6.6), so what the kernel
 * refuses is found now. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "bisect.h"
#include "explore.h"
#include "bpflinks.h"

struct check_ctx {
	struct xp_target *t;
	unsigned long *offsets;
	int prog;
	bool multi; /* uprobe.multi links, else perf events */
	size_t refused;
};

/* One perf event a function: each attached, then all closed. */
static int perf_attach(struct check_ctx *c, size_t from, size_t n)
{
	int *fds = calloc(n ? n : 1, sizeof(*fds)), err = 0;
	size_t k = 0;

	if (!fds)
		return -ENOMEM;
	for (; k < n && !err; k++) {
		fds[k] = dc_uprobe_perf_attach(c->t->path, c->offsets[from + k],
					       c->prog);
		if (fds[k] < 0)
			err = fds[k];
	}
	while (k--)
		if (fds[k] >= 0)
			close(fds[k]);
	free(fds);
	return err;
}

static int check_attach(void *arg, size_t from, size_t n)
{
	struct check_ctx *c = arg;
	LIBBPF_OPTS(bpf_link_create_opts, opts, .uprobe_multi.path = c->t->path,
		    .uprobe_multi.offsets = c->offsets + from,
		    .uprobe_multi.cnt = n);
	int link;

	if (!c->multi)
		return perf_attach(c, from, n);
	link = bpf_link_create(c->prog, 0, BPF_TRACE_UPROBE_MULTI, &opts);
	if (link < 0)
		return -errno;
	close(link);
	return 0;
}

static void check_refused(void *arg, size_t i, int err)
{
	struct check_ctx *c = arg;

	c->t->funcs[i].refused = true;
	c->t->funcs[i].refused_err = -err;
	c->refused++;
}

int xp_check(struct xp_target *t, size_t *refused)
{
	static const struct dc_bisect_ops ops = { check_attach, check_refused };
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, popts);
	struct check_ctx c = { .t = t };
	int err;

	c.multi = dc_uprobe_link_supported(BPF_TRACE_UPROBE_MULTI) == 1;
	if (c.multi)
		popts.expected_attach_type = BPF_TRACE_UPROBE_MULTI;
	c.offsets = calloc(t->nfuncs ? t->nfuncs : 1, sizeof(*c.offsets));
	if (!c.offsets)
		return -ENOMEM;
	for (size_t i = 0; i < t->nfuncs; i++)
		c.offsets[i] = t->funcs[i].offset;
	c.prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "dc_check", "GPL", insns,
			       2, &popts);
	if (c.prog < 0) {
		err = -errno;
		goto cleanup;
	}
	err = dc_attach_bisect(&ops, &c, 0, t->nfuncs);
	*refused = c.refused;
	close(c.prog);
cleanup:
	free(c.offsets);
	return err;
}
