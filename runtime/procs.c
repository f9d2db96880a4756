// SPDX-License-Identifier: MIT
/* The processes and threads seen, and what is known of each. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <datacrumbs/abi.h>

#include "fileio.h"
#include "paths.h"
#include "procs.h"

#define DC_AT_FDCWD (-100)

struct dc_proc *dc_proc_get(struct dc_procs *ps, uint32_t pid)
{
	struct dc_proc *p = dc_map_get(&ps->procs, pid);
	char *comm;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->serial = ++ps->serials;
	comm = dc_proc_read(pid, "comm");
	snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "?");
	free(comm);
	if (dc_map_put(&ps->procs, pid, p)) {
		free(p);
		return NULL;
	}
	return p;
}

struct dc_rthread *dc_thread_get(struct dc_procs *ps, uint32_t tid,
				 uint32_t pid)
{
	struct dc_rthread *t = dc_map_get(&ps->threads, tid);

	/* A reused tid belongs to a new thread. */
	if (t && t->pid == pid)
		return t;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t || dc_map_put(&ps->threads, tid, t)) {
			free(t);
			return NULL;
		}
	}
	t->tid = tid;
	t->pid = pid;
	t->serial = ++ps->serials;
	t->described = false;
	return t;
}

static void free_proc(void *v);

void dc_proc_fork(struct dc_procs *ps, uint32_t ppid, uint32_t pid,
		  const char *comm)
{
	struct dc_proc *parent = dc_map_get(&ps->procs, ppid);
	struct dc_proc *p = dc_map_del(&ps->procs, pid);

	/* A pid seen before belonged to a process that is gone. */
	if (p)
		free_proc(p);
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->pid = pid;
	p->ppid = ppid;
	p->serial = ++ps->serials;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	if (parent) {
		dc_fds_copy(p, parent);
		dc_handles_copy(p, parent);
		if (parent->cwd)
			p->cwd = strdup(parent->cwd);
		p->cwd_ts = parent->cwd_ts;
		/* Until its own record says otherwise: the parent's rights. */
		p->owner_known = parent->owner_known;
		p->uid = parent->uid;
		p->gid = parent->gid;
		p->euid = parent->euid;
		p->egid = parent->egid;
		p->priv = parent->priv;
	}
	if (dc_map_put(&ps->procs, pid, p))
		free_proc(p);
}

void dc_proc_exec(struct dc_procs *ps, uint32_t pid, const char *comm)
{
	struct dc_proc *p = dc_proc_get(ps, pid);

	if (!p)
		return;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	/* Its name and command change with exec: the next event writes
	 * them again (rank and the rest once per process). */
	p->image++;
	p->exec_pending = false;
	p->facts = false;
	p->described = false;
	dc_proc_facts(p);
	/* Gone already: the old program's command is not this one's; its
	 * name stands for it. */
	if (!p->facts) {
		free(p->fact[DC_FACT_CMD]);
		p->fact[DC_FACT_CMD] = strdup(p->comm);
	}
}

/* A copy of the first of @names set in the environment block @env (@len
 * bytes, NUL-separated), or NULL. */
static char *env_first(const char *env, size_t len, const char *const *names,
		       size_t n)
{
	for (size_t i = 0; env && i < n; i++) {
		size_t nl = strlen(names[i]);

		for (const char *e = env; e < env + len; e += strlen(e) + 1)
			if (!strncmp(e, names[i], nl) && e[nl] == '=')
				return strdup(e + nl + 1);
	}
	return NULL;
}

int dc_proc_owner(const struct dc_proc *p, uint32_t *uid, uint32_t *gid)
{
	char proc[64];
	struct stat st;

	if (p->owner_known) {
		*uid = p->uid;
		*gid = p->gid;
		return 0;
	}
	snprintf(proc, sizeof(proc), "/proc/%u", p->pid);
	if (stat(proc, &st))
		return -errno;
	*uid = st.st_uid;
	*gid = st.st_gid;
	return 0;
}

void dc_proc_facts(struct dc_proc *p)
{
	/* OpenMPI, MPICH/Hydra (PMI), PMIx launchers, SLURM, Flux. */
	static const char *const rank[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK",
					    "PMIX_RANK", "SLURM_PROCID",
					    "FLUX_TASK_RANK" };
	static const char *const size[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
					    "SLURM_NTASKS", "FLUX_JOB_SIZE" };
	static const char *const job[] = { "SLURM_JOB_ID", "FLUX_JOB_ID",
					   "PBS_JOBID", "LSB_JOBID",
					   "COBALT_JOBID" };
	char path[64], *cmd, *env;
	size_t len = 0;

	/* A process first met running has no record of its rights yet. */
	if (!p->owner_known)
		dc_privs_read(p);
	if (p->facts)
		return;
	cmd = dc_proc_read(p->pid, "cmdline");
	/* Gone, or a kernel thread: keep what was read before. */
	if (!cmd || !*cmd) {
		free(cmd);
		return;
	}
	p->facts = true;
	snprintf(path, sizeof(path), "/proc/%u/environ", p->pid);
	if (dc_read_file(path, &env, &len))
		env = NULL;
	for (int i = 0; i < DC_NFACTS; i++)
		free(p->fact[i]);
	p->fact[DC_FACT_CMD] = cmd;
	p->fact[DC_FACT_RANK] =
	    env_first(env, len, rank, sizeof(rank) / sizeof(rank[0]));
	p->fact[DC_FACT_SIZE] =
	    env_first(env, len, size, sizeof(size) / sizeof(size[0]));
	p->fact[DC_FACT_JOBID] =
	    env_first(env, len, job, sizeof(job) / sizeof(job[0]));
	free(env);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

const char *dc_proc_cwd(struct dc_proc *p)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	if (p->cwd)
		return p->cwd;
	snprintf(link, sizeof(link), "/proc/%u/cwd", p->pid);
	/* Before reading: a chdir that ends after it is still applied. */
	p->cwd_ts = mono_ns();
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0 || target[0] != '/')
		return NULL;
	target[n] = '\0';
	p->cwd = strdup(target);
	return p->cwd;
}

const char *dc_abs_path(struct dc_procs *ps, struct dc_proc *p, int64_t dirfd,
			const char *path, uint64_t ts)
{
	const char *base = NULL;
	struct dc_file *d;
	int err;

	if (path[0] == '/')
		base = "";
	else if (path[0] && (int)dirfd == DC_AT_FDCWD)
		base = dc_proc_cwd(p);
	else if (path[0] && (d = dc_fd_lookup(ps, p, dirfd, ts)))
		base = d->name;
	if (!base || (*base && *base != '/'))
		return path;
	err = dc_path_join(&ps->path, base, path);
	if (err) {
		errno = -err;
		return NULL;
	}
	return ps->path.p;
}

void dc_proc_chdir(struct dc_procs *ps, struct dc_proc *p, int64_t fd,
		   const char *path, uint64_t ts)
{
	const char *cwd = NULL;
	struct dc_file *d;

	/* Unknown so far: /proc, read now, shows this change already. */
	if (!p->cwd) {
		dc_proc_cwd(p);
		return;
	}
	if (p->cwd_ts && ts <= p->cwd_ts)
		return;
	if (path)
		cwd = dc_abs_path(ps, p, DC_AT_FDCWD, path, ts);
	else if ((d = dc_fd_lookup(ps, p, fd, ts)))
		cwd = d->name;
	free(p->cwd);
	/* Not known (a relative path, an fd never named): from /proc when
	 * next needed, which is the best left. */
	p->cwd = cwd && cwd[0] == '/' ? strdup(cwd) : NULL;
	p->cwd_ts = 0;
}

char *dc_proc_read(uint32_t pid, const char *what)
{
	char path[64], *s;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u/%s", pid, what);
	if (dc_read_file(path, &s, &n))
		return NULL;
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\0'))
		s[--n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return s;
}

bool dc_pid_running(uint32_t pid)
{
	char *st = dc_proc_read(pid, "stat"), *s;
	bool running;

	if (!st)
		return !(kill(pid, 0) && errno == ESRCH);
	/* The state follows the command name, which may hold ") ". */
	s = strrchr(st, ')');
	running = !s || (s[1] && s[2] != 'Z' && s[2] != 'X');
	free(st);
	return running;
}

char *dc_proc_env(uint32_t pid, const char *name)
{
	size_t n, nl = strlen(name);
	char path[64], *env, *v = NULL;

	snprintf(path, sizeof(path), "/proc/%u/environ", pid);
	if (dc_read_file(path, &env, &n))
		return NULL;
	for (char *e = env; e < env + n; e += strlen(e) + 1)
		if (!strncmp(e, name, nl) && e[nl] == '=') {
			v = strdup(e + nl + 1);
			break;
		}
	free(env);
	return v;
}

static void free_proc(void *v)
{
	struct dc_proc *p = v;

	dc_fds_free(p);
	dc_handles_free(p);
	dc_map_free(&p->fdgens, NULL);
	free(p->cwd);
	for (int i = 0; i < DC_NFACTS; i++)
		free(p->fact[i]);
	free(p);
}

void dc_thread_free(struct dc_rthread *t)
{
	free(t->pending);
	free(t);
}

static void free_thread(void *v)
{
	dc_thread_free(v);
}

void dc_procs_reap(struct dc_procs *ps, uint64_t now, uint64_t age_ns,
		   void (*gone)(struct dc_proc *p, void *arg), void *arg)
{
	size_t i = 0;

	/* dc_map_del re-seats entries, so restart the scan after each. */
	while (i < ps->procs.cap) {
		struct dc_proc *p =
		    ps->procs.keys[i] ? ps->procs.vals[i] : NULL;

		if (p && p->exited_ns && now - p->exited_ns > age_ns) {
			if (gone)
				gone(p, arg);
			dc_map_del(&ps->procs, p->pid);
			free_proc(p);
			i = 0;
			continue;
		}
		i++;
	}
}

void dc_procs_free(struct dc_procs *ps)
{
	dc_map_free(&ps->procs, free_proc);
	dc_map_free(&ps->threads, free_thread);
	dc_names_free(ps);
	dc_buf_free(&ps->path);
}

void dc_proc_describe(struct dc_proc *p, struct dc_rthread *t)
{
	char what[64], *comm;

	/* A launched command's first calls are the runtime's own, before
	 * its exec: its facts come after. */
	if (p && !p->described && !p->exec_pending) {
		p->described = true;
		dc_proc_facts(p);
		if (!p->fact[DC_FACT_CMD])
			p->fact[DC_FACT_CMD] = strdup(p->comm);
		dc_proc_cwd(p);
	}
	if (t && !t->described) {
		t->described = true;
		snprintf(what, sizeof(what), "task/%u/comm", t->tid);
		comm = dc_proc_read(t->pid, what);
		snprintf(t->comm, sizeof(t->comm), "%s", comm ? comm : "");
		free(comm);
	}
}
