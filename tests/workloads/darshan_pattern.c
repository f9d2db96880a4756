// SPDX-License-Identifier: MIT
/*
 * Calls whose Darshan pattern is known: sequential writes of sizes in
 * six of Darshan's buckets and on two of their bounds, a strided pwrite,
 * then reads from the start, random preads (a fixed sequence) and
 * writes between them (read/write switches), on one fd; a stream
 * written, sought and read. No dup and no reopen: profile mode keeps
 * the pattern per fd, across its intervals. Usage: darshan_pattern DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[2 << 20];

static int posix_part(const char *path)
{
	static const int sizes[] = { 50,   100,	  700,	  1024,
				     5000, 50000, 300000, 2000000 };
	unsigned x = 12345;
	int fd;

	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 8; i++)
			write(fd, buf, sizes[i]);
	pwrite(fd, buf, 4096, 10000000);
	/* The reads fall in a later profile interval than the writes. */
	usleep(250000);
	lseek(fd, 0, SEEK_SET);
	for (int i = 0; i < 20; i++)
		read(fd, buf, 4096);
	for (int i = 0; i < 30; i++) {
		x = x * 1103515245 + 12345;
		pread(fd, buf, 100 + (x >> 8) % 20000, (x >> 4) % 6000000);
		if (i % 7 == 0)
			write(fd, buf, 512);
	}
	return close(fd);
}

static int stdio_part(const char *path)
{
	FILE *f = fopen(path, "w+");

	if (!f)
		return -1;
	for (int i = 0; i < 40; i++)
		fwrite(buf, 1, 300, f);
	fseek(f, 1000, SEEK_SET);
	for (int i = 0; i < 5; i++)
		fread(buf, 1, 700, f);
	fwrite(buf, 1, 50, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2)
		return 2;
	memset(buf, 'x', sizeof(buf));
	snprintf(path, sizeof(path), "%s/pattern.dat", argv[1]);
	if (posix_part(path))
		return 1;
	snprintf(path, sizeof(path), "%s/pattern.txt", argv[1]);
	return stdio_part(path) ? 1 : 0;
}
