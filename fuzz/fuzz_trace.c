// SPDX-License-Identifier: MIT
/* The report's trace reader (report/traceread.c, report/inflate.c,
 * report/event.c) on arbitrary bytes, read as datacrumbs-report reads a trace:
 * gzip members found and inflated on two threads, every line parsed, the args
 * of each event walked member by member. */
#include "event.h"
#include "file.h"
#include "traceread.h"

static int line(void *ctx, const struct dc_line *l)
{
	struct dc_str key, val;
	size_t pos = 0;
	char buf[64];

	(void)ctx;
	if (l->status || !l->ev.args)
		return 0;
	while (dc_json_member(l->ev.args, l->ev.args_len, &pos, &key, &val) ==
	       1)
		dc_str_copy(&val, buf, sizeof(buf));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dc_read_opts o = { .threads = 2, .line = line };
	struct dc_read_stats st;
	const char *path = fuzz_file(data, size);

	if (path)
		dc_trace_read(path, &o, &st);
	return 0;
}
