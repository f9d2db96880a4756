// SPDX-License-Identifier: MIT
#include <bpf/bpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kchoose.h"
#include "kfeatures.h"
#include "buf.h"
#include "json.h"
#include "dpattern.h"
#include "dtypes.h"
#include "log.h"
#include "roles.h"
#include "probetab.h"
#include "session.h"
#include "sysstub.h"

static int flags_slot(const struct dc_probe *pr)
{
	for (int s = 0; s < pr->d->nslots; s++)
		if (pr->d->slot_role[s] == DC_ROLE_FLAGS)
			return s;
	return -1;
}

/* What a call does to the descriptor table, from the spec's roles and
 * effect alone (docs/spec-format.md), never from its symbol's name. */
static enum dc_fd_effect fd_effect(const struct dc_probe *pr, bool stream)
{
	const struct dc_probe_info *d = pr->d;

	if (d->ret == DC_RET_FD)
		return pr->newfd_slot >= 0 && pr->fd_slot >= 0
			   ? DC_FD_NEW_AT_NEWFD
			   : DC_FD_NEW;
	if (d->ret == DC_RET_STREAM && pr->path_slot >= 0)
		return DC_FD_NEW_STREAM;
	if (d->effect == DC_EFFECT_CLOSE && pr->fd_slot >= 0)
		return pr->newfd_slot >= 0 ? DC_FD_CLOSE_RANGE : DC_FD_CLOSE;
	if (d->effect == DC_EFFECT_CLOSE && stream)
		return DC_FD_CLOSE_STREAM;
	if (d->effect == DC_EFFECT_DUP && pr->fd_slot >= 0 &&
	    flags_slot(pr) >= 0)
		return DC_FD_DUPFD;
	return DC_FD_KEEP;
}

/*
 * Each probe's name and layer as JSON string literals, for the writer:
 * one buffer for all, a layer written once. A block each would be 16,000
 * allocations for 8,000 probes, each touching memory of its own.
 */
static int json_names(struct dc_session *sess)
{
	size_t *at = calloc(2 * sess->nprobes, sizeof(*at));
	struct dc_buf b = {};
	int err = 0;

	if (!at)
		return -ENOMEM;
	for (size_t i = 0; i < sess->nprobes && !err; i++) {
		const struct dc_probe_info *d = sess->probes[i].d;

		at[2 * i] = b.len;
		err = dc_json_str(&b, d->name, strlen(d->name))
			  ?: dc_buf_add(&b, "", 1);
		if (i && !strcmp(d->layer, sess->probes[i - 1].d->layer)) {
			at[2 * i + 1] = at[2 * i - 1];
			continue;
		}
		at[2 * i + 1] = b.len;
		err = err ?: dc_json_str(&b, d->layer, strlen(d->layer)) ?:
			     dc_buf_add(&b, "", 1);
	}
	if (err)
		goto cleanup;
	sess->json_names = b.p;
	b.p = NULL;
	for (size_t i = 0; i < sess->nprobes; i++) {
		sess->probes[i].name_json = sess->json_names + at[2 * i];
		sess->probes[i].cat_json = sess->json_names + at[2 * i + 1];
	}
cleanup:
	dc_buf_free(&b);
	free(at);
	return err;
}

static int init_probes(struct dc_session *sess)
{
	sess->probes = calloc(sess->nprobes, sizeof(*sess->probes));
	if (!sess->probes)
		return -ENOMEM;
	for (size_t i = 0; i < sess->nprobes; i++) {
		struct dc_probe *pr = &sess->probes[i];
		bool stream = false;

		pr->d = &sess->descs[i];
		pr->fd_slot = pr->path_slot = pr->dirfd_slot = -1;
		pr->newfd_slot = pr->handle_slot = pr->itemsize_slot = -1;
		pr->items_slot = pr->dtype_slot = pr->str_slot = -1;
		pr->fed_slot = pr->name_slot = -1;
		for (int s = 0; s < pr->d->nslots; s++) {
			int role = pr->d->slot_role[s];

			if (role == DC_ROLE_FD)
				pr->fd_slot = s;
			else if (role == DC_ROLE_PATH)
				pr->path_slot = s;
			else if (role == DC_ROLE_DIRFD)
				pr->dirfd_slot = s;
			else if (role == DC_ROLE_NEWFD)
				pr->newfd_slot = s;
			else if (role == DC_ROLE_ITEMSIZE)
				pr->itemsize_slot = s;
			else if (role == DC_ROLE_ITEMS)
				pr->items_slot = s;
			else if (role == DC_ROLE_DATATYPE)
				pr->dtype_slot = s;
			else if (role == DC_ROLE_STR || role == DC_ROLE_STR_OUT)
				pr->str_slot = s;
			else if (role == DC_ROLE_FED)
				pr->fed_slot = s;
			else if (role == DC_ROLE_NAME)
				pr->name_slot = s;
			else if (role == DC_ROLE_STREAM)
				stream = true;
			else if (role == DC_ROLE_FUNC ||
				 role == DC_ROLE_SRCFILE)
				pr->texts = true;
			else if ((role == DC_ROLE_HANDLE ||
				  role == DC_ROLE_HANDLE_REF ||
				  role == DC_ROLE_HANDLE_OUT) &&
				 pr->handle_slot < 0) {
				pr->handle_slot = s;
				pr->handle_out = role == DC_ROLE_HANDLE_OUT;
			}
		}
		pr->disabled = !dc_layer_enabled(sess, pr->d->layer);
		pr->fd_effect = fd_effect(pr, stream);
		pr->dupfd_cmd_slot = flags_slot(pr);
		/* H5Fclose, H5Dclose, MPI_File_close: the handle ends. */
		pr->closes = pr->d->effect == DC_EFFECT_CLOSE;
	}
	return json_names(sess);
}

/* Which calls change what an fd or handle means (always sent as events,
 * never filtered) and how the others name their file (profile mode). */
static void classify_caps(struct dc_session *sess, struct dc_capture *caps,
			  size_t ncaps)
{
	for (size_t i = 0; i < sess->nprobes && i < ncaps; i++) {
		const struct dc_probe *pr = &sess->probes[i];
		struct dc_capture *c = &caps[i];
		int stream = -1;

		for (int s = 0; s < pr->d->nslots; s++)
			if (pr->d->slot_role[s] == DC_ROLE_STREAM)
				stream = s;
		c->track = pr->path_slot >= 0 || pr->fd_effect != DC_FD_KEEP ||
			   pr->d->ret == DC_RET_HANDLE || pr->handle_out ||
			   (pr->closes && pr->handle_slot >= 0);
		c->obj_slot = -1;
		c->obj_kind = DC_OBJ_NONE;
		if (pr->fd_slot >= 0) {
			c->obj_kind = DC_OBJ_FD;
			c->obj_slot = pr->fd_slot;
		} else if (stream >= 0) {
			c->obj_kind = DC_OBJ_STREAM;
		} else if (pr->handle_slot >= 0) {
			c->obj_kind = DC_OBJ_HANDLE;
			c->obj_slot = pr->handle_slot;
		}
		c->gen_slot = -1;
		c->gen_what = pr->fd_effect == DC_FD_NEW	  ? DC_GEN_RET
			      : pr->fd_effect == DC_FD_NEW_STREAM ? DC_GEN_SFD
			      : pr->fd_effect == DC_FD_NEW_AT_NEWFD
				  ? DC_GEN_SLOT
				  : DC_GEN_NONE;
		if (c->gen_what == DC_GEN_SLOT)
			c->gen_slot = pr->newfd_slot;
		if (pr->fd_effect == DC_FD_DUPFD) {
			c->gen_what = DC_GEN_RET_IF_DUP;
			c->gen_slot = flags_slot(pr);
		}
		if (pr->d->ret == DC_RET_HANDLE) {
			c->gen_what = DC_GEN_HANDLE_RET;
		} else if (pr->handle_out) {
			c->gen_what = DC_GEN_HANDLE_SLOT;
			c->gen_slot = pr->handle_slot;
		}
		dc_dpattern(pr->d->layer, pr->d->name, &c->dmod, &c->pat);
		c->off_slot = c->whence_slot = -1;
		for (int s = 0; s < pr->d->nslots; s++) {
			if (pr->d->slot_role[s] == DC_ROLE_OFFSET)
				c->off_slot = s;
			else if (pr->d->slot_role[s] == DC_ROLE_WHENCE)
				c->whence_slot = s;
		}
		c->size_kind = pr->d->ret;
		c->size_slot =
		    pr->d->ret == DC_RET_STATUS && pr->dtype_slot >= 0
			? pr->items_slot
		    : pr->str_slot >= 0 ? pr->str_slot
					: pr->itemsize_slot;
	}
}

bool dc_layer_enabled(const struct dc_session *sess, const char *layer)
{
	const char *l = sess->opt.layers;
	size_t n = strlen(layer);

	if (!l)
		return true;
	while (*l) {
		size_t k = strcspn(l, ",");

		if (k == n && !strncmp(l, layer, n))
			return true;
		l += k + (l[k] == ',');
	}
	return false;
}

/* Whether a probe before @i has layer @n: each is listed once. */
static bool has_layer_before(const struct dc_session *sess, size_t i,
			     const char *n)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(sess->descs[j].layer, n))
			return true;
	return false;
}

static bool has_layer(const struct dc_session *sess, const char *l, size_t n)
{
	for (size_t i = 0; i < sess->nprobes; i++)
		if (strlen(sess->descs[i].layer) == n &&
		    !strncmp(sess->descs[i].layer, l, n))
			return true;
	return false;
}

/* Every --layers name is one of the object's layers: a typo must not
 * trace nothing in silence. */
static int check_layers(const struct dc_session *sess, const char *path)
{
	struct dc_buf known = {};

	for (const char *l = sess->opt.layers; l && *l;) {
		size_t k = strcspn(l, ",");

		if (!has_layer(sess, l, k)) {
			for (size_t i = 0; i < sess->nprobes; i++) {
				const char *n = sess->descs[i].layer;

				if (!has_layer_before(sess, i, n))
					dc_buf_addf(&known, "%s%s",
						    known.len ? ", " : "", n);
			}
			dc_err("-l: %s has no layer '%.*s' (it has %s)", path,
			       (int)k, l, known.len ? known.p : "none");
			dc_buf_free(&known);
			return -EINVAL;
		}
		l += k + (l[k] == ',');
	}
	return 0;
}

/* --layers: a syscall number, io_uring opcode or AIO command of a
 * disabled layer leaves its table, so its program returns at once. */
static void disable_numbered(struct dc_session *sess, __u32 *sysnr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (sysnr[i] && sysnr[i] <= sess->nprobes &&
		    !dc_layer_enabled(sess,
				      sess->probes[sysnr[i] - 1].d->layer))
			sysnr[i] = 0;
}

/* A map the object's probes never use still costs its allocation at
 * load: left with the fewest entries the kernel accepts. */
static int shrink_map(struct bpf_map *m)
{
	int n = 1;

	if (bpf_map__type(m) == BPF_MAP_TYPE_LRU_HASH)
		n = libbpf_num_possible_cpus(); /* an LRU list per CPU */
	return n > 0 ? bpf_map__set_max_entries(m, n) : n;
}

int dc_probes_read(struct dc_session *sess, const char *path)
{
	struct stat st;
	int err;

	sess->path = path;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		dc_err("%s: a directory, not an object (datacrumbs-gen makes "
		       "one from specs)",
		       path);
		return -EISDIR;
	}
	err = dc_probe_table_read(path, &sess->descs, &sess->nprobes);
	if (err == -ENOEXEC) {
		dc_err(
		    "%s: not an object made by datacrumbs-gen (no %s section)",
		    path, DC_PROBE_SECTION);
		return err;
	}
	if (err == -EPROTO) {
		dc_err("%s: made for another DataCrumbs ABI version; "
		       "regenerate it with this datacrumbs-gen",
		       path);
		return err;
	}
	if (err == -EBADMSG) {
		dc_err("%s: the %s section is damaged; regenerate the object "
		       "with datacrumbs-gen",
		       path, DC_PROBE_SECTION);
		return err;
	}
	if (err) {
		dc_err("%s: %s", path, strerror(-err));
		return err;
	}
	err = init_probes(sess);
	return err ? err : check_layers(sess, path);
}

/* The tests' DATACRUMBS_WRAPPERS_BY_CODE=1: match every wrapper's call
 * as when its mapping cannot be resolved. */
static bool wrap_by_code(void)
{
	const char *e = getenv("DATACRUMBS_WRAPPERS_BY_CODE");

	return e && strcmp(e, "0");
}

/* A bit for every process id the kernel may give. */
static int size_traced_bits(struct bpf_map *m)
{
	unsigned long pid_max = 4194304; /* PID_MAX_LIMIT on 64-bit */
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");

	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1 || pid_max > 4194304)
			pid_max = 4194304;
		fclose(f);
	}
	return bpf_map__set_max_entries(m, (pid_max + 63) / 64);
}

/* A wrapper has a few syscall sites: room for all of every uprobe's. */
static int size_wrap_maps(struct dc_session *sess)
{
	size_t n = 0;

	for (size_t i = 0; i < sess->nprobes; i++)
		n += sess->probes[i].d->mech == DC_MECH_UPROBE;
	n = sess->opt.wrappers && n ? n * DC_STUB_SITES : 1;
	return bpf_map__set_max_entries(sess->o.maps.wrap_sites, n)
		   ?: bpf_map__set_max_entries(sess->o.maps.wrap_byoff, n);
}

/* -vv: the kernel's statistics of each program's verification (log
 * level 4: instructions processed, time), one line a program, so that
 * what makes loading slow on a kernel can be named. */
#define DC_STATS_LOG 4096

static char *stats_logs(struct bpf_object *obj)
{
	struct bpf_program *p;
	char *logs;
	size_t n = 0;

	bpf_object__for_each_program (p, obj)
		n++;
	logs = calloc(n ? n : 1, DC_STATS_LOG);
	if (!logs)
		return NULL;
	n = 0;
	bpf_object__for_each_program (p, obj) {
		bpf_program__set_log_level(p, 4);
		bpf_program__set_log_buf(p, logs + n++ * DC_STATS_LOG,
					 DC_STATS_LOG);
	}
	return logs;
}

static void say_stats(struct bpf_object *obj, const char *logs)
{
	unsigned long long insns, us, total = 0;
	struct bpf_program *p;
	size_t n = 0;

	bpf_object__for_each_program (p, obj) {
		const char *l = logs + n++ * DC_STATS_LOG;
		const char *t = strstr(l, "verification time ");
		const char *i = strstr(l, "processed ");

		if (!bpf_program__autoload(p) || !t || !i ||
		    sscanf(t, "verification time %llu usec", &us) != 1 ||
		    sscanf(i, "processed %llu insns", &insns) != 1)
			continue;
		total += us;
		dc_info("verifier: %s: %llu instructions, %llu us",
			bpf_program__name(p), insns, us);
	}
	dc_info("verifier: %llu us in all", total);
}

int dc_load(struct dc_session *sess, const char *path)
{
	const struct dc_session_opts *opt = &sess->opt;
	/* Streams are glibc's: the runtime is built against the same ABI. */
	struct dc_config cfg = { .trace_all = opt->trace_all,
				 .self_pid = getpid(),
				 .fileno_off = offsetof(FILE, _fileno),
				 .profile = opt->profile,
				 .cgroups = sess->opt.server,
				 .min_dur_ns = sess->opt.min_dur_ns,
				 .wrap_by_code = wrap_by_code(),
				 .ring_size = opt->ringbuf_size };
	struct dc_obj *o = &sess->o;
	char *logs = NULL;
	const struct dc_obj_maps *m = &o->maps;
	int err;

	err = dc_probes_read(sess, path) ?: dc_uprobes_prepare(sess) ?:
	      dc_obj_open(o, path);
	if (err)
		return err;
	dc_dtypes_find(sess, o->caps, o->ncaps, &cfg);
	*o->cfg = cfg;
	classify_caps(sess, o->caps, o->ncaps);
	disable_numbered(sess, o->sysnr, o->nsysnr);
	disable_numbered(sess, o->uring_ops, o->nuring_ops);
	disable_numbered(sess, o->aio_ops, o->naio_ops);
	disable_numbered(sess, o->paio_ops, o->npaio_ops);
	/* Per-CPU aggregates are preallocated: 120 ms of start-up that
	 * trace mode never uses; fd generations are profile mode's too. */
	if (!opt->profile) {
		err = shrink_map(m->agg[0]) ?: shrink_map(m->agg[1]) ?:
		      shrink_map(m->fdgen) ?: shrink_map(m->fdpat) ?:
		      shrink_map(m->hdl);
		if (err)
			return err;
	}
	if (!dc_has_mech(sess, DC_MECH_IO_URING) &&
	    (err = shrink_map(m->uring_pending)))
		return err;
	if (!dc_has_mech(sess, DC_MECH_LIBAIO) &&
	    (err = shrink_map(m->aio_pending) ?: shrink_map(m->aio_reaping)))
		return err;
	if (!dc_has_mech(sess, DC_MECH_POSIXAIO) &&
	    (err = shrink_map(m->paio_pending)))
		return err;
	if (!dc_has_mech(sess, DC_MECH_TRACEPOINT) &&
	    (err = shrink_map(m->tpcfg) ?: shrink_map(m->tp_pending)))
		return err;
	err = dc_kernel_check();
	if (err)
		return err;
	err = dc_choose_for_kernel(sess);
	if (err)
		return err;
	err = size_wrap_maps(sess) ?: size_traced_bits(m->traced_bits);
	if (err)
		return err;
	if (sess->opt.max_procs &&
	    (err = bpf_map__set_max_entries(m->pids, sess->opt.max_procs))) {
		dc_err("--max-procs %u: %s", sess->opt.max_procs,
		       strerror(-err));
		return err;
	}
	err = bpf_map__set_max_entries(m->events, opt->ringbuf_size);
	if (err) {
		dc_err("ring buffer size %zu: %s", opt->ringbuf_size,
		       strerror(-err));
		return err;
	}
	err = dc_size_fallback_maps(sess);
	if (err)
		return err;
	if (opt->verifier_stats && !(logs = stats_logs(o->obj)))
		return -ENOMEM;
	err = bpf_object__load(o->obj);
	if (logs && !err)
		say_stats(o->obj, logs);
	free(logs);
	/* -vv's statistics replace the verifier's own messages. */
	if (err) {
		dc_err("%s: loading into the kernel failed: %s (run with -v%s "
		       "for the verifier's log)",
		       path, strerror(-err),
		       opt->verifier_stats ? " alone, not -vv," : "");
		return err;
	}
	err = dc_obj_map_closes(o);
	if (err)
		dc_err("%s: cannot map dc_close_ts: %s", path, strerror(-err));
	return err;
}

uint64_t dc_limit(struct dc_session *sess, enum dc_limit which)
{
	__u32 key = which;
	__u64 n = 0;

	bpf_map_lookup_elem(bpf_map__fd(sess->o.maps.limits), &key, &n);
	return n;
}

uint64_t dc_untraced_procs(struct dc_session *sess)
{
	return dc_limit(sess, DC_LIMIT_PROCS);
}

int dc_read_losses(struct dc_session *sess)
{
	struct bpf_map *m = sess->o.maps.lost;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 n, done = 0, next, *keys = NULL;
	__u64 *vals = NULL;
	void *in = NULL;
	int err = 0;

	n = bpf_map__max_entries(m);
	keys = calloc(n, sizeof(*keys));
	vals = calloc(n, sizeof(*vals));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* One batched read: a lookup per probe and reason made exiting
	 * with thousands of probes take a third of a second. */
	while (done < n) {
		__u32 count = n - done;

		err =
		    bpf_map_lookup_batch(bpf_map__fd(m), in, &next, keys + done,
					 vals + done, &count, &opts);
		done += count;
		if (err) {
			err = errno == ENOENT ? 0 : -errno;
			break;
		}
		in = &next;
	}
	for (size_t i = 0; i < sess->nprobes; i++)
		memset(sess->probes[i].lost, 0, sizeof(sess->probes[i].lost));
	for (__u32 j = 0; j < done; j++) {
		size_t i = keys[j] / DC_LOSS_NR;

		if (i < sess->nprobes)
			sess->probes[i].lost[keys[j] % DC_LOSS_NR] = vals[j];
	}
cleanup:
	free(keys);
	free(vals);
	return err;
}

uint64_t dc_lost_total(struct dc_session *sess)
{
	uint64_t total = dc_limit(sess, DC_LIMIT_VMA);

	dc_read_losses(sess);
	for (size_t i = 0; i < sess->nprobes; i++)
		for (int r = 0; r < DC_LOSS_NR; r++)
			if (dc_loss_is_lost(r))
				total += sess->probes[i].lost[r];
	return total;
}

void dc_unload(struct dc_session *sess)
{
	dc_uprobes_free(sess);
	dc_usdts_free(sess);
	dc_detach_all(sess);
	dc_obj_close(&sess->o);
	for (size_t i = 0; sess->probes && i < sess->nprobes; i++)
		free(sess->probes[i].event);
	free(sess->json_names);
	free(sess->probes);
	free(sess->descs);
	sess->probes = NULL;
	sess->descs = NULL;
	sess->json_names = NULL;
}
