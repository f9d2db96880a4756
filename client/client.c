// SPDX-License-Identifier: MIT
/*
 * libdatacrumbs-client.so: a process that loads it (linked, or through
 * LD_PRELOAD) asks a running datacrumbs-runtime --server to trace it and
 * its children. Its constructor asks over the server's socket
 * ($DATACRUMBS_SOCKET, or /run/datacrumbs.sock) and waits for the
 * answer: a server attaches its probes only while some job runs, and
 * the process's calls are traced from the answer on. It also calls
 * datacrumbs_client_join(), which the server has a uprobe on, for a
 * server whose socket it cannot reach (another mount namespace). With no
 * server it costs one failed connect().
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* Not inlined or merged away: the server's probe is on this symbol. */
__attribute__((visibility("default"), noinline, used)) void
datacrumbs_client_join(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Ask the server and wait (5 s at most) for its answer, whatever it is:
 * the process runs on either way. */
static void ask_server(void)
{
	const char *path = getenv("DATACRUMBS_SOCKET");
	struct timeval tv = { .tv_sec = 5 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[256];
	int fd;

	if (!path || !*path)
		path = "/run/datacrumbs.sock";
	if (strlen(path) >= sizeof(sa.sun_path))
		return;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    write(fd, "join\n", 5) == 5 && !shutdown(fd, SHUT_WR))
		while (read(fd, reply, sizeof(reply)) > 0)
			;
	close(fd);
}

__attribute__((constructor)) static void datacrumbs_client_init(void)
{
	datacrumbs_client_join();
	ask_server();
}
