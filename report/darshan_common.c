// SPDX-License-Identifier: MIT
/* Darshan's shared rules: size buckets and the most common values. */
#include <string.h>

#include "darshan_rec.h"

int dc_dbucket(int64_t v)
{
	static const int64_t top[DC_HIST_N] = { DC_DBUCKETS(
	    DC_DBUCKET_BOUND, ) };
	int i = 0;

	while (i < DC_HIST_N - 1 && v > top[i])
		i++;
	return i;
}

/* How often @v was seen, counting this time; 0 once 32 other values
 * fill the table (Darshan then ignores new ones). */
int64_t dc_dcommon_seen(struct dc_dcommon *t, int64_t v)
{
	for (int i = 0; i < t->n; i++)
		if (t->val[i] == v)
			return ++t->freq[i];
	if (t->n == DC_DCOMMON_MAX)
		return 0;
	t->val[t->n] = v;
	t->freq[t->n++] = 1;
	return 1;
}

/* Keep @vals/@cnts (4 each) the four most frequent values, the larger
 * value first among equals, after @v was seen @freq times (@freq more
 * times if @add: merging another record's counts). Zero is never
 * listed. */
void dc_dcommon_top4(int64_t *vals, int64_t *cnts, int64_t v, int64_t freq,
		     bool add)
{
	int64_t nv[4], nc[4];
	int k = 0, i;

	if (!v || !freq)
		return;
	for (i = 0; add && i < 4; i++)
		if (vals[i] == v) {
			freq += cnts[i];
			break;
		}
	for (i = 0; i < 4 && k < 4; i++) {
		if (cnts[i] > freq || (cnts[i] == freq && vals[i] > v)) {
			nv[k] = vals[i];
			nc[k++] = cnts[i];
		} else {
			break;
		}
	}
	if (k == 4)
		return;
	nv[k] = v;
	nc[k++] = freq;
	for (; k < 4 && i < 4; i++)
		if (vals[i] != v) {
			nv[k] = vals[i];
			nc[k++] = cnts[i];
		}
	while (k < 4) {
		nv[k] = 0;
		nc[k++] = 0;
	}
	memcpy(vals, nv, sizeof(nv));
	memcpy(cnts, nc, sizeof(nc));
}

/* Merge record @rv/@rc's four most common values into @vals/@cnts as
 * Darshan's reductions do: the values both lists hold are added up
 * first, so that a value every rank holds is not pushed out by values
 * that tie with it, then the list is rebuilt from @vals/@cnts's and
 * then @rv/@rc's. */
void dc_dcommon_merge(int64_t *vals, int64_t *cnts, const int64_t *rv,
		      const int64_t *rc)
{
	int64_t av[4], ac[4], bv[4], bc[4];

	memcpy(av, vals, sizeof(av));
	memcpy(ac, cnts, sizeof(ac));
	memcpy(bv, rv, sizeof(bv));
	memcpy(bc, rc, sizeof(bc));
	for (int j = 0; j < 4; j++)
		for (int k = 0; k < 4; k++)
			if (av[j] == bv[k]) {
				ac[j] += bc[k];
				bv[k] = bc[k] = 0;
			}
	memset(vals, 0, sizeof(av));
	memset(cnts, 0, sizeof(ac));
	for (int j = 0; j < 4; j++)
		dc_dcommon_top4(vals, cnts, av[j], ac[j], true);
	for (int j = 0; j < 4; j++)
		dc_dcommon_top4(vals, cnts, bv[j], bc[j], true);
}

void dc_dio_call(struct dc_drec *r, const struct dc_dio_layout *l, int64_t n,
		 bool wr)
{
	r->c[(wr ? l->size_write : l->size_read) + dc_dbucket(n)]++;
	dc_dcommon_top4(&r->c[l->access], &r->c[l->access_count], n,
			dc_dcommon_seen(&r->access, n), false);
	r->c[wr ? l->bytes_written : l->bytes_read] += n;
	if (r->last_io && r->last_io != (wr ? 'w' : 'r'))
		r->c[l->rw_switches]++;
	r->last_io = wr ? 'w' : 'r';
}

void dc_dio_count(struct dc_drec *r, const struct dc_dio_layout *l,
		  const struct dc_dcounter *k, bool wr)
{
	for (int i = 0; i < DC_HIST_N; i++)
		r->c[(wr ? l->size_write : l->size_read) + i] += k->hist[i];
	r->c[wr ? l->bytes_written : l->bytes_read] += k->size_sum;
	r->c[l->rw_switches] += k->switches;
}

bool dc_dio_needs_calls(const struct dc_dio_layout *l, int k)
{
	return k == l->t.max_read_size || k == l->t.max_write_size ||
	       (k >= l->access && k < l->access_count + 4);
}

void dc_dio_reduce(const struct dc_drec *first, int module, uint64_t ohash,
		   const struct dc_dio_layout *l, int64_t *c, double *f)
{
	memset(c, 0, sizeof(int64_t) * DC_DREC_MAX);
	for (const struct dc_drec *r = first; r; r = r->next) {
		if (r->module != module || r->ohash != ohash)
			continue;
		for (int k = 0; k < l->access; k++)
			if (k != l->t.max_read_size && k != l->t.max_write_size)
				c[k] += r->c[k];
		dc_dcommon_merge(&c[l->access], &c[l->access_count],
				 &r->c[l->access], &r->c[l->access_count]);
	}
	dc_dtime_reduce(first, module, ohash, &l->t, c, f);
}
