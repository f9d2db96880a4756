/* SPDX-License-Identifier: MIT */
#ifndef DC_SERVER_H
#define DC_SERVER_H

struct dc_rt;

#define DC_DEFAULT_SOCKET "/run/datacrumbs.sock"

/*
 * Server mode's control socket: a unix stream socket taking one request
 * line per connection ("track PID", "untrack PID", "follow-cgroup PATH",
 * "status") and answering one line ("ok ..." or "error: ..."). Callers
 * are identified by SO_PEERCRED: a user may act on their own processes
 * and cgroups, root on any.
 */
int dc_server_listen(const char *path);
/* Accept and answer one request; @trace is reported by "status". */
void dc_server_serve(struct dc_rt *rt, int lfd, const char *trace);
/* Attach the probe that lets processes join by loading the client
 * library. Returns 0 or -errno (a message is printed). */
int dc_server_attach_client(struct dc_rt *rt, const char *lib);
/* Attach the probes when a process joined by the client library's
 * uprobe; detach them a second after the last job ended. */
void dc_server_jobs(struct dc_rt *rt, uint64_t now);

/* The client side: send @request, print the answer; the exit status. */
int dc_server_request(const char *path, const char *request);

#endif
