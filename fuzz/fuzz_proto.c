// SPDX-License-Identifier: MIT
/* The explorer's use of prototypes (explorer/infer.c: argument roles and
 * return kinds; explorer/emit.c: the spec with the prototype), on a
 * prototype made of the input's lines: the function's name, its return
 * type, then a type and a name per parameter. libclang itself is not
 * fuzzed here: this is what the explorer does with what it reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "file.h"

#define MAX_PARAMS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct xp_param params[MAX_PARAMS];
	char *text, *line[2 + 2 * MAX_PARAMS], *save = NULL;
	struct xp_proto proto = { .params = params };
	struct xp_func fn = { .layer = "app" };
	struct xp_target t = { .arg = "fuzz",
			       .path = "/fuzz/libfuzz.so",
			       .funcs = &fn,
			       .nfuncs = 1,
			       .layer = "app" };
	int n = 0;

	if (!null && !(null = fopen("/dev/null", "w")))
		return 0;
	text = strndup((const char *)data, size);
	if (!text)
		return 0;
	for (char *s = strtok_r(text, "\n", &save);
	     s && n < (int)(sizeof(line) / sizeof(line[0]));
	     s = strtok_r(NULL, "\n", &save))
		line[n++] = s;
	if (n < 2)
		goto cleanup;
	fn.name = line[0];
	proto.name = line[0];
	proto.ret_type = proto.ret_canon = line[1];
	proto.variadic = size & 1;
	for (int i = 2; i + 1 < n; i += 2) {
		params[proto.nparams++] = (struct xp_param){
			.type = line[i], .canon = line[i], .name = line[i + 1]
		};
	}
	fn.proto = &proto;
	xp_infer(&fn);
	xp_emit(null, &t, 1, false);
cleanup:
	free(text);
	return 0;
}
