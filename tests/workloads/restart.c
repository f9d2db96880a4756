// SPDX-License-Identifier: MIT
/*
 * One read() that a signal interrupts and the kernel restarts
 * (SA_RESTART): one call of the C library's read() making two read
 * system calls. Reports what it did as JSON.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t signals;

static void on_alarm(int sig)
{
	(void)sig;
	signals++;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm,
				.sa_flags = SA_RESTART };
	struct itimerval it = { .it_value = { .tv_usec = 100000 } };
	int p[2], status;
	ssize_t n;
	pid_t child;
	char c;

	if (pipe(p) || sigaction(SIGALRM, &sa, NULL))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		close(p[0]);
		usleep(400000);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	close(p[1]);
	setitimer(ITIMER_REAL, &it, NULL);
	n = read(p[0], &c, 1);
	waitpid(child, &status, 0);
	printf("{\"pid\":%d,\"read\":1,\"got\":%zd,\"signals\":%d}\n", getpid(),
	       n, (int)signals);
	return n == 1 && signals == 1 ? 0 : 1;
}
