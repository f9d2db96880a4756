// SPDX-License-Identifier: MIT
/* libdatacrumbs-report's API on a trace written here: the counts and the
 * damage it reports, Darshan's counters, every output, and the errors
 * its contract promises (before finishing, after adding, unknown names). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "datacrumbs/report.h"

#define CALL(id, name, cat, ts, dur, lvl, pidx)                                \
	"{\"id\":" #id ",\"name\":\"" name "\",\"cat\":\"" cat "\","           \
	"\"pid\":10,\"tid\":10,\"ts\":" #ts ",\"dur\":" #dur ",\"ph\":\"X\","  \
	"\"args\":{\"hhash\":\"00000000000000bb\",\"fhash\":"                  \
	"\"00000000000000aa\",\"size\":100,\"ret\":100,\"level\":" #lvl        \
	",\"p_idx\":" #pidx "}}\n"

static const char trace[] =
    "[\n"
    "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,"
    "\"ph\":\"M\",\"args\":{\"name\":\"node\",\"value\":"
    "\"00000000000000bb\"}}\n"
    "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,"
    "\"ph\":\"M\",\"args\":{\"name\":\"/data/f\",\"value\":"
    "\"00000000000000aa\"}}\n" CALL(3, "write", "POSIX", 1000, 10, 1, -1)
	CALL(4, "write", "sys", 1001, 8, 2, 3)
	    CALL(5, "write", "POSIX", 2000, 20, 1, -1) "not json\n";

struct msgs {
	int n;
	char first[256];
};

static void on_log(void *ctx, const char *msg)
{
	struct msgs *m = ctx;

	if (!m->n++)
		snprintf(m->first, sizeof(m->first), "%s", msg);
}

static int render_has(struct dcr_report *r, enum dcr_format f, int top,
		      const char *want)
{
	char *out = NULL;
	size_t len = 0;
	int ok;

	if (dcr_report_render(r, f, top, &out, &len))
		return 0;
	ok = strlen(out) == len && strstr(out, want) != NULL;
	if (!ok)
		fprintf(stderr, "no '%s' in: %.400s\n", want, out);
	dcr_free(out);
	return ok;
}

int main(void)
{
	char path[] = "/tmp/test_report_api-XXXXXX";
	struct dcr_report *r = NULL, *d = NULL;
	struct msgs m = {};
	int64_t v = 0;
	char *out;
	size_t len;
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, trace, sizeof(trace) - 1) ==
			     (ssize_t)(sizeof(trace) - 1));
	close(fd);

	CHECK(!strcmp(dcr_version(), DC_VERSION));
	CHECK(dcr_const("HIST_N", &v) == 0 && v == 64 + 58 * 32);
	CHECK(dcr_const("LINE_MAX", &v) == 0 && v == 1 << 20);
	CHECK(dcr_const("NO_SUCH", &v) == -ENOENT);

	dcr_set_log(on_log, &m);
	CHECK(dcr_report_new(&r) == 0);
	CHECK(dcr_report_render(r, DCR_JSON, 0, &out, &len) == -EINVAL);
	CHECK(dcr_report_add(r, "/tmp") == -EISDIR);
	CHECK(dcr_report_add(r, "/nonexistent/t.pfw") == -ENOENT);
	CHECK(dcr_report_add(r, path) == 0);
	CHECK(dcr_report_set_darshan(r, 1) == -EBUSY);
	CHECK(dcr_report_finish(r) == 0);
	CHECK(dcr_report_finish(r) == -EBUSY);
	CHECK(dcr_report_events(r) == 3);
	CHECK(dcr_report_problems(r) == 1);
	CHECK(m.n == 1 && strstr(m.first, ": line 7: ") &&
	      !strncmp(m.first, path, strlen(path)));
	CHECK(render_has(r, DCR_JSON, 0, "\"calls\":3,"));
	CHECK(render_has(r, DCR_JSON, 0, "\"bad_lines\":1,"));
	CHECK(render_has(r, DCR_TEXT, 5, "1 traces, 3 calls"));
	CHECK(render_has(r, DCR_FOLDED, 0, "POSIX;write;sys;write 8"));
	CHECK(render_has(r, DCR_FLAME, 600, "<svg"));
	CHECK(dcr_report_render(r, DCR_TEXT, 0, &out, &len) == -EINVAL);
	CHECK(dcr_report_render(r, DCR_DARSHAN, 0, &out, &len) == -EINVAL);

	/* Darshan's counters: the two POSIX writes of 100 bytes. */
	dcr_set_log(NULL, NULL);
	CHECK(dcr_report_new(&d) == 0);
	CHECK(dcr_report_set_darshan(d, 1) == 0);
	CHECK(dcr_report_set_file(d, "*/f") == 0);
	CHECK(dcr_report_set_threads(d, -1) == -EINVAL);
	CHECK(dcr_report_add(d, path) == 0);
	CHECK(dcr_report_finish(d) == 0);
	CHECK(render_has(d, DCR_DARSHAN, 0, "\tPOSIX_WRITES\t2\t/data/f\t"));
	CHECK(render_has(d, DCR_DARSHAN, 0,
			 "\tPOSIX_BYTES_WRITTEN\t200\t/data/f\t"));
	CHECK(render_has(d, DCR_SUMMARY, 0, "Darshan job summary: POSIX"));
	CHECK(render_has(d, DCR_JSON, 0, "\"file_scope\""));

	dcr_report_free(r);
	dcr_report_free(d);
	dcr_report_free(NULL);
	unlink(path);
	return check_failures ? 1 : 0;
}
