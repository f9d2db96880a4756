/* SPDX-License-Identifier: MIT */
#ifndef DC_PROCS_H
#define DC_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "hash.h"
#include "map.h"
#include "privs.h"

/* A file name seen in the trace, interned: one per distinct name. */
struct dc_file {
	char *name;
	char hash[DC_HASH_HEX];
};

struct dc_call;

/* A process's PR facts that an exec may change. */
enum { DC_FACT_CMD, DC_FACT_RANK, DC_FACT_SIZE, DC_FACT_JOBID, DC_NFACTS };

/* What the runtime knows of a traced thread; the BPF side's own state of
 * one is struct dc_thread (templates/thread.bpf.h). */
struct dc_rthread {
	uint32_t tid;
	uint32_t pid;
	uint64_t serial; /* new for each thread the tid names */
	bool described;	 /* comm read (dc_proc_describe) */
	char comm[16];	 /* its name then; "" if it was gone */
	/* Calls nested in a call still running, held until it returns so
	 * that parents get their id first (see nesting.c). */
	struct dc_call *pending;
	size_t npending, cap;
};

struct dc_proc {
	uint32_t pid;
	uint32_t ppid;
	uint64_t serial; /* new for each process the pid names */
	uint32_t image;	 /* counts its execs: its name and facts may change */
	char comm[16];
	uint64_t exited_ns; /* when its leader exited; 0 while it runs */
	uint32_t job;	    /* the job it belongs to (server: its trace) */
	bool owner_known;   /* uid and gid from a process record */
	uint32_t uid, gid;
	uint32_t euid, egid;  /* its rights (a setuid program: its owner's) */
	struct dc_privs priv; /* ... and the rest of them */
	char *cwd;	      /* its working directory, as far as known */
	uint64_t cwd_ts;      /* when cwd was read from /proc, or 0 */
	/* Facts for its PR records, read from /proc while it runs (at exec,
	 * join or registration): the command, and the rank, world size and
	 * job id its launcher or scheduler gave it. */
	bool facts;
	bool described;	       /* since its exec: see dc_proc_describe() */
	bool exec_pending;     /* launched, stopped before its exec */
	char *fact[DC_NFACTS]; /* cmd, rank, size, jobid, or NULL */
	struct dc_map fds;     /* fd + 1 -> history (struct dc_fdent) */
	struct dc_map handles; /* library handle (hid_t, MPI_File) -> file */
	struct dc_map objects; /* handle -> its object's name in the file
				  (interned: an HDF5 dataset or group) */
	/* Profile mode: handles closed, forgotten only after the next drain
	 * has named the calls made on them (two intervals: old, new). */
	struct dc_map closing[2];
	struct dc_map fdgens; /* profile mode: fd | generation << 32 -> file */
	struct dc_map hgens;  /* profile mode: handle -> its generations */
};

/* Profile mode: what one generation of a handle (one open that gave its
 * value) named. */
struct dc_hgen {
	uint32_t gen;
	uint32_t age; /* drains since a newer generation replaced it */
	struct dc_file *file;
	const char *object;
	struct dc_hgen *older;
};

struct dc_procs {
	struct dc_map procs;   /* pid -> struct dc_proc */
	struct dc_map threads; /* tid -> struct dc_rthread */
	struct dc_map files;   /* name hash -> struct dc_file */
	struct dc_map names;   /* hash -> object name, kept to the end */
	struct dc_map devs;    /* dev_t + 1 -> its block device's name */
	uint64_t serials;      /* the last serial given */
	struct dc_buf path;    /* dc_abs_path()'s result */
	/* When each (process, descriptor) slot was last freed (abi.h's
	 * dc_close_ts), the loaded object's; NULL: not known. */
	const volatile __u64 *closes;
};

struct dc_proc *dc_proc_get(struct dc_procs *ps, uint32_t pid);
struct dc_rthread *dc_thread_get(struct dc_procs *ps, uint32_t tid,
				 uint32_t pid);

/* names.c: one copy of each name. */
struct dc_file *dc_file_intern(struct dc_procs *ps, const char *name);
/* One copy of each name (an object's, a Python function's), kept to the
 * end; NULL when out of memory or on a hash collision. */
const char *dc_name_intern(struct dc_procs *ps, const char *name);
/* A kernel dev_t (major << 20 | minor) as its block device's name, from
 * sysfs ("vda", "nvme0n1p2"), or "MAJOR:MINOR"; looked up once each. */
const char *dc_dev_name(struct dc_procs *ps, uint32_t dev);
void dc_names_free(struct dc_procs *ps);

/* fds.c: each process's descriptor table. */

/* The file behind @fd when a call began at @ts: from the opens and closes
 * seen, else /proc/PID/fd (opened before tracing began, or by a call not
 * traced) unless a close since @ts may have freed its number. NULL when
 * unknown. A set is stamped with its call's return time, a close with its
 * call's entry time. */
struct dc_file *dc_fd_lookup(struct dc_procs *ps, struct dc_proc *p, int64_t fd,
			     uint64_t ts);
void dc_fd_set(struct dc_proc *p, int64_t fd, struct dc_file *f, uint64_t ts);
/* What @fd referred to before any traced call gave it another file. */
struct dc_file *dc_fd_initial(struct dc_procs *ps, struct dc_proc *p,
			      int64_t fd);
/* Name every descriptor @p has open now from /proc, each one not freed
 * since @ts; @exec_next: it is the runtime's own fork, stopped before an
 * exec, which closes its close-on-exec ones. */
void dc_fd_snapshot(struct dc_procs *ps, struct dc_proc *p, uint64_t ts,
		    bool exec_next);
void dc_fd_close(struct dc_proc *p, int64_t fd, uint64_t ts);
/* A child starts with what each of its parent's fds refers to now. */
void dc_fds_copy(struct dc_proc *p, const struct dc_proc *parent);
void dc_fds_free(struct dc_proc *p);

/* handles.c: each process's library handles. */
struct dc_file *dc_handle_lookup(struct dc_proc *p, uint64_t h);
void dc_handle_set(struct dc_proc *p, uint64_t h, struct dc_file *f);
void dc_handle_close(struct dc_proc *p, uint64_t h);
/* The name of the object handle @h stands for in its file (an HDF5
 * dataset or group, "/grp/data"), or NULL. */
const char *dc_handle_object(struct dc_proc *p, uint64_t h);
/* Handle @h stands for the object @name, which is relative to the object
 * of handle @base unless it starts with '/'. Returns the full name, or
 * NULL when it cannot be kept. */
const char *dc_handle_set_object(struct dc_procs *ps, struct dc_proc *p,
				 uint64_t h, uint64_t base, const char *name);
/* Profile mode: generation @gen of handle @h names @f and @object:
 * 0 or -ENOMEM. */
int dc_handle_gen_set(struct dc_proc *p, uint64_t h, uint32_t gen,
		      struct dc_file *f, const char *object);
/* ... and what generation @gen of @h named, or NULL. */
const struct dc_hgen *dc_handle_gen(struct dc_proc *p, uint64_t h,
				    uint32_t gen);
/* Profile mode: close @h once the calls before its close are drained. */
void dc_handle_close_later(struct dc_proc *p, uint64_t h);
/* Profile mode, after each drain: forget the handles closed, and the
 * generations replaced, two intervals ago. */
void dc_handles_expire(struct dc_procs *ps);
/* fork copies memory: a child's handles are its parent's. */
void dc_handles_copy(struct dc_proc *p, const struct dc_proc *parent);
void dc_handles_free(struct dc_proc *p);

/* procs.c: processes and threads. */
/* A child starts with a copy of its parent's descriptor table. */
void dc_proc_fork(struct dc_procs *ps, uint32_t ppid, uint32_t pid,
		  const char *comm);
void dc_proc_exec(struct dc_procs *ps, uint32_t pid, const char *comm);
/* Read @p's PR facts from /proc now (it runs): see struct dc_proc. */
void dc_proc_facts(struct dc_proc *p);
/* @p's user and group: from its process records, else the owner of
 * /proc/PID. 0, or -errno when neither is known. */
int dc_proc_owner(const struct dc_proc *p, uint32_t *uid, uint32_t *gid);
/* Read now, once (again after an exec), what a trace says of @p and @t:
 * the command, rank and the rest, cwd, the thread's name. The process
 * may be gone by the time its calls are written, and writers read
 * nothing from /proc. */
void dc_proc_describe(struct dc_proc *p, struct dc_rthread *t);

/* The process's working directory: its parent's at fork, changed by its
 * chdir records, else read from /proc (at registration, or first sight);
 * NULL if gone. */
const char *dc_proc_cwd(struct dc_proc *p);
/* @p changed directory at @ts: to @path (chdir), or to @fd's (fchdir,
 * @path NULL). A change /proc showed already is not applied again. */
void dc_proc_chdir(struct dc_procs *ps, struct dc_proc *p, int64_t fd,
		   const char *path, uint64_t ts);
/* Make @path absolute against @dirfd (AT_FDCWD: the process's cwd) and
 * lexically clean (paths.h), in @ps's buffer, valid until the next call;
 * @path itself when empty or its base is not known; NULL with errno
 * ENOMEM. */
const char *dc_abs_path(struct dc_procs *ps, struct dc_proc *p, int64_t dirfd,
			const char *path, uint64_t ts);

/* Read /proc/PID/@what (cmdline with NULs as spaces, comm, environ entry);
 * malloc'd, or NULL when the process is gone. */
char *dc_proc_read(uint32_t pid, const char *what);
char *dc_proc_env(uint32_t pid, const char *name);
/* Whether process @pid exists and has not exited: a zombie its parent
 * has not reaped yet has. */
bool dc_pid_running(uint32_t pid);

void dc_thread_free(struct dc_rthread *t);
/* Free processes whose leader exited more than @age_ns before @now:
 * late events of their other threads and profile drains are done. @gone
 * is called for each before it is freed. */
void dc_procs_reap(struct dc_procs *ps, uint64_t now, uint64_t age_ns,
		   void (*gone)(struct dc_proc *p, void *arg), void *arg);
void dc_procs_free(struct dc_procs *ps);

#endif
