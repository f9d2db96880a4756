// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "roles.h"
#include "writer_pfw.h"

static int64_t clock_offset(void)
{
	struct timespec r, m1, m2;
	int64_t best = 0, best_gap = INT64_MAX;

	/* Bracket the realtime read between two monotonic reads; keep the
	 * tightest of a few tries. */
	for (int i = 0; i < 5; i++) {
		int64_t a, b, rt;

		clock_gettime(CLOCK_MONOTONIC, &m1);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		a = m1.tv_sec * 1000000000ll + m1.tv_nsec;
		b = m2.tv_sec * 1000000000ll + m2.tv_nsec;
		rt = r.tv_sec * 1000000000ll + r.tv_nsec;
		if (b - a < best_gap) {
			best_gap = b - a;
			best = rt - (a + (b - a) / 2);
		}
	}
	return best;
}

static int line_done(struct dc_pfw *w, uint64_t mono_ns)
{
	return dc_gz_line_done(&w->gz, mono_ns);
}

/* {"id":N,"name":NAME,"cat":"dftracer","pid":P,"tid":T,"ph":"M","args":{ */
static void meta_head(struct dc_pfw *w, const char *name, uint32_t pid,
		      uint32_t tid)
{
	struct dc_buf *b = dc_gz_buf(&w->gz);

	dc_buf_adds(b, "{\"id\":");
	dc_buf_add_u64(b, w->next_id++);
	dc_buf_adds(b, ",\"name\":\"");
	dc_buf_adds(b, name);
	dc_buf_adds(b, "\",\"cat\":\"dftracer\",\"pid\":");
	dc_buf_add_u64(b, pid);
	dc_buf_adds(b, ",\"tid\":");
	dc_buf_add_u64(b, tid);
	dc_buf_adds(b, ",\"ph\":\"M\",\"args\":{");
}

static void kv_str(struct dc_buf *b, const char *key, const char *val)
{
	dc_buf_adds(b, "\"");
	dc_buf_adds(b, key);
	dc_buf_adds(b, "\":");
	dc_json_str(b, val, strlen(val));
}

static void meta_name(struct dc_pfw *w, const char *name, uint32_t pid,
		      uint32_t tid, const char *val, uint64_t mono)
{
	struct dc_buf *b = dc_gz_buf(&w->gz);

	meta_head(w, name, pid, tid);
	/* The host too: a report of a range of members then knows whose
	 * process or thread it is without the trace's first HH record. */
	kv_str(b, "hhash", w->hhash);
	dc_buf_adds(b, ",");
	kv_str(b, "name", val);
	dc_buf_adds(b, "}}\n");
	line_done(w, mono);
}

/* PR, FH and the like: {"hhash":H,"name":K,"value":V}. */
static void meta_value(struct dc_pfw *w, const char *rec, uint32_t pid,
		       const char *key, const char *val, uint64_t mono)
{
	struct dc_buf *b = dc_gz_buf(&w->gz);

	meta_head(w, rec, pid, pid);
	kv_str(b, "hhash", w->hhash);
	dc_buf_adds(b, ",");
	kv_str(b, "name", key);
	dc_buf_adds(b, ",");
	kv_str(b, "value", val);
	dc_buf_adds(b, "}}\n");
	line_done(w, mono);
}

/* Tracks for a thread's requests in flight at once (block requests,
 * io_uring, readahead's page-cache adds): lane << 22 of the track's id
 * has 8 bits, between the tid (below 2^22, PID_MAX_LIMIT) and bit 30. */
#define DC_LANES 256

/* What this trace has said of a process: the writer's own marks. */
struct said_proc {
	uint64_t serial; /* the process (a pid is reused) */
	uint32_t image;	 /* its exec image named last */
	bool named, pr;
	char *fact[DC_NFACTS];
};

/* ... and of a thread, with its request lanes. */
struct said_thread {
	uint64_t serial;
	bool named;
	bool pending; /* gone from /proc: named from its exit record */
	char name[16];
	/* Kernel requests it started, on lanes of their own: when each
	 * lane's last one ended, ns. */
	uint64_t lane_end[DC_LANES];
};

static void free_said_proc(void *v)
{
	struct said_proc *sp = v;

	for (int i = 0; sp && i < DC_NFACTS; i++)
		free(sp->fact[i]);
	free(sp);
}

/* The marks of @p, new (all unsaid) for a process this trace has not
 * seen: NULL when out of memory. */
static struct said_proc *said_proc(struct dc_pfw *w, const struct dc_proc *p)
{
	struct said_proc *sp = dc_map_get(&w->procs, p->pid);

	if (sp && sp->serial == p->serial)
		return sp;
	if (sp) {
		dc_map_del(&w->procs, p->pid);
		free_said_proc(sp);
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp || dc_map_put(&w->procs, p->pid, sp)) {
		free(sp);
		return NULL;
	}
	sp->serial = p->serial;
	return sp;
}

static struct said_thread *said_thread(struct dc_pfw *w,
				       const struct dc_rthread *t)
{
	struct said_thread *st = dc_map_get(&w->threads, t->tid);

	if (st && st->serial == t->serial)
		return st;
	if (!st) {
		st = malloc(sizeof(*st));
		if (!st || dc_map_put(&w->threads, t->tid, st)) {
			free(st);
			return NULL;
		}
	}
	*st = (struct said_thread){ .serial = t->serial };
	return st;
}

/* process_name, and the PR records: cwd and ppid once per process, the
 * command, rank, world size and job id whenever an exec changed them. */
static void proc_meta(struct dc_pfw *w, const struct dc_proc *p, uint64_t mono)
{
	static const char *const keys[DC_NFACTS] = { "cmd", "rank", "size",
						     "jobid" };
	struct said_proc *sp = said_proc(w, p);

	if (!sp || (sp->named && sp->image == p->image))
		return;
	sp->named = true;
	sp->image = p->image;
	meta_name(w, "process_name", p->pid, p->pid, p->comm, mono);
	/* A launched command's first events are the runtime's own, before
	 * its exec: its facts come after. */
	if (p->exec_pending)
		return;
	for (int i = 0; i < DC_NFACTS; i++) {
		const char *v = p->fact[i];

		if (!v || (sp->fact[i] && !strcmp(v, sp->fact[i])))
			continue;
		meta_value(w, "PR", p->pid, keys[i], v, mono);
		free(sp->fact[i]);
		sp->fact[i] = strdup(v);
	}
	if (sp->pr)
		return;
	sp->pr = true;
	if (p->cwd)
		meta_value(w, "PR", p->pid, "cwd", p->cwd, mono);
	if (p->ppid) {
		char ppid[16];

		snprintf(ppid, sizeof(ppid), "%u", p->ppid);
		meta_value(w, "PR", p->pid, "ppid", ppid, mono);
	}
}

static void thread_name(struct dc_pfw *w, struct said_thread *st,
			const struct dc_rthread *t, const char *comm,
			uint64_t mono)
{
	st->named = true;
	st->pending = false;
	snprintf(st->name, sizeof(st->name), "%s", comm);
	meta_name(w, "thread_name", t->pid, t->tid, comm, mono);
}

/* Named by its comm at its first call; a thread already gone then is
 * named from its exit record, which carries its last comm. */
static void thread_meta(struct dc_pfw *w, struct said_thread *st,
			const struct dc_rthread *t, uint64_t mono)
{
	if (st->named || st->pending)
		return;
	if (!t->comm[0]) {
		st->pending = true;
		return;
	}
	thread_name(w, st, t, t->comm, mono);
}

void dc_pfw_thread_exit(struct dc_pfw *w, const struct dc_rthread *t,
			const char *comm, uint64_t mono)
{
	struct said_thread *st = dc_map_get(&w->threads, t->tid);

	if (!st || st->serial != t->serial)
		return;
	/* Renamed (pthread_setname_np) after its first call: the last name
	 * wins in Perfetto, so write it again. */
	if (st->pending || (st->named && strcmp(st->name, comm)))
		thread_name(w, st, t, comm, mono);
	dc_map_del(&w->threads, t->tid);
	free(st);
}

void dc_pfw_thread_unnamed(struct dc_pfw *w, const struct dc_rthread *t,
			   const char *comm, uint64_t mono)
{
	struct said_thread *st = dc_map_get(&w->threads, t->tid);

	if (st && st->serial == t->serial && st->pending)
		thread_name(w, st, t, comm, mono);
}

void dc_pfw_proc_exec(struct dc_pfw *w, const struct dc_proc *p, uint64_t mono)
{
	struct said_proc *sp = dc_map_get(&w->procs, p->pid);

	if (sp && sp->serial == p->serial && sp->named)
		proc_meta(w, p, mono);
}

void dc_pfw_forget_proc(struct dc_pfw *w, const struct dc_proc *p)
{
	struct said_proc *sp = dc_map_get(&w->procs, p->pid);

	if (sp && sp->serial == p->serial) {
		dc_map_del(&w->procs, p->pid);
		free_said_proc(sp);
	}
}

bool dc_pfw_compressed(const char *path)
{
	size_t n = strlen(path);

	return n < 4 || strcmp(path + n - 4, ".pfw");
}

int dc_pfw_open(struct dc_pfw *w, int fd, const struct dc_pfw_opts *o)
{
	char host[256] = "unknown";
	struct dc_buf *b;
	int err;

	memset(w, 0, sizeof(*w));
	w->next_id = 1;
	w->self_pid = getpid();
	w->clock_offset_ns = clock_offset();
	err = dc_gz_open(&w->gz, fd, o->compress, o->level, o->member_size,
			 o->interval_ns);
	if (err)
		return err;
	gethostname(host, sizeof(host) - 1);
	dc_hash_hex(dc_hash(host, strlen(host)), w->hhash);
	b = dc_gz_buf(&w->gz);
	dc_buf_adds(b, "[\n");
	meta_head(w, "HH", w->self_pid, w->self_pid);
	kv_str(b, "name", host);
	dc_buf_adds(b, ",");
	kv_str(b, "value", w->hhash);
	dc_buf_adds(b, "}}\n");
	return line_done(w, 0);
}

/* Microseconds, rounded to the nearest: rounding is monotonic, so both
 * ends of every call rounded alike keep nesting and order exactly (a
 * child stays inside its parent, consecutive calls never overlap, which
 * Perfetto requires); a call under half a microsecond may show dur 0. */
static int64_t us(int64_t ns)
{
	return ns >= 0 ? (ns + 500) / 1000 : -((-ns + 499) / 1000);
}

static void add_time(struct dc_pfw *w, struct dc_buf *b, uint64_t ts,
		     uint64_t dur)
{
	int64_t start = (int64_t)ts + w->clock_offset_ns;

	dc_buf_adds(b, ",\"ts\":");
	dc_buf_add_i64(b, us(start));
	dc_buf_adds(b, ",\"dur\":");
	dc_buf_add_i64(b, us(start + (int64_t)dur) - us(start));
}

/*
 * A kernel request (a begin/end pair: a block request) outlives the call
 * that issued it and overlaps the next ones, and its thread's other
 * requests: on the thread's own track Perfetto would drop it. Each goes
 * on a lane of the thread where it overlaps nothing, a track of its own
 * (bit 30 set, the lane in bits 22-29) named after
 * the thread. Requests are written as they end, so each lane's are in
 * order.
 */
static uint32_t request_track(struct dc_pfw *w, struct said_thread *t,
			      const struct dc_call *c)
{
	char name[48];
	uint32_t track;
	int lane = 0;

	if (!t)
		return c->tid;
	while (lane < DC_LANES - 1 && t->lane_end[lane] > c->ts)
		lane++;
	if (t->lane_end[lane] < c->ts + c->dur)
		t->lane_end[lane] = c->ts + c->dur;
	track = c->tid | 1u << 30 | (uint32_t)lane << 22;
	if (!dc_map_get(&w->lanes, track) && !dc_map_put(&w->lanes, track, w)) {
		snprintf(name, sizeof(name), "%s: kernel requests %d",
			 t->name[0] ? t->name : "thread", lane + 1);
		meta_name(w, "thread_name", c->pid, track, name, c->ts);
	}
	return track;
}

static const char *role_key(int role)
{
	/* An MPI datatype is captured as its size. A string's length and
	 * bytes fed by inner functions are the call's size; paths and object
	 * names are named through fhash and object. */
	return role == DC_ROLE_PATH || role == DC_ROLE_STR ||
		       role == DC_ROLE_STR_OUT || role == DC_ROLE_FED ||
		       role == DC_ROLE_NAME || role == DC_ROLE_FUNC
		   ? NULL
	       : role == DC_ROLE_DATATYPE ? "type_size"
					  : dc_role_name(role);
}

uint64_t dc_pfw_call(struct dc_pfw *w, const struct dc_call *c, int64_t p_idx)
{
	const struct dc_probe_info *d = c->probe->d;
	struct said_thread *st = c->thread ? said_thread(w, c->thread) : NULL;
	struct dc_buf *b = dc_gz_buf(&w->gz);
	bool device = c->device != NULL;
	uint32_t track;
	int64_t bytes;
	uint64_t id;

	if (c->filtered)
		return w->next_id++;
	if (c->proc)
		proc_meta(w, c->proc, c->ts);
	if (st)
		thread_meta(w, st, c->thread, c->ts);
	if (c->file && !dc_map_get(&w->fh, (uintptr_t)c->file)) {
		dc_map_put(&w->fh, (uintptr_t)c->file, w);
		meta_value(w, "FH", c->pid, c->file->name, c->file->hash,
			   c->ts);
	}
	/* Before the line: a new track's name comes first. */
	/* Requests that outlive the call that made them (a block request,
	 * an io_uring read) go on lanes of their own. */
	track = (d->mech == DC_MECH_TRACEPOINT && d->end && d->end[0]) ||
			d->mech == DC_MECH_IO_URING ||
			d->mech == DC_MECH_LIBAIO || d->mech == DC_MECH_POSIXAIO
		    ? request_track(w, st, c)
		    : c->tid;
	id = w->next_id++;
	dc_buf_adds(b, "{\"id\":");
	dc_buf_add_u64(b, id);
	dc_buf_adds(b, ",\"name\":");
	/* A Python function's call is named by the function. */
	if (c->func)
		dc_json_str(b, c->func, strlen(c->func));
	else
		dc_buf_adds(b, c->probe->name_json);
	dc_buf_adds(b, ",\"cat\":");
	dc_buf_adds(b, c->probe->cat_json);
	dc_buf_adds(b, ",\"pid\":");
	dc_buf_add_u64(b, c->pid);
	dc_buf_adds(b, ",\"tid\":");
	dc_buf_add_u64(b, track);
	add_time(w, b, c->ts, c->dur);
	dc_buf_adds(b, ",\"ph\":\"X\",\"args\":{\"hhash\":\"");
	dc_buf_adds(b, w->hhash);
	dc_buf_adds(b, "\"");
	if (c->file) {
		dc_buf_adds(b, ",\"fhash\":\"");
		dc_buf_adds(b, c->file->hash);
		dc_buf_adds(b, "\"");
	}
	if (c->object) {
		dc_buf_adds(b, ",\"object\":");
		dc_json_str(b, c->object, strlen(c->object));
	}
	for (int i = 0; i < d->nslots; i++) {
		/* Tracepoint slots are named by their record's fields. */
		const char *key = d->mech == DC_MECH_TRACEPOINT
				      ? d->field[i]
				      : role_key(d->slot_role[i]);

		if (!key)
			continue;
		dc_buf_adds(b, ",\"");
		dc_buf_adds(b, key);
		dc_buf_adds(b, "\":");
		if (c->probe->text_slots & 1u << i) {
			char text[9] = {};

			memcpy(text, &c->val[i], 8);
			dc_json_str(b, text, strlen(text));
			continue;
		}
		if (d->slot_role[i] == DC_ROLE_SRCFILE) {
			const char *sf = c->srcfile ? c->srcfile : "";

			dc_json_str(b, sf, strlen(sf));
			continue;
		}
		if (c->probe->dev_slots & 1u << i && device) {
			dc_buf_add_u64(b, c->val[i]);
			dc_buf_adds(b, ",\"device\":");
			dc_json_str(b, c->device, strlen(c->device));
			device = false; /* the first device slot's */
			continue;
		}
		/* off_t is signed: lseek's SEEK_CUR and SEEK_END offsets
		 * may be negative. */
		if (dc_role_is_int(d->slot_role[i]) ||
		    d->slot_role[i] == DC_ROLE_OFFSET)
			dc_buf_add_i64(b, (int64_t)c->val[i]);
		else
			dc_buf_add_u64(b, c->val[i]);
	}
	/* Tracepoints and USDT probes are points or kernel work: no return
	 * value. */
	if (d->mech == DC_MECH_TRACEPOINT || d->mech == DC_MECH_USDT) {
		if (d->mech == DC_MECH_TRACEPOINT && d->size_slot >= 0 &&
		    d->size_slot < DC_CAPTURE) {
			dc_buf_adds(b, ",\"size\":");
			dc_buf_add_u64(b, c->val[d->size_slot]);
		}
		goto nesting;
	}
	dc_buf_adds(b, ",\"ret\":");
	if ((d->ret == DC_RET_ADDR || d->ret == DC_RET_STREAM) &&
	    c->ret != -1 && (c->ret >= 0 || c->ret < -4095))
		dc_buf_add_u64(b, (uint64_t)c->ret);
	else
		dc_buf_add_i64(b, c->ret);
	if ((bytes = dc_call_bytes(c)) >= 0) {
		dc_buf_adds(b, ",\"size\":");
		dc_buf_add_i64(b, bytes);
	} else if (dc_call_unsized(c)) {
		dc_buf_adds(b, ",\"size_unknown\":1");
	}
nesting:
	if (c->aio_helper)
		dc_buf_adds(b, ",\"aio_helper\":1");
	dc_buf_adds(b, ",\"level\":");
	dc_buf_add_u64(b, c->level);
	dc_buf_adds(b, ",\"p_idx\":");
	dc_buf_add_i64(b, p_idx);
	dc_buf_adds(b, "}}\n");
	w->calls++;
	c->probe->calls++;
	line_done(w, c->ts);
	return id;
}

void dc_pfw_counter(struct dc_pfw *w, const struct dc_proc *p,
		    const struct dc_rthread *t, const struct dc_probe *probe,
		    struct dc_file *file, const char *object, bool inner,
		    const struct dc_agg_val *v, uint64_t mono)
{
	static const struct {
		const char *key;
		size_t off;
	} pat[] = {
		{ ",\"seq\":", offsetof(struct dc_agg_val, seq) },
		{ ",\"consec\":", offsetof(struct dc_agg_val, consec) },
		{ ",\"switches\":", offsetof(struct dc_agg_val, switches) },
		{ ",\"errs\":", offsetof(struct dc_agg_val, errs) },
		{ ",\"size_unknown\":", offsetof(struct dc_agg_val, unsized) },
	};
	int nhist = DC_HIST_N;
	struct said_thread *st = said_thread(w, t);
	struct dc_buf *b = dc_gz_buf(&w->gz);
	uint32_t pid = t->pid, tid = t->tid;

	if (p)
		proc_meta(w, p, mono);
	if (st)
		thread_meta(w, st, t, mono);
	if (file && !dc_map_get(&w->fh, (uintptr_t)file)) {
		dc_map_put(&w->fh, (uintptr_t)file, w);
		meta_value(w, "FH", pid, file->name, file->hash, mono);
	}
	/* No id: Perfetto would split a counter track per distinct id. */
	dc_buf_adds(b, "{\"name\":");
	dc_buf_adds(b, probe->name_json);
	dc_buf_adds(b, ",\"cat\":");
	dc_buf_adds(b, probe->cat_json);
	dc_buf_adds(b, ",\"pid\":");
	dc_buf_add_u64(b, pid);
	dc_buf_adds(b, ",\"tid\":");
	dc_buf_add_u64(b, tid);
	dc_buf_adds(b, ",\"ts\":");
	dc_buf_add_i64(b, ((int64_t)mono + w->clock_offset_ns) / 1000);
	dc_buf_adds(b, ",\"dur\":0,\"ph\":\"C\",\"args\":{\"hhash\":\"");
	dc_buf_adds(b, w->hhash);
	dc_buf_adds(b, "\"");
	if (file) {
		dc_buf_adds(b, ",\"fhash\":\"");
		dc_buf_adds(b, file->hash);
		dc_buf_adds(b, "\"");
	}
	if (object) {
		dc_buf_adds(b, ",\"object\":");
		dc_json_str(b, object, strlen(object));
	}
	dc_buf_adds(b, ",\"count\":");
	dc_buf_add_u64(b, v->count);
	dc_buf_adds(b, ",\"dur_sum\":");
	dc_buf_add_u64(b, (v->dur_sum + 500) / 1000);
	dc_buf_adds(b, ",\"dur_min\":");
	dc_buf_add_u64(b, (v->dur_min + 500) / 1000);
	dc_buf_adds(b, ",\"dur_max\":");
	dc_buf_add_u64(b, (v->dur_max + 500) / 1000);
	dc_buf_adds(b, ",\"size_sum\":");
	dc_buf_add_u64(b, v->size_sum);
	/* Darshan's counters, only those not 0. */
	if (inner)
		dc_buf_adds(b, ",\"inner\":1");
	for (size_t i = 0; i < sizeof(pat) / sizeof(*pat); i++) {
		uint32_t n = *(const uint32_t *)((const char *)v + pat[i].off);

		if (n) {
			dc_buf_adds(b, pat[i].key);
			dc_buf_add_u64(b, n);
		}
	}
	if (v->max_byte > 0) {
		dc_buf_adds(b, ",\"max_byte\":");
		dc_buf_add_u64(b, v->max_byte);
	}
	while (nhist && !v->hist[nhist - 1])
		nhist--;
	for (int i = 0; i < nhist; i++) {
		dc_buf_adds(b, i ? "," : ",\"hist\":[");
		dc_buf_add_u64(b, v->hist[i]);
	}
	if (nhist)
		dc_buf_adds(b, "]");
	dc_buf_adds(b, "}}\n");
	w->counters++;
	line_done(w, mono);
}

int dc_pfw_marker(struct dc_pfw *w, const char *name, uint64_t mono_ns,
		  const char *args_json)
{
	struct dc_buf *b = dc_gz_buf(&w->gz);

	dc_buf_adds(b, "{\"id\":");
	dc_buf_add_u64(b, w->next_id++);
	dc_buf_adds(b, ",\"name\":\"");
	dc_buf_adds(b, name);
	dc_buf_adds(b, "\",\"cat\":\"dftracer\",\"pid\":");
	dc_buf_add_u64(b, w->self_pid);
	dc_buf_adds(b, ",\"tid\":");
	dc_buf_add_u64(b, w->self_pid);
	add_time(w, b, mono_ns, 0);
	dc_buf_adds(b, ",\"ph\":\"X\",\"args\":{\"hhash\":\"");
	dc_buf_adds(b, w->hhash);
	dc_buf_adds(b, "\",");
	dc_buf_adds(b, args_json);
	dc_buf_adds(b, "}}\n");
	return line_done(w, mono_ns);
}

int dc_pfw_tick(struct dc_pfw *w, uint64_t mono_ns)
{
	return dc_gz_tick(&w->gz, mono_ns);
}

static void free_maps(struct dc_pfw *w)
{
	dc_map_free(&w->fh, NULL);
	dc_map_free(&w->lanes, NULL);
	dc_map_free(&w->procs, free_said_proc);
	dc_map_free(&w->threads, free);
}

int dc_pfw_close(struct dc_pfw *w)
{
	free_maps(w);
	dc_buf_adds(dc_gz_buf(&w->gz), "]\n");
	return dc_gz_close(&w->gz);
}

void dc_pfw_free(struct dc_pfw *w)
{
	free_maps(w);
	dc_gz_close(&w->gz);
}
