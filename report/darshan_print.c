// SPDX-License-Identifier: MIT
/* Darshan's counters as darshan-parser prints them, and as --json's
 * "darshan" members of each file. */
#include <errno.h>
#include <string.h>

#include "darshan.h"
#include "darshan_rec.h"
#include "json.h"
#include "report.h"

/* Whether module @mod's counter @k (or, with @time, DC_DT_* counter @k) needs
 * every call, which counter records do not give: the common access
 * sizes and strides, the slowest calls and their sizes, when calls began
 * and ended, and the modes opens give. */
static bool needs_calls(const struct dc_dmodule *mod, int k, bool time)
{
	if (time)
		return k < DC_DT_READ_TIME || k == DC_DT_MAX_READ_TIME ||
		       k == DC_DT_MAX_WRITE_TIME;
	return mod->needs_calls && mod->needs_calls(k);
}

/* What darshan-parser prints around a record's counters: its rank,
 * record id and name, and its file system. */
struct rec_cols {
	const char *rank;
	uint64_t id;
	const char *name, *object; /* object: an HDF5 dataset, or NULL */
	const char *mnt, *fs;
};

/* Records made from counter records print -1, Darshan's unknown, for
 * the counters that need every call. */
static void print_rec(FILE *out, int m, const struct rec_cols *rc,
		      const int64_t *c, const double *f, bool counted)
{
	const char *sep = rc->object ? ":" : "";
	const char *object = rc->object ? rc->object : "";
	unsigned long long id = rc->id;

	const struct dc_dmodule *mod = dc_dmodules[m];

	for (int k = 0; k < mod->n; k++)
		fprintf(out, "%s\t%s\t%llu\t%s_%s\t%lld\t%s%s%s\t%s\t%s\n",
			mod->label, rc->rank, id, mod->prefix, mod->names[k],
			counted && needs_calls(mod, k, false) ? -1ll
							      : (long long)c[k],
			rc->name, sep, object, rc->mnt, rc->fs);
	for (int k = 0; k < mod->ntimes; k++) {
		int t = mod->times[k];

		fprintf(out, "%s\t%s\t%llu\t%s_%s\t%f\t%s%s%s\t%s\t%s\n",
			mod->label, rc->rank, id, mod->prefix,
			dc_dtime_names[t],
			counted && needs_calls(mod, t, true) ? -1.0 : f[t],
			rc->name, sep, object, rc->mnt, rc->fs);
	}
}

/* Module @m's records of object @ohash in @first's list, reduced. */
static void reduce(const struct dc_drec *first, int m, uint64_t ohash,
		   int64_t *c, double *f)
{
	dc_dmodules[m]->reduce(first, ohash, c, f);
}

/* Whether @x is the first record of its module and dataset in its
 * file's list: the one its group is listed or reduced with. */
static bool group_first(const struct dc_darshan *d, const struct dc_drec *x)
{
	const struct dc_drec *y =
	    dc_map_get(&d->byfile, x->fhash ? x->fhash : 1);

	while (y && y != x && (y->module != x->module || y->ohash != x->ohash))
		y = y->next;
	return y == x;
}

int dc_darshan_text(const struct dc_darshan *d, FILE *out)
{
	char buf[64], fesc[DC_ESC_NAME_MAX], oesc[DC_ESC_NAME_MAX],
	    mesc[DC_ESC_NAME_MAX], tesc[256];
	int64_t c[DC_DREC_MAX];
	double f[DC_DT_N];

	if (d->ncounters)
		fprintf(out, "# from profile-mode counter records: counters "
			     "printed -1 (the four common access sizes and "
			     "strides, the slowest calls' times and sizes, "
			     "start and end timestamps, POSIX_MODE, "
			     "POSIX_FILE_NOT_ALIGNED, MPIIO_MODE, the H5D "
			     "selections and shapes) need every call: trace "
			     "mode; times are sums of durations\n");
	for (size_t i = 0; i < d->nfs; i++)
		fprintf(out, "# mount entry:\t%s\t%s\n",
			dc_fmt_name(d->run.mounts[d->fs[i]].dir, mesc,
				    sizeof(mesc)),
			dc_fmt_name(d->run.mounts[d->fs[i]].type, fesc,
				    sizeof(fesc)));
	fprintf(out, "#<module>\t<rank>\t<record id>\t<counter>\t<value>\t"
		     "<file name>\t<mount pt>\t<fs type>\n");
	/* Each process's records, then, for a record several processes
	 * share, their reduction as Darshan logs it (rank -1). */
	for (size_t i = 0; i < 2 * d->nrecs; i++) {
		const struct dc_drec *x = d->vrecs[i % d->nrecs];
		bool shared = i >= d->nrecs;
		const char *path =
		    dc_darshan_path(d, x->fhash, buf, sizeof(buf));
		const struct dc_mount *m = dc_darshan_mount(d, path);
		const char *object =
		    x->ohash ? dc_map_get(&d->objects, x->ohash) : NULL;
		char rank[24];
		/* Names may not break the lines or the columns. */
		struct rec_cols rc = {
			.rank = rank,
			.id = x->fhash ^ x->ohash,
			.name = dc_fmt_name(path, fesc, sizeof(fesc)),
			.object = object
				      ? dc_fmt_name(object, oesc, sizeof(oesc))
				      : NULL,
			.mnt = m ? dc_fmt_name(m->dir, mesc, sizeof(mesc))
				 : "UNKNOWN",
			.fs = m ? dc_fmt_name(m->type, tesc, sizeof(tesc))
				: "UNKNOWN",
		};

		if (shared && (x->sharers < 2 || !group_first(d, x)))
			continue;
		if (shared)
			snprintf(rank, sizeof(rank), "-1");
		else if (x->rank >= 0)
			snprintf(rank, sizeof(rank), "%d", x->rank);
		else
			snprintf(rank, sizeof(rank), "pid:%u", x->pid);
		if (shared)
			reduce(dc_map_get(&d->byfile, x->fhash ? x->fhash : 1),
			       x->module, x->ohash, c, f);
		print_rec(out, x->module, &rc, shared ? c : x->c,
			  shared ? f : x->f, x->counted);
	}
	return ferror(out) ? -EIO : 0;
}

/* Module @m's counters @c and @f as "PREFIX_NAME":value members, the
 * times to the last bit (a variance of microseconds is below %f's). */
static int counters_json(struct dc_buf *b, int m, const int64_t *c,
			 const double *f, bool counted)
{
	const struct dc_dmodule *mod = dc_dmodules[m];
	int err = 0;

	for (int k = 0; k < mod->n; k++)
		err |= dc_buf_addf(b, "%s\"%s_%s\":%lld", k ? "," : "",
				   mod->prefix, mod->names[k],
				   counted && needs_calls(mod, k, false)
				       ? -1ll
				       : (long long)c[k]);
	for (int k = 0; k < mod->ntimes; k++) {
		int t = mod->times[k];

		err |= dc_buf_addf(
		    b, ",\"%s_%s\":%.17g", mod->prefix, dc_dtime_names[t],
		    counted && needs_calls(mod, t, true) ? -1.0 : f[t]);
	}
	return err;
}

/* "H5D":{"/grp/data":{...},...}: each object (dataset) of module @m in
 * the file once, in the order its first record was made. */
static int objects_json(const struct dc_darshan *d, const struct dc_drec *first,
			int m, bool counted, struct dc_buf *b)
{
	int64_t c[DC_DREC_MAX];
	double f[DC_DT_N];
	int err = 0, n = 0;

	err |= dc_buf_addf(b, "\"%s\":{", dc_dmodules[m]->prefix);
	for (const struct dc_drec *x = first; x; x = x->next) {
		const char *name;

		if (x->module != m || !group_first(d, x))
			continue;
		name = x->ohash ? dc_map_get(&d->objects, x->ohash) : NULL;
		reduce(first, m, x->ohash, c, f);
		err |= dc_buf_adds(b, n++ ? "," : "");
		err |=
		    dc_json_str(b, name ? name : "", name ? strlen(name) : 0);
		err |= dc_buf_adds(b, ":{");
		err |= counters_json(b, m, c, f, counted);
		err |= dc_buf_adds(b, "}");
	}
	return err | dc_buf_adds(b, "}");
}

int dc_darshan_json(const struct dc_darshan *d, uint64_t fhash,
		    struct dc_buf *b)
{
	const struct dc_drec *first = dc_map_get(&d->byfile, fhash ? fhash : 1);
	int64_t c[DC_DREC_MAX];
	double f[DC_DT_N];
	bool any[DC_DM_N] = {};
	const char *sep = "";
	int err = 0;

	bool counted[DC_DM_N] = {};

	for (const struct dc_drec *x = first; x; x = x->next) {
		any[x->module] = true;
		counted[x->module] |= x->counted;
	}
	err |= dc_buf_adds(b, ",\"darshan\":{");
	for (int m = DC_DM_POSIX; m < DC_DM_N; m++) {
		if (!any[m])
			continue;
		err |= dc_buf_adds(b, sep);
		sep = ",";
		if (dc_dmodules[m]->per_object) {
			err |= objects_json(d, first, m, counted[m], b);
			continue;
		}
		reduce(first, m, 0, c, f);
		err |= dc_buf_addf(b, "\"%s\":{", dc_dmodules[m]->prefix);
		err |= counters_json(b, m, c, f, counted[m]);
		err |= dc_buf_adds(b, "}");
	}
	err |= dc_buf_adds(b, "}");
	return err ? -ENOMEM : 0;
}

int dc_dcounter(int m, const char *name)
{
	for (int k = 0; k < dc_dmodules[m]->n; k++)
		if (!strcmp(dc_dmodules[m]->names[k], name))
			return k;
	return -1;
}

bool dc_dlogged(const struct dc_darshan *d, const struct dc_drec *x, int64_t *c,
		double *f)
{
	if (x->sharers < 2) {
		memcpy(c, x->c, sizeof(x->c));
		memcpy(f, x->f, sizeof(x->f));
		return true;
	}
	if (!group_first(d, x))
		return false;
	reduce(dc_map_get(&d->byfile, x->fhash ? x->fhash : 1), x->module,
	       x->ohash, c, f);
	return true;
}
