// SPDX-License-Identifier: MIT
/* The calls of a trace's byte range as columns (the Python package's
 * rows): the report's reader and parser, without the summary. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "datacrumbs/report.h"
#include "hash.h"
#include "map.h"
#include "traceread.h"

struct name_rec {
	char kind;
	uint64_t key;
	char *name;
};

/* The columns, each an array of n values; dcr_rows_column() names them. */
struct dcr_rows {
	uint64_t n, cap, lines;
	int64_t *line, *id, *ts, *dur, *p_idx, *size, *ret, *level, *offset;
	uint64_t *fhash, *hhash, *count, *dur_sum, *size_sum;
	uint32_t *pid, *tid, *name, *cat, *has;
	uint8_t *ph;
	/* Interned "name" and "cat" texts: id -> string. */
	char **strs;
	uint32_t nstrs;
	size_t strs_cap;
	struct dc_map str_ix; /* text hash -> id + 1 (colliding: hash + 1) */
	struct name_rec *names;
	size_t nnames, names_cap;
	bool names_only;
};

/* Each column, as a statement. */
#define COLS(X)                                                                \
	X(line);                                                               \
	X(id);                                                                 \
	X(ts);                                                                 \
	X(dur);                                                                \
	X(p_idx);                                                              \
	X(size);                                                               \
	X(ret);                                                                \
	X(level);                                                              \
	X(offset);                                                             \
	X(fhash);                                                              \
	X(hhash);                                                              \
	X(count);                                                              \
	X(dur_sum);                                                            \
	X(size_sum);                                                           \
	X(pid);                                                                \
	X(tid);                                                                \
	X(name);                                                               \
	X(cat);                                                                \
	X(has);                                                                \
	X(ph);

static uint64_t key_of(uint64_t h)
{
	return h ? h : 1;
}

/* @s unescaped into a new string. */
static char *copy_str(const struct dc_str *s)
{
	char *p = malloc((size_t)s->n * 3 + 1);

	if (p)
		dc_str_copy(s, p, (size_t)s->n * 3 + 1);
	return p;
}

static int intern(struct dcr_rows *rw, const struct dc_str *s, uint32_t *id)
{
	char *text = copy_str(s);
	uint64_t h;
	uintptr_t v;

	if (!text)
		return -ENOMEM;
	for (h = key_of(dc_hash(text, strlen(text)));; h = key_of(h + 1)) {
		v = (uintptr_t)dc_map_get(&rw->str_ix, h);
		if (!v)
			break;
		if (!strcmp(rw->strs[v - 1], text)) {
			free(text);
			*id = v - 1;
			return 0;
		}
	}
	if (dc_grow_cap((void **)&rw->strs, &rw->strs_cap, rw->nstrs,
			sizeof(*rw->strs), 64) ||
	    dc_map_put(&rw->str_ix, h, (void *)(uintptr_t)(rw->nstrs + 1))) {
		free(text);
		return -ENOMEM;
	}
	rw->strs[rw->nstrs] = text;
	*id = rw->nstrs++;
	return 0;
}

static int grow(struct dcr_rows *rw)
{
	uint64_t cap = rw->cap ? rw->cap * 2 : 4096;
	void *p;

#define GROW(c)                                                                \
	p = realloc(rw->c, cap * sizeof(*rw->c));                              \
	if (!p)                                                                \
		return -ENOMEM;                                                \
	rw->c = p
	COLS(GROW)
#undef GROW
	rw->cap = cap;
	return 0;
}

/* An FH or HH record: the name of a file or host hash. */
static int name_rec(struct dcr_rows *rw, const struct dc_trace_event *ev)
{
	struct name_rec *n;

	if (dc_grow_cap((void **)&rw->names, &rw->names_cap, rw->nnames,
			sizeof(*rw->names), 64))
		return -ENOMEM;
	n = &rw->names[rw->nnames];
	n->kind = ev->name.p[0];
	n->key = key_of(dc_hash_value(&ev->arg_value));
	n->name = copy_str(&ev->arg_name);
	if (!n->name)
		return -ENOMEM;
	rw->nnames++;
	return 0;
}

/* What the frame shows of a line, as the summary reads it: the optional
 * fields keep their DC_EV_* bit in "has". */
static int row(struct dcr_rows *rw, uint64_t lineno,
	       const struct dc_trace_event *ev)
{
	uint64_t i = rw->n;
	int err;

	if (i == rw->cap && (err = grow(rw)))
		return err;
	if ((err = intern(rw, &ev->name, &rw->name[i])) ||
	    (err = intern(rw, &ev->cat, &rw->cat[i])))
		return err;
	rw->line[i] = lineno;
	rw->ph[i] = ev->ph;
	rw->has[i] = ev->has;
	rw->id[i] = ev->has & DC_EV_ID ? (int64_t)ev->id : 0;
	rw->pid[i] = ev->pid;
	/* A kernel request's lane track is its thread's. */
	rw->tid[i] = ev->tid & DC_LANE_BIT ? ev->tid & DC_TID_MASK : ev->tid;
	rw->ts[i] = ev->ts;
	rw->dur[i] = ev->has & DC_EV_DUR ? ev->dur : 0;
	rw->p_idx[i] = ev->has & DC_EV_PIDX ? ev->p_idx : 0;
	rw->level[i] = ev->has & DC_EV_LEVEL ? ev->level : 0;
	rw->size[i] = ev->has & DC_EV_SIZE ? ev->size : 0;
	rw->ret[i] = ev->has & DC_EV_RET ? ev->ret : 0;
	rw->offset[i] = ev->has & DC_EV_OFFSET ? ev->offset : 0;
	rw->fhash[i] = ev->has & DC_EV_FHASH ? ev->fhash : 0;
	rw->hhash[i] = ev->has & DC_EV_HHASH ? ev->hhash : 0;
	rw->count[i] = ev->has & DC_EV_COUNT ? ev->count : 0;
	rw->dur_sum[i] = ev->has & DC_EV_DUR_SUM ? ev->dur_sum : 0;
	rw->size_sum[i] = ev->has & DC_EV_SIZE_SUM ? ev->size_sum : 0;
	rw->n++;
	return 0;
}

static int line_cb(void *ctx, const struct dc_line *l)
{
	struct dcr_rows *rw = ctx;
	struct dc_trace_event *ev = (struct dc_trace_event *)&l->ev;

	rw->lines++;
	/* Damaged lines are the summary's to name; they have no row. */
	if (dc_event_check(l->status, ev))
		return 0;
	if (ev->ph == 'M' &&
	    (dc_str_is(&ev->name, "FH") || dc_str_is(&ev->name, "HH")) &&
	    (ev->has & DC_EV_ARG_NAME) && (ev->has & DC_EV_ARG_VALUE))
		return name_rec(rw, ev);
	if (rw->names_only || (ev->ph != 'X' && ev->ph != 'C'))
		return 0;
	/* The start and end records are the summary's, not calls. */
	if (ev->ph == 'X' && dc_str_is(&ev->cat, "dftracer"))
		return 0;
	return row(rw, l->lineno, ev);
}

int dcr_rows_read(const char *path, uint64_t begin, uint64_t end,
		  unsigned flags, struct dcr_rows **out)
{
	struct dcr_rows *rw;
	struct dc_read_opts o = { .begin = begin, .end = end, .quiet = true };
	struct dc_read_stats st;
	int err;

	if (begin > end || (flags & ~DCR_ROWS_NAMES))
		return -EINVAL;
	rw = calloc(1, sizeof(*rw));
	if (!rw)
		return -ENOMEM;
	rw->names_only = flags & DCR_ROWS_NAMES;
	o.line = line_cb;
	o.ctx = rw;
	/* [0, 0) is empty, not the whole trace. */
	err = end ? dc_trace_read(path, &o, &st) : 0;
	if (err) {
		dcr_rows_free(rw);
		return err;
	}
	*out = rw;
	return 0;
}

uint64_t dcr_rows_count(const struct dcr_rows *rw)
{
	return rw->n;
}

uint64_t dcr_rows_lines(const struct dcr_rows *rw)
{
	return rw->lines;
}

const void *dcr_rows_column(const struct dcr_rows *rw, const char *name)
{
#define COL(c)                                                                 \
	if (!strcmp(name, #c))                                                 \
	return rw->c
	COLS(COL)
#undef COL
	return NULL;
}

uint32_t dcr_rows_strings(const struct dcr_rows *rw)
{
	return rw->nstrs;
}

const char *dcr_rows_string(const struct dcr_rows *rw, uint32_t id)
{
	return id < rw->nstrs ? rw->strs[id] : NULL;
}

int dcr_rows_name(const struct dcr_rows *rw, uint64_t i, char *kind,
		  uint64_t *key, const char **name)
{
	if (i >= rw->nnames)
		return -ENOENT;
	*kind = rw->names[i].kind;
	*key = rw->names[i].key;
	*name = rw->names[i].name;
	return 0;
}

void dcr_rows_free(struct dcr_rows *rw)
{
	if (!rw)
		return;
#define FREE(c) free(rw->c)
	COLS(FREE)
#undef FREE
	for (uint32_t i = 0; i < rw->nstrs; i++)
		free(rw->strs[i]);
	free(rw->strs);
	dc_map_free(&rw->str_ix, NULL);
	for (size_t i = 0; i < rw->nnames; i++)
		free(rw->names[i].name);
	free(rw->names);
	free(rw);
}
