/* SPDX-License-Identifier: MIT */
#ifndef DC_CONNS_H
#define DC_CONNS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>

/*
 * The control socket's connections, served without ever waiting on a
 * client: every socket is non-blocking, a connection that has not sent
 * a whole line (or closed its side) within its deadline is closed, and
 * no user but root keeps more than DC_CONNS_PER_UID waiting at once.
 * Anyone can connect (the socket is mode 0666), so nothing a caller does
 * may hold up the ring buffer's consumer or another caller.
 */
#define DC_REQUEST_MAX	   4200 /* a request line, its newline included */
#define DC_ANSWER_MAX	   8192
#define DC_CONNS_MAX	   256 /* connections waiting for their line */
#define DC_CONNS_PER_UID   16  /* ... of one user's, root's not capped */
#define DC_CONN_TIMEOUT_MS 2000
#define DC_CONNS_EVENTS	   64 /* readiness reports taken per wait */

struct dc_conn;

/* Answer request @line (its newline removed) of a caller with @cred. */
typedef void dc_answer_fn(void *ctx, const struct ucred *cred, char *line,
			  char *out, size_t size);

struct dc_conns {
	int lfd;   /* the listening socket, owned from dc_conns_open() on */
	int epfd;  /* lfd, each connection, and the caller's wake-up fd */
	int spare; /* kept open to refuse a caller when no fd is left */
	struct dc_conn *c[DC_CONNS_MAX];
	size_t n;
	struct epoll_event ev[DC_CONNS_EVENTS];
	int nev;	  /* reports from the last wait */
	uint64_t refused; /* callers turned away: a cap, no descriptor */
	uint64_t expired; /* connections closed at their deadline */
};

/* Serve @lfd; a wait also ends when @wake_fd is readable (the ring
 * buffer's). 0, or -errno (@lfd is closed then too). */
int dc_conns_open(struct dc_conns *cs, int lfd, int wake_fd);
/* Wait up to @timeout_ms, less if a connection's deadline is nearer.
 * 0 or -errno; EINTR counts as a wait that found nothing. */
int dc_conns_wait(struct dc_conns *cs, int timeout_ms);
/* Act on what the last wait found: accept, read, answer each whole
 * request with @fn (it is logged, escaped), close what is past its
 * deadline. Never blocks. */
void dc_conns_serve(struct dc_conns *cs, dc_answer_fn *fn, void *ctx);
void dc_conns_close(struct dc_conns *cs);

#endif
