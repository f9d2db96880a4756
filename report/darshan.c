// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "darshan.h"
#include "darshan_ops.h"
#include "buf.h"
#include "darshan_rec.h"
#include "hash.h"
#include "json.h"
#include "report.h"

/* Longest object name kept (an HDF5 dataset's path in its file). */
#define DC_OBJECT_MAX 1024

/* Darshan's counters of one module, in darshan-parser's order. */
static const char *const posix_names[] = {
	"OPENS",
	"FILENOS",
	"DUPS",
	"READS",
	"WRITES",
	"SEEKS",
	"STATS",
	"MMAPS",
	"FSYNCS",
	"FDSYNCS",
	"MODE",
	"BYTES_READ",
	"BYTES_WRITTEN",
	"MAX_BYTE_READ",
	"MAX_BYTE_WRITTEN",
	"CONSEC_READS",
	"CONSEC_WRITES",
	"SEQ_READS",
	"SEQ_WRITES",
	"RW_SWITCHES",
	"FILE_NOT_ALIGNED",
	"FILE_ALIGNMENT",
	"MAX_READ_TIME_SIZE",
	"MAX_WRITE_TIME_SIZE",
	DC_DSIZE_NAMES("SIZE_READ"),
	DC_DSIZE_NAMES("SIZE_WRITE"),
	"STRIDE1_STRIDE",
	"STRIDE2_STRIDE",
	"STRIDE3_STRIDE",
	"STRIDE4_STRIDE",
	"STRIDE1_COUNT",
	"STRIDE2_COUNT",
	"STRIDE3_COUNT",
	"STRIDE4_COUNT",
	DC_DACCESS_NAMES,
	"FASTEST_RANK",
	"FASTEST_RANK_BYTES",
	"SLOWEST_RANK",
	"SLOWEST_RANK_BYTES",
};

enum {
	P_OPENS,
	P_FILENOS,
	P_DUPS,
	P_READS,
	P_WRITES,
	P_SEEKS,
	P_STATS,
	P_MMAPS,
	P_FSYNCS,
	P_FDSYNCS,
	P_MODE,
	P_BYTES_READ,
	P_BYTES_WRITTEN,
	P_MAX_BYTE_READ,
	P_MAX_BYTE_WRITTEN,
	P_CONSEC_READS,
	P_CONSEC_WRITES,
	P_SEQ_READS,
	P_SEQ_WRITES,
	P_RW_SWITCHES,
	P_FILE_NOT_ALIGNED,
	P_FILE_ALIGNMENT,
	P_MAX_READ_TIME_SIZE,
	P_MAX_WRITE_TIME_SIZE,
	P_SIZE_READ,
	P_SIZE_WRITE = P_SIZE_READ + 10,
	P_STRIDE = P_SIZE_WRITE + 10,
	P_STRIDE_COUNT = P_STRIDE + 4,
	P_ACCESS = P_STRIDE_COUNT + 4,
	P_ACCESS_COUNT = P_ACCESS + 4,
	P_FASTEST_RANK = P_ACCESS_COUNT + 4,
	P_N = P_FASTEST_RANK + 4,
};

static const char *const stdio_names[] = {
	"OPENS",	 "FDOPENS",
	"READS",	 "WRITES",
	"SEEKS",	 "FLUSHES",
	"BYTES_WRITTEN", "BYTES_READ",
	"MAX_BYTE_READ", "MAX_BYTE_WRITTEN",
	"FASTEST_RANK",	 "FASTEST_RANK_BYTES",
	"SLOWEST_RANK",	 "SLOWEST_RANK_BYTES",
};

enum {
	S_OPENS,
	S_FDOPENS,
	S_READS,
	S_WRITES,
	S_SEEKS,
	S_FLUSHES,
	S_BYTES_WRITTEN,
	S_BYTES_READ,
	S_MAX_BYTE_READ,
	S_MAX_BYTE_WRITTEN,
	S_FASTEST_RANK,
	S_N = S_FASTEST_RANK + 4,
};

_Static_assert(P_N <= DC_DREC_MAX, "a POSIX record fits a drec");
_Static_assert(sizeof(posix_names) / sizeof(*posix_names) == P_N,
	       "posix_names has every counter");
_Static_assert(sizeof(stdio_names) / sizeof(*stdio_names) == S_N,
	       "stdio_names has every counter");

static const struct dc_dtime_layout posix_layout = {
	P_MAX_READ_TIME_SIZE,
	P_MAX_WRITE_TIME_SIZE,
	P_FASTEST_RANK,
};
/* Darshan's STDIO module keeps no slowest call. */
static const struct dc_dtime_layout stdio_layout = { -1, -1, S_FASTEST_RANK };

/* Each module's timing counters, in darshan-parser's order. */
static const int8_t posix_times[] = {
	T_OPEN_START,
	T_READ_START,
	T_WRITE_START,
	T_CLOSE_START,
	T_OPEN_END,
	T_READ_END,
	T_WRITE_END,
	T_CLOSE_END,
	T_READ_TIME,
	T_WRITE_TIME,
	T_META_TIME,
	T_MAX_READ_TIME,
	T_MAX_WRITE_TIME,
	T_FASTEST_RANK_TIME,
	T_SLOWEST_RANK_TIME,
	T_VARIANCE_RANK_TIME,
	T_VARIANCE_RANK_BYTES,
};
static const int8_t stdio_times[] = {
	T_META_TIME,	     T_WRITE_TIME,	   T_READ_TIME,
	T_OPEN_START,	     T_CLOSE_START,	   T_WRITE_START,
	T_READ_START,	     T_OPEN_END,	   T_CLOSE_END,
	T_WRITE_END,	     T_READ_END,	   T_FASTEST_RANK_TIME,
	T_SLOWEST_RANK_TIME, T_VARIANCE_RANK_TIME, T_VARIANCE_RANK_BYTES,
};
static const int8_t h5f_times[] = {
	T_OPEN_START, T_CLOSE_START, T_OPEN_END, T_CLOSE_END, T_META_TIME,
};

static enum dc_dop op_of(const struct dc_str *name)
{
	return dc_darshan_op(name->p, name->n);
}

static int module_of(const struct dc_str *cat)
{
	if (cat->n == 5 && !memcmp(cat->p, "POSIX", 5))
		return MOD_POSIX;
	if (cat->n == 5 && !memcmp(cat->p, "STDIO", 5))
		return MOD_STDIO;
	if (cat->n == 5 && !memcmp(cat->p, "MPIIO", 5))
		return MOD_MPIIO;
	if (cat->n == 4 && !memcmp(cat->p, "HDF5", 4))
		return MOD_HDF5;
	return 0;
}

/* A POSIX AIO request (probes.d/posixaio.yaml): Darshan's POSIX module
 * counts each as a read or a write, from submission to aio_return. */
static int paio_op(const struct dc_str *cat, const struct dc_str *name)
{
	if (cat->n != 3 || memcmp(cat->p, "AIO", 3))
		return DC_DOP_NONE;
	if (name->n == 8 && !memcmp(name->p, "aio_read", 8))
		return DC_DOP_READ;
	if (name->n == 9 && !memcmp(name->p, "aio_write", 9))
		return DC_DOP_WRITE;
	return DC_DOP_NONE;
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

/* The op of a call of @module's layer named @name, and its module (H5F or
 * H5D for HDF5's, none for HDF5's others, which Darshan does not count);
 * op 0: one Darshan does not count. */
static int op_in(int *module, const struct dc_str *name)
{
	int op;

	switch (*module) {
	case MOD_MPIIO: return dc_darshan_mpiio_op(name->p, name->n);
	case MOD_HDF5:
		op = dc_darshan_hdf5_op(name->p, name->n);
		*module = dc_hdf5_module(op);
		return op;
	default: return op_of(name);
	}
}

int dc_darshan_call(struct dc_darshan *d, const struct dc_trace_event *ev)
{
	int module = module_of(&ev->cat), op = paio_op(&ev->cat, &ev->name);
	struct dc_dcall *c;
	uint64_t ohash;

	if (op != DC_DOP_NONE)
		module = MOD_POSIX;
	else if (module)
		op = op_in(&module, &ev->name);
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
		.ohash = module == MOD_H5D ? ohash : 0,
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

int dc_darshan_counter(struct dc_darshan *d, const struct dc_trace_event *ev)
{
	int module = module_of(&ev->cat), op = op_in(&module, &ev->name);
	struct dc_dcounter *c;
	uint64_t ohash;

	/* Darshan does not see calls inside the calls it sees. */
	if (!module || !op || ev->inner || !(ev->has & DC_EV_FHASH) ||
	    ev->count <= ev->errs)
		return 0;
	if (module == MOD_H5D && object_of(d, ev, &ohash))
		return -ENOMEM;
	if (dc_grow_cap((void **)&d->counters, &d->ccap, d->ncounters,
			sizeof(*d->counters), 256))
		return -ENOMEM;
	c = &d->counters[d->ncounters++];
	*c = (struct dc_dcounter){
		.fhash = ev->fhash,
		.hhash = ev->hhash,
		.ohash = module == MOD_H5D ? ohash : 0,
		.pid = ev->pid,
		.op = op,
		.module = module == MOD_STDIO && op == DC_DOP_FILENO ? MOD_POSIX
								     : module,
		.calls = ev->count - ev->errs,
		.size_sum = ev->size_sum,
		.dur_sum = ev->dur_sum,
		.seq = ev->seq,
		.consec = ev->consec,
		.switches = ev->switches,
		.max_byte = ev->max_byte,
	};
	memcpy(c->hist, ev->hist, sizeof(c->hist));
	return 0;
}

void dc_darshan_trace_done(struct dc_darshan *d)
{
	d->trace_no++;
}

/* @c's record of @module, made if @make; NULL if none or out of memory. */
static struct drec *rec_get(struct dc_darshan *d, int module,
			    const struct dc_dcall *c, bool make)
{
	uint64_t key = (c->fhash ^ c->hhash * 0x9e3779b97f4a7c15ull ^
			(uint64_t)c->pid << 32 ^ c->ohash) +
		       module;
	struct drec *r;

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
	return r;
}

static void posix_io(struct drec *r, const struct dc_dcall *c, bool wr)
{
	int64_t n = c->ret, off, stride,
		*last = wr ? &r->last_written : &r->last_read;
	int seq = wr ? P_SEQ_WRITES : P_SEQ_READS;

	off = (c->has & DC_EV_OFFSET) ? c->offset : r->offset;
	if (off > *last)
		r->c[seq]++;
	if (off == *last + 1)
		r->c[seq - 2]++; /* CONSEC_ */
	stride = off > 0 && off > *last && *last ? off - *last - 1 : 0;
	*last = off + n - 1;
	r->offset = off + n;
	if (wr)
		r->c[P_MAX_BYTE_WRITTEN] =
		    dc_max64(r->c[P_MAX_BYTE_WRITTEN], off + n - 1);
	else
		r->c[P_MAX_BYTE_READ] =
		    dc_max64(r->c[P_MAX_BYTE_READ], off + n - 1);
	r->c[wr ? P_BYTES_WRITTEN : P_BYTES_READ] += n;
	r->c[wr ? P_WRITES : P_READS]++;
	r->c[(wr ? P_SIZE_WRITE : P_SIZE_READ) + dc_dbucket(n)]++;
	dc_dcommon_top4(&r->c[P_ACCESS], &r->c[P_ACCESS_COUNT], n,
			dc_dcommon_seen(&r->access, n), false);
	dc_dcommon_top4(&r->c[P_STRIDE], &r->c[P_STRIDE_COUNT], stride,
			dc_dcommon_seen(&r->stride, stride), false);
	if (r->last_io && r->last_io != (wr ? 'w' : 'r'))
		r->c[P_RW_SWITCHES]++;
	r->last_io = wr ? 'w' : 'r';
	if (r->c[P_FILE_ALIGNMENT] > 0 && off % r->c[P_FILE_ALIGNMENT])
		r->c[P_FILE_NOT_ALIGNED]++;
}

/* The file systems Darshan leaves out of its mount table. */
static const char *const fs_excluded[] = {
	"tmpfs",      "proc",	   "sysfs",	 "devpts", "binfmt_misc",
	"fusectl",    "debugfs",   "securityfs", "nfsd",   "none",
	"rpc_pipefs", "hugetlbfs", "cgroup",
};

static bool fs_kept(const struct dc_mount *m)
{
	for (size_t j = 0; j < sizeof(fs_excluded) / sizeof(*fs_excluded); j++)
		if (!strcmp(m->type, fs_excluded[j]))
			return false;
	return true;
}

/* Darshan's mount table: the file systems it keeps, longest mount point
 * first (ties in the order mounted). Into @ix, @n of them; 0 or
 * -ENOMEM. */
static int fs_table(const struct dc_report *rep, size_t **ix, size_t *n)
{
	size_t *v = calloc(rep->nmounts + 1, sizeof(*v)), k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < rep->nmounts; i++) {
		size_t len = strlen(rep->mounts[i].dir), j = k;

		if (!fs_kept(&rep->mounts[i]))
			continue;
		for (; j > 0 && strlen(rep->mounts[v[j - 1]].dir) < len; j--)
			v[j] = v[j - 1];
		v[j] = i;
		k++;
	}
	*ix = v;
	*n = k;
	return 0;
}

/* The file system @path is on, as Darshan tells it: the first mount
 * point of its table (@d->fs) the path begins with (a prefix, as Darshan
 * compares). NULL: none. */
static const struct dc_mount *mount_of(const struct dc_darshan *d,
				       const struct dc_report *rep,
				       const char *path)
{
	for (size_t i = 0; i < d->nfs; i++) {
		const struct dc_mount *m = &rep->mounts[d->fs[i]];

		if (!strncmp(m->dir, path, strlen(m->dir)))
			return m;
	}
	return NULL;
}

/* POSIX_FILE_ALIGNMENT: the file system's preferred I/O size (Darshan
 * takes 1 MiB on Lustre, whose statfs says 4 KiB, and 4 KiB when statfs
 * failed), -1 on none Darshan keeps. */
static void posix_fs(struct drec *r, const struct dc_darshan *d,
		     const struct dc_report *rep)
{
	char buf[64];
	const struct dc_mount *m =
	    mount_of(d, rep, dc_file_name(rep, r->fhash, buf, sizeof(buf)));

	r->c[P_FILE_ALIGNMENT] = !m			      ? -1
				 : !strcmp(m->type, "lustre") ? 1 << 20
				 : m->bsize > 0		      ? m->bsize
							      : 4096;
}

static int posix_kind(int op)
{
	switch (op) {
	case DC_DOP_OPEN:
	case DC_DOP_DUP:
	case DC_DOP_FILENO: return DT_OPEN;
	case DC_DOP_READ: return DT_READ;
	case DC_DOP_WRITE: return DT_WRITE;
	case DC_DOP_SEEK:
	case DC_DOP_STAT: return DT_META;
	case DC_DOP_FSYNC:
	case DC_DOP_FDSYNC: return DT_SYNC;
	case DC_DOP_CLOSE: return DT_CLOSE;
	default: return DT_NONE;
	}
}

static void posix_call(struct drec *r, const struct dc_dcall *c, double t1,
		       double t2)
{
	dc_dtime_call(r, &posix_layout, posix_kind(c->op), t1, t2, c->ret);
	switch (c->op) {
	case DC_DOP_OPEN:
		r->offset = r->last_read = r->last_written = 0;
		r->c[P_OPENS]++;
		/* The mode an open creates with (creat's is always): Darshan
		 * keeps the last one given. */
		if ((c->has & DC_EV_MODE) && c->mode &&
		    (!(c->has & DC_EV_FLAGS) || (c->flags & O_CREAT)))
			r->c[P_MODE] = c->mode;
		break;
	case DC_DOP_DUP:
		r->c[P_OPENS]++;
		r->c[P_DUPS]++;
		break;
	case DC_DOP_FILENO:
		r->c[P_OPENS]++;
		r->c[P_FILENOS]++;
		break;
	case DC_DOP_READ: posix_io(r, c, false); break;
	case DC_DOP_WRITE: posix_io(r, c, true); break;
	case DC_DOP_SEEK:
		r->offset = c->ret;
		r->c[P_SEEKS]++;
		break;
	case DC_DOP_STAT: r->c[P_STATS]++; break;
	case DC_DOP_MMAP: r->c[P_MMAPS]++; break;
	case DC_DOP_FSYNC: r->c[P_FSYNCS]++; break;
	case DC_DOP_FDSYNC: r->c[P_FDSYNCS]++; break;
	default: break;
	}
}

static int stdio_kind(int op)
{
	switch (op) {
	case DC_DOP_SOPEN:
	case DC_DOP_SFDOPEN: return DT_OPEN;
	case DC_DOP_SREAD: return DT_READ;
	case DC_DOP_SWRITE:
	case DC_DOP_SFLUSH: return DT_WRITE;
	case DC_DOP_SSEEK:
	case DC_DOP_REWIND: return DT_META;
	case DC_DOP_SCLOSE: return DT_CLOSE;
	default: return DT_NONE;
	}
}

static void stdio_call(struct drec *r, const struct dc_dcall *c, double t1,
		       double t2)
{
	int64_t n = (c->has & DC_EV_SIZE) ? c->size : 0;
	int64_t off = r->offset;

	dc_dtime_call(r, &stdio_layout, stdio_kind(c->op), t1, t2, n);
	switch (c->op) {
	case DC_DOP_SOPEN:
		r->offset = 0;
		r->c[S_OPENS]++;
		break;
	/* A stream on an open fd: the offset goes on from the file's. */
	case DC_DOP_SFDOPEN:
		r->c[S_OPENS]++;
		r->c[S_FDOPENS]++;
		break;
	case DC_DOP_SREAD:
		r->offset = off + n;
		r->c[S_MAX_BYTE_READ] =
		    dc_max64(r->c[S_MAX_BYTE_READ], off + n - 1);
		r->c[S_BYTES_READ] += n;
		r->c[S_READS]++;
		break;
	case DC_DOP_SWRITE:
	case DC_DOP_SFLUSH:
		r->offset = off + n;
		r->c[S_MAX_BYTE_WRITTEN] =
		    dc_max64(r->c[S_MAX_BYTE_WRITTEN], off + n - 1);
		r->c[S_BYTES_WRITTEN] += n;
		r->c[c->op == DC_DOP_SFLUSH ? S_FLUSHES : S_WRITES]++;
		break;
	case DC_DOP_SSEEK:
		/* The new offset is known for SEEK_SET only. */
		if ((c->has & DC_EV_OFFSET) && (c->has & DC_EV_WHENCE) &&
		    c->whence == 0)
			r->offset = c->offset;
		r->c[S_SEEKS]++;
		break;
	case DC_DOP_REWIND:
		r->offset = 0;
		r->c[S_SEEKS]++;
		break;
	default: break;
	}
}

static bool failed(const struct dc_dcall *c)
{
	if (!(c->has & DC_EV_RET))
		return false;
	/* MPI_SUCCESS is 0, error classes are positive. */
	if (c->module == MOD_MPIIO)
		return c->ret != 0;
	/* Stream opens return a pointer; the others -1 or a negative errno. */
	return c->op == DC_DOP_SOPEN || c->op == DC_DOP_SFDOPEN ? c->ret == 0
								: c->ret < 0;
}

/* H5F and H5D are one library's. */
static int family(int module)
{
	return module == MOD_H5D ? MOD_H5F : module;
}

/* A process's key among the report's processes. */
static uint64_t proc_key(uint64_t hhash, uint32_t pid)
{
	uint64_t k = hhash * 0x9e3779b97f4a7c15ull ^ pid;

	return k ? k : 1;
}

/* Records of one module, file and dataset share a key. */
static uint64_t share_key(const struct drec *x)
{
	uint64_t k = (x->fhash ^ x->ohash * 0x9e3779b97f4a7c15ull) +
		     x->module * 0xff51afd7ed558ccdull;

	return k ? k : 1;
}

/* Each record's MPI rank, from its process's PR records, and how many
 * processes have a record of its module and file (which tells MPI-IO
 * opens collective). */
static int set_sharing(struct dc_darshan *d, const struct dc_report *rep)
{
	struct dc_map procs = {}, shared = {};
	int err = 0;

	for (size_t k = 0; k < rep->nprocs && !err; k++)
		err = dc_map_put(
		    &procs, proc_key(rep->procs[k]->hhash, rep->procs[k]->pid),
		    rep->procs[k]);
	for (size_t i = 0; i < d->nrecs && !err; i++) {
		struct drec *x = d->vrecs[i];
		const struct dc_proc *p =
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
		struct drec *x = d->vrecs[i];

		x->sharers = (uintptr_t)dc_map_get(&shared, share_key(x));
		if (x->module == MOD_MPIIO)
			dc_mpiio_finish(x);
	}
	dc_map_free(&shared, NULL);
	dc_map_free(&procs, NULL);
	return err;
}

/* What a call of @op's time counts as in @module. */
static int kind_of(int module, int op)
{
	switch (module) {
	case MOD_POSIX: return posix_kind(op);
	case MOD_STDIO: return stdio_kind(op);
	case MOD_MPIIO: return dc_mpiio_kind(op);
	default: return dc_hdf5_kind(op);
	}
}

/* Counter record @k into @r: counts, bytes, the pattern counters the
 * programs kept, and times as sums of the calls' durations. */
static void count_call(struct drec *r, const struct dc_dcounter *k)
{
	int kind = kind_of(r->module, k->op);
	bool wr = k->op == DC_DOP_WRITE || k->op == DC_DOP_SWRITE ||
		  k->op == DC_DOP_SFLUSH;
	int64_t n = k->calls, *c = r->c;
	double t = (double)k->dur_sum / 1e6;

	r->counted = true;
	if (kind == DT_READ)
		r->f[T_READ_TIME] += t;
	else if (kind == DT_WRITE || kind == DT_SYNC)
		r->f[T_WRITE_TIME] += t;
	else if (kind != DT_NONE)
		r->f[T_META_TIME] += t;
	if (kind == DT_READ || kind == DT_WRITE)
		r->moved += k->size_sum;
	if (r->module == MOD_MPIIO) {
		dc_mpiio_count(r, k);
		return;
	}
	if (r->module == MOD_H5F || r->module == MOD_H5D) {
		dc_hdf5_count(r, k);
		return;
	}
	switch (k->op) {
	case DC_DOP_OPEN: c[P_OPENS] += n; break;
	case DC_DOP_DUP:
		c[P_OPENS] += n;
		c[P_DUPS] += n;
		break;
	case DC_DOP_FILENO:
		c[P_OPENS] += n;
		c[P_FILENOS] += n;
		break;
	case DC_DOP_READ:
	case DC_DOP_WRITE:
		c[wr ? P_WRITES : P_READS] += n;
		c[wr ? P_BYTES_WRITTEN : P_BYTES_READ] += k->size_sum;
		c[wr ? P_SEQ_WRITES : P_SEQ_READS] += k->seq;
		c[wr ? P_CONSEC_WRITES : P_CONSEC_READS] += k->consec;
		c[P_RW_SWITCHES] += k->switches;
		c[wr ? P_MAX_BYTE_WRITTEN : P_MAX_BYTE_READ] = dc_max64(
		    c[wr ? P_MAX_BYTE_WRITTEN : P_MAX_BYTE_READ], k->max_byte);
		for (int i = 0; i < 10; i++)
			c[(wr ? P_SIZE_WRITE : P_SIZE_READ) + i] += k->hist[i];
		break;
	case DC_DOP_SEEK: c[P_SEEKS] += n; break;
	case DC_DOP_STAT: c[P_STATS] += n; break;
	case DC_DOP_MMAP: c[P_MMAPS] += n; break;
	case DC_DOP_FSYNC: c[P_FSYNCS] += n; break;
	case DC_DOP_FDSYNC: c[P_FDSYNCS] += n; break;
	case DC_DOP_SOPEN: c[S_OPENS] += n; break;
	case DC_DOP_SFDOPEN:
		c[S_OPENS] += n;
		c[S_FDOPENS] += n;
		break;
	case DC_DOP_SREAD:
	case DC_DOP_SWRITE:
	case DC_DOP_SFLUSH:
		c[k->op == DC_DOP_SREAD	   ? S_READS
		  : k->op == DC_DOP_SFLUSH ? S_FLUSHES
					   : S_WRITES] += n;
		c[wr ? S_BYTES_WRITTEN : S_BYTES_READ] += k->size_sum;
		c[wr ? S_MAX_BYTE_WRITTEN : S_MAX_BYTE_READ] = dc_max64(
		    c[wr ? S_MAX_BYTE_WRITTEN : S_MAX_BYTE_READ], k->max_byte);
		break;
	case DC_DOP_SSEEK:
	case DC_DOP_REWIND: c[S_SEEKS] += n; break;
	default: break;
	}
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
			bool close = kind_of(k->module, k->op) == DT_CLOSE;
			struct drec *r;

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

int dc_darshan_finish(struct dc_darshan *d, const struct dc_report *rep)
{
	/* Darshan's times are seconds from the job's start. */
	int64_t t0 = rep->run_start < rep->t_min ? rep->run_start : rep->t_min;
	struct dc_map ix = {};
	int err = fs_table(rep, &d->fs, &d->nfs);

	for (size_t i = 0; i < d->ncalls && !err; i++)
		err = dc_map_put(&ix, d->calls[i].key, &d->calls[i]);
	/* Children are listed before their parents (a call is written as
	 * it returns): what each HDF5 call did through MPI-IO is marked on
	 * it before the loop below counts it. */
	for (size_t i = 0; i < d->ncalls && !err; i++) {
		const struct dc_dcall *c = &d->calls[i];
		struct dc_dcall *p =
		    c->parent ? dc_map_get(&ix, c->parent) : NULL;

		if (p && c->module == MOD_MPIIO &&
		    (p->module == MOD_H5F || p->module == MOD_H5D))
			p->via |= c->op == DC_MOP_OPEN ? DC_VIA_MPIIO_OPEN
				  : c->op == DC_MOP_COLL_READ ||
					  c->op == DC_MOP_COLL_WRITE
				      ? DC_VIA_MPIIO_COLL
				      : 0;
	}
	for (size_t i = 0; i < d->ncalls && !err; i++) {
		const struct dc_dcall *c = &d->calls[i];
		const struct dc_dcall *p =
		    c->parent ? dc_map_get(&ix, c->parent) : NULL;
		/* fileno, a STDIO function, is counted by POSIX. */
		int module = c->module == MOD_STDIO && c->op == DC_DOP_FILENO
				 ? MOD_POSIX
				 : c->module;
		bool close;
		double t1, t2;
		struct drec *r;

		/* Inside libc (fopen's open), or inside the library of its
		 * own layer: a call Darshan never sees. Calls under other
		 * layers (HDF5's pwrite, MPI-IO's) cross into the library
		 * below through its entry points, and Darshan sees them. */
		if (p && (p->module == MOD_POSIX || p->module == MOD_STDIO ||
			  family(p->module) == family(c->module)))
			continue;
		if (!c->op || !(c->has & DC_EV_FHASH) || failed(c))
			continue;
		/* A close counts on a record that something else made. */
		close = kind_of(module, c->op) == DT_CLOSE;
		t1 = (double)(c->ts - t0) / 1e6;
		t2 = (double)(c->ts + c->dur - t0) / 1e6;
		if (!(r = rec_get(d, module, c, !close)))
			err = close ? 0 : -ENOMEM;
		else if (module == MOD_POSIX) {
			if (!r->c[P_FILE_ALIGNMENT])
				posix_fs(r, d, rep);
			posix_call(r, c, t1, t2);
		} else if (module == MOD_STDIO)
			stdio_call(r, c, t1, t2);
		else if (module == MOD_MPIIO)
			dc_mpiio_call(r, c, t1, t2);
		else
			dc_hdf5_call(r, c, t1, t2);
	}
	dc_map_free(&ix, NULL);
	if (!err)
		err = count_calls(d);
	/* Records of counter records only. */
	for (size_t i = 0; i < d->nrecs && !err; i++) {
		struct drec *x = d->vrecs[i];

		if (x->module == MOD_POSIX && !x->c[P_FILE_ALIGNMENT])
			posix_fs(x, d, rep);
	}
	/* Each file's records in one list, for --json's reduction. */
	for (size_t i = 0; i < d->nrecs && !err; i++) {
		struct drec *x = d->vrecs[i];
		uint64_t key = x->fhash ? x->fhash : 1;

		x->next = dc_map_get(&d->byfile, key);
		err = dc_map_put(&d->byfile, key, x);
	}
	return err ?: set_sharing(d, rep);
}

/* Each module as darshan-parser names it and its counters. */
static const struct {
	const char *prefix; /* of its counters, and its --json key */
	const char *label;  /* darshan-parser's module column */
	const char *const *names;
	int n;
	const int8_t *times; /* its timing counters (T_*) */
	int ntimes;
} dmods[MOD_N] = {
#define TIMES(a) a, (int)sizeof(a)
	[MOD_POSIX] = { "POSIX", "POSIX", posix_names, P_N,
			TIMES(posix_times) },
	[MOD_STDIO] = { "STDIO", "STDIO", stdio_names, S_N,
			TIMES(stdio_times) },
	[MOD_MPIIO] = { "MPIIO", "MPI-IO", dc_mpiio_names, DC_MPIIO_N,
			TIMES(posix_times) },
	[MOD_H5F] = { "H5F", "H5F", dc_h5f_names, DC_H5F_N, TIMES(h5f_times) },
	[MOD_H5D] = { "H5D", "H5D", dc_h5d_names, DC_H5D_N,
		      TIMES(posix_times) },
#undef TIMES
};

/* Whether module @m's counter @k (or, with @time, T_* counter @k) needs
 * every call, which counter records do not give: the common access
 * sizes and strides, the slowest calls and their sizes, when calls began
 * and ended, and the modes opens give. */
static bool needs_calls(int m, int k, bool time)
{
	if (time)
		return k < T_READ_TIME || k == T_MAX_READ_TIME ||
		       k == T_MAX_WRITE_TIME;
	switch (m) {
	case MOD_POSIX:
		return k == P_MODE || k == P_FILE_NOT_ALIGNED ||
		       k == P_MAX_READ_TIME_SIZE ||
		       k == P_MAX_WRITE_TIME_SIZE ||
		       (k >= P_STRIDE && k < P_FASTEST_RANK);
	case MOD_MPIIO: return dc_mpiio_needs_calls(k);
	case MOD_H5F: return dc_h5f_needs_calls(k);
	case MOD_H5D: return dc_h5d_needs_calls(k);
	default: return false;
	}
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

	for (int k = 0; k < dmods[m].n; k++)
		fprintf(out, "%s\t%s\t%llu\t%s_%s\t%lld\t%s%s%s\t%s\t%s\n",
			dmods[m].label, rc->rank, id, dmods[m].prefix,
			dmods[m].names[k],
			counted && needs_calls(m, k, false) ? -1ll
							    : (long long)c[k],
			rc->name, sep, object, rc->mnt, rc->fs);
	for (int k = 0; k < dmods[m].ntimes; k++) {
		int t = dmods[m].times[k];

		fprintf(out, "%s\t%s\t%llu\t%s_%s\t%f\t%s%s%s\t%s\t%s\n",
			dmods[m].label, rc->rank, id, dmods[m].prefix,
			dc_dtime_names[t],
			counted && needs_calls(m, t, true) ? -1.0 : f[t],
			rc->name, sep, object, rc->mnt, rc->fs);
	}
}

static bool is_max(bool posix, int k)
{
	return posix ? k == P_MAX_BYTE_READ || k == P_MAX_BYTE_WRITTEN
		     : k == S_MAX_BYTE_READ || k == S_MAX_BYTE_WRITTEN;
}

/* A file's POSIX or STDIO records reduced over its processes as Darshan
 * reduces a shared file: sums, maxima, the common access sizes and
 * strides merged, and the timing. */
static void reduce_ps(const struct drec *first, int module, int64_t *c,
		      double *f)
{
	bool posix = module == MOD_POSIX;
	/* Sums and maxima come before these. */
	int end = posix ? P_STRIDE : S_FASTEST_RANK;
	int mode_rank = INT_MIN;

	memset(c, 0, sizeof(int64_t) * DC_DREC_MAX);
	for (const struct drec *x = first; x; x = x->next) {
		if (x->module != module)
			continue;
		for (int k = 0; k < end; k++) {
			if (posix && (k == P_MAX_READ_TIME_SIZE ||
				      k == P_MAX_WRITE_TIME_SIZE))
				continue;
			/* Darshan's reduction keeps the mode of the record
			 * it merges in last: under MPI's binomial tree, the
			 * highest rank's (0 for a file only rank 0 made). */
			if (posix && k == P_MODE) {
				if (x->rank >= mode_rank) {
					c[k] = x->c[k];
					mode_rank = x->rank;
				}
				continue;
			}
			/* Darshan keeps one rank's; all agree (one file). */
			if (posix && k == P_FILE_ALIGNMENT) {
				c[k] = x->c[k];
				continue;
			}
			c[k] = is_max(posix, k) ? dc_max64(c[k], x->c[k])
						: c[k] + x->c[k];
		}
		for (int j = 0; posix && j < 4; j++) {
			dc_dcommon_top4(&c[P_ACCESS], &c[P_ACCESS_COUNT],
					x->c[P_ACCESS + j],
					x->c[P_ACCESS_COUNT + j], true);
			dc_dcommon_top4(&c[P_STRIDE], &c[P_STRIDE_COUNT],
					x->c[P_STRIDE + j],
					x->c[P_STRIDE_COUNT + j], true);
		}
	}
	dc_dtime_reduce(first, module, 0, posix ? &posix_layout : &stdio_layout,
			c, f);
}

/* Module @m's records of dataset @ohash in @first's list, reduced. */
static void reduce(const struct drec *first, int m, uint64_t ohash, int64_t *c,
		   double *f)
{
	switch (m) {
	case MOD_MPIIO: dc_mpiio_reduce(first, c, f); break;
	case MOD_H5F: dc_h5f_reduce(first, c, f); break;
	case MOD_H5D: dc_h5d_reduce(first, ohash, c, f); break;
	default: reduce_ps(first, m, c, f); break;
	}
}

/* Whether @x is the first record of its module and dataset in its
 * file's list: the one its group is listed or reduced with. */
static bool group_first(const struct dc_darshan *d, const struct drec *x)
{
	const struct drec *y = dc_map_get(&d->byfile, x->fhash ? x->fhash : 1);

	while (y && y != x && (y->module != x->module || y->ohash != x->ohash))
		y = y->next;
	return y == x;
}

int dc_darshan_text(const struct dc_darshan *d, const struct dc_report *r,
		    FILE *out)
{
	char buf[64], fesc[DC_NAME_MAX], oesc[DC_NAME_MAX], mesc[DC_NAME_MAX],
	    tesc[256];
	int64_t c[DC_DREC_MAX];
	double f[T_N];

	if (d->ncounters)
		fprintf(out, "# from profile-mode counter records: counters "
			     "printed -1 (the four common access sizes and "
			     "strides, the slowest calls' times and sizes, "
			     "start and end timestamps, POSIX_MODE, "
			     "POSIX_FILE_NOT_ALIGNED, MPIIO_MODE, the H5D "
			     "selections and shapes) need every call: trace "
			     "mode; times are sums of durations\n");
	for (size_t i = 0; i < d->nfs; i++)
		fprintf(
		    out, "# mount entry:\t%s\t%s\n",
		    dc_fmt_name(r->mounts[d->fs[i]].dir, mesc, sizeof(mesc)),
		    dc_fmt_name(r->mounts[d->fs[i]].type, fesc, sizeof(fesc)));
	fprintf(out, "#<module>\t<rank>\t<record id>\t<counter>\t<value>\t"
		     "<file name>\t<mount pt>\t<fs type>\n");
	/* Each process's records, then, for a record several processes
	 * share, their reduction as Darshan logs it (rank -1). */
	for (size_t i = 0; i < 2 * d->nrecs; i++) {
		const struct drec *x = d->vrecs[i % d->nrecs];
		bool shared = i >= d->nrecs;
		const char *path = dc_file_name(r, x->fhash, buf, sizeof(buf));
		const struct dc_mount *m = mount_of(d, r, path);
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
	int err = 0;

	for (int k = 0; k < dmods[m].n; k++)
		err |= dc_buf_addf(b, "%s\"%s_%s\":%lld", k ? "," : "",
				   dmods[m].prefix, dmods[m].names[k],
				   counted && needs_calls(m, k, false)
				       ? -1ll
				       : (long long)c[k]);
	for (int k = 0; k < dmods[m].ntimes; k++) {
		int t = dmods[m].times[k];

		err |= dc_buf_addf(
		    b, ",\"%s_%s\":%.17g", dmods[m].prefix, dc_dtime_names[t],
		    counted && needs_calls(m, t, true) ? -1.0 : f[t]);
	}
	return err;
}

/* "H5D":{"/grp/data":{...},...}: each dataset of the file once, in the
 * order its first record was made. */
static int datasets_json(const struct dc_darshan *d, const struct drec *first,
			 bool counted, struct dc_buf *b)
{
	int64_t c[DC_DREC_MAX];
	double f[T_N];
	int err = 0, n = 0;

	err |= dc_buf_adds(b, "\"H5D\":{");
	for (const struct drec *x = first; x; x = x->next) {
		const char *name;

		if (x->module != MOD_H5D || !group_first(d, x))
			continue;
		name = x->ohash ? dc_map_get(&d->objects, x->ohash) : NULL;
		dc_h5d_reduce(first, x->ohash, c, f);
		err |= dc_buf_adds(b, n++ ? "," : "");
		err |=
		    dc_json_str(b, name ? name : "", name ? strlen(name) : 0);
		err |= dc_buf_adds(b, ":{");
		err |= counters_json(b, MOD_H5D, c, f, counted);
		err |= dc_buf_adds(b, "}");
	}
	return err | dc_buf_adds(b, "}");
}

int dc_darshan_json(const struct dc_darshan *d, uint64_t fhash,
		    struct dc_buf *b)
{
	const struct drec *first = dc_map_get(&d->byfile, fhash ? fhash : 1);
	int64_t c[DC_DREC_MAX];
	double f[T_N];
	bool any[MOD_N] = {};
	const char *sep = "";
	int err = 0;

	bool counted[MOD_N] = {};

	for (const struct drec *x = first; x; x = x->next) {
		any[x->module] = true;
		counted[x->module] |= x->counted;
	}
	err |= dc_buf_adds(b, ",\"darshan\":{");
	for (int m = MOD_POSIX; m < MOD_N; m++) {
		if (!any[m])
			continue;
		err |= dc_buf_adds(b, sep);
		sep = ",";
		if (m == MOD_H5D) {
			err |= datasets_json(d, first, counted[m], b);
			continue;
		}
		reduce(first, m, 0, c, f);
		err |= dc_buf_addf(b, "\"%s\":{", dmods[m].prefix);
		err |= counters_json(b, m, c, f, counted[m]);
		err |= dc_buf_adds(b, "}");
	}
	err |= dc_buf_adds(b, "}");
	return err ? -ENOMEM : 0;
}

int dc_dcounter(int m, const char *name)
{
	for (int k = 0; k < dmods[m].n; k++)
		if (!strcmp(dmods[m].names[k], name))
			return k;
	return -1;
}

const char *dc_dmod_prefix(int m)
{
	return dmods[m].prefix;
}

bool dc_dlogged(const struct dc_darshan *d, const struct drec *x, int64_t *c,
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
