// SPDX-License-Identifier: MIT
/*
 * Known STDIO calls on known files, reported as JSON: the ground truth
 * of the STDIO layer test. Usage: stdio_calls DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FWRITES	 40
#define FPRINTFS 25
#define FREADS	 30
#define FGETS	 5

int main(int argc, char **argv)
{
	char out[4096], fd_path[4096], buf[256], line[128];
	long pos;
	FILE *f;
	int fd;

	if (argc != 2)
		return 2;
	memset(buf, 'a', sizeof(buf));
	snprintf(out, sizeof(out), "%s/stdio.txt", argv[1]);
	snprintf(fd_path, sizeof(fd_path), "%s/fdopen.txt", argv[1]);

	f = fopen(out, "w");
	if (!f)
		return 1;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	for (int i = 0; i < FWRITES; i++)
		fwrite(buf, 16, 4, f); /* 64 bytes each */
	for (int i = 0; i < FPRINTFS; i++)
		fprintf(f, "line %04d\n", i); /* 10 bytes each */
	fputs("last\n", f);
	fflush(f);
	fclose(f);

	f = fopen(out, "r");
	if (!f)
		return 1;
	for (int i = 0; i < FREADS; i++)
		fread(buf, 8, 8, f); /* 64 bytes each: all of it was written */
	fseek(f, 0, SEEK_SET);
	for (int i = 0; i < FGETS; i++)
		fgets(line, sizeof(line), f);
	pos = ftell(f);
	rewind(f);
	fclose(f);

	fd = open(fd_path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	f = fdopen(fd, "w");
	fputs("through fdopen\n", f);
	fclose(f);

	fprintf(stdout,
		"{\"file\":\"%s\",\"fdopen_file\":\"%s\",\"fwrite\":%d,"
		"\"fwrite_size\":64,\"fprintf\":%d,\"fprintf_size\":10,"
		"\"fread\":%d,\"fread_size\":64,\"fgets\":%d,"
		"\"ftell\":%ld}\n",
		out, fd_path, FWRITES, FPRINTFS, FREADS, FGETS, pos);
	fflush(stdout);
	return 0;
}
