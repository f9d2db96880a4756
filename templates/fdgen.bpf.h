/* SPDX-License-Identifier: MIT */
/*
 * Generations of fds and library handles: a call that gives an fd (or a
 * handle) a new file bumps its generation, so what is kept of a reused
 * fd stays apart from what its last file had.
 */
#ifndef DATACRUMBS_FDGEN_BPF_H
#define DATACRUMBS_FDGEN_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"

/* Each fd's generation: bumped when a tracked call gives it a new file,
 * so aggregates of an fd reused within one interval stay apart. */
struct dc_fd_key {
	__u32 pid;
	__s32 fd;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct dc_fd_key);
	__type(value, __u32);
} dc_fdgen SEC(".maps");

/* Bumped after every change to dc_fdgen: a thread's cached generations
 * are good while it has not moved. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dc_fdver SEC(".maps");

/* Profile mode: what Darshan's counters need of a library handle (an
 * MPI_File, an HDF5 dataset) between calls. A handle is 64 bits: its own
 * map keeps dc_fdpat's key, and the POSIX path's lookups, at 8 bytes.
 * Only calls on handles look here; a few are open at once. */
struct dc_handle_key {
	__u32 pid;
	__u32 pad;
	__u64 h;
};

struct dc_hdl {
	/* Opens that gave this value: a freed MPI_File is given again by
	 * the next open, and the aggregates of a reopened handle stay
	 * apart; the runtime learns each generation's file from the open's
	 * event. 0: not opened while traced. */
	__u32 gen;
	/* The direction of its last read or write since that open, for
	 * Darshan's MPIIO_ and H5D_RW_SWITCHES; 0: none yet. */
	__u32 last_io;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct dc_handle_key);
	__type(value, struct dc_hdl);
} dc_hdl SEC(".maps");

static __always_inline __u32 dc_gen_of(__u32 pid, __s32 fd)
{
	struct dc_fd_key k = { pid, fd };
	__u32 *g = bpf_map_lookup_elem(&dc_fdgen, &k);

	return g ? *g : 0;
}

static __always_inline struct dc_hdl *dc_hdl_of(__u32 pid, __u64 h)
{
	struct dc_handle_key k = { .pid = pid, .h = h };

	return bpf_map_lookup_elem(&dc_hdl, &k);
}

/* A new open gave handle @h: its generation, never 0, with no direction
 * yet. */
static __always_inline __u32 dc_hgen_bump(__u32 pid, __u64 h)
{
	struct dc_handle_key k = { .pid = pid, .h = h };
	struct dc_hdl *s = dc_hdl_of(pid, h), fresh = {};

	if (!h)
		return 0;
	fresh.gen = (__u16)((s ? s->gen : 0) + 1);
	fresh.gen = fresh.gen ? fresh.gen : 1;
	bpf_map_update_elem(&dc_hdl, &k, &fresh, BPF_ANY);
	return fresh.gen;
}

static __always_inline __u32 dc_gen_bump(__u32 pid, __s32 fd)
{
	struct dc_fd_key k = { pid, fd };
	__u32 g = dc_gen_of(pid, fd) + 1, zero = 0;
	__u64 *ver;

	if (fd < 0)
		return 0;
	bpf_map_update_elem(&dc_fdgen, &k, &g, BPF_ANY);
	ver = bpf_map_lookup_elem(&dc_fdver, &zero);
	if (ver)
		__sync_fetch_and_add(ver, 1);
	return g;
}

/* An fd's generation, from the thread's cache while no fd of a traced
 * process has changed: the lookup it saves is a third of an aggregate. */
static __always_inline __u32 dc_gen_cached(struct dc_thread *t, __u32 pid,
					   __s32 fd)
{
	__u32 zero = 0, i = fd & (DC_GEN_CACHE - 1);
	__u64 *ver = bpf_map_lookup_elem(&dc_fdver, &zero), v;

	if (!ver)
		return dc_gen_of(pid, fd);
	v = *(volatile __u64 *)ver;
	if (t->fdver != v) {
		__builtin_memset(t->gen_fd, 0, sizeof(t->gen_fd));
		t->fdver = v;
	}
	if (t->gen_fd[i] != fd + 1) {
		t->gen[i] = dc_gen_of(pid, fd);
		t->gen_fd[i] = fd + 1;
	}
	return t->gen[i];
}

/* Profile mode: the generation a tracked call gives its new fd or
 * handle. */
static __always_inline __u32 dc_track_gen(const volatile struct dc_capture *c,
					  const struct dc_frame *f, __u64 id,
					  long ret)
{
	if (ret < 0 && c->gen_what != DC_GEN_SFD)
		return 0;
	switch (c->gen_what) {
	case DC_GEN_RET: return dc_gen_bump(id >> 32, ret);
	case DC_GEN_SLOT:
		return dc_gen_bump(
		    id >> 32, (__s32)f->val[c->gen_slot & (DC_CAPTURE - 1)]);
	case DC_GEN_SFD: return ret ? dc_gen_bump(id >> 32, f->sfd) : 0;
	case DC_GEN_RET_IF_DUP: {
		/* fcntl: F_DUPFD and F_DUPFD_CLOEXEC return a new fd; other
		 * commands return flags, not an fd. */
		__u64 cmd = f->val[c->gen_slot & (DC_CAPTURE - 1)];

		return cmd == DC_F_DUPFD || cmd == DC_F_DUPFD_CLOEXEC
			   ? dc_gen_bump(id >> 32, ret)
			   : 0;
	}
	case DC_GEN_HANDLE_RET:
		return ret > 0 ? dc_hgen_bump(id >> 32, ret) : 0;
	/* The call's status: 0 is success (MPI_SUCCESS). */
	case DC_GEN_HANDLE_SLOT:
		return ret ? 0
			   : dc_hgen_bump(
				 id >> 32,
				 f->val[c->gen_slot & (DC_CAPTURE - 1)]);
	}
	return 0;
}

#endif /* DATACRUMBS_FDGEN_BPF_H */
