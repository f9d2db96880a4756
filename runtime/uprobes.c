// SPDX-License-Identifier: MIT
/*
 * Uprobes: one uprobe.session link per binary (Linux 6.13+), else one
 * uprobe.multi and one uretprobe.multi link. Each function's offset comes
 * from the binary's symbol table on this machine; reading those tables is
 * done in a thread while the BPF object loads.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bisect.h"
#include "buf.h"
#include "elfsym.h"
#include "log.h"
#include "runtime.h"

struct batch {
	struct dc_probe **probes;
	unsigned long *offsets;
	__u64 *cookies;
	size_t n;
};

static struct bpf_link *attach_multi(struct bpf_program *p, const char *path,
				     struct batch *b, size_t from, size_t n,
				     bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, opts, .offsets = b->offsets + from,
		    .cookies = b->cookies + from, .cnt = n, .retprobe = ret);

	return bpf_program__attach_uprobe_multi(p, -1, path, NULL, &opts);
}

struct multi_ctx {
	struct dc_rt *rt;
	struct bpf_program *entry, *exit;
	const char *path;
	struct batch *b;
};

/* libbpf 1.4 makes uprobe_multi links only; a session link is the same
 * request with another attach type. Returns the link's fd or -errno. */
static int session_link(struct bpf_program *p, const char *path,
			struct batch *b, size_t from, size_t n)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = bpf_program__fd(p);
	attr.link_create.attach_type = DC_TRACE_UPROBE_SESSION;
	attr.link_create.uprobe_multi.path = (uintptr_t)path;
	attr.link_create.uprobe_multi.offsets = (uintptr_t)(b->offsets + from);
	attr.link_create.uprobe_multi.cookies = (uintptr_t)(b->cookies + from);
	attr.link_create.uprobe_multi.cnt = n;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

static int add_link_fd(struct dc_rt *rt, int fd)
{
	if (dc_grow((void **)&rt->link_fds, rt->nlink_fds,
		    sizeof(*rt->link_fds), 64)) {
		close(fd);
		return -ENOMEM;
	}
	rt->link_fds[rt->nlink_fds++] = fd;
	return 0;
}

/* Return probes first: a call caught entering is then caught returning. */
static int multi_attach(void *arg, size_t from, size_t n)
{
	struct multi_ctx *m = arg;
	struct bpf_link *lx, *le;
	int err;

	if (m->rt->session) {
		int fd = session_link(m->entry, m->path, m->b, from, n);

		if (fd < 0)
			return fd;
		for (size_t i = from; i < from + n; i++)
			m->b->probes[i]->attached = true;
		return add_link_fd(m->rt, fd);
	}

	lx = attach_multi(m->exit, m->path, m->b, from, n, true);
	if (!lx)
		return -errno;
	le = attach_multi(m->entry, m->path, m->b, from, n, false);
	if (!le) {
		err = -errno;
		bpf_link__destroy(lx);
		return err;
	}
	for (size_t i = from; i < from + n; i++)
		m->b->probes[i]->attached = true;
	return dc_add_link(m->rt, lx) ?: dc_add_link(m->rt, le);
}

static void multi_refused(void *arg, size_t i, int err)
{
	struct multi_ctx *m = arg;
	const struct dc_probe_info *d = m->b->probes[i]->d;

	dc_warn(
	    "%s %s: the kernel refused a uprobe on %s+0x%lx: %s; not traced",
	    d->layer, d->name, m->path, m->b->offsets[i], strerror(-err));
}

static const struct dc_bisect_ops multi_ops = { multi_attach, multi_refused };

/* One binary's probes: a view into the shared batch arrays. */
struct group {
	char path[DC_TARGET_MAX];
	struct batch b;
};

/* Collect one binary's probes, from probe i on, at offsets computed from
 * the binary on this machine; cookies are probe ids. */
static void group_target(struct dc_rt *rt, size_t i, bool *done,
			 struct group *g)
{
	const struct dc_probe_info *d = rt->probes[i].d;
	struct dc_elf_syms syms;
	int err;

	for (size_t j = i; j < rt->nprobes; j++)
		if (!strcmp(rt->probes[j].d->target, d->target))
			done[j] = true;
	if (dc_probe_binary(d, g->path, sizeof(g->path))) {
		dc_warn("%s: target %s not found; its probes are not traced",
			d->layer, d->target);
		return;
	}
	err = dc_elf_syms_load(g->path, &syms);
	if (err) {
		dc_warn("%s: cannot read symbols: %s; its probes are not "
			"traced",
			g->path, strerror(-err));
		return;
	}
	for (size_t j = i; j < rt->nprobes; j++) {
		struct dc_probe *pj = &rt->probes[j];
		const struct dc_elf_sym *s;

		if (pj->d->mech != DC_MECH_UPROBE || pj->disabled ||
		    strcmp(pj->d->target, d->target))
			continue;
		s = dc_elf_syms_find(&syms, pj->d->symbol);
		if (!s) {
			dc_warn("%s %s: %s has no function %s; not traced",
				pj->d->layer, pj->d->name, g->path,
				pj->d->symbol);
			continue;
		}
		g->b.probes[g->b.n] = pj;
		g->b.offsets[g->b.n] = s->offset;
		g->b.cookies[g->b.n++] = pj->d->id;
	}
	dc_elf_syms_free(&syms);
}

/* Every binary's batch, prepared before the first is attached: once libc
 * is probed, each libc call the runtime makes traps too. */
struct dc_uprobes {
	pthread_t thread;
	bool running;
	struct group *groups;
	size_t ngroups;
	struct batch all; /* the groups' batches are slices of this */
	bool *done;	  /* probes already grouped */
};

static void *prepare(void *arg)
{
	struct dc_rt *rt = arg;
	struct dc_uprobes *u = rt->uprobes;
	size_t used = 0;

	for (size_t i = 0; i < rt->nprobes; i++) {
		struct group *g = &u->groups[u->ngroups];

		if (u->done[i] || rt->probes[i].d->mech != DC_MECH_UPROBE ||
		    rt->probes[i].disabled)
			continue;
		g->b =
		    (struct batch){ u->all.probes + used, u->all.offsets + used,
				    u->all.cookies + used, 0 };
		group_target(rt, i, u->done, g);
		used += g->b.n;
		u->ngroups += g->b.n > 0;
	}
	return NULL;
}

int dc_uprobes_prepare(struct dc_rt *rt)
{
	struct dc_uprobes *u;
	size_t n = rt->nprobes;
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= rt->probes[i].d->mech == DC_MECH_UPROBE &&
		       !rt->probes[i].disabled;
	if (!any)
		return 0;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	rt->uprobes = u;
	u->done = calloc(n, sizeof(*u->done));
	u->groups = calloc(n, sizeof(*u->groups));
	u->all.probes = calloc(n, sizeof(*u->all.probes));
	u->all.offsets = calloc(n, sizeof(*u->all.offsets));
	u->all.cookies = calloc(n, sizeof(*u->all.cookies));
	if (!u->done || !u->groups || !u->all.probes || !u->all.offsets ||
	    !u->all.cookies)
		return -ENOMEM;
	/* The thread only reads the probe table and writes u; the main
	 * thread leaves both alone until dc_uprobes_attach(). */
	u->running = !pthread_create(&u->thread, NULL, prepare, rt);
	if (!u->running)
		prepare(rt);
	return 0;
}

static void wait_prepared(struct dc_uprobes *u)
{
	if (u->running)
		pthread_join(u->thread, NULL);
	u->running = false;
}

int dc_uprobes_attach(struct dc_rt *rt)
{
	struct dc_uprobes *u = rt->uprobes;
	struct bpf_program *entry, *exit;
	int err = 0;

	if (!u)
		return 0;
	wait_prepared(u);
	entry = dc_find_prog(rt, rt->session ? "dc_uprobe_session"
					     : "dc_uprobe_entry");
	exit = dc_find_prog(rt, "dc_uprobe_exit");
	if (!entry || !exit)
		return -ENOENT;
	for (size_t k = 0; k < u->ngroups && !err; k++) {
		struct multi_ctx m = { rt, entry, exit, u->groups[k].path,
				       &u->groups[k].b };

		err = dc_attach_bisect(&multi_ops, &m, 0, u->groups[k].b.n);
	}
	return err;
}

void dc_uprobes_free(struct dc_rt *rt)
{
	struct dc_uprobes *u = rt->uprobes;

	if (!u)
		return;
	wait_prepared(u);
	free(u->done);
	free(u->groups);
	free(u->all.probes);
	free(u->all.offsets);
	free(u->all.cookies);
	free(u);
	rt->uprobes = NULL;
}
