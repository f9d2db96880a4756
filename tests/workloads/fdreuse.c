// SPDX-License-Identifier: MIT
/*
 * Threads that open, write and close a file of their own, over and over:
 * the kernel hands the fd one thread just closed to another thread's
 * open, so each fd number names many files in turn. It prints each
 * thread's file and how many times it did each call, the ground truth
 * for naming a call's file.  Usage: fdreuse DIR [ROUNDS]
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NTHREADS 4

struct worker {
	pthread_t th;
	int rounds;
	char path[4096];
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < w->rounds; i++) {
		int fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			die(w->path);
		if (write(fd, "x", 1) != 1)
			die("write");
		if (close(fd))
			die("close");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[NTHREADS];
	int rounds = argc > 2 ? atoi(argv[2]) : 2000;

	if (argc < 2 || rounds <= 0) {
		fprintf(stderr, "usage: fdreuse DIR [ROUNDS]\n");
		return 2;
	}
	for (int i = 0; i < NTHREADS; i++) {
		w[i].rounds = rounds;
		snprintf(w[i].path, sizeof(w[i].path), "%s/reuse-%d.dat",
			 argv[1], i);
		if (pthread_create(&w[i].th, NULL, work, &w[i]))
			die("pthread_create");
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(w[i].th, NULL);
	printf("{\"pid\":%d,\"rounds\":%d,\"files\":[", (int)getpid(), rounds);
	for (int i = 0; i < NTHREADS; i++)
		printf("%s\"%s\"", i ? "," : "", w[i].path);
	printf("]}\n");
	return 0;
}
