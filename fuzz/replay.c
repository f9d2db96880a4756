// SPDX-License-Identifier: MIT
/*
 * Run a fuzz target over files and directories of inputs, without
 * libFuzzer: the ordinary (and the sanitized) build replays each corpus,
 * seeds and the crashes found so far, as a regression test.
 * Usage: replay_TARGET FILE|DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole file in a buffer of its own size, so ASan sees overreads
 * (the NUL dc_read_file() adds would hide the first). */
static char *slurp(const char *path, size_t *len)
{
	char *text, *data;

	if (dc_read_file(path, &text, len))
		return NULL;
	data = malloc(*len ? *len : 1);
	if (data)
		memcpy(data, text, *len);
	free(text);
	return data;
}

static int replay(const char *path, size_t *n)
{
	struct stat st;
	char *data;
	size_t len;

	if (stat(path, &st))
		return -1;
	if (S_ISDIR(st.st_mode)) {
		struct dirent **names;
		int k = scandir(path, &names, NULL, alphasort), err = 0;

		if (k < 0)
			return -1;
		for (int i = 0; i < k; i++) {
			char sub[4096];

			if (names[i]->d_name[0] != '.' && !err) {
				snprintf(sub, sizeof(sub), "%s/%s", path,
					 names[i]->d_name);
				err = replay(sub, n);
			}
			free(names[i]);
		}
		free(names);
		return err;
	}
	data = slurp(path, &len);
	if (!data)
		return -1;
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	(*n)++;
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		if (replay(argv[i], &n)) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 1;
		}
	}
	printf("replayed %zu inputs\n", n);
	return n ? 0 : 1;
}
