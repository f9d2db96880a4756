/* SPDX-License-Identifier: MIT */
#ifndef DC_SERVER_H
#define DC_SERVER_H

#include <stdbool.h>

#include "cgroup.h"
#include "conns.h"
#include "procs.h"
#include "session.h"

struct dc_sinks;

#define DC_DEFAULT_SOCKET "/run/datacrumbs.sock"

/*
 * Server mode's control socket: a unix stream socket taking one request
 * line per connection ("track PID", "untrack PID", "follow-cgroup PATH",
 * "status") and answering one line ("ok ..." or "error: ..."). Callers
 * are identified by SO_PEERCRED: a user may act on their own processes
 * and cgroups, root on any; "status" shows a user their own processes
 * only. conns.c serves the callers.
 */
struct dc_server {
	struct dc_session *sess;   /* probes attached per job, pids traced */
	struct dc_procs *ps;	   /* processes named as they are tracked */
	struct dc_sinks *out;	   /* who each job's trace is for */
	struct dc_cgroups cgroups; /* followed cgroups, closed with it */
	uint64_t idle_since;	   /* when the last job ended, or 0 */
	const char *trace; /* its own trace, which "status" names to root */
	const char *path;  /* its socket, removed when it closes */
	struct dc_conns conns;
	bool open;
};

/* Listen on @path; a wait also wakes for @events_fd (the ring
 * buffer's epoll fd). 0 or -errno (-EEXIST: not a socket there;
 * -EADDRINUSE: a live server listens there). */
int dc_server_open(struct dc_server *s, struct dc_session *sess,
		   struct dc_procs *ps, struct dc_sinks *out, int events_fd,
		   const char *path, const char *trace);
/* Wait up to @timeout_ms for events or callers. 0 or -errno. */
int dc_server_wait(struct dc_server *s, int timeout_ms);
/* Answer what callers have sent, never waiting on one: after the
 * events that came with them are consumed. */
void dc_server_serve(struct dc_server *s);
void dc_server_close(struct dc_server *s);
/* Attach the probe that lets processes join by loading the client
 * library. Returns 0 or -errno (a message is printed). */
int dc_server_attach_client(struct dc_session *sess, const char *lib);
/* Attach the probes when a process joined by the client library's
 * uprobe (@joined, since the last call); detach them a second after the
 * last job ended. */
void dc_server_jobs(struct dc_server *s, uint64_t now, bool joined);

/* The client side: send @request, print the answer; the exit status. */
int dc_server_request(const char *path, const char *request);

#endif
