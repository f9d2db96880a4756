// SPDX-License-Identifier: MIT
/*
 * A partial report as bytes and back, so that one made on a Dask worker
 * merges on the client (merge.c). One function walks the report for
 * both directions. The bytes are this build's: "DCRP", a version, the
 * sizes of the structures copied whole, the total length; every count
 * and index is checked against what precedes it, so a truncated or
 * foreign buffer is -EBADMSG or -EINVAL, never read past.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "darshan_rec.h"

#define MAGIC	"DCRP"
#define VERSION 3

struct io {
	bool rd;
	struct dc_buf *out; /* writing */
	const unsigned char *p;
	size_t n, pos; /* reading */
	int err;
};

static void raw(struct io *io, void *v, size_t n)
{
	/* Nothing to copy: @v may be an empty array's NULL. */
	if (io->err || !n)
		return;
	if (!io->rd) {
		if (dc_buf_add(io->out, v, n))
			io->err = -ENOMEM;
		return;
	}
	if (n > io->n - io->pos) {
		io->err = -EBADMSG;
		memset(v, 0, n);
		return;
	}
	memcpy(v, io->p + io->pos, n);
	io->pos += n;
}

#define VAL(io, v) raw(io, &(v), sizeof(v))

static void bad(struct io *io, bool cond)
{
	if (cond && !io->err)
		io->err = -EBADMSG;
}

/* A bool as a byte: any other value than 0 or 1 is not one. */
static void flag(struct io *io, bool *b)
{
	uint8_t v = *b;

	VAL(io, v);
	bad(io, v > 1);
	*b = v == 1;
}

/* @n times or amounts: sums of what a trace can hold, so 0 up to 2^63
 * (outputs convert them to integers). */
static void dbl(struct io *io, double *v, size_t n)
{
	raw(io, v, n * sizeof(*v));
	for (size_t i = 0; io->rd && i < n; i++)
		bad(io, !(v[i] >= 0 && v[i] < 0x1p63));
}

/* A count of elements of at least @each bytes: no more than are left. */
static void count(struct io *io, size_t *n, size_t each)
{
	uint64_t v = *n;

	VAL(io, v);
	bad(io, io->rd && v > (io->n - io->pos) / each);
	*n = io->err ? 0 : v;
}

static void str(struct io *io, char **s)
{
	uint64_t n = !io->rd && *s ? strlen(*s) : UINT64_MAX;

	VAL(io, n);
	if (!io->rd) {
		if (*s)
			raw(io, *s, n);
		return;
	}
	*s = NULL;
	if (io->err || n == UINT64_MAX)
		return;
	bad(io, n > io->n - io->pos);
	if (io->err)
		return;
	*s = malloc(n + 1);
	if (!*s) {
		io->err = -ENOMEM;
		return;
	}
	raw(io, *s, n);
	(*s)[n] = 0;
}

/* An array of @n elements, reading: as dc_grow() (@step) would have
 * grown it, so that the report goes on growing it so. */
static void *array(struct io *io, void *v, size_t n, size_t size, size_t step)
{
	void *p;

	if (!io->rd || io->err)
		return v;
	p = calloc((n / step + 1) * step, size);
	if (!p)
		io->err = -ENOMEM;
	return p;
}

static void stat_io(struct io *io, struct dc_stat *s)
{
	uint8_t has = s->hist != NULL;

	VAL(io, s->count);
	dbl(io, &s->time, 1);
	VAL(io, s->min);
	VAL(io, s->max);
	VAL(io, s->bytes);
	VAL(io, s->bytes_read);
	VAL(io, s->bytes_written);
	VAL(io, s->unsized);
	VAL(io, s->unsized_read);
	VAL(io, s->unsized_written);
	dbl(io, &s->io_time, 1);
	VAL(io, s->errors);
	VAL(io, s->timed);
	VAL(io, has);
	/* The percentiles of timed calls are the histogram's. */
	bad(io, s->timed && !has);
	if (!has || io->err)
		return;
	if (io->rd && !(s->hist = malloc(sizeof(*s->hist)))) {
		io->err = -ENOMEM;
		return;
	}
	raw(io, s->hist->b, sizeof(s->hist->b));
}

static void names_io(struct io *io, struct dc_report *r)
{
	size_t n = r->fnames.len;
	uint64_t key;
	char *name;

	count(io, &n, 16);
	if (!io->rd) {
		dc_map_foreach (&r->fnames, i) {
			VAL(io, r->fnames.keys[i]);
			str(io, (char **)&r->fnames.vals[i]);
		}
	}
	for (size_t i = 0; io->rd && i < n && !io->err; i++) {
		VAL(io, key);
		str(io, &name);
		bad(io, !key || !name || dc_map_get(&r->fnames, key));
		if (io->err || dc_name_put(r, &r->fnames, key, name)) {
			free(name);
			io->err = io->err ? io->err : -ENOMEM;
		}
	}
	/* Host names in the order they came (merge.c). */
	n = r->nhkeys;
	count(io, &n, 16);
	for (size_t i = 0; !io->rd && i < n; i++) {
		name = dc_map_get(&r->hnames, r->hkeys[i]);
		VAL(io, r->hkeys[i]);
		str(io, &name);
	}
	for (size_t i = 0; io->rd && i < n && !io->err; i++) {
		VAL(io, key);
		str(io, &name);
		bad(io, !key || !name || dc_map_get(&r->hnames, key));
		if (io->err || dc_name_put(r, &r->hnames, key, name)) {
			free(name);
			io->err = io->err ? io->err : -ENOMEM;
		}
	}
}

static void layers_io(struct io *io, struct dc_report *r)
{
	size_t n = r->nlayers;

	count(io, &n, 8);
	bad(io, n > DC_MAX_LAYERS);
	r->layers = array(io, r->layers, n, sizeof(*r->layers), 8);
	for (size_t i = 0; i < n && !io->err; i++) {
		struct dc_layer *l = &r->layers[i];

		str(io, &l->name);
		bad(io, !l->name);
		stat_io(io, &l->s);
		stat_io(io, &l->scope);
		VAL(io, l->root_count);
		dbl(io, &l->root_time, 1);
		dbl(io, l->by_layer, DC_MAX_LAYERS);
		VAL(io, l->sizes);
		dbl(io, l->bw, DC_BINS);
		dbl(io, &l->scope_excl, 1);
		r->nlayers = i + 1;
	}
}

static void funcs_io(struct io *io, struct dc_report *r)
{
	size_t n = r->nfuncs;

	count(io, &n, 8);
	r->funcs = array(io, r->funcs, n, sizeof(*r->funcs), 64);
	for (size_t i = 0; i < n && !io->err; i++) {
		struct dc_func *f = &r->funcs[i];

		str(io, &f->name);
		VAL(io, f->key);
		VAL(io, f->layer);
		VAL(io, f->dir);
		stat_io(io, &f->s);
		stat_io(io, &f->scope);
		if (io->rd)
			r->nfuncs = i + 1;
		bad(io, !f->name || !f->key || f->layer < 0 ||
			    f->layer >= r->nlayers ||
			    (io->rd && dc_map_get(&r->func_ix, f->key)));
		if (io->rd && !io->err &&
		    dc_map_put(&r->func_ix, f->key, (void *)(uintptr_t)(i + 1)))
			io->err = -ENOMEM;
	}
}

/* The index of @path among @d's paths; SIZE_MAX for none. */
static uint64_t path_ix(const struct dcr_report *d, const char *path)
{
	for (size_t i = 0; path && i < d->npaths; i++)
		if (d->paths[i] == path)
			return i;
	return UINT64_MAX;
}

static void files_io(struct io *io, struct dcr_report *d)
{
	struct dc_report *r = &d->r;
	size_t n = r->nfiles;

	count(io, &n, 8);
	r->files = array(io, r->files, n, sizeof(*r->files), 64);
	for (size_t i = 0; i < n && !io->err; i++) {
		struct dcr_file *f =
		    io->rd ? calloc(1, sizeof(*f)) : r->files[i];
		size_t nl;
		uint64_t trace;

		if (!f) {
			io->err = -ENOMEM;
			break;
		}
		trace = path_ix(d, f->first_trace);
		VAL(io, f->hash);
		stat_io(io, &f->s);
		flag(io, &f->match);
		VAL(io, trace);
		VAL(io, f->first_line);
		nl = f->nlayers;
		count(io, &nl, 16);
		if (io->rd && nl && !io->err &&
		    !(f->layers = calloc(nl, sizeof(*f->layers))))
			io->err = -ENOMEM;
		for (size_t k = 0; k < nl && !io->err; k++) {
			VAL(io, f->layers[k].count);
			dbl(io, &f->layers[k].time, 1);
			VAL(io, f->layers[k].layer);
			bad(io, f->layers[k].layer < 0 ||
				    f->layers[k].layer >= r->nlayers);
			f->nlayers = k + 1;
		}
		if (!io->rd)
			continue;
		bad(io, (trace != UINT64_MAX && trace >= d->npaths) ||
			    dc_map_get(&r->file_ix, f->hash ? f->hash : 1));
		f->first_trace =
		    io->err || trace == UINT64_MAX ? NULL : d->paths[trace];
		if (!io->err &&
		    dc_map_put(&r->file_ix, f->hash ? f->hash : 1, f))
			io->err = -ENOMEM;
		if (io->err) {
			/* Not in the map, which frees the report's files. */
			free(f->s.hist);
			free(f->layers);
			free(f);
			break;
		}
		r->files[r->nfiles++] = f;
	}
}

static void procs_io(struct io *io, struct dc_report *r)
{
	size_t n = r->nprocs;

	count(io, &n, 8);
	r->procs = array(io, r->procs, n, sizeof(*r->procs), 64);
	for (size_t i = 0; i < n && !io->err; i++) {
		struct dcr_proc *p =
		    io->rd ? calloc(1, sizeof(*p)) : r->procs[i];
		uint64_t key;

		if (!p) {
			io->err = -ENOMEM;
			break;
		}
		VAL(io, p->hhash);
		VAL(io, p->pid);
		str(io, &p->name);
		str(io, &p->rank);
		VAL(io, p->count);
		dbl(io, &p->busy, 1);
		dbl(io, p->bins, DC_BINS);
		if (!io->rd)
			continue;
		/* As agg.c keys it. */
		key = p->hhash * 1000003 ^ p->pid;
		key = key ? key : 1;
		bad(io, dc_map_get(&r->proc_ix, key) != NULL);
		if (!io->err && dc_map_put(&r->proc_ix, key, p))
			io->err = -ENOMEM;
		if (io->err) {
			/* Not in the map, which frees the report's processes.
			 */
			free(p->name);
			free(p->rank);
			free(p);
			break;
		}
		r->procs[r->nprocs++] = p;
	}
}

static void nodes_io(struct io *io, struct dc_report *r)
{
	size_t n = r->nnodes;

	count(io, &n, 8);
	r->nodes = array(io, r->nodes, n, sizeof(*r->nodes), 256);
	for (size_t i = 0; i < n && !io->err; i++) {
		struct dc_node *nd = &r->nodes[i];
		uint64_t key;

		VAL(io, nd->parent);
		VAL(io, nd->func);
		flag(io, &nd->scope);
		dbl(io, &nd->self, 1);
		if (!io->rd)
			continue;
		r->nnodes = i + 1;
		/* A parent before its children, as nest.c makes them. */
		bad(io, nd->parent < -1 || nd->parent >= (int)i ||
			    nd->func < 0 || nd->func >= r->nfuncs);
		if (io->err)
			break;
		/* As nest.c keys it. */
		key = ((uint64_t)(uint32_t)(nd->parent + 1) << 32 |
		       (uint32_t)nd->func) *
			  2 +
		      nd->scope + 1;
		bad(io, dc_map_get(&r->node_ix, key) != NULL);
		if (!io->err &&
		    dc_map_put(&r->node_ix, key, (void *)(uintptr_t)(i + 1)))
			io->err = -ENOMEM;
	}
}

static void run_io(struct io *io, struct dc_report *r)
{
	size_t n;

	n = r->nslowest;
	count(io, &n, 8);
	bad(io, n > DC_SLOWEST);
	for (size_t i = 0; i < n && !io->err; i++) {
		VAL(io, r->slowest[i]);
		bad(io,
		    r->slowest[i].func < 0 || r->slowest[i].func >= r->nfuncs);
		r->nslowest = i + 1;
	}
	VAL(io, r->t0);
	VAL(io, r->width);
	flag(io, &r->binned);
	VAL(io, r->t_min);
	VAL(io, r->t_max);
	/* Times the trace can have (event.h), bins that can cover them. */
	bad(io, r->binned &&
		    (r->width < 1 || r->width > DC_TIME_MAX / DC_BINS * 16 ||
		     r->t0 < -DC_TIME_MAX || r->t0 >= DC_TIME_MAX ||
		     r->t_min < 0 || r->t_min >= DC_TIME_MAX || r->t_max < 0));
	VAL(io, r->run_start);
	VAL(io, r->run_end);
	VAL(io, r->events);
	VAL(io, r->counters);
	VAL(io, r->meta);
	VAL(io, r->lines);
	VAL(io, r->bad_lines);
	VAL(io, r->orphans);
	VAL(io, r->records);
	VAL(io, r->ntraces);
	VAL(io, r->unknown_hashes);
	VAL(io, r->end_records);
	VAL(io, r->bad_members);
	VAL(io, r->bytes_skipped);
	VAL(io, r->empty_traces);
	flag(io, &r->has_pidx);
	str(io, &r->cmd);
	str(io, &r->fallbacks);
	str(io, &r->unsupported);
	n = r->nmounts;
	count(io, &n, 24);
	r->mounts = array(io, r->mounts, n, sizeof(*r->mounts), 16);
	for (size_t i = 0; i < n && !io->err; i++) {
		str(io, &r->mounts[i].dir);
		str(io, &r->mounts[i].type);
		VAL(io, r->mounts[i].bsize);
		r->nmounts = i + 1;
		bad(io, !r->mounts[i].dir || !r->mounts[i].type);
	}
	n = r->nend;
	count(io, &n, 16);
	r->end_keys = array(io, r->end_keys, n, sizeof(*r->end_keys), 16);
	r->end_vals = array(io, r->end_vals, n, sizeof(*r->end_vals), 16);
	for (size_t i = 0; i < n && !io->err; i++) {
		str(io, &r->end_keys[i]);
		VAL(io, r->end_vals[i]);
		r->nend = i + 1;
		bad(io, !r->end_keys[i]);
	}
}

static void darshan_io(struct io *io, struct dc_darshan *d)
{
	size_t n = d->ncalls;

	VAL(io, d->trace_no);
	count(io, &n, sizeof(*d->calls));
	if (io->rd && n && !io->err &&
	    !(d->calls = calloc(n, sizeof(*d->calls))))
		io->err = -ENOMEM;
	raw(io, d->calls, n * sizeof(*d->calls));
	for (size_t i = 0; io->rd && i < n; i++)
		bad(io,
		    !d->calls[i].module || d->calls[i].module >= DC_DM_N ||
			d->calls[i].ts < 0 || d->calls[i].ts >= DC_TIME_MAX ||
			d->calls[i].dur < 0 || d->calls[i].dur >= DC_TIME_MAX);
	if (io->rd)
		d->ncalls = d->cap = io->err ? 0 : n;
	n = d->ncounters;
	count(io, &n, sizeof(*d->counters));
	if (io->rd && n && !io->err &&
	    !(d->counters = calloc(n, sizeof(*d->counters))))
		io->err = -ENOMEM;
	raw(io, d->counters, n * sizeof(*d->counters));
	for (size_t i = 0; io->rd && i < n; i++)
		bad(io,
		    !d->counters[i].module || d->counters[i].module >= DC_DM_N);
	if (io->rd)
		d->ncounters = d->ccap = io->err ? 0 : n;
	n = d->objects.len;
	count(io, &n, 16);
	if (!io->rd) {
		dc_map_foreach (&d->objects, i) {
			VAL(io, d->objects.keys[i]);
			str(io, (char **)&d->objects.vals[i]);
		}
	}
	for (size_t i = 0; io->rd && i < n && !io->err; i++) {
		uint64_t key;
		char *name;

		VAL(io, key);
		str(io, &name);
		bad(io, !key || !name || dc_map_get(&d->objects, key));
		if (io->err || dc_map_put(&d->objects, key, name)) {
			free(name);
			io->err = io->err ? io->err : -ENOMEM;
		}
	}
}

static void report_io(struct io *io, struct dcr_report *d)
{
	size_t n = d->npaths;

	flag(io, &d->darshan);
	VAL(io, d->r.unplaced);
	VAL(io, d->added);
	VAL(io, d->problems);
	str(io, &d->pattern);
	if (io->rd)
		d->r.file_pattern = d->pattern;
	count(io, &n, 8);
	for (size_t i = 0; i < n && !io->err; i++) {
		char *p = io->rd ? NULL : d->paths[i];

		str(io, &p);
		bad(io, !p);
		if (io->rd && !io->err && !dcr_keep_path(d, p))
			io->err = -ENOMEM;
		if (io->rd)
			free(p);
	}
	names_io(io, &d->r);
	layers_io(io, &d->r);
	funcs_io(io, &d->r);
	files_io(io, d);
	procs_io(io, &d->r);
	nodes_io(io, &d->r);
	run_io(io, &d->r);
	if (d->darshan)
		darshan_io(io, &d->dsh);
}

/* What the bytes depend on besides the version: the structures copied
 * whole. */
static void header(struct io *io, uint64_t *len)
{
	char magic[4] = MAGIC;
	uint32_t version = VERSION;
	uint16_t sizes[] = { sizeof(struct dc_dcall),
			     sizeof(struct dc_dcounter),
			     sizeof(struct dcr_call), sizeof(bool) };
	uint16_t got[4];

	raw(io, magic, 4);
	if (io->rd && memcmp(magic, MAGIC, 4))
		io->err = -EINVAL;
	VAL(io, version);
	memcpy(got, sizes, sizeof(got));
	VAL(io, got);
	if (io->rd && !io->err &&
	    (version != VERSION || memcmp(got, sizes, sizeof(got))))
		io->err = -EINVAL;
	VAL(io, *len);
}

int dcr_report_save(const struct dcr_report *d, void **buf, size_t *len)
{
	struct dc_buf b = {};
	struct io io = { .out = &b };
	uint64_t total = 0;

	if (d->finished)
		return -EINVAL;
	header(&io, &total);
	/* Writing only reads the report. */
	report_io(&io, (struct dcr_report *)d);
	if (io.err) {
		dc_buf_free(&b);
		return io.err;
	}
	total = b.len;
	memcpy(b.p + 4 + 4 + 4 * sizeof(uint16_t), &total, sizeof(total));
	*buf = b.p;
	*len = b.len;
	return 0;
}

int dcr_report_load(const void *buf, size_t len, struct dcr_report **out)
{
	struct io io = { .rd = true, .p = buf, .n = len };
	struct dcr_report *d;
	uint64_t total = 0;
	int err;

	header(&io, &total);
	if (io.err)
		return io.err;
	if (total != len)
		return -EBADMSG;
	err = dcr_report_new(&d);
	if (err)
		return err;
	report_io(&io, d);
	if (!io.err && io.pos != len)
		io.err = -EBADMSG;
	if (io.err) {
		dcr_report_free(d);
		return io.err;
	}
	*out = d;
	return 0;
}
