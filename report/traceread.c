// SPDX-License-Identifier: MIT
/* Reading a trace: its pieces as tasks on worker threads, their lines
 * handed over in file order, damage counted and said. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "log.h"
#include "tracereader.h"

#define TEXT_CHUNK   (4u << 20)	 /* plain text is cut in pieces this big */
#define RELEASE_STEP (64u << 20) /* read pages given back this many at once */

/* The tasks' buffers, kept from one read to the next: reading a range
 * of a trace (a Dask task) is a read of a few members, and every fresh
 * page costs a fault, which on a virtual machine costs more than parsing
 * the lines it holds. One reader's worth is kept, up to POOL_MAX bytes
 * (a process keeps them once it has read); readers at the same time
 * allocate their own. */
#define POOL_MAX (256u << 20)
static struct {
	pthread_mutex_t mu;
	struct task kept[WINDOW];
	int n;
	size_t bytes;
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Parse one line; one too long to be an event is damaged, not parsed. */
static void parse_line(struct dc_line *l)
{
	if (l->len <= DC_LINE_MAX) {
		l->status = dc_event_parse(l->text, l->len, &l->ev);
		return;
	}
	memset(&l->ev, 0, sizeof(l->ev));
	l->ev.err = "line longer than 1 MiB";
	l->ev.err_col = DC_LINE_MAX;
	l->status = -EINVAL;
}

static int task_lines(struct task *t)
{
	const char *p = t->text, *end = t->text + t->len, *nl;
	uint64_t rel = 1;

	t->nlines = 0;
	t->first_nl = t->last_nl = SIZE_MAX;
	nl = memchr(p, '\n', t->len);
	if (!nl)
		return 0;
	t->first_nl = nl - p;
	p = nl + 1;
	while (p < end && (nl = memchr(p, '\n', end - p))) {
		struct dc_line *l;

		if (dc_grow_cap((void **)&t->lines, &t->lines_cap, t->nlines,
				sizeof(*t->lines), 1024))
			return -ENOMEM;
		l = &t->lines[t->nlines++];
		l->text = p;
		l->len = nl - p;
		l->lineno = rel++;
		parse_line(l);
		p = nl + 1;
	}
	t->last_nl = (p - 1) - t->text;
	return 0;
}

static void do_task(struct reader *r, struct task *t)
{
	t->text = NULL;
	t->len = 0;
	t->nlines = 0;
	t->first_nl = t->last_nl = SIZE_MAX;
	if (!r->gz) {
		t->text = (char *)r->map + t->off;
		t->len = r->limit - t->off < TEXT_CHUNK ? r->limit - t->off
							: TEXT_CHUNK;
		t->end = t->off + t->len;
		t->res = RES_OK;
	} else {
#ifdef DC_HAVE_ISAL
		if (dc_inflate_fast(r, t))
			t->res = RES_OK;
		else
#endif
			t->res = dc_inflate_zlib(r->map + t->off,
						 r->size - t->off, t);
	}
	/* A member past the range is inflated only to tell where the range
	 * ends: its lines are the next range's. */
	if (r->gz && t->off >= r->stop_at)
		return;
	if ((t->res == RES_OK || t->res == RES_TRUNC) && task_lines(t))
		t->res = RES_BAD;
}

/* The next task's offset: the next gzip header, or the next text chunk. */
static bool next_offset(struct reader *r, uint64_t *off)
{
	const void *p;

	if (r->scan >= r->limit)
		return false;
	if (!r->gz) {
		*off = r->scan;
		r->scan += TEXT_CHUNK;
		return true;
	}
	p = memmem(r->map + r->scan, r->size - r->scan, DC_GZ_MAGIC, 3);
	if (!p)
		return false;
	*off = (const unsigned char *)p - r->map;
	r->scan = *off + 1;
	return true;
}

static void *worker(void *arg)
{
	struct reader *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct task *t;
		uint64_t off;

		while (!r->stop && !r->scan_done &&
		       (r->next_task >= r->consumed + WINDOW ||
			(r->beyond && r->scan >= r->stop_at)))
			pthread_cond_wait(&r->work, &r->mu);
		if (r->stop || r->scan_done)
			break;
		if (!next_offset(r, &off)) {
			r->scan_done = true;
			pthread_cond_broadcast(&r->done);
			break;
		}
		t = &r->slots[r->next_task++ % WINDOW];
		t->off = off;
		t->state = 1;
		r->beyond += r->gz && off >= r->stop_at;
		pthread_mutex_unlock(&r->mu);
		do_task(r, t);
		pthread_mutex_lock(&r->mu);
		t->state = 2;
		pthread_cond_broadcast(&r->done);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static int deliver(struct reader *r, struct dc_line *l)
{
	int err;

	r->st->lines++;
	err = r->o->line(r->o->ctx, l);
	if (err)
		r->err = err;
	return err;
}

/* Keep the start of a line that goes on in the next piece: up to one
 * byte past DC_LINE_MAX (enough to tell it is too long), with its
 * whole length counted. */
static int carry(struct reader *r, const char *text, size_t len)
{
	size_t room =
	    r->carry.len <= DC_LINE_MAX ? DC_LINE_MAX + 1 - r->carry.len : 0;

	r->carry_len += len;
	return dc_buf_add(&r->carry, text, len < room ? len : room) ? -ENOMEM
								    : 0;
}

/* Hand over a piece of text: the first line joins what was carried over
 * from the previous piece; the rest were parsed by a worker (@t) or are
 * parsed here. */
static int take_text(struct reader *r, const char *text, size_t len,
		     struct task *t)
{
	struct task local = {};
	struct dc_line l;
	uint64_t base;
	int err = 0;

	if (!t) {
		local.text = (char *)text;
		local.len = len;
		if (task_lines(&local))
			return -ENOMEM;
		t = &local;
	}
	if (t->first_nl == SIZE_MAX) {
		err = carry(r, text, len);
		goto out;
	}
	if (r->carry_len) {
		if ((err = carry(r, text, t->first_nl)))
			goto out;
		l.text = r->carry.p;
		l.len = r->carry_len;
	} else {
		l.text = text;
		l.len = t->first_nl;
	}
	l.lineno = ++r->lineno;
	parse_line(&l);
	if ((err = deliver(r, &l)))
		goto out;
	r->carry.len = r->carry_len = 0;
	base = r->lineno;
	for (size_t i = 0; i < t->nlines; i++) {
		t->lines[i].lineno += base;
		if ((err = deliver(r, &t->lines[i])))
			goto out;
	}
	r->lineno += t->nlines;
	if (t->last_nl + 1 < len)
		err = carry(r, text + t->last_nl + 1, len - t->last_nl - 1);
out:
	free(local.lines);
	return err;
}

/* Each place is named, up to a point: a trace damaged all through would
 * bury the report under its errors. */
#define MAX_DAMAGE_ERRORS 10

static void damaged(struct reader *r, const char *what, uint64_t off)
{
	if (r->st->problems++ < MAX_DAMAGE_ERRORS && !r->o->quiet)
		dc_err("%s: line %llu: %s at byte %llu", r->path,
		       (unsigned long long)r->lineno + 1, what,
		       (unsigned long long)off);
}

/* A member too big to hold: inflate it here, piece by piece. */
static enum result stream_member(struct reader *r, uint64_t off, uint64_t *end)
{
	z_stream zs = {};
	char *out = malloc(STREAM_OUT);
	enum result res = RES_BAD;
	int ret = Z_OK;

	if (!out || inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(out);
		r->err = -ENOMEM;
		return RES_BAD;
	}
	zs.next_in = (Bytef *)r->map + off;
	zs.avail_in = r->size - off > UINT32_MAX ? UINT32_MAX : r->size - off;
	while (ret == Z_OK) {
		zs.next_out = (Bytef *)out;
		zs.avail_out = STREAM_OUT;
		ret = inflate(&zs, Z_NO_FLUSH);
		if (zs.avail_out < STREAM_OUT &&
		    take_text(r, out, STREAM_OUT - zs.avail_out, NULL))
			break;
		if (ret == Z_STREAM_END)
			res = RES_OK;
		else if (ret == Z_BUF_ERROR && !zs.avail_in)
			res = RES_TRUNC;
		if (r->o->progress)
			r->o->progress(r->o->ctx, off + zs.total_in, r->size);
	}
	*end = off + zs.total_in;
	r->st->bytes_out += zs.total_out;
	inflateEnd(&zs);
	free(out);
	return res;
}

/* Drop the mapping's pages before @upto once they are read: a trace
 * bigger than memory then never holds more than the tasks in flight. */
static void release(struct reader *r, uint64_t upto)
{
	uint64_t page = sysconf(_SC_PAGESIZE), end = upto / page * page;

	/* A worker still reading there (a false header inside a member)
	 * faults the pages back in from the file: it is read-only. */
	/* In large steps: each call interrupts the other threads (TLB). */
	if (end >= r->released + RELEASE_STEP) {
		madvise((void *)(r->map + r->released), end - r->released,
			MADV_DONTNEED);
		r->released = end;
	}
}

static int consume(struct reader *r)
{
	uint64_t cur = r->first, bad_from = 0, tail = r->size;
	/* A range may begin inside a member: what precedes the first one
	 * that inflates is the previous range's, not damage. */
	bool resync = false, synced = !r->gz || !r->first;

	for (;;) {
		struct task *t;

		pthread_mutex_lock(&r->mu);
		t = &r->slots[r->consumed % WINDOW];
		while (!(r->consumed < r->next_task && t->state == 2) &&
		       !(r->scan_done && r->consumed >= r->next_task))
			pthread_cond_wait(&r->done, &r->mu);
		if (r->consumed >= r->next_task) {
			pthread_mutex_unlock(&r->mu);
			break;
		}
		pthread_mutex_unlock(&r->mu);

		if (r->gz && t->off >= r->stop_at && t->res != RES_BAD &&
		    (t->off >= cur || resync)) {
			/* The next range's first member: damage before it is
			 * still this range's. */
			tail = t->off;
			if (!synced)
				cur = tail;
			break;
		}
		if (!synced && t->res == RES_BAD) {
			/* The end of a member that starts before the range. */
		} else if (t->off < cur && !resync) {
			/* A header-like pattern inside a member already read.
			 */
		} else if (resync && t->res != RES_OK && t->res != RES_BIG) {
			/* Still looking for the next good member. */
			r->st->bad_members++;
		} else {
			uint64_t end = t->end;
			enum result res = t->res;

			if (!synced)
				cur = t->off;
			synced = true;
			if (t->off > cur && !resync) {
				damaged(r, "data that is not gzip", cur);
				r->st->bytes_skipped += t->off - cur;
			}
			if (resync)
				r->st->bytes_skipped += t->off - bad_from;
			resync = false;
			if (res == RES_BIG) {
				res = stream_member(r, t->off, &end);
			} else if (res != RES_BAD) {
				r->st->bytes_out += t->len;
				if (take_text(r, t->text, t->len, t))
					goto stop;
			}
			r->st->members++;
			if (r->err)
				goto stop;
			if (res == RES_TRUNC) {
				damaged(r,
					"truncated gzip member (the rest is "
					"lost)",
					t->off);
				r->carry.len = r->carry_len = 0;
				r->st->bad_members++;
				end = r->size;
			} else if (res == RES_BAD) {
				damaged(r, "corrupt gzip member", t->off);
				r->st->bad_members++;
				bad_from = t->off;
				resync = true;
			}
			cur = end;
		}
		if (r->o->progress)
			r->o->progress(r->o->ctx, t->end > cur ? t->end : cur,
				       r->size);
		release(r, cur);
		t->text = NULL;
		pthread_mutex_lock(&r->mu);
		t->state = 0;
		r->consumed++;
		r->beyond -= r->gz && t->off >= r->stop_at;
		pthread_cond_broadcast(&r->work);
		pthread_mutex_unlock(&r->mu);
	}
	if (r->gz && cur < tail && !resync) {
		damaged(r,
			tail < r->size ? "data that is not gzip"
				       : "truncated gzip data",
			cur);
		r->st->bytes_skipped += tail - cur;
	}
	if (resync)
		r->st->bytes_skipped += tail - bad_from;
	if (r->st->problems > MAX_DAMAGE_ERRORS && !r->o->quiet)
		dc_err("%s: %u more damaged places not listed", r->path,
		       r->st->problems - MAX_DAMAGE_ERRORS);
	if (r->carry_len) {
		struct dc_line l = { .text = r->carry.p, .len = r->carry_len };

		/* A last line without its '\n'. */
		l.lineno = ++r->lineno;
		parse_line(&l);
		deliver(r, &l);
	}
	return r->err;
stop:
	return r->err ? r->err : -ENOMEM;
}

static size_t task_bytes(const struct task *t)
{
	return t->cap + t->lines_cap * sizeof(*t->lines);
}

static void take_buffers(struct task *slots)
{
	pthread_mutex_lock(&pool.mu);
	for (int i = 0; pool.n; i++) {
		const struct task *k = &pool.kept[--pool.n];

		slots[i].buf = k->buf;
		slots[i].cap = k->cap;
		slots[i].lines = k->lines;
		slots[i].lines_cap = k->lines_cap;
	}
	pool.bytes = 0;
	pthread_mutex_unlock(&pool.mu);
}

static void keep_buffers(struct task *slots)
{
	pthread_mutex_lock(&pool.mu);
	for (int i = 0; i < WINDOW; i++) {
		const struct task *t = &slots[i];
		size_t n = task_bytes(t);

		if (n && pool.n < WINDOW && pool.bytes + n <= POOL_MAX) {
			pool.kept[pool.n++] = *t;
			pool.bytes += n;
		} else {
			free(t->buf);
			free(t->lines);
		}
	}
	pthread_mutex_unlock(&pool.mu);
}

int dc_trace_read(const char *path, const struct dc_read_opts *o,
		  struct dc_read_stats *st)
{
	struct reader *r;
	pthread_t th[64];
	int nth = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	int fd, err = 0, started = 0;
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (nth < 1)
		nth = 1;
	if (nth > 64)
		nth = 64;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->path = path;
	r->o = o;
	r->st = st;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		err = -errno;
		goto cleanup;
	}
	r->size = sb.st_size;
	st->bytes_in = r->size;
	if (r->size) {
		r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (r->map == MAP_FAILED) {
			r->map = NULL;
			err = -errno;
			goto cleanup;
		}
		madvise((void *)r->map, r->size, MADV_SEQUENTIAL);
	}
	r->gz = r->size >= 2 && r->map[0] == 0x1f && r->map[1] == 0x8b;
	dc_range_of(r, o->begin, o->end);
	take_buffers(r->slots);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->done, NULL);
#ifdef DC_HAVE_ISAL
	pthread_key_create(&r->dkey, dc_free_decompressor);
#endif
	for (; started < nth; started++)
		if (pthread_create(&th[started], NULL, worker, r))
			break;
	if (!started) {
		err = -EAGAIN;
		goto threads;
	}
	err = consume(r);
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_broadcast(&r->work);
	pthread_mutex_unlock(&r->mu);
threads:
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	keep_buffers(r->slots);
#ifdef DC_HAVE_ISAL
	pthread_key_delete(r->dkey);
#endif
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->done);
cleanup:
	if (r->map)
		munmap((void *)r->map, r->size);
	if (fd >= 0)
		close(fd);
	dc_buf_free(&r->carry);
	free(r);
	return err;
}
