// SPDX-License-Identifier: MIT
/*
 * A fixed mix of POSIX and STDIO calls for comparing our Darshan
 * counters with Darshan's: sequential, consecutive and strided writes,
 * read/write switches, sizes in several of Darshan's buckets, seeks, a
 * dup, syncs, a read at end of file; and a stream written, flushed,
 * sought and read. Usage: darshan_mix DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char buf[1 << 20];

static int posix_part(const char *path)
{
	struct stat st;
	int fd, d;

	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (int i = 0; i < 10; i++)
		write(fd, buf, 100);
	for (int i = 0; i < 5; i++)
		write(fd, buf, 5000);
	for (int i = 1; i <= 3; i++)
		pwrite(fd, buf, 4096, i * 100000);
	pwrite(fd, buf, 4096, 500000);
	lseek(fd, 0, SEEK_SET);
	for (int i = 0; i < 8; i++)
		read(fd, buf, 300);
	pread(fd, buf, 2000, 50000);
	pread(fd, buf, 10, 10);
	write(fd, buf, 1);
	fstat(fd, &st);
	fsync(fd);
	fdatasync(fd);
	d = dup(fd);
	write(d, buf, 64);
	close(d);
	close(fd);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

static int stdio_part(const char *path)
{
	FILE *f = fopen(path, "w+");

	if (!f)
		return -1;
	for (int i = 0; i < 5; i++)
		fwrite(buf, 1, 100, f);
	fwrite(buf, 10, 20, f);
	fputs("a line of text\n", f);
	fputc('x', f);
	fflush(f);
	fseek(f, 0, SEEK_SET);
	for (int i = 0; i < 3; i++)
		fread(buf, 1, 50, f);
	rewind(f);
	fgets(buf, 40, f);
	fgetc(f);
	fread(buf, 1, 1000, f);
	return fclose(f);
}

/* A stream on an fd the program opened: Darshan counts the fdopen apart,
 * and the stream goes on from where the file's last one left off. */
static int fdopen_part(const char *path)
{
	int fd = open(path, O_RDONLY);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");

	if (!f)
		return -1;
	fread(buf, 1, 64, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2)
		return 2;
	memset(buf, 'x', sizeof(buf));
	snprintf(path, sizeof(path), "%s/posix.dat", argv[1]);
	if (posix_part(path))
		return 1;
	snprintf(path, sizeof(path), "%s/stdio.dat", argv[1]);
	return stdio_part(path) || fdopen_part(path) ? 1 : 0;
}
