// SPDX-License-Identifier: MIT
/*
 * dlopen()s the library LIB by its path once running and calls its
 * dc_usdt_step() N times, each firing its USDT probe once; prints how
 * many as JSON, with the file the loader mapped. Usage: usdt_dlopen LIB N
 * [GO]: with GO (a FIFO), waits for a line from it between the two.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long (*step)(int);
	struct link_map *map;
	void *lib;
	int n;

	if (argc < 3 || argc > 4 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: usdt_dlopen LIB N [GO]\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib || dlinfo(lib, RTLD_DI_LINKMAP, &map)) {
		fprintf(stderr, "usdt_dlopen: %s\n", dlerror());
		return 1;
	}
	step = (long (*)(int))dlsym(lib, "dc_usdt_step");
	if (!step) {
		fprintf(stderr, "usdt_dlopen: %s\n", dlerror());
		return 1;
	}
	if (argc == 4) {
		char line[8];
		FILE *go = fopen(argv[3], "r");

		if (!go || !fgets(line, sizeof(line), go)) {
			fprintf(stderr, "usdt_dlopen: %s: no go\n", argv[3]);
			return 1;
		}
		fclose(go);
	}
	for (int i = 0; i < n; i++)
		step(i);
	printf("{\"pid\":%d,\"calls\":%d,\"lib\":\"%s\"}\n", (int)getpid(), n,
	       map->l_name);
	return 0;
}
