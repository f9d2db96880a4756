// SPDX-License-Identifier: MIT
/*
 * Darshan's job summary per module, from its counters as Darshan logs
 * them (each shared record reduced, rank -1): what darshan-parser's
 * --total, --file and --perf print and PyDarshan's summary report shows.
 * Files by kind (read-only, write-only, read-write, unique, shared), the
 * total record's operations, bytes, times, size buckets and common access
 * sizes, and the I/O time of the slowest rank (darshan-util's
 * accumulator: per rank over unique files, plus each shared file's
 * slowest rank), by which Darshan estimates performance.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "darshan.h"
#include "darshan_rec.h"
#include "plots.h"
#include "report.h"

/* darshan-parser's file kinds. */
enum { K_TOTAL, K_RO, K_WO, K_RW, K_UNIQUE, K_SHARED, K_N };
static const char *const kinds[K_N] = { "total",      "read_only", "write_only",
					"read_write", "unique",	   "shared" };

static const char *const buckets[DC_HIST_N] = { DC_DBUCKETS(
    DC_DBUCKET_NAME, ) };

/* One file (or H5D dataset) of a module. */
struct sfile {
	uint64_t fhash, ohash;
	int64_t rd, wr, max_off;
	int nprocs;
};

/* One process's time in unique files. */
struct srank {
	int rank;
	uint32_t pid;
	double io, meta, rw;
};

struct dsum {
	int64_t count[K_N], bytes[K_N], max_off[K_N];
	int64_t c[DC_DREC_MAX]; /* the total record: sums */
	int64_t acc[4], acc_n[4];
	double f[DC_DT_N];
	double shared_slowest; /* shared files: time_by_slowest */
	struct srank slow;     /* unique files: the slowest rank */
	bool any_unique;
	int64_t total_bytes;
};

static int64_t cval(const int64_t *c, int m, const char *name)
{
	int k = dc_dcounter(m, name);

	return k < 0 ? 0 : c[k];
}

/* @m's file of @x, made on first sight; NULL if out of memory. */
static struct sfile *file_of(struct dc_map *files, const struct dc_drec *x)
{
	uint64_t key = (x->fhash ^ x->ohash * 0x9e3779b97f4a7c15ull) | 1;
	struct sfile *s;

	for (; (s = dc_map_get(files, key)); key += 2)
		if (s->fhash == x->fhash && s->ohash == x->ohash)
			return s;
	s = calloc(1, sizeof(*s));
	if (!s || dc_map_put(files, key, s)) {
		free(s);
		return NULL;
	}
	s->fhash = x->fhash;
	s->ohash = x->ohash;
	return s;
}

static struct srank *rank_of(struct dc_map *ranks, const struct dc_drec *x)
{
	uint64_t key = x->rank >= 0 ? (uint64_t)x->rank << 1 | 1
				    : ((uint64_t)x->pid << 1 | 1) << 32;
	struct srank *s = dc_map_get(ranks, key);

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s || dc_map_put(ranks, key, s)) {
		free(s);
		return NULL;
	}
	s->rank = x->rank;
	s->pid = x->pid;
	return s;
}

static void add_kind(struct dsum *s, int k, const struct sfile *f)
{
	s->count[k]++;
	s->bytes[k] += f->rd + f->wr;
	/* -1: the module keeps no offsets (MPI-IO, H5D), as Darshan says. */
	s->max_off[k] =
	    f->max_off < 0 ? -1 : dc_max64(s->max_off[k], f->max_off);
}

/* Module @m's summary into @s; 0, 1 if it has no record, or -ENOMEM. */
static int summarize(const struct dc_darshan *d, int m, struct dsum *s)
{
	struct dc_map files = {}, ranks = {};
	int kr = dc_dcounter(m, "BYTES_READ"),
	    kw = dc_dcounter(m, "BYTES_WRITTEN");
	int ka = dc_dcounter(m, "ACCESS1_ACCESS");
	int64_t c[DC_DREC_MAX];
	double f[DC_DT_N];
	int err = 0, any = 0;

	memset(s, 0, sizeof(*s));
	for (size_t j = 0; j < d->nrecs && !err; j++) {
		const struct dc_drec *x = d->vrecs[j];
		struct sfile *sf;
		double io;

		if (x->module != m || !dc_dlogged(d, x, c, f))
			continue;
		any = 1;
		for (int k = 0; k < DC_DREC_MAX; k++)
			s->c[k] += c[k];
		for (int k = DC_DT_READ_TIME; k <= DC_DT_META_TIME; k++)
			s->f[k] += f[k];
		for (int k = 0; ka >= 0 && k < 4; k++)
			dc_dcommon_top4(s->acc, s->acc_n, c[ka + k],
					c[ka + 4 + k], true);
		io = f[DC_DT_READ_TIME] + f[DC_DT_WRITE_TIME] +
		     f[DC_DT_META_TIME];
		if (x->sharers > 1) {
			s->shared_slowest += f[DC_DT_SLOWEST_RANK_TIME];
		} else {
			struct srank *r = rank_of(&ranks, x);

			if (!r) {
				err = -ENOMEM;
				break;
			}
			r->io += io;
			r->meta += f[DC_DT_META_TIME];
			r->rw += f[DC_DT_READ_TIME] + f[DC_DT_WRITE_TIME];
		}
		if (!(sf = file_of(&files, x))) {
			err = -ENOMEM;
			break;
		}
		sf->rd += kr >= 0 ? c[kr] : 0;
		sf->wr += kw >= 0 ? c[kw] : 0;
		sf->max_off =
		    dc_dcounter(m, "MAX_BYTE_READ") < 0
			? -1
			: dc_max64(sf->max_off,
				   dc_max64(cval(c, m, "MAX_BYTE_READ"),
					    cval(c, m, "MAX_BYTE_WRITTEN")));
		sf->nprocs += x->sharers > 1 ? x->sharers : 1;
	}
	dc_map_foreach (&files, i) {
		const struct sfile *sf = files.vals[i];

		if (!sf)
			continue;
		add_kind(s, K_TOTAL, sf);
		if (sf->rd && !sf->wr)
			add_kind(s, K_RO, sf);
		else if (sf->wr && !sf->rd)
			add_kind(s, K_WO, sf);
		else if (sf->wr && sf->rd)
			add_kind(s, K_RW, sf);
		add_kind(s, sf->nprocs > 1 ? K_SHARED : K_UNIQUE, sf);
		s->total_bytes += sf->rd + sf->wr;
	}
	dc_map_foreach (&ranks, i) {
		const struct srank *r = ranks.vals[i];

		if (r && (!s->any_unique || r->io > s->slow.io))
			s->slow = *r;
		s->any_unique |= r != NULL;
	}
	dc_map_free(&files, free);
	dc_map_free(&ranks, free);
	return err ? err : !any;
}

/* darshan-parser --perf's figures of @s. */
static double agg_time(const struct dsum *s)
{
	return s->slow.io + s->shared_slowest;
}

static double agg_perf(const struct dsum *s)
{
	double t = agg_time(s);

	return t > 0 ? (double)s->total_bytes / 1048576.0 / t : 0;
}

static const char *rank_name(const struct srank *r, char *b, size_t n)
{
	if (r->rank >= 0)
		snprintf(b, n, "%d", r->rank);
	else
		snprintf(b, n, "pid:%u", r->pid);
	return b;
}

static void text_module(FILE *out, int m, const struct dsum *s)
{
	const char *p = dc_dmodules[m]->prefix;
	int h =
	    dc_dmodules[m]->hist[0] ? dc_dcounter(m, dc_dmodules[m]->hist) : -1;
	char b1[16], b2[16], rk[24];
	int n = 0;

	fprintf(out, "\nDarshan job summary: %s\n", p);
	fprintf(out, "  files (<file_type>: <file_count> <total_bytes> "
		     "<max_byte_offset>, as darshan-parser --file)\n");
	for (int k = 0; k < K_N; k++)
		fprintf(out, "    %s: %lld %lld %lld\n", kinds[k],
			(long long)s->count[k], (long long)s->bytes[k],
			(long long)s->max_off[k]);
	fprintf(out, "  operations");
	for (int k = 0; k < 12 && dc_dmodules[m]->ops[k]; k++)
		fprintf(out, "%s%s_%s %lld", n++ % 4 ? "  " : "\n    ", p,
			dc_dmodules[m]->ops[k],
			(long long)cval(s->c, m, dc_dmodules[m]->ops[k]));
	fprintf(out, "\n");
	if (dc_dcounter(m, "BYTES_READ") >= 0)
		fprintf(
		    out,
		    "  bytes       %s_BYTES_READ %lld (%s)  %s_BYTES_WRITTEN "
		    "%lld (%s)\n",
		    p, (long long)cval(s->c, m, "BYTES_READ"),
		    dc_fmt_bytes((double)cval(s->c, m, "BYTES_READ"), b1), p,
		    (long long)cval(s->c, m, "BYTES_WRITTEN"),
		    dc_fmt_bytes((double)cval(s->c, m, "BYTES_WRITTEN"), b2));
	fprintf(out, "  time (s, all processes)");
	if (m != DC_DM_H5F)
		fprintf(out, "  %s_F_READ_TIME %f  %s_F_WRITE_TIME %f", p,
			s->f[DC_DT_READ_TIME], p, s->f[DC_DT_WRITE_TIME]);
	fprintf(out, "  %s_F_META_TIME %f\n", p, s->f[DC_DT_META_TIME]);
	if (dc_dmodules[m]->perf) {
		fprintf(out,
			"  by the slowest rank (as darshan-parser --perf)\n"
			"    unique files: slowest_rank_io_time: %f\n"
			"    unique files: slowest_rank_meta_only_time: %f\n"
			"    unique files: slowest_rank_rw_only_time: %f\n"
			"    unique files: slowest_rank: %s\n"
			"    shared files: time_by_slowest: %f\n"
			"    agg_time_by_slowest: %f # seconds\n"
			"    agg_perf_by_slowest: %f # MiB/s\n",
			s->slow.io, s->slow.meta, s->slow.rw,
			s->any_unique ? rank_name(&s->slow, rk, sizeof(rk))
				      : "-",
			s->shared_slowest, agg_time(s), agg_perf(s));
	}
	if (h >= 0) {
		fprintf(out, "  access sizes   ");
		for (int k = 0; k < DC_HIST_N; k++)
			fprintf(out, " %9s", buckets[k]);
		for (int w = 0; w < 2; w++) {
			fprintf(out, "\n    %-12s", w ? "write" : "read");
			for (int k = 0; k < DC_HIST_N; k++)
				fprintf(out, " %9lld",
					(long long)s->c[h + DC_HIST_N * w + k]);
		}
		fprintf(out, "\n");
	}
	if (dc_dmodules[m]->access) {
		fprintf(out, "  most common access sizes");
		for (int k = 0; k < 4 && s->acc_n[k]; k++)
			fprintf(out, "  %s_ACCESS%d_ACCESS %lld x %lld", p,
				k + 1, (long long)s->acc[k],
				(long long)s->acc_n[k]);
		fprintf(out, "\n");
	}
}

int dc_darshan_summary_text(const struct dc_darshan *d, FILE *out)
{
	struct dsum s;
	int err = 0;

	for (int m = DC_DM_POSIX; m < DC_DM_N && err >= 0; m++)
		if (!(err = summarize(d, m, &s)))
			text_module(out, m, &s);
	if (err < 0)
		return err;
	return ferror(out) ? -EIO : 0;
}

static void html_module(struct dc_buf *b, int m, const struct dsum *s)
{
	const char *p = dc_dmodules[m]->prefix;
	int h =
	    dc_dmodules[m]->hist[0] ? dc_dcounter(m, dc_dmodules[m]->hist) : -1;
	char rk[24], t1[16], t2[16];

	dc_buf_addf(b, "<h3>%s</h3>\n<table class=\"darshan\">\n", p);
	dc_buf_adds(b, "<tr><th>files</th><th>count</th><th>bytes</th>"
		       "<th>max byte offset</th></tr>\n");
	for (int k = 0; k < K_N; k++)
		dc_buf_addf(b,
			    "<tr><td>%s</td><td>%lld</td><td>%lld</td>"
			    "<td>%lld</td></tr>\n",
			    kinds[k], (long long)s->count[k],
			    (long long)s->bytes[k], (long long)s->max_off[k]);
	dc_buf_adds(b, "</table>\n<table class=\"darshan\">\n"
		       "<tr><th>counter</th><th>total</th></tr>\n");
	for (int k = 0; k < 12 && dc_dmodules[m]->ops[k]; k++)
		dc_buf_addf(b, "<tr><td>%s_%s</td><td>%lld</td></tr>\n", p,
			    dc_dmodules[m]->ops[k],
			    (long long)cval(s->c, m, dc_dmodules[m]->ops[k]));
	if (dc_dcounter(m, "BYTES_READ") >= 0)
		dc_buf_addf(b,
			    "<tr><td>%s_BYTES_READ</td><td>%lld</td></tr>\n"
			    "<tr><td>%s_BYTES_WRITTEN</td><td>%lld</td></tr>\n",
			    p, (long long)cval(s->c, m, "BYTES_READ"), p,
			    (long long)cval(s->c, m, "BYTES_WRITTEN"));
	for (int k = DC_DT_READ_TIME; k <= DC_DT_META_TIME; k++)
		if (m != DC_DM_H5F || k == DC_DT_META_TIME)
			dc_buf_addf(b, "<tr><td>%s_%s</td><td>%f s</td></tr>\n",
				    p, dc_dtime_names[k], s->f[k]);
	dc_buf_adds(b, "</table>\n");
	if (dc_dmodules[m]->perf)
		dc_buf_addf(
		    b,
		    "<p>I/O time by the slowest rank: unique files %s (rank "
		    "%s), shared files %s; agg_perf_by_slowest %.2f MiB/s "
		    "(%lld bytes in %f s)</p>\n",
		    dc_fmt_time(s->slow.io * 1e6, t1),
		    s->any_unique ? rank_name(&s->slow, rk, sizeof(rk)) : "-",
		    dc_fmt_time(s->shared_slowest * 1e6, t2), agg_perf(s),
		    (long long)s->total_bytes, agg_time(s));
	if (h >= 0) {
		dc_buf_adds(b, "<table class=\"darshan\">\n<tr><th>access "
			       "size</th>");
		for (int k = 0; k < DC_HIST_N; k++)
			dc_buf_addf(b, "<th>%s</th>", buckets[k]);
		for (int w = 0; w < 2; w++) {
			dc_buf_addf(b, "</tr>\n<tr><td>%s</td>",
				    w ? "write" : "read");
			for (int k = 0; k < DC_HIST_N; k++)
				dc_buf_addf(
				    b, "<td>%lld</td>",
				    (long long)s->c[h + DC_HIST_N * w + k]);
		}
		dc_buf_adds(b, "</tr>\n</table>\n");
	}
	if (dc_dmodules[m]->access && s->acc_n[0]) {
		dc_buf_adds(b, "<p>Most common access sizes:");
		for (int k = 0; k < 4 && s->acc_n[k]; k++)
			dc_buf_addf(b, "%s %lld bytes &times; %lld",
				    k ? "," : "", (long long)s->acc[k],
				    (long long)s->acc_n[k]);
		dc_buf_adds(b, "</p>\n");
	}
}

int dc_darshan_summary_html(const struct dc_darshan *d, struct dc_buf *b)
{
	struct dsum s;
	int err = 0;

	dc_buf_adds(b, "<h2>Darshan job summary</h2>\n");
	for (int m = DC_DM_POSIX; m < DC_DM_N && err >= 0; m++)
		if (!(err = summarize(d, m, &s)))
			html_module(b, m, &s);
	return err < 0 ? err : 0;
}
