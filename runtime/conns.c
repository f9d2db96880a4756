// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conns.h"
#include "log.h"

struct dc_conn {
	int fd;
	struct ucred cred;
	uint64_t deadline; /* CLOCK_MONOTONIC ns */
	size_t len;
	char buf[DC_REQUEST_MAX];
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* The length of the UTF-8 sequence at @s if it is valid and not a C1
 * control (U+0080-U+009F), else 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4 || len > n)
		return 0;
	cp = s[0] & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < 0xa0 || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* @n bytes of a caller's for the log: control characters (C0, DEL, C1),
 * backslashes and bytes that are not UTF-8 become \xNN, so no request
 * drives the terminal of whoever reads the log. Cut short with "...". */
static const char *printable(const char *s, size_t n, char *out, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, k;

	for (size_t i = 0; i < n; i += k) {
		k = u[i] >= 0x80 ? utf8_len(u + i, n - i) : 0;
		if (o + 8 >= size) {
			strcpy(out + o, "...");
			return out;
		}
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
			continue;
		}
		k = 1;
		if (u[i] < 0x20 || u[i] >= 0x7f || u[i] == '\\')
			o += sprintf(out + o, "\\x%02x", u[i]);
		else
			out[o++] = s[i];
	}
	out[o] = '\0';
	return out;
}

/* Turn a caller away with a reason; never waits for it to read. */
static void refuse(struct dc_conns *cs, int fd, const char *why)
{
	char msg[128];
	int len = snprintf(msg, sizeof(msg), "error: %s\n", why);
	/* Said once, non-blocking: it may not be listening. */
	ssize_t w = write(fd, msg, len);

	(void)w;
	close(fd);
	if (!cs->refused++)
		dc_warn("server: refusing a caller: %s (said once; refusals "
			"are counted)",
			why);
}

static void conn_free(struct dc_conns *cs, struct dc_conn *c)
{
	for (size_t i = 0; i < cs->n; i++)
		if (cs->c[i] == c) {
			cs->c[i] = cs->c[--cs->n];
			break;
		}
	close(c->fd);
	free(c);
}

/* The request is whole (a newline, the caller's end, or too long):
 * answer it, log both escaped, and say it to the caller if it listens. */
static void conn_answer(struct dc_conn *c, dc_answer_fn *fn, void *ctx)
{
	char out[DC_ANSWER_MAX + 1], req[4 * DC_REQUEST_MAX + 4];
	char ans[4 * DC_ANSWER_MAX + 4];
	char *nl = memchr(c->buf, '\n', c->len);
	size_t n = nl ? (size_t)(nl - c->buf) : c->len;
	ssize_t w;

	c->buf[n] = '\0';
	/* As it came: @fn may cut the line up. */
	printable(c->buf, n, req, sizeof(req));
	if (!nl && c->len == sizeof(c->buf) - 1)
		snprintf(out, DC_ANSWER_MAX,
			 "error: a request is one line "
			 "of at most %d bytes",
			 DC_REQUEST_MAX - 1);
	else
		fn(ctx, &c->cred, c->buf, out, DC_ANSWER_MAX);
	dc_info("request from uid %u pid %d: %s -> %s", c->cred.uid,
		c->cred.pid, req,
		printable(out, strlen(out), ans, sizeof(ans)));
	strcat(out, "\n");
	/* Once, non-blocking: an answer fits in a fresh socket's buffer,
	 * and a caller that filled its own does not get to hold us. */
	w = write(c->fd, out, strlen(out));
	if (w < 0)
		dc_warn("cannot answer pid %d: %s", c->cred.pid,
			strerror(errno));
}

/* Read what the caller sent; true while it has more of a line to send. */
static bool conn_read(struct dc_conn *c, dc_answer_fn *fn, void *ctx)
{
	ssize_t n;

	for (;;) {
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN;
		c->len += n;
		if ((n == 0 && c->len) || memchr(c->buf, '\n', c->len) ||
		    c->len == sizeof(c->buf) - 1) {
			conn_answer(c, fn, ctx);
			return false;
		}
		if (n == 0)
			return false;
	}
}

static size_t waiting(const struct dc_conns *cs, uid_t uid)
{
	size_t k = 0;

	for (size_t i = 0; i < cs->n; i++)
		k += cs->c[i]->cred.uid == uid;
	return k;
}

/* A new connection: answered at once if its line is there already (a
 * burst of joins is not capped), else it waits, within the caps. */
static void admit(struct dc_conns *cs, int fd, dc_answer_fn *fn, void *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	socklen_t len = sizeof(struct ucred);
	struct dc_conn *c = calloc(1, sizeof(*c));

	if (!c || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c->cred, &len)) {
		free(c);
		close(fd);
		return;
	}
	c->fd = fd;
	c->deadline = mono_ns() + DC_CONN_TIMEOUT_MS * 1000000ull;
	if (!conn_read(c, fn, ctx)) {
		close(fd);
		free(c);
		return;
	}
	if (cs->n == DC_CONNS_MAX ||
	    (c->cred.uid && waiting(cs, c->cred.uid) >= DC_CONNS_PER_UID)) {
		free(c);
		refuse(cs, fd, "too many connections waiting");
		return;
	}
	ev.data.ptr = c;
	if (epoll_ctl(cs->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		free(c);
		refuse(cs, fd, strerror(errno));
		return;
	}
	cs->c[cs->n++] = c;
}

/* Out of descriptors: the spare one lets the caller be told and closed,
 * not left pending while the listening socket stays readable. */
static void refuse_no_fd(struct dc_conns *cs)
{
	int fd;

	close(cs->spare);
	fd = accept4(cs->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd >= 0)
		refuse(cs, fd, "the server has no file descriptor left");
	cs->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void accept_some(struct dc_conns *cs, dc_answer_fn *fn, void *ctx)
{
	/* A bounded batch: a flood of callers still leaves the ring buffer
	 * its turn. */
	for (int i = 0; i < DC_CONNS_EVENTS; i++) {
		int fd =
		    accept4(cs->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd >= 0) {
			admit(cs, fd, fn, ctx);
			continue;
		}
		if ((errno == EMFILE || errno == ENFILE) && cs->spare >= 0)
			refuse_no_fd(cs);
		if (errno != EINTR && errno != ECONNABORTED)
			return;
	}
}

int dc_conns_open(struct dc_conns *cs, int lfd, int wake_fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err = 0;

	*cs = (struct dc_conns){ .lfd = lfd, .spare = -1 };
	cs->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (cs->epfd < 0) {
		err = -errno;
		goto cleanup;
	}
	ev.data.ptr = &cs->lfd;
	if (epoll_ctl(cs->epfd, EPOLL_CTL_ADD, lfd, &ev)) {
		err = -errno;
		goto cleanup;
	}
	ev.data.ptr = NULL;
	if (epoll_ctl(cs->epfd, EPOLL_CTL_ADD, wake_fd, &ev)) {
		err = -errno;
		goto cleanup;
	}
	cs->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (cs->spare < 0)
		err = -errno;
cleanup:
	if (err)
		dc_conns_close(cs);
	return err;
}

int dc_conns_wait(struct dc_conns *cs, int timeout_ms)
{
	uint64_t now = mono_ns();

	for (size_t i = 0; i < cs->n; i++) {
		uint64_t d = cs->c[i]->deadline;
		int left = d <= now ? 0 : (int)((d - now + 999999) / 1000000);

		if (left < timeout_ms)
			timeout_ms = left;
	}
	cs->nev = epoll_wait(cs->epfd, cs->ev, DC_CONNS_EVENTS, timeout_ms);
	if (cs->nev >= 0)
		return 0;
	cs->nev = 0;
	return errno == EINTR ? 0 : -errno;
}

void dc_conns_serve(struct dc_conns *cs, dc_answer_fn *fn, void *ctx)
{
	uint64_t now;

	/* Each connection appears once per wait, and only its own report
	 * frees it: the reports stay valid through the loop. */
	for (int i = 0; i < cs->nev; i++) {
		void *p = cs->ev[i].data.ptr;

		if (p == &cs->lfd)
			accept_some(cs, fn, ctx);
		else if (p && !conn_read(p, fn, ctx))
			conn_free(cs, p);
	}
	cs->nev = 0;
	now = mono_ns();
	for (size_t i = cs->n; i-- > 0;)
		if (cs->c[i]->deadline <= now) {
			cs->expired++;
			conn_free(cs, cs->c[i]);
		}
}

void dc_conns_close(struct dc_conns *cs)
{
	while (cs->n)
		conn_free(cs, cs->c[0]);
	if (cs->refused || cs->expired)
		dc_info("server: %llu callers refused, %llu connections closed "
			"for sending no whole request in %d ms",
			(unsigned long long)cs->refused,
			(unsigned long long)cs->expired, DC_CONN_TIMEOUT_MS);
	if (cs->epfd >= 0)
		close(cs->epfd);
	if (cs->spare >= 0)
		close(cs->spare);
	if (cs->lfd >= 0)
		close(cs->lfd);
	cs->epfd = cs->spare = cs->lfd = -1;
}
