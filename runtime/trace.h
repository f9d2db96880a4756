/* SPDX-License-Identifier: MIT */
#ifndef DC_TRACE_H
#define DC_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <datacrumbs/abi.h>

#include "probetab.h"

struct dc_file;
struct dc_proc;
struct dc_rthread;

/* What a successful call does to the process's descriptor table. */
enum dc_fd_effect {
	DC_FD_KEEP = 0,
	DC_FD_NEW,	    /* the return value is a new fd for the file */
	DC_FD_NEW_AT_NEWFD, /* dup2/dup3: newfd now refers to fd's file */
	DC_FD_CLOSE,	    /* close(fd) */
	DC_FD_CLOSE_RANGE,  /* close_range(fd, newfd) */
	DC_FD_NEW_STREAM,   /* fopen: the stream's fd is for the file */
	DC_FD_CLOSE_STREAM, /* fclose: the stream's fd is closed */
	DC_FD_DUPFD,	    /* fcntl: with F_DUPFD, ret is a copy of fd */
};

/* The runtime's view of one probe of the loaded object. */
struct dc_probe {
	const struct dc_probe_info *d;
	const char *name_json; /* "name" as a JSON string literal */
	const char *cat_json;
	uint64_t calls; /* events written */
	uint64_t lost[DC_LOSS_NR];
	int fd_slot;	 /* slot of the fd role, or -1 */
	int path_slot;	 /* slot of the path role, or -1 */
	int dirfd_slot;	 /* slot of the dirfd role, or -1 */
	int newfd_slot;	 /* slot of the newfd role, or -1 */
	int handle_slot; /* slot of a handle, handle_ref or handle_out, or -1 */
	bool handle_out; /* ... and the call creates that handle */
	int itemsize_slot;  /* bytes per item (fread), or -1 */
	int fed_slot;	    /* bytes its feeders added (H5Dwrite), or -1 */
	int name_slot;	    /* an object's name (H5Dcreate2's), or -1 */
	int items_slot;	    /* a count of items (MPI), or -1 */
	int dtype_slot;	    /* the items' size (an MPI datatype's), or -1 */
	int str_slot;	    /* a string's length (fputs, fgets), or -1 */
	bool texts;	    /* strings follow its events: func, srcfile */
	int dupfd_cmd_slot; /* fcntl's command, for DC_FD_DUPFD */
	bool closes;	    /* the call ends its fd, stream or handle */
	enum dc_fd_effect fd_effect;
	bool attached;
	bool disabled; /* its layer is not in --layers, or the kernel
			  lacks its tracepoint */
	char *event;   /* tracepoint: the stand-in (alt) attached, or NULL
			  for its target */
	bool via_sys;  /* a wrapper recognised at sys_enter: no uprobe */
	bool slow;     /* its uprobe sits on a single-stepped instruction */
	uint8_t text_slots; /* tracepoint slots holding up to 8 chars */
	uint8_t dev_slots;  /* ... holding a device number (dev_t) */
};

/* One call, decoded and resolved, waiting to be written. */
struct dc_call {
	struct dc_probe *probe;
	struct dc_proc *proc; /* described (dc_proc_describe) */
	struct dc_rthread *thread;
	struct dc_file *file;
	const char *device;  /* a block request's device ("vda"), or NULL */
	bool filtered;	     /* left out by --paths: it takes an id only */
	const char *object;  /* its object in the file ("/grp/data"), or NULL */
	const char *func;    /* its name, when its probe captures one */
	const char *srcfile; /* the source file of func, or NULL */
	uint32_t pid, tid;
	uint16_t level;
	bool aio_helper; /* a POSIX AIO helper thread's: a request's I/O */
	uint64_t ts, dur;
	uint64_t seq, parent_seq;
	int64_t ret;
	uint64_t val[DC_CAPTURE];
	int32_t sfd;
	bool inner; /* profile mode: inside a call Darshan sees */
};

/* The bytes @c moved, from its return or its items and their size; -1
 * when it moved none, failed, or they cannot be told. The one place the
 * trace and the profile counters take them from. */
static inline int64_t dc_call_bytes(const struct dc_call *c)
{
	const struct dc_probe *p = c->probe;
	int ret = p->d->ret;

	if (c->ret >= 0 && (ret == DC_RET_SIZE || ret == DC_RET_ISIZE))
		return c->ret;
	if (c->ret >= 0 && ret == DC_RET_ITEMS && p->itemsize_slot >= 0)
		return c->ret * (int64_t)c->val[p->itemsize_slot];
	if (ret == DC_RET_CHAR)
		return c->ret >= 0 ? 1 : -1;
	/* fputs succeeded, or fgets gave its buffer back. */
	if (p->str_slot >= 0 &&
	    (ret == DC_RET_ADDR ? c->ret != 0 : c->ret >= 0))
		return (int64_t)c->val[p->str_slot];
	/* HDF5: what the inner functions feeding the call moved. */
	if (c->ret >= 0 && ret == DC_RET_STATUS && p->fed_slot >= 0 &&
	    c->val[p->fed_slot] != DC_SIZE_UNKNOWN)
		return (int64_t)c->val[p->fed_slot];
	/* MPI: a status of MPI_SUCCESS, count items of the datatype. */
	if (c->ret == 0 && ret == DC_RET_STATUS && p->items_slot >= 0 &&
	    p->dtype_slot >= 0 && c->val[p->dtype_slot])
		return (int64_t)(int32_t)c->val[p->items_slot] *
		       (int64_t)c->val[p->dtype_slot];
	return -1;
}

/* @c moved bytes that cannot be told: the functions that feed it were
 * not attached on its copy of the library (DC_COOKIE_UNFED). */
static inline bool dc_call_unsized(const struct dc_call *c)
{
	const struct dc_probe *p = c->probe;

	return p->fed_slot >= 0 && c->val[p->fed_slot] == DC_SIZE_UNKNOWN;
}

#endif
