// SPDX-License-Identifier: MIT
/*
 * libdatacrumbs-client.so: a process that loads it (linked, or through
 * LD_PRELOAD) asks a running datacrumbs-runtime --server to trace it and
 * its children. Its constructor asks over the server's socket
 * ($DATACRUMBS_SOCKET, or /run/datacrumbs.sock) and waits for the
 * answer, 5 s at most: a server attaches its probes only while some job
 * runs, and the process's calls are traced from the answer on. It also calls
 * datacrumbs_client_join(), which the server has a uprobe on, for a
 * server whose socket it cannot reach (another mount namespace). With no
 * server it costs one failed connect().
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Not inlined or merged away: the server's probe is on this symbol. */
__attribute__((visibility("default"), noinline, used)) void
datacrumbs_client_join(void)
{
	__asm__ volatile("" ::: "memory");
}

#define ASK_MS 5000

static int ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Ask the server and wait for its answer, whatever it is, 5 s at most
 * in all: the process runs on either way. */
static void ask_server(void)
{
	const char *path = getenv("DATACRUMBS_SOCKET");
	/* A unix socket's connect() waits for room in a listener's full
	 * backlog as long as SO_SNDTIMEO allows (forever by default); a
	 * non-blocking one fails at once with EAGAIN, leaving poll()
	 * nothing to wait for. So the timeout bounds it, and write(). */
	struct timeval tv = { .tv_sec = ASK_MS / 1000 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd p = { .events = POLLIN };
	struct timespec t0;
	char reply[256];
	int left, saved = errno;

	if (!path || !*path)
		path = "/run/datacrumbs.sock";
	if (strlen(path) >= sizeof(sa.sun_path))
		return;
	strcpy(sa.sun_path, path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	p.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p.fd < 0)
		goto cleanup;
	setsockopt(p.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(p.fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(p.fd, "join\n", 5) != 5 || shutdown(p.fd, SHUT_WR))
		goto cleanup;
	/* However slowly the answer comes, within what is left. */
	while ((left = ASK_MS - ms_since(&t0)) > 0 && poll(&p, 1, left) > 0 &&
	       read(p.fd, reply, sizeof(reply)) > 0)
		;
cleanup:
	if (p.fd >= 0)
		close(p.fd);
	/* The program's own errno, as its main() expects it. */
	errno = saved;
}

__attribute__((constructor)) static void datacrumbs_client_init(void)
{
	datacrumbs_client_join();
	ask_server();
}
