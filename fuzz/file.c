// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "file.h"

static char path[4096];
static int fd = -1;

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("PATH", "/nonexistent", 1);
	return 0;
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		const char *tmp = getenv("TMPDIR");

		snprintf(path, sizeof(path), "%s/dc-fuzz-XXXXXX",
			 tmp ? tmp : "/tmp");
		fd = mkstemp(path);
		if (fd < 0)
			return NULL;
		atexit(remove_file);
	}
	if (ftruncate(fd, 0) ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return NULL;
	return path;
}
