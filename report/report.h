/* SPDX-License-Identifier: MIT */
#ifndef DC_REPORT_H
#define DC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "event.h"
#include "map.h"

struct dc_darshan;

/* Latencies in a log-linear histogram: exact below 64 us, then 32
 * buckets per power of two (3% wide), so memory is fixed per function. */
#define DC_LAT_BINS (64 + 58 * 32)
struct dc_hist {
	uint64_t b[DC_LAT_BINS];
};
void dc_hist_add(struct dc_hist *h, uint64_t v, uint64_t n);
/* The nearest-rank percentile @p (0-100), as its bucket's lower bound. */
uint64_t dc_hist_pct(const struct dc_hist *h, uint64_t total, double p);

/* What every table row holds. Times are microseconds. */
struct dc_stat {
	uint64_t count;
	double time;
	uint64_t min, max;
	uint64_t bytes, bytes_read, bytes_written;
	/* Calls whose bytes the trace could not tell (args.size_unknown):
	 * the byte totals they belong to are unknown. */
	uint64_t unsized, unsized_read, unsized_written;
	double io_time; /* time of the calls that moved bytes */
	uint64_t errors;
	uint64_t timed; /* calls in the histogram (counters have none) */
	struct dc_hist *hist;
};

#define DC_BINS	      256
#define DC_SIZE_BINS  48
#define DC_MAX_LAYERS 32

struct dc_layer {
	char *name;
	struct dc_stat s;
	/* As the outermost call: its time, split by the layer that spent it. */
	uint64_t root_count;
	double root_time;
	double by_layer[DC_MAX_LAYERS];
	uint64_t sizes[DC_SIZE_BINS]; /* transfer sizes, log2 buckets */
	double bw[DC_BINS];	      /* bytes per time bin */
	/* The same for the --file scope. */
	struct dc_stat scope;
	double scope_excl;
};

struct dc_func {
	char *name;
	uint64_t key; /* func_ix's: of the text of its cat and name */
	int layer;
	char dir; /* 'r' read, 'w' write, 0 */
	struct dc_stat s, scope;
};

/* A file's calls in one layer. */
struct dcr_file_layer {
	uint64_t count;
	double time;
	int layer;
};

/* One per distinct file of the traces, which may be millions: the layers
 * it saw are a short list (a few of DC_MAX_LAYERS), not an array. */
struct dcr_file {
	uint64_t hash;
	struct dc_stat s; /* calls on it, outermost on this file only */
	struct dcr_file_layer *layers; /* ascending by layer */
	int nlayers;
	bool match; /* --file */
	const char *first_trace;
	uint64_t first_line;
};

struct dcr_proc {
	uint64_t hhash;
	uint32_t pid;
	char *name, *rank;
	uint64_t count;
	double busy; /* time in outermost calls */
	double bins[DC_BINS];
};

struct dcr_call {
	int64_t dur, ts;
	uint32_t pid, tid;
	int func;
	uint64_t fhash;
	int64_t size;
};

/* A call path: the folded stacks and the flame graph. */
struct dc_node {
	int parent, func;
	bool scope;
	double self;
};

#define DC_SLOWEST 10
#define DC_RECENT  16

struct dc_recent {
	char name[64], cat[32];
	uint32_t name_n, cat_n;
	int func;
};

/* A mounted file system, as a start record's "mounts" names it. */
struct dc_mount {
	char *dir, *type;
	int64_t bsize; /* statfs's f_bsize; 0: not known */
};

struct dc_report {
	/* Options. */
	const char *file_pattern;
	/* Names. */
	struct dc_map fnames, hnames; /* hash -> char * */
	/* hnames' keys in the order they came: a map's order depends on
	 * it, and the JSON lists the hosts in the map's order. */
	uint64_t *hkeys;
	size_t nhkeys;
	struct dc_recent recent[DC_RECENT];
	struct dc_map func_ix, node_ix, file_ix, proc_ix, thread_ix;
	struct dc_layer *layers;
	int nlayers;
	struct dc_func *funcs;
	int nfuncs;
	struct dcr_file **files;
	size_t nfiles;
	struct dcr_proc **procs;
	size_t nprocs;
	struct dc_node *nodes;
	int nnodes;
	struct dcr_call slowest[DC_SLOWEST];
	int nslowest;
	/* Time bins shared by every series: [t0, t0 + DC_BINS * width). */
	int64_t t0, width;
	bool binned;
	int64_t t_min, t_max, run_start, run_end;
	/* Totals. */
	uint64_t events, counters, meta, lines, bad_lines, orphans;
	uint64_t records; /* lines that are records, not damaged or blank */
	uint64_t ntraces, unknown_hashes;
	char *cmd;
	/* The first start record's fallbacks and what its kernel could not
	 * trace ("unsupported"), each "" for none. */
	char *fallbacks, *unsupported;
	/* The file systems the start records name (the first of each). */
	struct dc_mount *mounts;
	size_t nmounts;
	/* The end records' numeric args, summed over traces. */
	char **end_keys;
	uint64_t *end_vals;
	int nend;
	uint64_t end_records;
	/* Per trace while it is read. */
	const char *trace;
	uint64_t trace_hh; /* the first HH of the trace */
	/* Reading a range after the trace's first member: what it cannot
	 * place without the ranges before it (a call under a call of theirs,
	 * a record on the trace's host) is counted in unplaced. */
	bool continued;
	uint64_t unplaced;
	bool has_pidx;
	/* Damaged traces: gzip members and compressed bytes not read. */
	uint64_t bad_members, bytes_skipped, empty_traces;
};

/* The run's span (us): from its start record or first call, whichever
 * is earlier, to its end record or last call's end, whichever is later. */
static inline int64_t dc_report_start(const struct dc_report *r)
{
	return r->run_start < r->t_min ? r->run_start : r->t_min;
}

static inline int64_t dc_report_end(const struct dc_report *r)
{
	return r->run_end > r->t_max ? r->run_end : r->t_max;
}

int dc_report_init(struct dc_report *r);
void dc_report_free(struct dc_report *r);
/* Feed one line of the trace named r->trace, @status as dc_event_check()
 * made it: a damaged one is named and counted. */
int dc_report_line(struct dc_report *r, uint64_t lineno, int status,
		   const struct dc_trace_event *ev);
/* Name @key in @m (fnames or hnames): 0 or -ENOMEM. */
int dc_name_put(struct dc_report *r, struct dc_map *m, uint64_t key,
		char *name);
/* Layer @cat's index, made if new (the last one past DC_MAX_LAYERS). */
int dc_layer_get(struct dc_report *r, const struct dc_str *cat);
/* The file @hash, the process (@hhash 0: the trace's host) @pid, made if
 * new; NULL if out of memory. */
struct dcr_file *dc_file_get(struct dc_report *r, uint64_t hash,
			     uint64_t lineno);
struct dcr_proc *dc_proc_get(struct dc_report *r, uint64_t hhash, uint32_t pid);
/* Widen the time bins to hold [from, to]; spread @amount over the bins
 * [ts, ts + dur) covers. */
void dc_bins_fit(struct dc_report *r, int64_t from, int64_t to);
void dc_spread_amount(const struct dc_report *r, double *bins, int64_t ts,
		      int64_t dur, double amount);
/* After each trace: close the calls still open. */
void dc_report_trace_done(struct dc_report *r);
/* After all traces: report hashes never defined. */
void dc_report_finish(struct dc_report *r);

/* The name of file @hash in @fnames (hash -> name), or "<fhash HEX>" in
 * @buf (@n bytes). */
const char *dc_fmt_fname(const struct dc_map *fnames, uint64_t hash, char *buf,
			 size_t n);
static inline const char *dc_file_name(const struct dc_report *r, uint64_t hash,
				       char *buf, size_t n)
{
	return dc_fmt_fname(&r->fnames, hash, buf, n);
}
/* "layer;func;layer;func" of a node into @b. */
int dc_node_path(const struct dc_report *r, int node, struct dc_buf *b);

int dc_text_report(const struct dc_report *r, FILE *out, int top);
/* With Darshan's counters of each file from @darshan, or none if NULL. */
int dc_json_report(const struct dc_report *r, const struct dc_darshan *darshan,
		   FILE *out);
int dc_folded_report(const struct dc_report *r, FILE *out);
int dc_flame_svg(const struct dc_report *r, struct dc_buf *b, int width);
const char *dc_layer_color(int layer);
/* "12 us", "3.45 ms", "1.234 s"; "1.5 MiB": into @b (16 bytes). */
const char *dc_fmt_time(double us, char *b);
const char *dc_fmt_bytes(double v, char *b);
/* A name from a trace as a line of text may hold it: @s itself, or, when
 * it has bytes that would break or forge lines and columns (a newline,
 * a tab) or drive the terminal (ESC, C1 controls such as U+009B, bytes
 * that are not UTF-8), a copy in @b (@n bytes) with each as \xNN. */
#define DC_ESC_NAME_MAX 8192
/* Room for a layer name or end-record key (at most 255 bytes) escaped. */
#define DC_LAYER_ESC (4 * 256)
const char *dc_fmt_name(const char *s, char *b, size_t n);
/* Append @s as HTML or SVG text or a quoted attribute's value: markup
 * characters as references, bytes that are not UTF-8 and controls XML
 * forbids as U+FFFD; dc_html_escn() takes at most @max bytes of @s,
 * never half a character. */
void dc_html_esc(struct dc_buf *b, const char *s);
void dc_html_escn(struct dc_buf *b, const char *s, size_t max);
/* With Darshan's job summary from @darshan, or none if NULL. */
int dc_html_report(const struct dc_report *r, const struct dc_darshan *darshan,
		   const char *tmpl_dir, const char *path);

#endif
