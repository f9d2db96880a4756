// SPDX-License-Identifier: MIT
/*
 * Darshan's counters from a trace's calls: the calls and counter records
 * of the layers Darshan has modules for are kept as they are read, then
 * counted into a record per module, process and file once every trace is
 * read, each by its module (dc_dmodules[]).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "darshan.h"
#include "darshan_ops.h"
#include "buf.h"
#include "darshan_rec.h"
#include "hash.h"
#include "report.h"

/* Longest object name kept (an HDF5 dataset's path in its file). */
#define DC_OBJECT_MAX 1024

static bool reads_layer(const struct dc_dmodule *mod, const struct dc_str *cat)
{
	for (int i = 0; i < 2 && mod->layers[i]; i++)
		if (dc_str_is(cat, mod->layers[i]))
			return true;
	return false;
}

/* The module that takes a call (@call) or counter record @ev, and its
 * op: the first module of the event's layer with an op of that name;
 * else, for a call, the first of the layer that keeps calls it counts
 * nothing of (op 0). 0: none. */
static int module_of(struct dc_darshan *d, const struct dc_trace_event *ev,
		     bool call, int *op)
{
	int opless = 0;
	bool read = false;

	*op = 0;
	if (ev->cat.n == d->skip_n && !memcmp(ev->cat.p, d->skip, d->skip_n))
		return 0;
	for (int m = 1; m < DC_DM_N; m++) {
		int o;

		if (!reads_layer(dc_dmodules[m], &ev->cat))
			continue;
		read = true;
		o = dc_dmodules[m]->op(&ev->cat, &ev->name, call);

		if (o > 0) {
			*op = o;
			return m;
		}
		if (!o && call && !opless && dc_dmodules[m]->opless)
			opless = m;
	}
	if (!read && ev->cat.n <= sizeof(d->skip)) {
		memcpy(d->skip, ev->cat.p, ev->cat.n);
		d->skip_n = ev->cat.n;
	}
	return opless;
}

/* fileno, a STDIO function, is counted by POSIX. */
static int counted_by(int module, int op)
{
	return module == DC_DM_STDIO && op == DC_DOP_FILENO ? DC_DM_POSIX
							    : module;
}

void dc_darshan_init(struct dc_darshan *d)
{
	memset(d, 0, sizeof(*d));
	d->trace_no = 1;
}

void dc_darshan_free(struct dc_darshan *d)
{
	for (size_t i = 0; i < d->nrecs; i++)
		free(d->vrecs[i]);
	free(d->vrecs);
	free(d->calls);
	free(d->counters);
	dc_map_free(&d->recs, NULL);
	dc_map_free(&d->byfile, NULL);
	dc_map_free(&d->objects, free);
	free(d->fs);
}

/* The hash of @ev's object ("/grp/data"), its name kept in @d; 0 if it
 * names none. */
static int object_of(struct dc_darshan *d, const struct dc_trace_event *ev,
		     uint64_t *ohash)
{
	char name[DC_OBJECT_MAX], *copy;
	size_t n;
	uint64_t h;

	*ohash = 0;
	if (!(ev->has & DC_EV_OBJECT))
		return 0;
	n = dc_str_copy(&ev->object, name, sizeof(name));
	h = dc_hash(name, n) | 1;
	/* A name that collides with another is not told apart. */
	if (!dc_map_get(&d->objects, h)) {
		copy = strdup(name);
		if (!copy || dc_map_put(&d->objects, h, copy)) {
			free(copy);
			return -ENOMEM;
		}
	}
	*ohash = h;
	return 0;
}

/* A call event. Returns 0 or -ENOMEM. */
static int call_add(struct dc_darshan *d, const struct dc_trace_event *ev)
{
	int op, module = module_of(d, ev, true, &op);
	struct dc_dcall *c;
	uint64_t ohash;

	/* The C library's AIO helper threads: their calls are inside it,
	 * where Darshan never sees them. */
	if (!module || ev->ph != 'X' || !(ev->has & DC_EV_ID) ||
	    (ev->has & DC_EV_AIO_HELPER))
		return 0;
	if (object_of(d, ev, &ohash))
		return -ENOMEM;
	if (dc_grow_cap((void **)&d->calls, &d->cap, d->ncalls,
			sizeof(*d->calls), 1024))
		return -ENOMEM;
	c = &d->calls[d->ncalls++];
	*c = (struct dc_dcall){
		.key = d->trace_no << 40 | (ev->id & ((1ull << 40) - 1)),
		.fhash = ev->fhash,
		.hhash = ev->hhash,
		.pid = ev->pid,
		.ohash = dc_dmodules[module]->per_object ? ohash : 0,
		.op = op,
		.module = module,
		.ts = ev->ts,
		.size = ev->size,
		.offset = ev->offset,
		.ret = ev->ret,
		.whence = ev->whence,
		.flags = ev->flags,
		.mode = ev->mode,
		.selection = ev->selection,
		.regular = ev->regular,
		.ndims = ev->ndims,
		.npoints = ev->npoints,
		.typesize = ev->typesize,
		.dur = ev->dur,
		.has = ev->has,
	};
	if ((ev->has & DC_EV_PIDX) && ev->p_idx >= 0)
		c->parent = d->trace_no << 40 | (uint64_t)ev->p_idx;
	return 0;
}

/* A counter record (profile mode): what its module counts of it that
 * needs no single call. Returns 0 or -ENOMEM. */
static int counter_add(struct dc_darshan *d, const struct dc_trace_event *ev)
{
	int op, module = module_of(d, ev, false, &op);
	struct dc_dcounter *c;
	uint64_t ohash = 0;

	/* Darshan does not see calls inside the calls it sees. */
	if (!module || !op || ev->inner || !(ev->has & DC_EV_FHASH) ||
	    ev->count <= ev->errs)
		return 0;
	if (dc_dmodules[module]->per_object && object_of(d, ev, &ohash))
		return -ENOMEM;
	if (dc_grow_cap((void **)&d->counters, &d->ccap, d->ncounters,
			sizeof(*d->counters), 256))
		return -ENOMEM;
	c = &d->counters[d->ncounters++];
	*c = (struct dc_dcounter){
		.fhash = ev->fhash,
		.hhash = ev->hhash,
		.ohash = ohash,
		.pid = ev->pid,
		.op = op,
		.module = counted_by(module, op),
		.calls = ev->count - ev->errs,
		.size_sum = ev->size_sum,
		.dur_sum = ev->dur_sum,
		.seq = ev->seq,
		.consec = ev->consec,
		.switches = ev->switches,
		.max_byte = ev->max_byte,
		.unsized = ev->unsized,
	};
	memcpy(c->hist, ev->hist, sizeof(c->hist));
	return 0;
}

int dc_darshan_line(struct dc_darshan *d, const struct dc_trace_event *ev)
{
	if (ev->ph == 'C')
		return counter_add(d, ev);
	/* The run's start and end records are not calls. */
	if (ev->ph == 'X' && !dc_str_is(&ev->cat, "dftracer"))
		return call_add(d, ev);
	return 0;
}

void dc_darshan_trace_done(struct dc_darshan *d)
{
	d->trace_no++;
}

/* @c's record of @module, made if @make; NULL if none or out of memory. */
static struct dc_drec *rec_get(struct dc_darshan *d, int module,
			       const struct dc_dcall *c, bool make)
{
	uint64_t key = (c->fhash ^ c->hhash * 0x9e3779b97f4a7c15ull ^
			(uint64_t)c->pid << 32 ^ c->ohash) +
		       module;
	struct dc_drec *r;

	key = key ? key : 1;
	/* A collision of the mixed key is told apart by the fields. */
	for (; (r = dc_map_get(&d->recs, key)); key++)
		if (r->module == module && r->fhash == c->fhash &&
		    r->hhash == c->hhash && r->pid == c->pid &&
		    r->ohash == c->ohash)
			return r;
	if (!make)
		return NULL;
	if (dc_grow((void **)&d->vrecs, d->nrecs, sizeof(*d->vrecs), 64))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r || dc_map_put(&d->recs, key, r)) {
		free(r);
		return NULL;
	}
	r->module = module;
	r->fhash = c->fhash;
	r->hhash = c->hhash;
	r->pid = c->pid;
	r->ohash = c->ohash;
	d->vrecs[d->nrecs++] = r;
	if (dc_dmodules[module]->made)
		dc_dmodules[module]->made(r, d);
	return r;
}

static bool failed(const struct dc_dcall *c)
{
	if (!(c->has & DC_EV_RET))
		return false;
	/* MPI_SUCCESS is 0, error classes are positive. */
	if (dc_dmodules[c->module]->mpi_status)
		return c->ret != 0;
	/* Stream opens return a pointer; the others -1 or a negative errno. */
	return c->op == DC_DOP_SOPEN || c->op == DC_DOP_SFDOPEN ? c->ret == 0
								: c->ret < 0;
}

/* A process's key among the report's processes. */
static uint64_t proc_key(uint64_t hhash, uint32_t pid)
{
	uint64_t k = hhash * 0x9e3779b97f4a7c15ull ^ pid;

	return k ? k : 1;
}

/* Records of one module, file and dataset share a key. */
static uint64_t share_key(const struct dc_drec *x)
{
	uint64_t k = (x->fhash ^ x->ohash * 0x9e3779b97f4a7c15ull) +
		     x->module * 0xff51afd7ed558ccdull;

	return k ? k : 1;
}

/* Each record's MPI rank, from its process's PR records, and how many
 * processes have a record of its module and file (which tells MPI-IO
 * opens collective). */
static int set_sharing(struct dc_darshan *d)
{
	const struct dc_darshan_run *run = &d->run;
	struct dc_map procs = {}, shared = {};
	int err = 0;

	for (size_t k = 0; k < run->nprocs && !err; k++)
		err = dc_map_put(
		    &procs, proc_key(run->procs[k]->hhash, run->procs[k]->pid),
		    run->procs[k]);
	for (size_t i = 0; i < d->nrecs && !err; i++) {
		struct dc_drec *x = d->vrecs[i];
		const struct dcr_proc *p =
		    dc_map_get(&procs, proc_key(x->hhash, x->pid));
		uint64_t k = share_key(x);
		uintptr_t n = (uintptr_t)dc_map_get(&shared, k);

		/* A collision of the key is told apart by the fields. */
		if (p && (p->pid != x->pid || p->hhash != x->hhash))
			p = NULL;
		x->rank = p && p->rank ? atoi(p->rank) : -1;
		err = dc_map_put(&shared, k, (void *)(n + 1));
	}
	for (size_t i = 0; i < d->nrecs && !err; i++) {
		struct dc_drec *x = d->vrecs[i];

		x->sharers = (uintptr_t)dc_map_get(&shared, share_key(x));
		if (dc_dmodules[x->module]->finish)
			dc_dmodules[x->module]->finish(x);
	}
	dc_map_free(&shared, NULL);
	dc_map_free(&procs, NULL);
	return err;
}

/* Counter record @k into @r: times as sums of the calls' durations, and
 * what its module counts of it. */
static void count_call(struct dc_drec *r, const struct dc_dcounter *k)
{
	const struct dc_dmodule *m = dc_dmodules[r->module];
	int kind = m->kind(k->op);
	double t = (double)k->dur_sum / 1e6;

	r->counted = true;
	if (kind == DC_DK_READ)
		r->f[DC_DT_READ_TIME] += t;
	else if (kind == DC_DK_WRITE || kind == DC_DK_SYNC)
		r->f[DC_DT_WRITE_TIME] += t;
	else if (kind != DC_DK_NONE)
		r->f[DC_DT_META_TIME] += t;
	if (kind == DC_DK_READ || kind == DC_DK_WRITE)
		r->moved += k->size_sum;
	m->count(r, k);
}

/* Records from counter records: closes last, as they count only on a
 * record something else made. */
static int count_calls(struct dc_darshan *d)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->ncounters; i++) {
			const struct dc_dcounter *k = &d->counters[i];
			struct dc_dcall key = { .fhash = k->fhash,
						.hhash = k->hhash,
						.ohash = k->ohash,
						.pid = k->pid };
			bool close =
			    dc_dmodules[k->module]->kind(k->op) == DC_DK_CLOSE;
			struct dc_drec *r;

			if (close != (pass == 1))
				continue;
			r = rec_get(d, k->module, &key, !close);
			if (!r && !close)
				return -ENOMEM;
			if (r)
				count_call(r, k);
		}
	return 0;
}

/* What each call did through the modules below it, marked on it before
 * it is counted: children are listed before their parents (a call is
 * written as it returns). */
static void mark_nested(struct dc_darshan *d, const struct dc_map *ix)
{
	for (size_t i = 0; i < d->ncalls; i++) {
		const struct dc_dcall *c = &d->calls[i];
		struct dc_dcall *p =
		    c->parent ? dc_map_get(ix, c->parent) : NULL;

		if (p && dc_dmodules[p->module]->nested)
			dc_dmodules[p->module]->nested(p, c);
	}
}

/* Whether Darshan sees call @c, inside @p (or NULL): not inside libc
 * (fopen's open), nor inside the library of its own layer. Calls under
 * other layers (HDF5's pwrite, MPI-IO's) cross into the library below
 * through its entry points, and Darshan sees them. */
static bool seen(const struct dc_dcall *c, const struct dc_dcall *p)
{
	return !p || (p->module != DC_DM_POSIX && p->module != DC_DM_STDIO &&
		      dc_dmodules[p->module]->family !=
			  dc_dmodules[c->module]->family);
}

/* The calls into their records. */
static int count_all(struct dc_darshan *d, const struct dc_map *ix)
{
	int64_t t0 = d->run.t0;

	for (size_t i = 0; i < d->ncalls; i++) {
		const struct dc_dcall *c = &d->calls[i];
		const struct dc_dcall *p =
		    c->parent ? dc_map_get(ix, c->parent) : NULL;
		int module = counted_by(c->module, c->op);
		const struct dc_dmodule *m = dc_dmodules[module];
		bool close;
		struct dc_drec *r;

		if (!seen(c, p) || !c->op || !(c->has & DC_EV_FHASH) ||
		    failed(c))
			continue;
		/* A close counts on a record that something else made. */
		close = m->kind(c->op) == DC_DK_CLOSE;
		if (!(r = rec_get(d, module, c, !close))) {
			if (!close)
				return -ENOMEM;
			continue;
		}
		m->call(r, c, (double)(c->ts - t0) / 1e6,
			(double)(c->ts + c->dur - t0) / 1e6);
	}
	return 0;
}

static int by_rank(const void *a, const void *b)
{
	const struct dc_drec *x = *(struct dc_drec *const *)a;
	const struct dc_drec *y = *(struct dc_drec *const *)b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->ohash > y->ohash) - (x->ohash < y->ohash);
}

/* Each file's records in one list, for the reductions: from the highest
 * rank down, the order in which Darshan's reduction of a shared record
 * merges its ranks (which the common values and the mode depend on),
 * whatever order the processes appeared in. */
static int link_files(struct dc_darshan *d)
{
	struct dc_drec **v;
	int err = 0;

	if (!d->nrecs)
		return 0;
	v = malloc(d->nrecs * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, d->vrecs, d->nrecs * sizeof(*v));
	qsort(v, d->nrecs, sizeof(*v), by_rank);
	for (size_t i = 0; i < d->nrecs && !err; i++) {
		uint64_t key = v[i]->fhash ? v[i]->fhash : 1;

		v[i]->next = dc_map_get(&d->byfile, key);
		err = dc_map_put(&d->byfile, key, v[i]);
	}
	free(v);
	return err;
}

int dc_darshan_finish(struct dc_darshan *d, const struct dc_darshan_run *run)
{
	struct dc_map ix = {};
	int err;

	d->run = *run;
	err = dc_darshan_fs_table(d);
	for (size_t i = 0; i < d->ncalls && !err; i++)
		err = dc_map_put(&ix, d->calls[i].key, &d->calls[i]);
	if (!err) {
		mark_nested(d, &ix);
		err = count_all(d, &ix);
	}
	dc_map_free(&ix, NULL);
	if (!err)
		err = count_calls(d);
	if (!err)
		err = link_files(d);
	return err ?: set_sharing(d);
}
