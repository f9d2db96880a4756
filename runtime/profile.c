// SPDX-License-Identifier: MIT
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "log.h"
#include "filter.h"
#include "profile.h"
#include "session.h"
#include "sinks.h"

/* One aggregate of the current interval. */
struct agg {
	uint32_t pid, tid;
	struct dc_probe *probe;
	struct dc_file *file;
	const char *object; /* interned: one pointer per name */
	bool inner;
	struct dc_agg_val v;
};

struct dc_profile {
	struct dc_session *sess;
	struct dc_procs *ps;
	struct dc_filter *filter;
	struct dc_sinks *out;
	uint64_t interval_ns;
	uint64_t start_ns; /* of the current interval, CLOCK_MONOTONIC */
	int epoch;	   /* dc_epoch map: which aggregate map is written */
	__u32 cur;
	int maps[2];
	int inflight;	       /* per-CPU aggregations under way */
	struct bpf_link *iter; /* dc_agg_iter: the threads' own aggregates */
	int ncpu;
	struct dc_agg_val *percpu;
	struct dc_map table; /* hash of (pid, tid, probe, file, object, inner)
				-> agg */
};

static uint64_t agg_hash(uint32_t pid, uint32_t tid, const struct dc_probe *p,
			 const struct dc_file *f, const char *o, bool inner)
{
	uint64_t k[6] = { pid,		tid,	      (uintptr_t)p,
			  (uintptr_t)f, (uintptr_t)o, inner };
	uint64_t h = dc_hash((const char *)k, sizeof(k));

	return h ? h : 1;
}

/* Fold @a into @v, as the programs' dc_agg_fold does. */
static void fold(struct dc_agg_val *v, const struct dc_agg_val *a)
{
	if (!a->count)
		return;
	if (!v->count || a->dur_min < v->dur_min)
		v->dur_min = a->dur_min;
	if (a->dur_max > v->dur_max)
		v->dur_max = a->dur_max;
	if (a->max_byte > v->max_byte)
		v->max_byte = a->max_byte;
	v->count += a->count;
	v->dur_sum += a->dur_sum;
	v->size_sum += a->size_sum;
	for (int i = 0; i < DC_HIST_N; i++)
		v->hist[i] += a->hist[i];
	v->seq += a->seq;
	v->consec += a->consec;
	v->switches += a->switches;
	v->errs += a->errs;
	v->unsized += a->unsized;
}

static void add(struct dc_profile *pf, uint32_t pid, uint32_t tid,
		struct dc_probe *probe, struct dc_file *file,
		const char *object, bool inner, const struct dc_agg_val *v)
{
	uint64_t h = agg_hash(pid, tid, probe, file, object, inner);
	struct agg *a;

	/* Distinct keys with one hash take the next free slot. */
	for (;; h = h + 1 ? h + 1 : 1) {
		a = dc_map_get(&pf->table, h);
		if (!a || (a->pid == pid && a->tid == tid &&
			   a->probe == probe && a->file == file &&
			   a->object == object && a->inner == inner))
			break;
	}
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a || dc_map_put(&pf->table, h, a)) {
			free(a);
			return;
		}
		*a = (struct agg){ pid, tid, probe, file, object, inner, *v };
		return;
	}
	fold(&a->v, v);
}

int dc_profile_init(struct dc_profile **pfp, struct dc_session *sess,
		    struct dc_procs *ps, struct dc_filter *filter,
		    struct dc_sinks *out, uint64_t interval_ns, uint64_t now)
{
	const struct dc_obj_maps *m = &sess->o.maps;
	struct dc_profile *pf;

	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	pf->sess = sess;
	pf->ps = ps;
	pf->filter = filter;
	pf->out = out;
	pf->interval_ns = interval_ns;
	pf->start_ns = now;
	pf->ncpu = libbpf_num_possible_cpus();
	if (pf->ncpu <= 0) {
		free(pf);
		return -EINVAL;
	}
	pf->maps[0] = bpf_map__fd(m->agg[0]);
	pf->maps[1] = bpf_map__fd(m->agg[1]);
	pf->inflight = bpf_map__fd(m->inflight);
	pf->epoch = bpf_map__fd(m->epoch);
	pf->percpu = calloc(pf->ncpu, sizeof(*pf->percpu));
	if (!pf->percpu) {
		free(pf);
		return -ENOMEM;
	}
	*pfp = pf;
	pf->iter = bpf_program__attach_iter(sess->o.progs.agg_iter, NULL);
	if (!pf->iter) {
		int err = -errno;

		dc_err("%s: cannot attach the task iterator of profile mode: "
		       "%s",
		       sess->path, strerror(-err));
		return err;
	}
	return 0;
}

/* (fd, generation) -> file: from the tracked open that gave it; with
 * generation 0, the file it had before tracing began. */
static struct dc_file *fd_file(struct dc_procs *ps, struct dc_proc *p,
			       int32_t fd, uint32_t gen)
{
	struct dc_file *f =
	    gen ? dc_map_get(&p->fdgens,
			     (uint64_t)(uint32_t)fd | (uint64_t)gen << 32)
		: NULL;

	return f ? f : gen ? NULL : dc_fd_initial(ps, p, fd);
}

void dc_profile_call(struct dc_profile *pf, const struct dc_call *c)
{
	struct dc_agg_val v = { .count = 1,
				.dur_sum = c->dur,
				.dur_min = c->dur,
				.dur_max = c->dur };
	int64_t bytes = dc_call_bytes(c);

	if (bytes > 0)
		v.size_sum = bytes;
	v.unsized = dc_call_unsized(c);
	/* As the programs and the report tell a failure: MPI-IO's status,
	 * a stream's NULL, or -1. */
	if (!strcmp(c->probe->d->layer, "MPIIO"))
		v.errs = c->ret != 0;
	else
		v.errs = c->probe->d->ret == DC_RET_STREAM ? c->ret == 0
							   : c->ret < 0;
	add(pf, c->pid, c->tid, c->probe, c->file, c->object, c->inner, &v);
}

/* An aggregate of the programs, named as trace mode names its calls:
 * the file, and for a handle the object (an HDF5 dataset), its key
 * stands for. */
static void add_key(struct dc_profile *pf, const struct dc_agg_key *k,
		    const struct dc_agg_val *v)
{
	struct dc_proc *p = dc_proc_get(pf->ps, k->pid);
	const struct dc_hgen *g = NULL;
	struct dc_file *file = NULL;
	const char *object = NULL;

	if (k->probe >= pf->sess->nprobes)
		return;
	if (p && (k->kind == DC_OBJ_FD || k->kind == DC_OBJ_STREAM))
		file = fd_file(pf->ps, p, (int32_t)k->obj, k->obj >> 32);
	if (p && k->kind == DC_OBJ_HANDLE)
		g = dc_handle_gen(p, k->obj, k->hgen);
	if (g) {
		file = g->file;
		object = g->object;
	} else if (p && k->kind == DC_OBJ_HANDLE && !k->hgen) {
		/* Generation 0: open before tracing began. */
		file = dc_handle_lookup(p, k->obj);
		object = dc_handle_object(p, k->obj);
	}
	add(pf, k->pid, k->tid, &pf->sess->probes[k->probe], file, object,
	    k->inner, v);
}

/* Wait until every CPU has been seen with no aggregation under way: all
 * that began before the epoch flip have then finished. */
static int quiesce(struct dc_profile *pf)
{
	__u64 *v = calloc(pf->ncpu, sizeof(*v));
	bool *seen = calloc(pf->ncpu, sizeof(*seen));
	__u32 zero = 0;
	int left = pf->ncpu, err = 0;

	if (!v || !seen) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (int tries = 0; left && tries < 100000; tries++) {
		if (bpf_map_lookup_elem(pf->inflight, &zero, v)) {
			err = -errno;
			break;
		}
		for (int c = 0; c < pf->ncpu; c++)
			if (!seen[c] && !v[c]) {
				seen[c] = true;
				left--;
			}
		if (left)
			usleep(10);
	}
	if (left && !err)
		err = -ETIMEDOUT;
cleanup:
	free(v);
	free(seen);
	return err;
}

/* Move every aggregate of @map into the table, emptying it. */
static int drain(struct dc_profile *pf, int map)
{
	struct dc_agg_key key, next, *keys = NULL;
	size_t n = 0, cap = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(map, prev, &next)) {
		if (dc_grow_cap((void **)&keys, &cap, n, sizeof(*keys), 256)) {
			free(keys);
			return -ENOMEM;
		}
		keys[n++] = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < n; i++) {
		struct dc_agg_val sum = {};

		if (bpf_map_lookup_elem(map, &keys[i], pf->percpu))
			continue;
		for (int c = 0; c < pf->ncpu; c++)
			fold(&sum, &pf->percpu[c]);
		bpf_map_delete_elem(map, &keys[i]);
		if (sum.count)
			add_key(pf, &keys[i], &sum);
	}
	free(keys);
	return 0;
}

/* Move every thread's own aggregates of @epoch into the table: the task
 * iterator reads and clears them. */
static int drain_threads(struct dc_profile *pf, __u32 epoch)
{
	struct dc_agg_slot s[64];
	int fd, err;
	ssize_t n;

	err = dc_obj_set_drain_epoch(&pf->sess->o, epoch);
	if (err)
		return err;
	fd = bpf_iter_create(bpf_link__fd(pf->iter));
	if (fd < 0)
		return -errno;
	while ((n = read(fd, s, sizeof(s))) > 0)
		for (size_t i = 0; i < n / sizeof(*s); i++)
			if (s[i].v.count)
				add_key(pf, &s[i].k, &s[i].v);
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

bool dc_profile_due(const struct dc_profile *pf, uint64_t now)
{
	return now - pf->start_ns >= pf->interval_ns;
}

int dc_profile_flip(struct dc_profile *pf)
{
	pf->cur ^= 1;
	if (bpf_map_update_elem(pf->epoch, &(__u32){ 0 }, &pf->cur, BPF_ANY))
		return -errno;
	return quiesce(pf);
}

int dc_profile_write(struct dc_profile *pf, uint64_t now, bool all)
{
	__u32 old = pf->cur ^ 1;
	int err;

	err = drain(pf, pf->maps[old & 1]) ?: drain_threads(pf, old & 1);
	if (all && !err)
		err = drain(pf, pf->maps[(old & 1) ^ 1])
			  ?: drain_threads(pf, (old & 1) ^ 1);
	if (err)
		return err;
	dc_map_foreach (&pf->table, i) {
		struct agg *a = pf->table.vals[i];
		struct dc_proc *p = dc_map_get(&pf->ps->procs, a->pid);
		struct dc_rthread *t = dc_thread_get(pf->ps, a->tid, a->pid);

		if (!dc_filter_keep(pf->filter, a->file)) {
			pf->filter->filtered += a->v.count;
		} else if (t && !dc_withhold(pf->out, p)) {
			dc_proc_describe(p, t);
			dc_pfw_counter(dc_sink(pf->out, p), p, t, a->probe,
				       a->file, a->object, a->inner, &a->v,
				       pf->start_ns);
		}
		a->probe->calls += a->v.count;
		free(a);
	}
	dc_map_free(&pf->table, NULL);
	dc_handles_expire(pf->ps);
	pf->start_ns = now;
	return 0;
}

void dc_profile_free(struct dc_profile *pf)
{
	if (!pf)
		return;
	dc_map_free(&pf->table, free);
	bpf_link__destroy(pf->iter);
	free(pf->percpu);
	free(pf);
}
