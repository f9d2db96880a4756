// SPDX-License-Identifier: MIT
#include <bpf/bpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cgroup.h"
#include "elfsym.h"
#include "latelib.h"
#include "log.h"
#include "roles.h"
#include "conns.h"
#include "server.h"
#include "sinks.h"

static int sockaddr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/* Clear the way for a server's socket: only a socket nobody listens on
 * (left by a server that did not exit) is removed. -EEXIST: something
 * else is there; -EADDRINUSE: a live server is. */
static int stale(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, err;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) ? errno : 0;
	close(fd);
	if (!err)
		return -EADDRINUSE;
	if (err != ECONNREFUSED)
		return -err;
	return unlink(path) ? -errno : 0;
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa;
	mode_t mask;
	int fd, err;

	err = sockaddr(path, &sa);
	if (err)
		return err;
	err = stale(path, &sa);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* Anyone may ask; SO_PEERCRED decides. The mode is set as bind()
	 * creates the socket: a chmod() of the path after it would follow
	 * a symbolic link put there meanwhile. */
	mask = umask(0111);
	err = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(mask);
	/* A burst of joins (every rank of a job) queues; callers who do
	 * not speak are closed at their deadline, see conns.c. */
	if (err || listen(fd, SOMAXCONN)) {
		err = err ?: -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* The owner of a process or a cgroup: whom it belongs to. */
static int owner(const char *path, struct dc_ids *who)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	*who = (struct dc_ids){ st.st_uid, st.st_gid };
	return 0;
}

static int set_pid(struct dc_server *s, int pid, bool on)
{
	struct dc_proc *p;

	if (!on)
		return dc_set_traced(s->sess, pid, 0, false);
	/* Its name and facts now, while it surely runs: its first events
	 * may be read after it has exited. */
	if ((p = dc_proc_get(s->ps, pid)))
		dc_proc_facts(p);
	return dc_trace_pid(s->sess, pid) ?: dc_latelib_running(s->sess, pid);
}

/* Whether the caller may see which processes are traced: root sees
 * all, a user their own (the owner of /proc/PID, as for "track"). */
static bool shown(const struct ucred *cred, __u32 pid)
{
	struct dc_ids who = {};
	char proc[64];

	if (!cred->uid)
		return true;
	snprintf(proc, sizeof(proc), "/proc/%u", pid);
	return !owner(proc, &who) && who.uid == cred->uid;
}

static int count(struct dc_session *sess, __u32 pid, void *ctx)
{
	(void)sess;
	(void)pid;
	++*(size_t *)ctx;
	return 0;
}

struct pid_list {
	const struct ucred *cred;
	char *out;
	size_t size, len;
};

static int list(struct dc_session *sess, __u32 pid, void *ctx)
{
	struct pid_list *l = ctx;

	(void)sess;
	if (shown(l->cred, pid))
		l->len +=
		    snprintf(l->out + l->len, l->size - l->len, " %u", pid);
	return l->len >= l->size;
}

/* Counts for anyone; pids and the server's trace only as shown() says:
 * what other users run is theirs. */
static void status(struct dc_session *sess, const struct ucred *cred,
		   const char *trace, char *out, size_t size)
{
	struct bpf_map *cg = sess->o.maps.cgroups;
	struct pid_list l = { .cred = cred, .out = out, .size = size };
	__u64 ckey, cnext;
	size_t n = 0, ncg = 0;
	uint64_t lost = 0, calls = 0;
	void *prev;

	dc_traced_each(sess, count, &n);
	for (prev = NULL; !bpf_map_get_next_key(bpf_map__fd(cg), prev, &cnext);
	     prev = &ckey) {
		ncg++;
		ckey = cnext;
	}
	dc_read_losses(sess);
	for (size_t i = 0; i < sess->nprobes; i++)
		calls += sess->probes[i].calls;
	for (size_t i = 0; i < sess->nprobes; i++)
		for (int r = 0; r < DC_LOSS_NR; r++)
			lost +=
			    dc_loss_is_lost(r) ? sess->probes[i].lost[r] : 0;
	l.len = snprintf(out, size,
			 "ok tracing %zu processes, %zu cgroups; %llu events, "
			 "%llu lost; ",
			 n, ncg, (unsigned long long)calls,
			 (unsigned long long)lost);
	if (l.len < size)
		l.len +=
		    snprintf(out + l.len, size - l.len,
			     cred->uid ? "your pids" : "trace %s; pids", trace);
	if (l.len < size)
		dc_traced_each(sess, list, &l);
}

/* A job starts: the probes go in first, if no other job has them in. */
static int job_starts(struct dc_server *s)
{
	int err = 0;

	if (!s->sess->probes_attached) {
		/* Its processes run already: their files now. */
		err = dc_attach_probes(s->sess) ?: dc_latelib_traced(s->sess);
		dc_info("a job starts: probes %s",
			err ? "could not be attached" : "attached");
	}
	s->idle_since = 0;
	return err;
}

void dc_server_jobs(struct dc_server *s, uint64_t now, bool joined)
{
	if (joined)
		job_starts(s);
	dc_cgroups_tick(&s->cgroups, s->sess);
	if (!s->sess->probes_attached || dc_traced_alive(s->sess) ||
	    dc_cgroups_count(&s->cgroups)) {
		s->idle_since = 0;
		return;
	}
	/* The last job ended; a second later, with none new, every process
	 * on the machine stops paying for the probes. */
	if (!s->idle_since) {
		s->idle_since = now;
	} else if (now - s->idle_since >= 1000000000ull) {
		dc_detach_probes(s->sess);
		s->idle_since = 0;
		dc_info("no job left: probes detached");
	}
}

/* Answer one request line from a caller with credentials @cred. */
static void answer(struct dc_server *s, const struct ucred *cred, char *line,
		   char *out, size_t size)
{
	char *arg = strchr(line, ' '), proc[64];
	struct dc_ids who;
	int err;

	line[strcspn(line, "\r\n")] = '\0';
	if (arg)
		*arg++ = '\0';
	if (!strcmp(line, "status")) {
		status(s->sess, cred, s->trace, out, size);
		return;
	}
	/* The client library: the caller itself, from its first call on
	 * once this is answered; a traced child stays in its job. */
	if (!strcmp(line, "join")) {
		struct dc_proc *p = dc_proc_get(s->ps, cred->pid);

		/* Named while it waits for this answer (see set_pid). */
		if (p)
			dc_proc_facts(p);
		err = dc_sinks_job_owner(s->out, cred->pid,
					 &(struct dc_ids){ cred->uid, cred->gid })
			  ?: job_starts(s)
			  ?: dc_set_traced(s->sess, cred->pid, cred->pid,
					   true);
		if (err)
			snprintf(out, size, "error: %s", strerror(-err));
		else
			snprintf(out, size, "ok joined %d", cred->pid);
		return;
	}
	if (!arg || !*arg) {
		snprintf(out, size, "error: unknown request '%s'", line);
		return;
	}
	if (!strcmp(line, "track") || !strcmp(line, "untrack")) {
		char *end;
		long pid = strtol(arg, &end, 10);

		snprintf(proc, sizeof(proc), "/proc/%ld", pid);
		if (*end || pid <= 0 || owner(proc, &who)) {
			snprintf(out, size, "error: no process %s", arg);
			return;
		}
		if (cred->uid && cred->uid != who.uid) {
			snprintf(out, size,
				 "error: process %ld belongs to uid %u, not to "
				 "you (uid %u)",
				 pid, who.uid, cred->uid);
			return;
		}
		/* A process named starts its own job, its owner's. */
		err =
		    !strcmp(line, "track")
			? dc_sinks_job_owner(s->out, pid, &who) ?: job_starts(s)
			: 0;
		err = err ?: set_pid(s, pid, !strcmp(line, "track"));
		if (err && err != -ENOENT)
			snprintf(out, size, "error: %s", strerror(-err));
		else
			snprintf(out, size, "ok %sed %ld", line, pid);
		return;
	}
	if (!strcmp(line, "follow-cgroup") ||
	    !strcmp(line, "follow-cgroup-as")) {
		struct dc_ids for_ = { cred->uid, cred->gid };
		struct dc_cgroup c;
		int n = 0;

		/* Root alone follows a cgroup for another user. */
		if (!strcmp(line, "follow-cgroup-as") &&
		    (cred->uid ||
		     sscanf(arg, "%u:%u %n", &for_.uid, &for_.gid, &n) != 2 ||
		     !n)) {
			snprintf(out, size, "error: %s",
				 cred->uid ? "only root follows a cgroup for "
					     "another user"
					   : "follow-cgroup-as UID:GID PATH");
			return;
		}
		if (dc_cgroup_check(&s->cgroups, cred, arg + n, &c, out, size))
			return;
		c.uid = for_.uid;
		if ((err = job_starts(s))) {
			snprintf(out, size, "error: %s", strerror(-err));
			close(c.fd);
			return;
		}
		if (dc_sinks_job_owner(
			s->out, dc_cgroups_next_job(&s->cgroups),
			&(struct dc_ids){ for_.uid, for_.gid })) {
			snprintf(out, size, "error: %s", strerror(ENOMEM));
			close(c.fd);
			return;
		}
		dc_cgroup_add(&s->cgroups, s->sess, &c, arg + n, out, size);
		return;
	}
	snprintf(out, size, "error: unknown request '%s'", line);
}

static void on_request(void *ctx, const struct ucred *cred, char *line,
		       char *out, size_t size)
{
	struct dc_server *s = ctx;

	answer(s, cred, line, out, size);
}

int dc_server_open(struct dc_server *s, struct dc_session *sess,
		   struct dc_procs *ps, struct dc_sinks *out, int events_fd,
		   const char *path, const char *trace)
{
	int lfd, err;

	*s = (struct dc_server){
		.sess = sess, .ps = ps, .out = out, .trace = trace, .path = path
	};
	lfd = listen_at(path);
	if (lfd < 0)
		return lfd;
	err = dc_conns_open(&s->conns, lfd, events_fd);
	if (err)
		unlink(path);
	else
		s->open = true;
	return err;
}

int dc_server_wait(struct dc_server *s, int timeout_ms)
{
	return dc_conns_wait(&s->conns, timeout_ms);
}

void dc_server_serve(struct dc_server *s)
{
	dc_conns_serve(&s->conns, on_request, s);
}

void dc_server_close(struct dc_server *s)
{
	dc_cgroups_free(&s->cgroups);
	if (!s->open)
		return;
	dc_conns_close(&s->conns);
	unlink(s->path);
	s->open = false;
}

int dc_server_attach_client(struct dc_session *sess, const char *lib)
{
	struct bpf_program *p = sess->o.progs.client_join;
	const struct dc_elf_sym *s;
	struct dc_elf_syms syms;
	struct bpf_link *l;
	int err;

	err = dc_elf_syms_load(lib, &syms);
	if (err) {
		dc_err("client library %s: %s", lib, strerror(-err));
		return err;
	}
	s = dc_elf_syms_find(&syms, "datacrumbs_client_join");
	if (!s) {
		dc_elf_syms_free(&syms);
		dc_err("%s has no datacrumbs_client_join", lib);
		return -ENOENT;
	}
	l = bpf_program__attach_uprobe(p, false, -1, lib, s->offset);
	dc_elf_syms_free(&syms);
	if (!l) {
		err = -errno;
		dc_err("cannot attach to %s: %s", lib, strerror(errno));
		return err;
	}
	err = dc_links_add(&sess->links, l);
	/* It stays while the probes come and go. */
	dc_links_tracking(&sess->links);
	return err;
}

int dc_server_request(const char *path, const char *request)
{
	struct sockaddr_un sa;
	char reply[8192];
	ssize_t n, len = 0;
	int fd;

	if (sockaddr(path, &sa))
		return 2;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		dc_err("no server at %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (write(fd, request, strlen(request)) < 0 || shutdown(fd, SHUT_WR)) {
		dc_err("%s: %s", path, strerror(errno));
		close(fd);
		return 1;
	}
	while ((n = read(fd, reply + len, sizeof(reply) - 1 - len)) > 0)
		len += n;
	close(fd);
	reply[len] = '\0';
	fputs(reply, stdout);
	return strncmp(reply, "ok", 2) ? 1 : 0;
}
