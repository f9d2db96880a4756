// SPDX-License-Identifier: MIT
/*
 * Darshan's timing counters (darshan-runtime 3.4.7): per record, the first
 * and last open, read, write and close, time in reads, writes and
 * metadata calls, the slowest read and write; per shared record, the
 * fastest and slowest rank and the variance of time and bytes over ranks.
 */
#include <string.h>

#include "darshan_rec.h"

/* Bits of dc_drec.tset: a start timestamp set
 * (DC_DT_OPEN_START..DC_DT_CLOSE_START), a slowest read or write seen. */
#define SET_MAX_READ  (1u << 4)
#define SET_MAX_WRITE (1u << 5)

/* The earliest @t1 and the last call's end for the start timestamp @k. */
static void stamp(struct dc_drec *r, int k, double t1, double t2)
{
	if (!(r->tset & 1u << k) || t1 < r->f[k])
		r->f[k] = t1;
	r->tset |= 1u << k;
	r->f[k + DC_DT_OPEN_END - DC_DT_OPEN_START] = t2;
}

/* Add the part of [t1, t2] after the previous call of its kind ended.
 * Darshan adds t2 - last even when a call ends before the previous one
 * did, which can subtract; a call inside another adds nothing here. */
static void add_time(double *timer, double *last, double t1, double t2)
{
	double from = t1 > *last ? t1 : *last;

	if (t2 > from)
		*timer += t2 - from;
	if (t2 > *last)
		*last = t2;
}

/* The slowest call of one direction, the first of equals; its size. */
static void slowest(struct dc_drec *r, int k, unsigned bit, int size_ix,
		    double el, int64_t n)
{
	if (!(r->tset & bit) || el > r->f[k]) {
		r->f[k] = el;
		if (size_ix >= 0)
			r->c[size_ix] = n;
	}
	r->tset |= bit;
}

void dc_dtime_call(struct dc_drec *r, const struct dc_dtime_layout *l, int kind,
		   double t1, double t2, int64_t n)
{
	switch (kind) {
	case DC_DK_OPEN:
		stamp(r, DC_DT_OPEN_START, t1, t2);
		add_time(&r->f[DC_DT_META_TIME], &r->last_end[2], t1, t2);
		break;
	case DC_DK_CLOSE:
		stamp(r, DC_DT_CLOSE_START, t1, t2);
		add_time(&r->f[DC_DT_META_TIME], &r->last_end[2], t1, t2);
		break;
	case DC_DK_META:
		add_time(&r->f[DC_DT_META_TIME], &r->last_end[2], t1, t2);
		break;
	case DC_DK_SYNC:
		add_time(&r->f[DC_DT_WRITE_TIME], &r->last_end[1], t1, t2);
		break;
	case DC_DK_READ:
		stamp(r, DC_DT_READ_START, t1, t2);
		slowest(r, DC_DT_MAX_READ_TIME, SET_MAX_READ, l->max_read_size,
			t2 - t1, n);
		add_time(&r->f[DC_DT_READ_TIME], &r->last_end[0], t1, t2);
		r->moved += n;
		break;
	case DC_DK_WRITE:
		stamp(r, DC_DT_WRITE_START, t1, t2);
		slowest(r, DC_DT_MAX_WRITE_TIME, SET_MAX_WRITE,
			l->max_write_size, t2 - t1, n);
		add_time(&r->f[DC_DT_WRITE_TIME], &r->last_end[1], t1, t2);
		r->moved += n;
		break;
	default: break;
	}
}

/* Time in reads, writes and metadata: by which Darshan ranks processes. */
static double io_time(const struct dc_drec *r)
{
	return r->f[DC_DT_READ_TIME] + r->f[DC_DT_WRITE_TIME] +
	       r->f[DC_DT_META_TIME];
}

void dc_dtime_reduce(const struct dc_drec *first, int module, uint64_t ohash,
		     const struct dc_dtime_layout *l, int64_t *c, double *f)
{
	const struct dc_drec *fast = NULL, *slow = NULL, *rmax = NULL,
			     *wmax = NULL;
	double sum_t = 0, sum_b = 0, var_t = 0, var_b = 0;
	unsigned set = 0;
	int n = 0;

	memset(f, 0, sizeof(double) * DC_DT_N);
	for (const struct dc_drec *r = first; r; r = r->next) {
		double t = io_time(r);

		if (r->module != module || r->ohash != ohash)
			continue;
		n++;
		for (int k = DC_DT_OPEN_START; k <= DC_DT_CLOSE_START; k++)
			if ((r->tset & 1u << k) &&
			    (!(set & 1u << k) || r->f[k] < f[k])) {
				f[k] = r->f[k];
				set |= 1u << k;
			}
		for (int k = DC_DT_OPEN_END; k <= DC_DT_CLOSE_END; k++)
			f[k] = n == 1 || r->f[k] > f[k] ? r->f[k] : f[k];
		for (int k = DC_DT_READ_TIME; k <= DC_DT_META_TIME; k++)
			f[k] += r->f[k];
		if ((r->tset & SET_MAX_READ) &&
		    (!rmax ||
		     r->f[DC_DT_MAX_READ_TIME] > rmax->f[DC_DT_MAX_READ_TIME]))
			rmax = r;
		if ((r->tset & SET_MAX_WRITE) &&
		    (!wmax || r->f[DC_DT_MAX_WRITE_TIME] >
				  wmax->f[DC_DT_MAX_WRITE_TIME]))
			wmax = r;
		if (!fast || t < io_time(fast))
			fast = r;
		if (!slow || t > io_time(slow))
			slow = r;
		sum_t += t;
		sum_b += (double)r->moved;
	}
	if (rmax) {
		f[DC_DT_MAX_READ_TIME] = rmax->f[DC_DT_MAX_READ_TIME];
		if (l->max_read_size >= 0)
			c[l->max_read_size] = rmax->c[l->max_read_size];
	}
	if (wmax) {
		f[DC_DT_MAX_WRITE_TIME] = wmax->f[DC_DT_MAX_WRITE_TIME];
		if (l->max_write_size >= 0)
			c[l->max_write_size] = wmax->c[l->max_write_size];
	}
	/* Only a record shared by processes has a fastest and slowest. */
	if (n < 2)
		return;
	f[DC_DT_FASTEST_RANK_TIME] = io_time(fast);
	f[DC_DT_SLOWEST_RANK_TIME] = io_time(slow);
	/* Population variance: Darshan divides by n, not n - 1. */
	for (const struct dc_drec *r = first; r; r = r->next) {
		double dt = io_time(r) - sum_t / n,
		       db = (double)r->moved - sum_b / n;

		if (r->module != module || r->ohash != ohash)
			continue;
		var_t += dt * dt;
		var_b += db * db;
	}
	f[DC_DT_VARIANCE_RANK_TIME] = var_t / n;
	f[DC_DT_VARIANCE_RANK_BYTES] = var_b / n;
	if (l->fastest_rank >= 0) {
		c[l->fastest_rank] = fast->rank;
		c[l->fastest_rank + 1] = fast->moved;
		c[l->fastest_rank + 2] = slow->rank;
		c[l->fastest_rank + 3] = slow->moved;
	}
}

#define DC_DTIME_NAME(id, name) name,
const char *const dc_dtime_names[DC_DT_N] = { DC_DTIMES(DC_DTIME_NAME) };
#undef DC_DTIME_NAME

#define DC_DTIME_ID(id, name) DC_DT_##id,
const int8_t dc_dtimes_all[DC_DT_N] = { DC_DTIMES(DC_DTIME_ID) };
#undef DC_DTIME_ID
