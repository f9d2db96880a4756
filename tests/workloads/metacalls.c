// SPDX-License-Identifier: MIT
/*
 * Known metadata and formatted-I/O calls on known files, reported as
 * JSON: the ground truth of test_e2e_metacalls. glibc's stat and lstat
 * jump into fstatat, fcntl takes its argument as va_arg, fprintf and
 * fscanf are variadic, getline jumps into getdelim: each is one call of
 * its own name in the trace. Usage: metacalls DIR (made if missing)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATS	 21
#define LSTATS	 13
#define FSTATATS 7
#define OPENATS	 9
#define GETFLS	 11
#define DUPFDS	 5
#define SETFLS	 3
#define FPRINTFS 17
#define FSCANFS	 17
#define GETLINES 17

/* The functions the STDIO spec names: C99 programs are given
 * __isoc99_fscanf, and an optimised getline is inlined into __getdelim. */
int plain_fscanf(FILE *f, const char *fmt, ...) __asm__("fscanf");
ssize_t plain_getline(char **line, size_t *cap, FILE *f) __asm__("getline");

int main(int argc, char **argv)
{
	char path[4096], link[4096], *line = NULL;
	size_t cap = 0;
	long fprintf_bytes = 0, getline_bytes = 0;
	struct stat st;
	int dir, fd, n;
	FILE *f;

	if (argc != 2 || (mkdir(argv[1], 0700) && errno != EEXIST))
		return 2;
	snprintf(path, sizeof(path), "%s/meta.txt", argv[1]);
	snprintf(link, sizeof(link), "%s/meta.link", argv[1]);
	f = fopen(path, "w");
	if (!f || symlink(path, link))
		return 1;
	/* Lines of growing length: each call's size differs. */
	for (int i = 0; i < FPRINTFS; i++)
		fprintf_bytes += fprintf(f, "%d %.*s\n", i, i + 1,
					 "xxxxxxxxxxxxxxxxxxxxxxxxx");
	fclose(f);

	for (int i = 0; i < STATS; i++)
		stat(path, &st);
	for (int i = 0; i < LSTATS; i++)
		lstat(link, &st);
	dir = open(argv[1], O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < FSTATATS; i++)
		fstatat(dir, "meta.txt", &st, 0);
	for (int i = 0; i < OPENATS; i++)
		close(openat(dir, "meta.txt", O_RDONLY));

	fd = openat(dir, "meta.txt", O_RDONLY);
	for (int i = 0; i < GETFLS; i++)
		fcntl(fd, F_GETFL);
	for (int i = 0; i < DUPFDS; i++)
		close(fcntl(fd, F_DUPFD, 10));
	for (int i = 0; i < SETFLS; i++)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	close(fd);
	close(dir);

	f = fopen(path, "r");
	if (!f)
		return 1;
	for (int i = 0; i < FSCANFS; i++)
		if (plain_fscanf(f, "%d %*s", &n) != 1)
			return 1;
	rewind(f);
	for (int i = 0; i < GETLINES; i++)
		getline_bytes += plain_getline(&line, &cap, f);
	fclose(f);
	free(line);

	printf("{\"file\":\"%s\",\"link\":\"%s\",\"stat\":%d,\"lstat\":%d,"
	       "\"fstatat\":%d,\"openat\":%d,\"fcntl\":%d,\"fprintf\":%d,"
	       "\"fprintf_bytes\":%ld,\"fscanf\":%d,\"getline\":%d,"
	       "\"getline_bytes\":%ld,\"dupfd\":%d,\"setfl\":%d}\n",
	       path, link, STATS, LSTATS, FSTATATS, OPENATS + 1,
	       GETFLS + DUPFDS + SETFLS, FPRINTFS, fprintf_bytes, FSCANFS,
	       GETLINES, getline_bytes, DUPFDS, SETFLS);
	fflush(stdout);
	return 0;
}
