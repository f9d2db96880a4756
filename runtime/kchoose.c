// SPDX-License-Identifier: MIT
/*
 * What this kernel gets of a loaded object: the mechanisms it lacks left
 * out and named, tracepoint stand-ins, and for each mechanism the
 * programs and fallbacks the kernel can run (docs/design.md).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "kchoose.h"
#include "kfeatures.h"
#include "kbtf.h"
#include "kuring.h"
#include "log.h"
#include "session.h"
#include "tpformat.h"

/* Threads with state by tid where that map is preallocated. */
#define DC_THREADS_PREALLOC 4096

/* DATACRUMBS_UPROBE_PAIRS=1 asks for entry and return links even where
 * the kernel has uprobe.session links. */
static bool uprobe_session_supported(void)
{
	const char *pairs = getenv("DATACRUMBS_UPROBE_PAIRS");

	if (pairs && strcmp(pairs, "0"))
		return false;
	return dc_kernel_has_uprobe_session();
}

/* DATACRUMBS_UPROBE_LINKS=perf asks for one perf-event uprobe a function
 * even where the kernel has uprobe_multi links: the fallback of kernels
 * before 6.6, tried on this one. */
static bool uprobe_multi_supported(void)
{
	const char *links = getenv("DATACRUMBS_UPROBE_LINKS");

	if (links && !strcmp(links, "perf"))
		return false;
	/* Kernels without cookies have no uprobe_multi links either. */
	if (dc_kernel_fallbacks() & DC_FB_COOKIES)
		return false;
	return dc_kernel_has_uprobe_multi();
}

bool dc_has_mech(const struct dc_session *sess, enum dc_mech mech)
{
	for (size_t i = 0; i < sess->nprobes; i++)
		if (sess->probes[i].d->mech == mech &&
		    !sess->probes[i].disabled)
			return true;
	return false;
}

/* io_uring's tracepoints changed names and arguments (lib/kuring.h):
 * this kernel's, read once from its BTF where the object traces io_uring;
 * the submission event's name in sess->uring_submit. */
static int uring_shape(struct dc_session *sess)
{
	struct dc_kbtf vmlinux;

	if (sess->uring_submit || !dc_has_mech(sess, DC_MECH_IO_URING))
		return sess->uring_shape;
	sess->uring_shape = DC_URING_NONE;
	if (!dc_kbtf_open(&vmlinux, DC_KBTF_PATH)) {
		sess->uring_shape =
		    dc_uring_shape(&vmlinux, &sess->uring_submit);
		dc_kbtf_close(&vmlinux);
	}
	return sess->uring_shape;
}

/* Name @what in the start record's "unsupported", whole or not at all. */
static void add_unsupported(struct dc_session *sess, const char *what)
{
	size_t len = strlen(sess->unsupported), n = strlen(what);
	char *end = sess->unsupported + len;

	if (len + !!len + n >= sizeof(sess->unsupported))
		return;
	if (len)
		*end++ = ',';
	memcpy(end, what, n + 1);
}

/* Leave out the probes of @mech, saying once why: what the kernel lacks,
 * and the first Linux that has it. */
static void drop_mech(struct dc_session *sess, enum dc_mech mech,
		      const char *name, const char *what, const char *needs,
		      const char *since)
{
	if (!dc_has_mech(sess, mech))
		return;
	add_unsupported(sess, name);
	dc_warn("%s need %s (Linux %s or newer has it); not traced on this "
		"kernel",
		what, needs, since);
	for (size_t i = 0; i < sess->nprobes; i++)
		if (sess->probes[i].d->mech == mech)
			sess->probes[i].disabled = true;
}

/* Whether this kernel has tracepoint @event; true when tracefs cannot
 * tell (the attach says what fails). */
static bool has_tracepoint(const char *event)
{
	struct dc_tp_format fmt;

	return dc_tp_format_read(event, &fmt) != -ENOENT;
}

/* The first of the comma-separated @list this kernel has, copied to
 * @out; false if none. */
static bool first_tracepoint(const char *list, char *out, size_t size)
{
	while (*list) {
		size_t n = strcspn(list, ",");

		if (n < size) {
			memcpy(out, list, n);
			out[n] = '\0';
			if (has_tracepoint(out))
				return true;
		}
		list += n + !!list[n];
	}
	return false;
}

/*
 * Each tracepoint probe attaches to its event, else to the first of its
 * stand-ins (alt) this kernel has: an older name of the same event. One
 * whose events this kernel lacks is left out before loading (no program
 * of its own is loaded), named in the start record and in one line.
 */
static int choose_tracepoints(struct dc_session *sess)
{
	struct dc_buf gone = {};
	char alt[DC_TARGET_MAX];
	int err = 0;

	for (size_t i = 0; i < sess->nprobes && !err; i++) {
		struct dc_probe *pr = &sess->probes[i];
		const struct dc_probe_info *d = pr->d;
		bool here;

		if (d->mech != DC_MECH_TRACEPOINT || pr->disabled)
			continue;
		here = has_tracepoint(d->target);
		if (!here && first_tracepoint(d->alt, alt, sizeof(alt))) {
			pr->event = strdup(alt);
			here = true;
			if (!pr->event)
				err = -ENOMEM;
		}
		if (here && (!d->end[0] || has_tracepoint(d->end)))
			continue;
		pr->disabled = true;
		add_unsupported(sess, here ? d->end : d->target);
		err = dc_buf_addf(&gone, "%s%s (%s %s)", gone.len ? ", " : "",
				  here ? d->end : d->target, d->layer, d->name);
	}
	if (!err && gone.len)
		dc_warn("tracepoints this kernel lacks, not traced: %s",
			gone.p);
	dc_buf_free(&gone);
	return err;
}

/* Mechanisms with no fallback on this kernel. */
static void drop_unsupported(struct dc_session *sess)
{
	__u32 fb = dc_kernel_fallbacks();

	if (uring_shape(sess) == DC_URING_NONE)
		drop_mech(
		    sess, DC_MECH_IO_URING, "io_uring", "io_uring requests",
		    "io_uring tracepoints that pass the request, with BTF",
		    "6.0");
	if (fb & (DC_FB_COOKIES | DC_FB_SYSCALL_PROG))
		drop_mech(sess, DC_MECH_POSIXAIO, "posixaio",
			  "POSIX AIO requests", "BPF cookies", "5.15");
}

/* The submission program attaches to this kernel's name for its event,
 * and the completion program that finds the result where this kernel
 * passes it is the one loaded. None is loaded where the kernel passes no
 * request: drop_unsupported() said so. */
static void choose_uring(struct dc_session *sess, bool has)
{
	const struct dc_obj_progs *p = &sess->o.progs;
	int shape = has ? uring_shape(sess) : DC_URING_NONE;

	if (shape != DC_URING_NONE &&
	    bpf_program__set_attach_target(p->uring_submit, 0,
					   sess->uring_submit)) {
		dc_warn("cannot find tracepoint io_uring/%s",
			sess->uring_submit);
		shape = sess->uring_shape = DC_URING_NONE;
	}
	bpf_program__set_autoload(p->uring_submit, shape != DC_URING_NONE);
	bpf_program__set_autoload(p->uring_complete, shape == DC_URING_CQE);
	bpf_program__set_autoload(p->uring_complete_res, shape == DC_URING_RES);
}

/*
 * Load only the programs the object's probes need: each costs the
 * verifier's time at start-up. Uprobes use one session program where the
 * kernel has them, else the entry and return pair.
 */
static void choose_programs(struct dc_session *sess)
{
	const struct dc_obj_progs *p = &sess->o.progs;
	bool has[DC_MECH_MAX + 1] = {};

	for (int m = DC_MECH_SYSCALL; m <= DC_MECH_MAX; m++)
		has[m] = dc_has_mech(sess, m);
	sess->uprobe_multi = uprobe_multi_supported();
	sess->uprobe_session = has[DC_MECH_UPROBE] && sess->uprobe_multi &&
			       uprobe_session_supported();
	/* Perf-event uprobes take the programs of the multi links, loaded
	 * as plain uprobe programs. */
	if (!sess->uprobe_multi) {
		bpf_program__set_expected_attach_type(p->uprobe_entry, 0);
		bpf_program__set_expected_attach_type(p->uprobe_exit, 0);
		bpf_program__set_expected_attach_type(p->paio, 0);
		bpf_program__set_expected_attach_type(p->paio_exit, 0);
	}
	if (sess->uprobe_session)
		bpf_program__set_expected_attach_type(p->uprobe_session,
						      DC_TRACE_UPROBE_SESSION);
	bpf_program__set_autoload(p->uprobe_session, sess->uprobe_session);
	bpf_program__set_autoload(p->uprobe_entry,
				  has[DC_MECH_UPROBE] && !sess->uprobe_session);
	bpf_program__set_autoload(p->uprobe_exit,
				  has[DC_MECH_UPROBE] && !sess->uprobe_session);
	/* Uprobes may turn out to be wrappers, traced by the sys programs:
	 * that is known only once their binaries are decoded. */
	bpf_program__set_autoload(
	    p->sys_enter, has[DC_MECH_SYSCALL] ||
			      (has[DC_MECH_UPROBE] && sess->opt.wrappers));
	bpf_program__set_autoload(
	    p->sys_exit, has[DC_MECH_SYSCALL] ||
			     (has[DC_MECH_UPROBE] && sess->opt.wrappers));
	/* Perf-event kprobes take the programs of the multi links. */
	if (sess->o.cfg->fallbacks & DC_FB_KPROBE_MULTI) {
		bpf_program__set_expected_attach_type(p->kprobe_entry, 0);
		bpf_program__set_expected_attach_type(p->kprobe_exit, 0);
	}
	bpf_program__set_autoload(p->kprobe_entry, has[DC_MECH_KFUNC]);
	bpf_program__set_autoload(p->kprobe_exit, has[DC_MECH_KFUNC]);
	bpf_program__set_autoload(
	    p->tracepoint, has[DC_MECH_TRACEPOINT] &&
			       !(sess->o.cfg->fallbacks & DC_FB_COOKIES));
	bpf_program__set_autoload(p->usdt, has[DC_MECH_USDT]);
	choose_uring(sess, has[DC_MECH_IO_URING]);
	for (size_t i = 0; i < DC_AIO_PROGS; i++)
		bpf_program__set_autoload(p->aio[i], has[DC_MECH_LIBAIO]);
	bpf_program__set_autoload(p->paio, has[DC_MECH_POSIXAIO]);
	bpf_program__set_autoload(p->paio_exit, has[DC_MECH_POSIXAIO]);
	bpf_program__set_autoload(p->paio_sweep, has[DC_MECH_POSIXAIO]);
	bpf_program__set_autoload(p->client_join, sess->opt.server);
	bpf_program__set_autoload(p->cgroup_attach, sess->opt.server);
	bpf_program__set_autoload(p->agg_iter, sess->opt.profile);
	/* Libraries mapped later: seen by the sys_exit program when it runs,
	 * else by programs of their own (libmap.bpf.h). */
	bpf_program__set_autoload(p->lib_mapped,
				  has[DC_MECH_UPROBE] || has[DC_MECH_USDT]);
	bpf_program__set_autoload(p->lib_mapping,
				  bpf_program__autoload(p->lib_mapped));
	bpf_map__set_autocreate(sess->o.maps.libs,
				bpf_program__autoload(p->lib_mapped) ||
				    bpf_program__autoload(p->sys_exit));
}

/* Kernels without cookies: the program of each tracepoint side of an
 * enabled probe (dc_tp_COOKIE), instead of dc_tracepoint. */
static void tracepoints_by_side(struct dc_session *sess, bool by_side)
{
	struct bpf_program *prog;
	unsigned int cookie;

	bpf_object__for_each_program (prog, sess->o.obj) {
		bool use = false;

		if (sscanf(bpf_program__name(prog), "dc_tp_%u", &cookie) != 1)
			continue;
		for (size_t i = 0; i < sess->nprobes && by_side; i++)
			use |= sess->probes[i].d->id == cookie / 2 &&
			       sess->probes[i].d->mech == DC_MECH_TRACEPOINT &&
			       !sess->probes[i].disabled;
		bpf_program__set_autoload(prog, use);
	}
}

static void swap_progs(struct bpf_program **a, struct bpf_program **b)
{
	struct bpf_program *t = *a;

	*a = *b;
	*b = t;
}

/* Kernels without the BPF allocator (DC_FB_PREALLOC): every hash map
 * is preallocated. Task storage is allocated on every kernel. */
static void preallocate(struct dc_session *sess)
{
	struct bpf_map *map;

	bpf_object__for_each_map (map, sess->o.obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_HASH)
			bpf_map__set_map_flags(map, bpf_map__map_flags(map) &
							~BPF_F_NO_PREALLOC);
}

/*
 * What the kernel lacks takes its fallback (kfeatures.c): the programs
 * read the choice from dc_cfg, only the maps it uses are created, and
 * programs that call bpf_find_vma give way to their twins without it.
 */
static void choose_fallbacks(struct dc_session *sess)
{
	struct dc_obj_progs *p = &sess->o.progs;
	const struct dc_obj_maps *m = &sess->o.maps;
	__u32 fb = dc_kernel_fallbacks();
	bool tid = fb & DC_FB_THREADS, cookies = !(fb & DC_FB_COOKIES);

	/* Used, and so named in the start record, only for kernel functions. */
	if (!dc_has_mech(sess, DC_MECH_KFUNC))
		fb &= ~DC_FB_KPROBE_MULTI;
	sess->o.cfg->fallbacks = fb;
	if (fb & DC_FB_FIND_VMA) {
		swap_progs(&p->sys_enter, &p->sys_enter_compat);
		swap_progs(&p->sys_exit, &p->sys_exit_compat);
		swap_progs(&p->uprobe_entry, &p->uprobe_entry_compat);
		swap_progs(&p->uprobe_exit, &p->uprobe_exit_compat);
		swap_progs(&p->kprobe_exit, &p->kprobe_exit_compat);
	}
	bpf_program__set_autoload(p->sys_enter_compat, false);
	bpf_program__set_autoload(p->sys_exit_compat, false);
	bpf_program__set_autoload(p->uprobe_entry_compat, false);
	bpf_program__set_autoload(p->uprobe_exit_compat, false);
	bpf_program__set_autoload(p->kprobe_exit_compat, false);
	bpf_program__set_autoload(p->set_traced, !(fb & DC_FB_SYSCALL_PROG));
	tracepoints_by_side(sess, !cookies);
	if (fb & DC_FB_PREALLOC)
		preallocate(sess);
	bpf_map__set_autocreate(m->threads, !tid);
	bpf_map__set_autocreate(m->threads_tid, tid);
	bpf_map__set_autocreate(m->thread_zero, tid);
	bpf_map__set_autocreate(m->uprobe_ids, !cookies);
	bpf_map__set_autocreate(m->uprobe_ips, !cookies);
	bpf_map__set_autocreate(m->kprobe_ids,
				!cookies && dc_has_mech(sess, DC_MECH_KFUNC));
}

/* State by tid has room for a thread of each process --max-procs
 * allows, preallocated for at most DC_THREADS_PREALLOC (its 3.7 KB each
 * would be 240 MB for 64K); places of uprobes for every uprobe. */
int dc_size_fallback_maps(struct dc_session *sess)
{
	const struct dc_obj_maps *m = &sess->o.maps;
	__u32 fb = sess->o.cfg->fallbacks;
	size_t n = 0, nk = 0;
	int err = 0;

	for (size_t i = 0; i < sess->nprobes; i++) {
		n += sess->probes[i].d->mech == DC_MECH_UPROBE;
		nk += sess->probes[i].d->mech == DC_MECH_KFUNC;
	}
	if (fb & DC_FB_THREADS) {
		__u32 nt = bpf_map__max_entries(m->pids);

		if (fb & DC_FB_PREALLOC && nt > DC_THREADS_PREALLOC)
			nt = DC_THREADS_PREALLOC;
		err = bpf_map__set_max_entries(m->threads_tid, nt);
	}
	if (!err && fb & DC_FB_COOKIES)
		err = bpf_map__set_max_entries(m->uprobe_ids,
					       n ? n * DC_COPIES_MAX : 1);
	if (!err && fb & DC_FB_COOKIES)
		err = bpf_map__set_max_entries(m->kprobe_ids, nk ? nk : 1);
	return err;
}

int dc_choose_for_kernel(struct dc_session *sess)
{
	int err;

	drop_unsupported(sess);
	err = choose_tracepoints(sess);
	if (err)
		return err;
	choose_fallbacks(sess);
	choose_programs(sess);
	return 0;
}
