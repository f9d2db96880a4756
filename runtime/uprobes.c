// SPDX-License-Identifier: MIT
/*
 * Uprobes: where each goes, on every copy of its library, grouped by
 * copy (their links: uprobe_links.c). Each function's offset comes
 * from the binary's symbol table on this machine, moved onto an
 * instruction the kernel emulates where it can (lib/probepoint.c): as
 * the generator found it, on a copy of the build it read, or decoded
 * here; thin system call wrappers get no uprobe and are recognised at
 * sys_enter (lib/sysstub.c, runtime/wrappers.c). Reading and decoding
 * the binaries is done in a thread while the BPF object loads.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "copies.h"
#include "elfsym.h"
#include "fields.h"
#include "kfeatures.h"
#include "ldneeded.h"
#include "log.h"
#include "placement.h"
#include "session.h"
#include "sysenv.h"
#include "uprobe_links.h"
#include "wrappers.h"

/* One binary's probes: a view into the shared batch arrays. */
struct group {
	char path[DC_TARGET_MAX]; /* read and attached at */
	char name[DC_TARGET_MAX]; /* said: path, or where a process mapped
				     it (its path is a /proc/self/fd link) */
	int fd;			  /* the link's descriptor, or -1 */
	dev_t dev;
	ino_t ino;
	struct dc_ubatch b;
	/* Not the build the object was made against (its GNU build-id
	 * differs, or either is unknown): probes reading its private
	 * structures at the object's offsets stay off it. */
	bool other_build;
};

/* Every binary's batch, prepared before the first is attached: once libc
 * is probed, each libc call the runtime makes traps too. */
struct dc_uprobes {
	pthread_t thread;
	bool running;
	struct group *groups;
	size_t ngroups;
	struct dc_ubatch all; /* the groups' batches are slices of this */
	size_t used;	      /* ... up to here */
	struct dc_field_layouts lay; /* every group's fields' offsets */
	size_t late_failed;	     /* copies mapped later left unprobed */
	bool *done;		     /* probes already grouped */
	struct dc_wrappers wrappers;
	struct dc_needed_set needed; /* what the command maps at start */
	bool cookies; /* a cookie may say more than the probe: BPF cookies */
	int err;      /* what went wrong in the thread: -ENOMEM, or 0 */
};

/* Function @s, traced by its uprobe (probe @id), jumps into code that
 * makes a syscall at @st's sites: a syscall there while its call is open
 * is its own, not another wrapper's call nested in it. */
static void add_inside(struct dc_uprobes *u, const char *path,
		       const struct dc_code *code, __u32 id,
		       const struct dc_elf_sym *s, const struct dc_sysstub *st)
{
	struct dc_wrap_cand cand = { .probe = id, .inside = 1 };
	int lib = dc_wrappers_lib(&u->wrappers, path);

	for (unsigned k = 0; lib >= 0 && k < st->nsites; k++) {
		uint64_t end = st->site[k];
		__u8 bytes[DC_WRAP_CODE] = { 0 };

		if ((end > s->offset && end <= s->offset + s->size) ||
		    !dc_wrappers_room(&u->wrappers, lib, end))
			continue;
		memcpy(bytes, code->map + end - DC_WRAP_CODE,
		       end >= DC_WRAP_CODE ? DC_WRAP_CODE : 0);
		if (dc_wrappers_add(&u->wrappers, lib, end, st->nr, &cand,
				    bytes))
			u->err = -ENOMEM;
	}
	if (lib == -ENOMEM)
		u->err = lib;
}

/* The generator's placement of @d holds for function @s of a copy of
 * build @build (in hex, or ""): dc_place() had the inputs it would have
 * here, found a plain probe point, and it lies within @s (else the table
 * is not this build's). Syscall sites, a wrapper's or those of a stub it
 * jumps into, are found here: they go into the wrappers' tables. */
static bool placed_before(const struct dc_uprobes *u,
			  const struct dc_probe_info *d,
			  const struct dc_elf_sym *s, const char *build,
			  bool wrappers)
{
	return (d->place & (DC_PLACE_KNOWN | DC_PLACE_SYS | DC_PLACE_TAIL)) ==
		   DC_PLACE_KNOWN &&
	       wrappers && u->cookies && d->build[0] &&
	       !strcmp(d->build, build) && d->skip < s->size &&
	       d->ret_at < s->size;
}

/* A uprobe of @pj at probe point @pp of function @s: its offset, with
 * its return site's in *@ret_site and what its cookie adds in *@cookie. */
static uint64_t at_point(struct dc_probe *pj, const struct dc_elf_sym *s,
			 const struct dc_probe_point *pp,
			 unsigned long *ret_site, __u64 *cookie)
{
	pj->slow = pp->slow;
	if (pp->ret_at)
		*ret_site = s->offset + pp->ret_at;
	*cookie |= (__u64)pp->moved << DC_UCOOKIE_MOVED;
	return s->offset + pp->skip;
}

/* Where probe @pj of binary @path, of build @build, goes: a site per
 * syscall instruction of a wrapper (*@sys set), or a uprobe at its probe
 * point, whose offset is returned, with its return site's in *@ret_site
 * (0: a uretprobe there) and its cookie in *@cookie. */
static uint64_t place(struct dc_uprobes *u, const char *path, const char *build,
		      const struct dc_code *code, struct dc_probe *pj,
		      const struct dc_elf_sym *s, bool wrappers,
		      unsigned long *ret_site, __u64 *cookie, bool *sys)
{
	const struct dc_probe_info *d = pj->d;
	struct dc_place_probe pp = { d->nslots,	   d->slot_arg,
				     d->slot_role, d->ret,
				     u->cookies,   d->flags & DC_PROBE_READS };
	struct dc_placement pl;
	int lib = -1;

	*ret_site = 0;
	*cookie = d->id;
	*sys = false;
	if (!code->map)
		return s->offset;
	if (placed_before(u, d, s, build, wrappers)) {
		struct dc_probe_point at = { .skip = d->skip,
					     .ret_at = d->ret_at,
					     .moved = d->moved,
					     .slow = d->place & DC_PLACE_SLOW };

		return at_point(pj, s, &at, ret_site, cookie);
	}
	dc_place(code, s->offset, s->size, &pp, wrappers, &pl);
	if (pl.via_sys)
		lib = dc_wrappers_lib(&u->wrappers, path);
	if (pl.via_sys && lib == -ENOMEM)
		u->err = lib;
	/* Each site must take one more function, or none is used. */
	for (unsigned k = 0; pl.via_sys && lib >= 0 && k < pl.stub.nsites; k++)
		if (!dc_wrappers_room(&u->wrappers, lib, pl.stub.site[k]))
			lib = -ENOSPC;
	if (pl.via_sys && lib < 0)
		dc_place(code, s->offset, s->size, &pp, false, &pl);
	if (pl.via_sys) {
		for (unsigned k = 0; k < pl.stub.nsites; k++) {
			uint64_t end = pl.stub.site[k];
			struct dc_wrap_cand cand;
			__u8 bytes[DC_WRAP_CODE] = { 0 };

			dc_place_cand(&pl, k, d->id, &cand);
			/* A site is at least a syscall into the code. */
			memcpy(bytes, code->map + end - DC_WRAP_CODE,
			       end >= DC_WRAP_CODE ? DC_WRAP_CODE : 0);
			if (dc_wrappers_add(&u->wrappers, lib, end, pl.stub.nr,
					    &cand, bytes))
				u->err = -ENOMEM;
		}
		*sys = true;
		return 0;
	}
	if (wrappers && pl.stub.tail)
		add_inside(u, path, code, d->id, s, &pl.stub);
	return at_point(pj, s, &pl.pp, ret_site, cookie);
}

/* Collect the probes of probe i's target, from i on, at offsets computed
 * from its copy @g->path, of build @build, on this machine; cookies are
 * probe ids. @wrappers: thin wrappers may be traced at their syscalls. */
static void group_target(struct dc_session *sess, size_t i, struct group *g,
			 const char *build, bool wrappers)
{
	const struct dc_probe_info *d = sess->probes[i].d;
	struct dc_code code = { 0 };
	struct dc_elf_syms syms;
	bool any = false;
	int err;

	err = dc_elf_syms_load_locals(g->path, &syms);
	if (err) {
		dc_warn("%s: cannot read symbols: %s; its probes are not "
			"traced",
			g->name, strerror(-err));
		return;
	}
	/* A file the target's glob matches with none of its functions
	 * (libhdf5_hl beside libhdf5) is not a copy of it. */
	for (size_t j = i; j < sess->nprobes && !any; j++)
		any = !strcmp(sess->probes[j].d->target, d->target) &&
		      dc_elf_syms_find(&syms, sess->probes[j].d->symbol);
	if (!any) {
		dc_elf_syms_free(&syms);
		return;
	}
	/* Not x86-64 (-ENOTSUP): probes stay on their first instruction. */
	err = dc_code_open(g->path, &code);
	if (err && err != -ENOTSUP)
		dc_warn("%s: cannot read its code: %s; its uprobes stay on "
			"their functions' first instruction",
			g->name, strerror(-err));
	for (size_t j = i; j < sess->nprobes; j++) {
		struct dc_probe *pj = &sess->probes[j];
		const struct dc_elf_sym *s;
		unsigned long site;
		uint64_t off;
		__u64 cookie;
		bool sys;

		if (pj->d->mech != DC_MECH_UPROBE || pj->disabled ||
		    strcmp(pj->d->target, d->target))
			continue;
		s = dc_elf_syms_find(&syms, pj->d->symbol);
		if (!s && (pj->d->flags & DC_PROBE_OPTIONAL))
			continue;
		if (!s) {
			dc_warn("%s %s: %s has no function %s; not traced",
				pj->d->layer, pj->d->name, g->name,
				pj->d->symbol);
			continue;
		}
		off = place(sess->uprobes, g->path, build, &code, pj, s,
			    wrappers, &site, &cookie, &sys);
		pj->via_sys |= sys;
		if (sys)
			continue;
		g->b.ret_sites[g->b.n] = site;
		g->b.probes[g->b.n] = pj;
		g->b.offsets[g->b.n] = off;
		g->b.cookies[g->b.n++] = cookie;
	}
	dc_code_close(&code);
	dc_elf_syms_free(&syms);
}

/* Build id @hex (zero padded) is among @builds (the spec's "builds"). */
static bool listed(const char *builds, const char *hex)
{
	for (const char *b = builds; *b;) {
		size_t n = strcspn(b, ",");

		/* A shorter id is padded with zeros. */
		if (!strncmp(b, hex, n) &&
		    strspn(hex + n, "0") == strlen(hex + n))
			return true;
		b += n + (b[n] == ',');
	}
	return false;
}

/* Whether @path is another build than the file @d was made for (its GNU
 * build-id differs and the spec does not list it, or either is unknown);
 * its build-id in @hex, or "". */
static bool other_build(const struct dc_probe_info *d, const char *path,
			char hex[DC_BUILD_HEX])
{
	uint8_t ref[DC_BUILD_ID_SIZE], id[DC_BUILD_ID_SIZE];
	int err = dc_elf_build_id(path, id);

	hex[0] = '\0';
	if (err)
		return true;
	dc_build_id_hex(id, hex);
	return !(
	    (!dc_elf_build_id(d->path, ref) && !memcmp(id, ref, sizeof(id))) ||
	    listed(d->builds, hex));
}

/* The next group, its batch the free part of the shared arrays. */
static struct group *group_new(struct dc_uprobes *u, const char *path,
			       const char *name, const struct stat *st)
{
	struct group *g = &u->groups[u->ngroups];

	snprintf(g->path, sizeof(g->path), "%s", path);
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->fd = -1;
	g->dev = st->st_dev;
	g->ino = st->st_ino;
	g->b = (struct dc_ubatch){ u->all.probes + u->used,
				   u->all.offsets + u->used,
				   u->all.cookies + u->used,
				   u->all.ret_sites + u->used, 0 };
	return g;
}

static void *prepare(void *arg)
{
	struct dc_session *sess = arg;
	struct dc_uprobes *u = sess->uprobes;
	struct dc_copies *c = malloc(sizeof(*c));

	if (!c) {
		u->err = -ENOMEM;
		return NULL;
	}
	dc_needed_by_command(sess, &u->needed);
	for (size_t i = 0; i < sess->nprobes; i++) {
		const struct dc_probe_info *d = sess->probes[i].d;

		if (u->done[i] || d->mech != DC_MECH_UPROBE ||
		    sess->probes[i].disabled)
			continue;
		for (size_t j = i; j < sess->nprobes; j++)
			if (!strcmp(sess->probes[j].d->target, d->target))
				u->done[j] = true;
		dc_find_copies(&u->needed, d, c);
		if (!c->n)
			dc_warn("%s: target %s not found; its probes are "
				"attached if a traced program maps it",
				d->layer, d->target);
		for (size_t k = 0; k < c->n; k++) {
			struct group *g =
			    group_new(u, c->path[k], c->path[k], &c->st[k]);
			char hex[DC_BUILD_HEX];

			g->other_build = other_build(d, g->path, hex);
			group_target(sess, i, g, hex, sess->opt.wrappers);
			u->used += g->b.n;
			u->ngroups += g->b.n > 0;
		}
	}
	free(c);
	return NULL;
}

int dc_uprobes_prepare(struct dc_session *sess)
{
	struct dc_uprobes *u;
	size_t n = sess->nprobes, targets = 0;
	const char *last = NULL;

	/* Probes of one target are listed together: a change of target
	 * among the uprobes counts one, or more if a target comes back. */
	for (size_t i = 0; i < n; i++) {
		const struct dc_probe_info *d = sess->probes[i].d;

		if (d->mech != DC_MECH_UPROBE || sess->probes[i].disabled)
			continue;
		targets += !last || strcmp(d->target, last);
		last = d->target;
	}
	if (!targets)
		return 0;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	sess->uprobes = u;
	u->done = calloc(n, sizeof(*u->done));
	u->groups = calloc(targets * DC_COPIES_MAX, sizeof(*u->groups));
	n *= DC_COPIES_MAX;
	u->all.probes = calloc(n, sizeof(*u->all.probes));
	u->all.offsets = calloc(n, sizeof(*u->all.offsets));
	u->all.cookies = calloc(n, sizeof(*u->all.cookies));
	u->all.ret_sites = calloc(n, sizeof(*u->all.ret_sites));
	if (!u->done || !u->groups || !u->all.probes || !u->all.offsets ||
	    !u->all.cookies || !u->all.ret_sites)
		return -ENOMEM;
	u->cookies = !(dc_kernel_fallbacks() & DC_FB_COOKIES);
	/* The thread only reads the probe table and writes u; the main
	 * thread leaves both alone until dc_uprobes_attach(). */
	u->running = !pthread_create(&u->thread, NULL, prepare, sess);
	if (!u->running)
		prepare(sess);
	return 0;
}

static void wait_prepared(struct dc_uprobes *u)
{
	if (u->running)
		pthread_join(u->thread, NULL);
	u->running = false;
}

/* Probes that read a library's private structures at offsets the
 * generator took for one build (HDF5's type and selection sizes): they
 * would read another build's memory at the wrong place. Those reading
 * fields by name have this copy's offsets (runtime/fields.c). */
static bool reads_structs(const struct dc_session *sess,
			  const struct dc_probe_info *d)
{
	const struct dc_capture *c = &sess->o.caps[d->id];

	if (d->flags & DC_PROBE_FIELDS)
		return false;
	return d->id >= sess->o.ncaps || c->deref_entry_mask ||
	       c->deref_exit_mask || c->feeds;
}

/* dc_fields_place() on @g: the probes it keeps, in order, keep their
 * return sites. */
static int fields_place(struct group *g, struct dc_field_layouts *lay,
			char *why, size_t size)
{
	size_t n = g->b.n ? g->b.n : 1;
	struct dc_probe **was = malloc(n * sizeof(*was));
	unsigned long *sites = malloc(n * sizeof(*sites));
	int err = -ENOMEM;

	if (!was || !sites)
		goto cleanup;
	memcpy(was, g->b.probes, g->b.n * sizeof(*was));
	memcpy(sites, g->b.ret_sites, g->b.n * sizeof(*sites));
	err = dc_fields_place(g->path, g->b.probes, g->b.offsets, g->b.cookies,
			      &g->b.n, lay, why, size);
	for (size_t j = 0, i = 0; j < g->b.n; j++, i++) {
		while (was[i] != g->b.probes[j])
			i++;
		g->b.ret_sites[j] = sites[i];
	}
cleanup:
	free(was);
	free(sites);
	return err;
}

/* @g without the probes reading private structures, said once. */
static void keep_off_structs(const struct dc_session *sess, struct group *g,
			     const char *made_for)
{
	size_t kept = 0, n = g->b.n;

	for (size_t j = 0; j < n; j++) {
		if (reads_structs(sess, g->b.probes[j]->d))
			continue;
		g->b.probes[kept] = g->b.probes[j];
		g->b.offsets[kept] = g->b.offsets[j];
		g->b.ret_sites[kept] = g->b.ret_sites[j];
		g->b.cookies[kept++] = g->b.cookies[j];
	}
	if (kept < n)
		dc_warn("%s: another build than %s, whose structure offsets "
			"the object reads: %zu probes that read them are not "
			"attached there, so its calls carry no bytes or "
			"selections from them",
			g->name, made_for[0] ? made_for : "the generator's",
			n - kept);
	g->b.n = kept;
}

/* Calls of @g that functions feed their bytes to, none of which is
 * attached on this copy with a quantity: their bytes are unknown there
 * (DC_COOKIE_UNFED), not 0; said once, with @why the feeders by field
 * name are off. */
static void mark_unfed(const struct dc_session *sess, struct group *g,
		       const char *why)
{
	const char *first = NULL;
	size_t n = 0;

	for (size_t j = 0; j < g->b.n; j++) {
		__u32 id = g->b.probes[j]->d->id;
		bool fed = false;

		if (id >= sess->o.ncaps || sess->o.caps[id].fed_slot < 0)
			continue;
		for (size_t k = 0; k < g->b.n && !fed; k++) {
			const struct dc_capture *c =
			    &sess->o.caps[g->b.probes[k]->d->id];

			fed = c->feeds == id + 1 &&
			      (((1u << c->nslots) - 1) & ~c->pass_mask);
		}
		if (fed)
			continue;
		g->b.cookies[j] |= DC_COOKIE_UNFED;
		first = first ? first : g->b.probes[j]->d->name;
		n++;
	}
	if (n)
		dc_warn("%s: the bytes of %s%s are unknown there: no function "
			"counting them is attached%s%s",
			g->name, first, n > 1 ? " and other calls" : "",
			why[0] ? "; " : "", why);
}

/* @g's probes as this copy reads them: fields at its own offsets (its
 * layout in u->lay), none reading another build's structures. 0 or
 * -ENOMEM. */
static int group_ready(struct dc_session *sess, struct group *g)
{
	char why[2 * DC_FIELD_PATH_MAX + 64] = "";
	int err = fields_place(g, &sess->uprobes->lay, why, sizeof(why));

	if (g->other_build)
		keep_off_structs(sess, g, g->b.probes[0]->d->path);
	mark_unfed(sess, g, why);
	return err;
}

int dc_uprobes_attach(struct dc_session *sess)
{
	struct dc_uprobes *u = sess->uprobes;
	struct bpf_program *entry, *exit;
	int err = 0;

	if (!u)
		return 0;
	wait_prepared(u);
	if (u->err)
		return u->err;
	dc_wrappers_prune(&u->wrappers);
	if (u->wrappers.nsites) {
		struct dc_wrap_libs libs;

		err = dc_wrappers_install(&u->wrappers, &sess->o, &libs)
			  ?: dc_obj_set_wraps(&sess->o, &libs);
		if (err) {
			dc_err("%s: cannot set up the wrappers' syscall sites: "
			       "%s",
			       sess->path, strerror(-err));
			return err;
		}
		for (size_t i = 0; i < sess->nprobes; i++)
			sess->probes[i].attached |= sess->probes[i].via_sys;
	}
	sess->nwrap_sites = u->wrappers.nsites;
	/* Two descriptors a perf-event uprobe, four a function. */
	if (!sess->uprobe_multi)
		dc_raise_nofile();
	entry = sess->uprobe_session ? sess->o.progs.uprobe_session
				     : sess->o.progs.uprobe_entry;
	exit = sess->o.progs.uprobe_exit;
	u->lay.n = 0;
	for (size_t k = 0; k < u->ngroups && !err; k++)
		err = group_ready(sess, &u->groups[k]);
	if (!err && u->lay.n)
		err = dc_obj_set_layouts(&sess->o, &u->lay.t);
	for (size_t k = 0; k < u->ngroups && !err; k++) {
		struct dc_uattach m = { .sess = sess,
					.entry = entry,
					.exit = exit,
					.path = u->groups[k].path,
					.name = u->groups[k].name,
					.b = &u->groups[k].b };

		err = dc_ulinks_attach(&m);
	}
	return err;
}

int dc_uprobes_late(struct dc_session *sess, size_t i, int fd, const char *name,
		    const struct stat *st, unsigned pid)
{
	struct dc_uprobes *u = sess->uprobes;
	const struct dc_probe_info *d = sess->probes[i].d;
	struct dc_uattach m = { .sess = sess,
				.entry = sess->uprobe_session
					     ? sess->o.progs.uprobe_session
					     : sess->o.progs.uprobe_entry,
				.exit = sess->o.progs.uprobe_exit };
	char path[DC_TARGET_MAX], hex[DC_BUILD_HEX];
	size_t copies = 0, layouts = u->lay.n;
	struct group *g;
	int err;

	for (size_t k = 0; k < u->ngroups; k++)
		copies +=
		    !strcmp(u->groups[k].b.probes[0]->d->target, d->target);
	if (copies == DC_COPIES_MAX) {
		dc_warn("%s: %s, mapped by pid %u: more than %d copies of %s; "
			"not traced",
			d->layer, name, pid, DC_COPIES_MAX, d->target);
		u->late_failed++;
		return -ENOSPC;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	g = group_new(u, path, name, st);
	g->other_build = other_build(d, path, hex);
	group_target(sess, i, g, hex, false);
	/* None of its functions: only its name is the target's. */
	if (!g->b.n)
		return -ENOENT;
	/* Its own descriptor, kept: a server attaches it at each job. */
	g->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (g->fd >= 0)
		snprintf(g->path, sizeof(g->path), "/proc/self/fd/%d", g->fd);
	err = g->fd < 0 ? -errno : group_ready(sess, g);
	if (!err && u->lay.n > layouts)
		err = dc_obj_set_layouts(&sess->o, &u->lay.t);
	m.path = g->path;
	m.name = g->name;
	m.b = &g->b;
	if (!err)
		err = dc_ulinks_attach(&m);
	if (err || m.refused == g->b.n) {
		if (g->fd >= 0)
			close(g->fd);
		dc_warn("%s: %s, mapped by pid %u, is a copy of %s, but its "
			"probes could not be attached: %s; its calls are not "
			"traced",
			d->layer, name, pid, d->target,
			err ? strerror(-err) : "the kernel refused each");
		u->late_failed++;
		return err ?: -EPERM;
	}
	u->used += g->b.n;
	u->ngroups++;
	dc_info("%s: %zu probes attached to %s, a copy of %s that pid %u "
		"mapped",
		d->layer, g->b.n - m.refused, name, d->target, pid);
	return 0;
}

int dc_uprobes_checked(const struct dc_session *sess, size_t k, struct stat *st)
{
	const struct dc_uprobes *u = sess->uprobes;

	if (!u || k >= u->ngroups + u->needed.n)
		return -ENOENT;
	if (k >= u->ngroups)
		return stat(u->needed.v[k - u->ngroups].path, st) ? -errno : 0;
	st->st_dev = u->groups[k].dev;
	st->st_ino = u->groups[k].ino;
	return 0;
}

bool dc_uprobes_probed(const struct dc_session *sess, const char *target,
		       const struct stat *st)
{
	const struct dc_uprobes *u = sess->uprobes;

	for (size_t k = 0; u && k < u->ngroups; k++)
		if (u->groups[k].dev == st->st_dev &&
		    u->groups[k].ino == st->st_ino &&
		    !strcmp(u->groups[k].b.probes[0]->d->target, target))
			return true;
	return false;
}

void dc_uprobes_sysnrs(const struct dc_session *sess, __u64 *bits)
{
	if (sess->uprobes)
		dc_wrappers_sysnrs(&sess->uprobes->wrappers, bits);
}

void dc_uprobes_free(struct dc_session *sess)
{
	struct dc_uprobes *u = sess->uprobes;

	if (!u)
		return;
	wait_prepared(u);
	for (size_t k = 0; k < u->ngroups; k++)
		if (u->groups[k].fd >= 0)
			close(u->groups[k].fd);
	dc_wrappers_free(&u->wrappers);
	dc_needed_free(&u->needed);
	free(u->done);
	free(u->groups);
	free(u->all.probes);
	free(u->all.offsets);
	free(u->all.cookies);
	free(u->all.ret_sites);
	free(u);
	sess->uprobes = NULL;
}

/* Whether group @k is the first of its target. */
static bool first_of_target(const struct dc_uprobes *u, size_t k)
{
	const char *target = u->groups[k].b.probes[0]->d->target;

	for (size_t j = 0; j < k; j++)
		if (!strcmp(u->groups[j].b.probes[0]->d->target, target))
			return false;
	return true;
}

void dc_uprobes_say_idle(const struct dc_session *sess)
{
	const struct dc_uprobes *u = sess->uprobes;
	struct dc_buf paths = {};

	/* A target's groups: those probed at start, then any mapped later. */
	for (size_t k = 0; u && k < u->ngroups; k++) {
		const char *target = u->groups[k].b.probes[0]->d->target;
		const char *layer = u->groups[k].b.probes[0]->d->layer;
		uint64_t calls = 0;

		if (!first_of_target(u, k))
			continue;
		paths.len = 0;
		for (size_t j = k; j < u->ngroups; j++)
			if (!strcmp(u->groups[j].b.probes[0]->d->target,
				    target))
				dc_buf_addf(&paths, "%s%s",
					    paths.len ? ", " : "",
					    u->groups[j].name);
		/* Its wrappers too, seen at their syscalls. */
		for (size_t j = 0; j < sess->nprobes; j++)
			if (!strcmp(sess->probes[j].d->target, target))
				calls += sess->probes[j].calls;
		if (!calls)
			dc_info(
			    "  %s: no call traced: no traced program loaded "
			    "%s, or none called it (probed at %s)",
			    layer, target, paths.p ? paths.p : "");
	}
	if (u && u->late_failed)
		dc_info("  copies of the specs' libraries mapped after start "
			"and not probed: %zu (said above)",
			u->late_failed);
	dc_buf_free(&paths);
}
