// SPDX-License-Identifier: MIT
/*
 * Uprobe links: one uprobe.session link per binary (Linux 6.13+), else one
 * uprobe.multi and one uretprobe.multi link, else one perf-event uprobe a
 * function; a batch refused is attached by halves.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bisect.h"
#include "elfsym.h"
#include "kfeatures.h"
#include "log.h"
#include "session.h"
#include "uprobe_links.h"

/*
 * Kernels without BPF cookies (DC_FB_COOKIES): the entry program finds
 * each probe by its file's build id and offset. Its return program takes
 * the thread's innermost call, so a feeder, which pushes none, gets no
 * return probe (it has nothing to do there).
 */
static int place_probes(struct dc_session *sess, const char *path,
			const unsigned long *offsets, const __u64 *ids,
			size_t n)
{
	struct dc_uprobe_key k = { 0 };
	int err = dc_elf_build_id(path, k.build_id);

	if (err) {
		dc_warn("%s: no build id (%s): this kernel has no BPF cookies "
			"(Linux 5.15 or newer has them), so its uprobes are "
			"not traced",
			path, strerror(-err));
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		__u32 id = ids[i];

		k.offset = offsets[i];
		if (bpf_map_update_elem(bpf_map__fd(sess->o.maps.uprobe_ids),
					&k, &id, BPF_ANY))
			return -errno;
	}
	return 0;
}

static bool is_feeder(const struct dc_session *sess, __u64 cookie)
{
	__u64 id = cookie & DC_COOKIE_PROBE;

	return id < sess->o.ncaps && sess->o.caps[id].feeds;
}

/* One perf-event uprobe a function (kernels before 6.6), each with its
 * cookie (5.15+). All or none: on failure those made are destroyed. */
static int attach_perf(struct dc_session *sess, struct bpf_program *p,
		       const char *path, const unsigned long *offsets,
		       const __u64 *cookies, size_t n, bool ret)
{
	struct bpf_link **made = calloc(n, sizeof(*made));
	bool by_place = sess->o.cfg->fallbacks & DC_FB_COOKIES;
	size_t i;
	int err = 0;

	if (!made)
		return -ENOMEM;
	if (by_place && !ret)
		err = place_probes(sess, path, offsets, cookies, n);
	for (i = 0; i < n && !err; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o,
			    .bpf_cookie = by_place ? 0 : cookies[i],
			    .retprobe = ret);

		if (by_place && ret && is_feeder(sess, cookies[i]))
			continue;
		made[i] = bpf_program__attach_uprobe_opts(p, -1, path,
							  offsets[i], &o);
		if (!made[i])
			err = -errno;
	}
	err = dc_links_add_all(&sess->links, made, n, err);
	free(made);
	return err;
}

int dc_attach_uprobes(struct dc_session *sess, struct bpf_program *p,
		      const char *path, const unsigned long *offsets,
		      const __u64 *cookies, size_t n, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, opts, .offsets = offsets,
		    .cookies = cookies, .cnt = n, .retprobe = ret);
	struct bpf_link *l;

	if (!sess->uprobe_multi)
		return attach_perf(sess, p, path, offsets, cookies, n, ret);
	l = bpf_program__attach_uprobe_multi(p, -1, path, NULL, &opts);
	if (!l)
		return -errno;
	return dc_links_add(&sess->links, l);
}

/* Which of a batch's uprobes a link takes. */
enum view_kind {
	VIEW_ALL,     /* a session link: each probe point, each return site */
	VIEW_ENTRIES, /* the entry program's: each probe point */
	VIEW_RETURNS, /* the uretprobes: the items without a return site */
	VIEW_SITES,   /* the return sites, plain uprobes of the exit program */
};

/* The uprobes of a batch's items a link of some kind takes, their
 * cookies saying which is which. */
struct view {
	unsigned long *offsets;
	__u64 *cookies;
	size_t n;
};

static void view_add(struct view *v, unsigned long off, __u64 cookie)
{
	v->offsets[v->n] = off;
	v->cookies[v->n++] = cookie;
}

static int view_of(const struct dc_ubatch *b, size_t from, size_t n,
		   enum view_kind kind, struct view *v)
{
	v->n = 0;
	v->offsets = calloc(2 * n, sizeof(*v->offsets));
	v->cookies = calloc(2 * n, sizeof(*v->cookies));
	if (!v->offsets || !v->cookies)
		return -ENOMEM;
	for (size_t i = from; i < from + n; i++) {
		unsigned long site = b->ret_sites[i];
		__u64 c = b->cookies[i];

		if (kind == VIEW_ALL || kind == VIEW_ENTRIES)
			view_add(v, b->offsets[i],
				 c | (site ? DC_UCOOKIE_NORET : 0));
		else if (kind == VIEW_RETURNS && !site)
			view_add(v, b->offsets[i], c);
		if (site && (kind == VIEW_ALL || kind == VIEW_SITES))
			view_add(v, site, c | DC_UCOOKIE_RET);
	}
	return 0;
}

static void view_free(struct view *v)
{
	free(v->offsets);
	free(v->cookies);
}

/* libbpf 1.4 makes uprobe_multi links only; a session link is the same
 * request with another attach type. Returns the link's fd or -errno. */
static int session_link(struct bpf_program *p, const char *path,
			const struct view *v)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = bpf_program__fd(p);
	attr.link_create.attach_type = DC_TRACE_UPROBE_SESSION;
	attr.link_create.uprobe_multi.path = (uintptr_t)path;
	attr.link_create.uprobe_multi.offsets = (uintptr_t)v->offsets;
	attr.link_create.uprobe_multi.cookies = (uintptr_t)v->cookies;
	attr.link_create.uprobe_multi.cnt = v->n;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

/* Return probes first: a call caught entering is then caught returning. */
static int multi_attach(void *arg, size_t from, size_t n)
{
	struct dc_uattach *m = arg;
	size_t mark = m->sess->links.n;
	struct view e = { 0 }, r = { 0 }, st = { 0 };
	int err, fd;

	if (m->sess->uprobe_session) {
		err = view_of(m->b, from, n, VIEW_ALL, &e);
		fd = err ?: session_link(m->entry, m->path, &e);
		err = fd < 0 ? fd : dc_links_add_fd(&m->sess->links, fd);
	} else {
		err = view_of(m->b, from, n, VIEW_ENTRIES, &e)
			  ?: view_of(m->b, from, n, VIEW_RETURNS, &r)
			  ?: view_of(m->b, from, n, VIEW_SITES, &st);
		if (!err && r.n)
			err =
			    dc_attach_uprobes(m->sess, m->exit, m->path,
					      r.offsets, r.cookies, r.n, true);
		if (!err && st.n)
			err = dc_attach_uprobes(m->sess, m->exit, m->path,
						st.offsets, st.cookies, st.n,
						false);
		if (!err)
			err =
			    dc_attach_uprobes(m->sess, m->entry, m->path,
					      e.offsets, e.cookies, e.n, false);
		/* Returns without entries would be retried: none stay. */
		if (err)
			dc_links_truncate(&m->sess->links, mark);
	}
	for (size_t i = from; i < from + n && !err; i++)
		m->b->probes[i]->attached = true;
	view_free(&e);
	view_free(&r);
	view_free(&st);
	return err;
}

static void multi_refused(void *arg, size_t i, int err)
{
	struct dc_uattach *m = arg;
	const struct dc_probe_info *d = m->b->probes[i]->d;

	m->refused++;
	dc_warn(
	    "%s %s: the kernel refused a uprobe on %s+0x%lx: %s; not traced",
	    d->layer, d->name, m->name, m->b->offsets[i], strerror(-err));
}

static const struct dc_bisect_ops multi_ops = { multi_attach, multi_refused };

int dc_ulinks_attach(struct dc_uattach *m)
{
	return dc_attach_bisect(&multi_ops, m, 0, m->b->n);
}
