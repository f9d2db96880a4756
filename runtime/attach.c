// SPDX-License-Identifier: MIT
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "bisect.h"
#include "elfsym.h"
#include "kchoose.h"
#include "kprobe_links.h"
#include "latelib.h"
#include "log.h"
#include "paio.h"
#include "roles.h"
#include "session.h"
#include "tpformat.h"

static int attach_prog(struct dc_session *sess, struct bpf_program *p)
{
	struct bpf_link *l;
	int err;

	l = bpf_program__attach(p);
	if (!l) {
		err = -errno;
		dc_err("cannot attach %s: %s", bpf_program__section_name(p),
		       strerror(errno));
		return err;
	}
	return dc_links_add(&sess->links, l);
}

/* The probes of @mech one shared program serves are attached with it. */
static void mark_attached(struct dc_session *sess, int mech)
{
	for (size_t i = 0; i < sess->nprobes; i++)
		if (sess->probes[i].d->mech == mech &&
		    !sess->probes[i].disabled)
			sess->probes[i].attached = true;
}

/* The syscalls the pair acts on: each process's others (OpenMPI's
 * polling, any untraced program's) leave it at its first instructions. */
static int want_syscalls(struct dc_session *sess)
{
	/* A traced process's chdir and fchdir name its relative paths; a
	 * wrapper's syscall may come back as restart_syscall; the calls
	 * that free a descriptor say when /proc may show another file
	 * under its number (dc_close_ts). */
	static const int always[] = {
		SYS_chdir, SYS_fchdir, SYS_restart_syscall, SYS_close,
		SYS_dup2,  SYS_dup3,   SYS_close_range
	};
	__u64 bits[DC_SYSNR_MAX / 64] = { 0 };

	for (size_t nr = 0; nr < sess->o.nsysnr && nr < DC_SYSNR_MAX; nr++)
		if (sess->o.sysnr[nr])
			bits[nr / 64] |= 1ull << nr % 64;
	for (size_t i = 0; i < sizeof(always) / sizeof(*always); i++)
		bits[always[i] / 64] |= 1ull << always[i] % 64;
	if (sess->libs_at_exit)
		bits[SYS_mmap / 64] |= 1ull << SYS_mmap % 64;
	dc_uprobes_sysnrs(sess, bits);
	return dc_obj_set_sys_want(&sess->o, bits);
}

/* Whether the sys_enter/sys_exit pair is attached: for syscall probes,
 * or for wrappers recognised by their syscall sites (uprobes.c). */
static bool syscalls_wanted(struct dc_session *sess)
{
	return dc_has_mech(sess, DC_MECH_SYSCALL) || sess->nwrap_sites;
}

/* One raw sys_enter/sys_exit pair serves every syscall probe, and every
 * wrapper recognised by its syscall sites. */
static int attach_syscalls(struct dc_session *sess)
{
	int err;

	if (!syscalls_wanted(sess))
		return 0;
	err = want_syscalls(sess);
	if (err) {
		dc_err("%s: cannot set the syscalls traced: %s", sess->path,
		       strerror(-err));
		return err;
	}
	/* Exit first: a call caught entering is then caught returning. */
	err = attach_prog(sess, sess->o.progs.sys_exit)
		  ?: attach_prog(sess, sess->o.progs.sys_enter);
	if (!err)
		mark_attached(sess, DC_MECH_SYSCALL);
	return err;
}

/* io_uring requests: one submission and one completion program serve
 * every opcode. */
static int attach_uring(struct dc_session *sess)
{
	int err;

	if (!dc_has_mech(sess, DC_MECH_IO_URING))
		return 0;
	/* Completion first: a request caught submitted is caught done. */
	err = sess->uring_shape == DC_URING_NONE ? -ENOTSUP
	      : attach_prog(sess, sess->uring_shape == DC_URING_CQE
				      ? sess->o.progs.uring_complete
				      : sess->o.progs.uring_complete_res)
		  ?: attach_prog(sess, sess->o.progs.uring_submit);
	if (err) {
		dc_err("io_uring requests need the kernel's io_uring "
		       "tracepoints with BTF that pass the request (Linux 6.0 "
		       "or newer)");
		return err;
	}
	mark_attached(sess, DC_MECH_IO_URING);
	return 0;
}

/* Linux AIO requests: io_submit, and io_getevents or io_pgetevents. */
static int attach_libaio(struct dc_session *sess)
{
	int err = 0;

	if (!dc_has_mech(sess, DC_MECH_LIBAIO))
		return 0;
	for (size_t i = 0; i < DC_AIO_PROGS && !err; i++)
		err = attach_prog(sess, sess->o.progs.aio[i]);
	if (err) {
		dc_err("Linux AIO requests need the syscall tracepoints "
		       "(syscalls/sys_enter_io_submit) and tracefs mounted");
		return err;
	}
	mark_attached(sess, DC_MECH_LIBAIO);
	return 0;
}

/* POSIX AIO requests: one program at the C library's functions that
 * submit them and return their results, its cookie saying which, and
 * one at the submissions' returns (enum dc_paio_at puts aio_return
 * last). */
static int attach_posixaio(struct dc_session *sess)
{
	unsigned long offsets[DC_PAIO_AT_NR];
	__u64 cookies[DC_PAIO_AT_NR];
	const struct dc_probe_info *d = NULL;
	size_t mark = sess->links.n;
	struct dc_elf_syms syms;
	char path[DC_TARGET_MAX];
	int err;

	for (size_t i = 0; i < sess->nprobes && !d; i++)
		if (sess->probes[i].d->mech == DC_MECH_POSIXAIO &&
		    !sess->probes[i].disabled)
			d = sess->probes[i].d;
	if (!d)
		return 0;
	if (dc_probe_binary(d, path, sizeof(path))) {
		dc_warn("%s: target %s not found; POSIX AIO requests are not "
			"traced",
			d->layer, d->target);
		return 0;
	}
	err = dc_elf_syms_load(path, &syms);
	if (err) {
		dc_warn("%s: cannot read symbols: %s; POSIX AIO requests are "
			"not traced",
			path, strerror(-err));
		return 0;
	}
	for (int at = 0; at < DC_PAIO_AT_NR && !err; at++) {
		const struct dc_elf_sym *s =
		    dc_elf_syms_find(&syms, dc_paio_function(at));

		if (!s) {
			dc_warn("%s has no %s; POSIX AIO requests are not "
				"traced",
				path, dc_paio_function(at));
			err = -ENOENT;
		} else {
			offsets[at] = s->offset;
			cookies[at] = at;
		}
	}
	dc_elf_syms_free(&syms);
	if (err)
		return 0;
	/* Returns first: a submission caught entering is caught leaving. */
	err = dc_attach_uprobes(sess, sess->o.progs.paio_exit, path, offsets,
				cookies, DC_PAIO_AT_RETURN, true)
		  ?: dc_attach_uprobes(sess, sess->o.progs.paio, path, offsets,
				       cookies, DC_PAIO_AT_NR, false);
	if (err) {
		dc_links_truncate(&sess->links, mark);
		dc_err("cannot attach POSIX AIO uprobes to %s: %s", path,
		       strerror(-err));
		return err;
	}
	mark_attached(sess, DC_MECH_POSIXAIO);
	return 0;
}

/* Requests still pending once the probes are gone never had their
 * result taken: the BPF side counts them as calls with no return. */
static void count_unreturned(struct dc_session *sess)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int fd = bpf_program__fd(sess->o.progs.paio_sweep);

	if (fd >= 0 && bpf_prog_test_run_opts(fd, &opts))
		dc_warn("cannot count the POSIX AIO requests never returned: "
			"%s",
			strerror(errno));
}

struct kmulti_ctx {
	struct dc_session *sess;
	struct bpf_program *entry, *exit;
	struct dc_probe **probes;
	const char **syms;
	__u64 *cookies;
};

static struct bpf_link *kmulti(struct kmulti_ctx *k, struct bpf_program *p,
			       size_t from, size_t n, bool ret)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = k->syms + from,
		    .cookies = k->cookies + from, .cnt = n, .retprobe = ret);

	return bpf_program__attach_kprobe_multi_opts(p, NULL, &opts);
}

static int kmulti_attach(void *arg, size_t from, size_t n)
{
	struct kmulti_ctx *k = arg;
	struct bpf_link *lx, *le;
	int err;

	if (k->sess->o.cfg->fallbacks & DC_FB_KPROBE_MULTI) {
		err = dc_kprobes_attach(k->sess, k->entry, k->exit,
					k->syms + from, k->cookies + from, n);
		for (size_t i = from; i < from + n && !err; i++)
			k->probes[i]->attached = true;
		return err;
	}
	lx = kmulti(k, k->exit, from, n, true);
	if (!lx)
		return -errno;
	le = kmulti(k, k->entry, from, n, false);
	if (!le) {
		err = -errno;
		bpf_link__destroy(lx);
		return err;
	}
	for (size_t i = from; i < from + n; i++)
		k->probes[i]->attached = true;
	return dc_links_add(&k->sess->links, lx)
		   ?: dc_links_add(&k->sess->links, le);
}

static void kmulti_refused(void *arg, size_t i, int err)
{
	struct kmulti_ctx *k = arg;
	const struct dc_probe_info *d = k->probes[i]->d;

	dc_warn("%s %s: the kernel refused a kprobe on %s: %s%s; not traced",
		d->layer, d->name, d->symbol, strerror(-err),
		err == -ENOENT || err == -EOPNOTSUPP
		    ? " (a kernel without CONFIG_KPROBES, or a function it "
		      "cannot probe)"
		    : "");
}

/* Kernels without cookies: only functions whose address is known can be
 * told apart by the entry program; the others are left out, said. */
static int kprobes_by_addr(struct kmulti_ctx *k, size_t *n)
{
	bool *placed = calloc(*n ? *n : 1, sizeof(*placed));
	size_t kept = 0;
	int err;

	if (!placed)
		return -ENOMEM;
	err = dc_kprobes_place(k->sess, k->syms, k->cookies, *n, placed);
	for (size_t i = 0; i < *n && !err; i++) {
		const struct dc_probe_info *d = k->probes[i]->d;

		if (!placed[i]) {
			dc_warn("%s %s: no address for %s in /proc/kallsyms, "
				"which this kernel without BPF cookies needs; "
				"not traced",
				d->layer, d->name, d->symbol);
			continue;
		}
		k->probes[kept] = k->probes[i];
		k->syms[kept] = k->syms[i];
		k->cookies[kept++] = k->cookies[i];
	}
	*n = kept;
	free(placed);
	return err;
}

/* Kernel functions: one kprobe.multi pair over all of them, by name, or a
 * perf-event pair each where the kernel has no such links. */
static int attach_kfuncs(struct dc_session *sess)
{
	static const struct dc_bisect_ops ops = { kmulti_attach,
						  kmulti_refused };
	struct kmulti_ctx k = { .sess = sess };
	size_t n = 0;
	int err = 0;

	for (size_t i = 0; i < sess->nprobes; i++)
		n += sess->probes[i].d->mech == DC_MECH_KFUNC &&
		     !sess->probes[i].disabled;
	if (!n)
		return 0;
	k.entry = sess->o.progs.kprobe_entry;
	k.exit = sess->o.progs.kprobe_exit;
	k.probes = calloc(n, sizeof(*k.probes));
	k.syms = calloc(n, sizeof(*k.syms));
	k.cookies = calloc(n, sizeof(*k.cookies));
	if (!k.probes || !k.syms || !k.cookies) {
		err = -ENOMEM;
		goto cleanup;
	}
	n = 0;
	for (size_t i = 0; i < sess->nprobes; i++) {
		if (sess->probes[i].d->mech != DC_MECH_KFUNC ||
		    sess->probes[i].disabled)
			continue;
		k.probes[n] = &sess->probes[i];
		k.syms[n] = sess->probes[i].d->symbol;
		k.cookies[n++] = sess->probes[i].d->id;
	}
	if ((sess->o.cfg->fallbacks & DC_FB_KPROBE_MULTI) &&
	    (sess->o.cfg->fallbacks & DC_FB_COOKIES))
		err = kprobes_by_addr(&k, &n);
	if (!err)
		err = dc_attach_bisect(&ops, &k, 0, n);
cleanup:
	free(k.probes);
	free(k.syms);
	free(k.cookies);
	return err;
}

/* A number of 1, 2, 4 or 8 bytes, or the first 8 bytes of a char array
 * (the block layer's rwbs: "W", "RA", "FWS"). */
static int tp_field(const struct dc_tp_format *fmt, const char *name,
		    struct dc_tp_field *out, bool *text, bool *dev)
{
	const struct dc_tp_fmt_field *f = dc_tp_format_field(fmt, name);
	int size;

	if (!f || f->offset < 0 || f->offset > 0xfff)
		return -ENOENT;
	size = f->text && f->size >= 8 ? 8 : f->size;
	if (size < 1 || size > 8 || (size & (size - 1)))
		return -ENOENT;
	*out = (struct dc_tp_field){ f->offset, size, f->text ? 0 : f->sign };
	*text = f->text;
	*dev = !f->text && size == 4 &&
	       (!strcmp(name, "dev") || !strcmp(name, "s_dev"));
	return 0;
}

/* Fill the probe's field layout for one side, from the record's format. */
static int tp_config(struct dc_probe *pr, int side, struct dc_tp_cfg *cfg)
{
	const struct dc_probe_info *d = pr->d;
	const char *event = side ? d->end : pr->event ? pr->event : d->target;
	struct dc_tp_format fmt;
	int err = dc_tp_format_read(event, &fmt);
	bool text, dev;

	if (err) {
		dc_warn("%s %s: tracepoint %s: %s; not traced", d->layer,
			d->name, event,
			err == -ENOENT ? "not in this kernel" : strerror(-err));
		return err;
	}
	memset(cfg, 0, sizeof(*cfg));
	cfg->kind = side ? DC_TP_END : d->end[0] ? DC_TP_BEGIN : DC_TP_INSTANT;
	for (int k = 0; k < DC_TP_KEYS && d->key[k][0]; k++, cfg->nkeys++)
		if (tp_field(&fmt, d->key[k], &cfg->key[k], &text, &dev))
			goto bad;
	for (int i = 0; !side && i < d->nslots; i++, cfg->nfields++) {
		if (tp_field(&fmt, d->field[i], &cfg->field[i], &text, &dev))
			goto bad;
		pr->text_slots |= text << i;
		pr->dev_slots |= dev << i;
	}
	return 0;
bad:
	dc_warn("%s %s: %s has no usable field named in the spec; not traced",
		d->layer, d->name, event);
	return -ENOENT;
}

/* Kernels without BPF cookies (DC_FB_COOKIES): the program of probe side
 * @key, its cookie built in (DC_TRACEPOINT_AS). */
static struct bpf_program *tp_program(struct dc_session *sess, __u32 key)
{
	char name[32];

	snprintf(name, sizeof(name), "dc_tp_%u", key);
	return bpf_object__find_program_by_name(sess->o.obj, name);
}

/* Every tracepoint probe shares one program; the cookie (probe * 2 +
 * side) selects its field layout in dc_tpcfg. Without cookies, each side
 * has its own. */
static int attach_tracepoints(struct dc_session *sess)
{
	struct bpf_map *cfgmap = sess->o.maps.tpcfg;
	struct bpf_program *p = sess->o.progs.tracepoint;
	int err;

	for (size_t i = 0; i < sess->nprobes; i++) {
		const struct dc_probe_info *d = sess->probes[i].d;
		struct bpf_link *links[2] = {};
		bool ok = true;

		if (d->mech != DC_MECH_TRACEPOINT || sess->probes[i].disabled)
			continue;
		/* The end first: a request seen starting is then seen ending.
		 */
		for (int side = d->end[0] ? 1 : 0; side >= 0 && ok; side--) {
			bool by_id = sess->o.cfg->fallbacks & DC_FB_COOKIES;
			LIBBPF_OPTS(bpf_tracepoint_opts, opts,
				    .bpf_cookie = by_id ? 0 : d->id * 2 + side);
			const char *event = side ? d->end
					    : sess->probes[i].event
						? sess->probes[i].event
						: d->target,
				   *slash;
			char group[DC_NAME_MAX];
			struct dc_tp_cfg cfg;
			__u32 key = d->id * 2 + side;

			if (tp_config(&sess->probes[i], side, &cfg) ||
			    bpf_map_update_elem(bpf_map__fd(cfgmap), &key, &cfg,
						BPF_ANY)) {
				ok = false;
				break;
			}
			/* The spec's checks made it "group/event". */
			slash = strchr(event, '/');
			snprintf(group, sizeof(group), "%.*s",
				 slash ? (int)(slash - event) : 0, event);
			links[side] = bpf_program__attach_tracepoint_opts(
			    by_id ? tp_program(sess, key) : p, group,
			    slash ? slash + 1 : event, &opts);
			if (!links[side]) {
				dc_warn(
				    "%s %s: cannot attach %s: %s; not traced",
				    d->layer, d->name, event, strerror(errno));
				ok = false;
			}
		}
		for (int side = 0; side < 2; side++) {
			if (!links[side])
				continue;
			if (!ok) {
				bpf_link__destroy(links[side]);
				continue;
			}
			err = dc_links_add(&sess->links, links[side]);
			if (err)
				return err;
		}
		sess->probes[i].attached = ok;
	}
	return 0;
}

int dc_attach_tracking(struct dc_session *sess)
{
	int err;

	err = attach_prog(sess, sess->o.progs.fork) ?: attach_prog(sess, sess->o.progs.exec) ?:
	      attach_prog(sess, sess->o.progs.exit_task) ?:
	      (sess->opt.server ? attach_prog(sess, sess->o.progs.cgroup_attach) : 0);
	dc_links_tracking(&sess->links);
	return err;
}

int dc_attach_probes(struct dc_session *sess)
{
	size_t attached = 0;
	int err;

	if (sess->probes_attached)
		return 0;
	err = dc_uprobes_attach(sess) ?:
	      dc_latelib_attach(sess, syscalls_wanted(sess)) ?:
	      attach_syscalls(sess) ?:
	      attach_tracepoints(sess) ?: attach_kfuncs(sess) ?: dc_usdts_attach(sess) ?:
	      attach_uring(sess) ?: attach_libaio(sess) ?:
	      attach_posixaio(sess);
	if (err)
		return err;
	for (size_t i = 0; i < sess->nprobes; i++)
		attached += sess->probes[i].attached;
	/* Uprobes whose library no file had at start wait for one. */
	if (!attached && !sess->libs_watched) {
		dc_err("no probe could be attached");
		return -ENOENT;
	}
	sess->probes_attached = true;
	return 0;
}

int dc_attach_all(struct dc_session *sess)
{
	/* Process tracking first, so no fork of a traced process is missed. */
	return dc_attach_tracking(sess) ?: dc_attach_probes(sess);
}

void dc_detach_probes(struct dc_session *sess)
{
	dc_links_detach(&sess->links, false);
	sess->libs_watched = sess->libs_at_exit = false;
	if (sess->probes_attached)
		count_unreturned(sess);
	for (size_t i = 0; i < sess->nprobes; i++)
		sess->probes[i].attached = false;
	sess->probes_attached = false;
}

void dc_detach_all(struct dc_session *sess)
{
	dc_detach_probes(sess);
	dc_links_detach(&sess->links, true);
}
