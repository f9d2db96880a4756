// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

struct dc_file *dc_file_intern(struct dc_procs *ps, const char *name)
{
	uint64_t h = dc_hash(name, strlen(name));
	struct dc_file *f = dc_map_get(&ps->files, h ? h : 1);

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	dc_hash_hex(h, f->hash);
	if (!f->name || dc_map_put(&ps->files, h ? h : 1, f)) {
		free(f->name);
		free(f);
		return NULL;
	}
	return f;
}

/* fd + 1 keeps fd 0 off the map's reserved key 0. */
static uint64_t fd_key(int64_t fd)
{
	return (uint64_t)fd + 1;
}

/*
 * What an fd referred to, and when: [from, until), from its open's return
 * to its close's entry. A parent call is resolved after its children (it
 * returns last), so a close inside fclose must not hide the file from
 * fclose itself; nor may a later open of the same number rename earlier
 * calls.
 */
struct dc_fdent {
	struct dc_file *f;
	uint64_t from, until;
	struct dc_fdent *older;
	uint32_t depth; /* entries in the chain from here, when set */
};

/*
 * A record comes after others by as long as its call took: a close that
 * flushes to a parallel file system, or a preempted thread, while other
 * threads reuse its fd number many times. An fd keeps what it meant over
 * the last FD_HISTORY_NS, at most FD_HISTORY_MAX meanings; trimmed every
 * FD_TRIM_EVERY sets, so a set costs O(1) on average.
 */
#define FD_HISTORY_NS  1000000000ull
#define FD_HISTORY_MAX 1024
#define FD_TRIM_EVERY  64

static void free_chain(void *v)
{
	for (struct dc_fdent *e = v, *o; e; e = o) {
		o = e->older;
		free(e);
	}
}

struct dc_file *dc_fd_lookup(struct dc_procs *ps, struct dc_proc *p, int64_t fd,
			     uint64_t ts)
{
	char link[64], target[PATH_MAX];
	struct dc_fdent *e;
	struct dc_file *f;
	ssize_t n;

	if (fd < 0 || fd > INT_MAX)
		return NULL;
	e = dc_map_get(&p->fds, fd_key(fd));
	if (e) {
		for (; e; e = e->older)
			if (e->from <= ts && ts < e->until)
				return e->f;
		return NULL;
	}
	/* Never seen: opened before tracing began. */
	snprintf(link, sizeof(link), "/proc/%u/fd/%lld", p->pid, (long long)fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0) {
		/* The process is gone (records arrive late): its fd stays
		 * unknown, so stop asking /proc for it on every call
		 * (bench/replay spent 90% of its time there). */
		if (kill(p->pid, 0) && errno == ESRCH &&
		    (e = calloc(1, sizeof(*e)))) {
			e->until = UINT64_MAX;
			if (dc_map_put(&p->fds, fd_key(fd), e))
				free(e);
		}
		return NULL;
	}
	target[n] = '\0';
	f = dc_file_intern(ps, target);
	if (f)
		dc_fd_set(p, fd, f, 0);
	return f;
}

struct dc_file *dc_fd_initial(struct dc_procs *ps, struct dc_proc *p,
			      int64_t fd)
{
	struct dc_fdent *e;

	if (fd < 0 || fd > INT_MAX)
		return NULL;
	e = dc_map_get(&p->fds, fd_key(fd));
	if (!e)
		return dc_fd_lookup(ps, p, fd, 0);
	while (e->older)
		e = e->older;
	return e->from == 0 ? e->f : NULL;
}

/* Whether descriptor @fd of @pid is close-on-exec (/proc's fdinfo). */
static bool cloexec(uint32_t pid, long fd)
{
	char path[64];
	unsigned flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/fdinfo/%ld", pid, fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "pos: %*u flags: %o", &flags) != 1)
		flags = 0;
	fclose(f);
	return flags & O_CLOEXEC;
}

void dc_fd_snapshot(struct dc_procs *ps, struct dc_proc *p, bool exec_next)
{
	char dir[64];
	struct dirent *de;
	DIR *d;
	snprintf(dir, sizeof(dir), "/proc/%u/fd", p->pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name ||
		    dc_map_get(&p->fds, fd_key(fd)) ||
		    (exec_next && cloexec(p->pid, fd)))
			continue;
		dc_fd_lookup(ps, p, fd, 0);
	}
	closedir(d);
}

void dc_fd_set(struct dc_proc *p, int64_t fd, struct dc_file *f, uint64_t ts)
{
	struct dc_fdent *head, *e, *o;
	uint32_t n = 1;

	if (fd < 0 || fd > INT_MAX || !f)
		return;
	head = dc_map_get(&p->fds, fd_key(fd));
	/* The same open seen from two layers: the inner one returned first. */
	if (head && head->f == f && head->until == UINT64_MAX) {
		if (ts < head->from)
			head->from = ts;
		return;
	}
	e = malloc(sizeof(*e));
	if (!e)
		return;
	*e = (struct dc_fdent){ f, ts, UINT64_MAX, head,
				head ? head->depth + 1 : 1 };
	if (head && head->until > ts)
		head->until = ts;
	if (dc_map_put(&p->fds, fd_key(fd), e)) {
		free(e);
		return;
	}
	if (e->depth % FD_TRIM_EVERY)
		return;
	for (o = e; o->older; o = o->older, n++) {
		uint64_t until = o->older->until;

		if (n >= FD_HISTORY_MAX ||
		    (until < ts && ts - until > FD_HISTORY_NS)) {
			free_chain(o->older);
			o->older = NULL;
			break;
		}
	}
	e->depth = n;
}

void dc_fd_close(struct dc_proc *p, int64_t fd, uint64_t ts)
{
	struct dc_fdent *head;

	if (fd < 0 || fd > INT_MAX)
		return;
	head = dc_map_get(&p->fds, fd_key(fd));
	if (head) {
		if (ts < head->until && ts >= head->from)
			head->until = ts;
		return;
	}
	/* Closing an fd never seen: a tombstone keeps a later lookup from
	 * asking /proc, where the number may already be reused. */
	head = calloc(1, sizeof(*head));
	if (!head)
		return;
	head->until = ts;
	if (dc_map_put(&p->fds, fd_key(fd), head))
		free(head);
}

/* Handle 0 is never valid (MPI_FILE_NULL, H5I_INVALID_HID is -1), which
 * keeps the map's reserved key free. */
struct dc_file *dc_handle_lookup(struct dc_proc *p, uint64_t h)
{
	return h ? dc_map_get(&p->handles, h) : NULL;
}

void dc_handle_set(struct dc_proc *p, uint64_t h, struct dc_file *f)
{
	if (!h || (int64_t)h == -1 || !f)
		return;
	dc_map_put(&p->handles, h, f);
	/* A handle given again is not the one closed. */
	dc_map_del(&p->closing[0], h);
	dc_map_del(&p->closing[1], h);
}

void dc_handle_close(struct dc_proc *p, uint64_t h)
{
	if (h) {
		dc_map_del(&p->handles, h);
		dc_map_del(&p->objects, h);
	}
}

const char *dc_handle_object(struct dc_proc *p, uint64_t h)
{
	return h ? dc_map_get(&p->objects, h) : NULL;
}

/* One copy of each object name, whoever opens it. */
const char *dc_name_intern(struct dc_procs *ps, const char *name)
{
	uint64_t h = dc_hash(name, strlen(name)) | 1;
	char *n = dc_map_get(&ps->names, h);

	if (n)
		return strcmp(n, name) ? NULL : n; /* a collision: unnamed */
	n = strdup(name);
	if (!n || dc_map_put(&ps->names, h, n)) {
		free(n);
		return NULL;
	}
	return n;
}

const char *dc_handle_set_object(struct dc_procs *ps, struct dc_proc *p,
				 uint64_t h, uint64_t base, const char *name)
{
	const char *parent = dc_handle_object(p, base);
	char full[DC_PATH_MAX * 2];
	const char *n = full;

	if (!h || (int64_t)h == -1)
		return NULL;
	/* A relative name is under its base's object, or under the root
	 * group when the base is the file itself. */
	if (name[0] == '/')
		n = name;
	else
		snprintf(full, sizeof(full), "%s/%s",
			 parent && strcmp(parent, "/") ? parent : "", name);
	n = dc_name_intern(ps, n);
	if (!n || dc_map_put(&p->objects, h, (void *)n))
		return NULL;
	return n;
}

int dc_handle_gen_set(struct dc_proc *p, uint64_t h, uint32_t gen,
		      struct dc_file *f, const char *object)
{
	struct dc_hgen *g = malloc(sizeof(*g));

	if (!g)
		return -ENOMEM;
	*g = (struct dc_hgen){ gen, 0, f, object, dc_map_get(&p->hgens, h) };
	if (dc_map_put(&p->hgens, h, g)) {
		free(g);
		return -ENOMEM;
	}
	return 0;
}

const struct dc_hgen *dc_handle_gen(struct dc_proc *p, uint64_t h, uint32_t gen)
{
	const struct dc_hgen *g = h ? dc_map_get(&p->hgens, h) : NULL;

	while (g && g->gen != gen)
		g = g->older;
	return g;
}

static void free_hgens(void *v)
{
	for (struct dc_hgen *g = v, *older; g; g = older) {
		older = g->older;
		free(g);
	}
}

/* Generations replaced two drains ago have no calls left to name. */
static void age_hgens(struct dc_hgen *newest)
{
	for (struct dc_hgen *g = newest; g && g->older; g = g->older)
		if (++g->older->age >= 2) {
			free_hgens(g->older);
			g->older = NULL;
		}
}

void dc_handle_close_later(struct dc_proc *p, uint64_t h)
{
	if (h)
		dc_map_put(&p->closing[1], h, p);
}

void dc_handles_expire(struct dc_procs *ps)
{
	dc_map_foreach (&ps->procs, i) {
		struct dc_proc *p = ps->procs.vals[i];

		dc_map_foreach (&p->closing[0], k) {
			dc_map_del(&p->handles, p->closing[0].keys[k]);
			dc_map_del(&p->objects, p->closing[0].keys[k]);
			free_hgens(
			    dc_map_del(&p->hgens, p->closing[0].keys[k]));
		}
		dc_map_foreach (&p->hgens, k)
			age_hgens(p->hgens.vals[k]);
		dc_map_free(&p->closing[0], NULL);
		p->closing[0] = p->closing[1];
		memset(&p->closing[1], 0, sizeof(p->closing[1]));
	}
}

static void free_proc(void *v);

/* A child starts with what each of its parent's fds refers to now. */
static void copy_fds(struct dc_proc *p, const struct dc_proc *parent)
{
	dc_map_foreach (&parent->fds, i) {
		struct dc_fdent *e = malloc(sizeof(*e));

		if (!e)
			return;
		*e = *(const struct dc_fdent *)parent->fds.vals[i];
		/* To the child, inherited fds predate its tracing. */
		e->from = 0;
		e->older = NULL;
		if (dc_map_put(&p->fds, parent->fds.keys[i], e))
			free(e);
	}
}

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
		copy_fds(p, parent);
		/* fork copies memory: the child's handles are the parent's. */
		dc_map_foreach (&parent->handles, i) {
			dc_map_put(&p->handles, parent->handles.keys[i],
				   parent->handles.vals[i]);
		}
		dc_map_foreach (&parent->objects, i) {
			dc_map_put(&p->objects, parent->objects.keys[i],
				   parent->objects.vals[i]);
		}
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

/* Drop "." and empty components of the absolute @path, and ".." with the
 * one before it, in place. */
static void clean(char *path)
{
	char *out = path, *s = path;

	while (*s) {
		size_t n;

		s += strspn(s, "/");
		n = strcspn(s, "/");
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (out > path && *--out != '/')
				;
		} else if (n && !(n == 1 && s[0] == '.')) {
			*out++ = '/';
			memmove(out, s, n);
			out += n;
		}
		s += n;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

char *dc_abs_path(struct dc_procs *ps, struct dc_proc *p, int64_t dirfd,
		  const char *path, uint64_t ts)
{
	const char *base = NULL;
	struct dc_file *d;
	char *out;

	if (!path[0])
		return strdup(path);
	if (path[0] == '/')
		base = "";
	else if ((int)dirfd == DC_AT_FDCWD)
		base = dc_proc_cwd(p);
	else if ((d = dc_fd_lookup(ps, p, dirfd, ts)))
		base = d->name;
	if (!base || (*base && *base != '/'))
		return strdup(path);
	if (asprintf(&out, "%s/%s", base, path) < 0)
		return NULL;
	clean(out);
	return out;
}

void dc_proc_chdir(struct dc_procs *ps, struct dc_proc *p, int64_t fd,
		   const char *path, uint64_t ts)
{
	struct dc_file *d;
	char *cwd = NULL;

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
		cwd = strdup(d->name);
	free(p->cwd);
	/* Not known (a relative path, an fd never named): from /proc when
	 * next needed, which is the best left. */
	p->cwd = cwd && cwd[0] == '/' ? cwd : NULL;
	if (!p->cwd)
		free(cwd);
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

	dc_map_free(&p->fds, free_chain);
	dc_map_free(&p->handles, NULL);
	dc_map_free(&p->objects, NULL);
	dc_map_free(&p->closing[0], NULL);
	dc_map_free(&p->closing[1], NULL);
	dc_map_free(&p->fdgens, NULL);
	dc_map_free(&p->hgens, free_hgens);
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

static void free_file(void *v)
{
	struct dc_file *f = v;

	free(f->name);
	free(f);
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
	dc_map_free(&ps->files, free_file);
	dc_map_free(&ps->names, free);
	dc_map_free(&ps->devs, free);
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

const char *dc_dev_name(struct dc_procs *ps, uint32_t dev)
{
	unsigned int maj = dev >> 20, min = dev & 0xfffff;
	char path[64], line[256], name[64];
	char *copy;
	FILE *f;

	if ((copy = dc_map_get(&ps->devs, (uint64_t)dev + 1)))
		return copy;
	snprintf(name, sizeof(name), "%u:%u", maj, min);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", maj, min);
	if ((f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "DEVNAME=", 8)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(name, sizeof(name), "%.63s", line + 8);
				break;
			}
		fclose(f);
	}
	copy = strdup(name);
	if (!copy || dc_map_put(&ps->devs, (uint64_t)dev + 1, copy)) {
		free(copy);
		return "?";
	}
	return copy;
}
