// SPDX-License-Identifier: MIT
/*
 * A workload that knows exactly which I/O calls it makes: the main thread,
 * worker threads, a forked child and a posix_spawn'ed program. It prints
 * what it did as JSON, the ground truth the end-to-end tests compare a
 * trace against.  Usage: iocalls DIR
 */
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NTHREADS     4
#define MAIN_WRITES  100
#define MAIN_PWRITES 10
#define MAIN_LSEEKS  5
#define MAIN_READS   50
#define MAIN_PREADS  20
#define CHILD_WRITES 33

extern char **environ;

static const char *dir;
static char buf[8192];

struct worker {
	int n;
	pid_t tid;
	int writes;
	char path[4096];
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int open_in(const char *name, int flags, char *path)
{
	int fd;

	snprintf(path, 4096, "%s/%s", dir, name);
	fd = open(path, flags, 0644);
	if (fd < 0)
		die(path);
	return fd;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[32], tname[16];
	int fd;

	snprintf(tname, sizeof(tname), "worker-%d", w->n);
	pthread_setname_np(pthread_self(), tname);
	w->tid = gettid();
	snprintf(name, sizeof(name), "thread-%d.dat", w->n);
	fd = open_in(name, O_CREAT | O_WRONLY | O_TRUNC, w->path);
	for (int i = 0; i < w->writes; i++)
		if (write(fd, buf, 256) != 256)
			die("write");
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	char main_path[4096], child_path[4096];
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	char *true_argv[] = { "true", NULL };
	pid_t child, spawned;
	int fd, status;

	if (argc != 2) {
		fprintf(stderr, "usage: iocalls DIR\n");
		return 2;
	}
	dir = argv[1];
	memset(buf, 'x', sizeof(buf));

	fd = open_in("main.dat", O_CREAT | O_WRONLY | O_TRUNC, main_path);
	for (int i = 0; i < MAIN_WRITES; i++)
		if (write(fd, buf, 1000) != 1000)
			die("write");
	for (int i = 0; i < MAIN_PWRITES; i++)
		if (pwrite(fd, buf, 512, i * 512) != 512)
			die("pwrite");
	for (int i = 0; i < MAIN_LSEEKS; i++)
		lseek(fd, -(off_t)i * 100, SEEK_END); /* offsets 0, -100, ... */
	fsync(fd);
	close(fd);

	fd = open(main_path, O_RDONLY);
	if (fd < 0)
		die(main_path);
	for (int i = 0; i < MAIN_READS; i++)
		if (read(fd, buf, 2000) != 2000)
			die("read");
	for (int i = 0; i < MAIN_PREADS; i++)
		if (pread(fd, buf, 100, i * 100) != 100)
			die("pread");
	close(fd);

	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .n = i, .writes = 10 * i + 5 };
		if (pthread_create(&th[i], NULL, work, &w[i]))
			die("pthread_create");
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	snprintf(child_path, sizeof(child_path), "%s/child.dat", dir);
	fflush(stdout);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		char p[4096];

		fd = open_in("child.dat", O_CREAT | O_WRONLY | O_TRUNC, p);
		for (int i = 0; i < CHILD_WRITES; i++)
			if (write(fd, buf, 4096) != 4096)
				_exit(2);
		close(fd);
		_exit(0);
	}
	waitpid(child, &status, 0);
	if (posix_spawnp(&spawned, "true", NULL, NULL, true_argv, environ))
		die("posix_spawn");
	waitpid(spawned, &status, 0);

	printf("{\"pid\":%d,\"main\":{\"path\":\"%s\",\"write\":%d,"
	       "\"pwrite64\":%d,"
	       "\"lseek\":%d,\"read\":%d,\"pread64\":%d,\"write_size\":1000,"
	       "\"pwrite_size\":512,\"read_size\":2000,\"pread_size\":100},"
	       "\"threads\":[",
	       getpid(), main_path, MAIN_WRITES, MAIN_PWRITES, MAIN_LSEEKS,
	       MAIN_READS, MAIN_PREADS);
	for (int i = 0; i < NTHREADS; i++)
		printf("%s{\"tid\":%d,\"name\":\"worker-%d\",\"path\":\"%s\","
		       "\"write\":%d}",
		       i ? "," : "", w[i].tid, i, w[i].path, w[i].writes);
	printf("],\"child\":{\"pid\":%d,\"path\":\"%s\",\"write\":%d},"
	       "\"spawned\":%d}\n",
	       child, child_path, CHILD_WRITES, spawned);
	return 0;
}
