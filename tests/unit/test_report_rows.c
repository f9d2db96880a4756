// SPDX-License-Identifier: MIT
/* dcr_rows_read(): the calls of a trace written here as columns, each
 * field as the line has it (or 0 and no "has" bit), the names of its FH
 * and HH records, and no row for records that are not calls or damaged
 * lines. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "datacrumbs/report.h"

static const char trace[] =
    "[\n"
    "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,"
    "\"ph\":\"M\",\"args\":{\"name\":\"node\",\"value\":"
    "\"00000000000000bb\"}}\n"
    "{\"id\":2,\"name\":\"start\",\"cat\":\"dftracer\",\"pid\":10,"
    "\"tid\":10,\"ts\":900,\"dur\":0,\"ph\":\"X\",\"args\":{}}\n"
    "{\"id\":3,\"name\":\"pwrite\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,"
    "\"ts\":1000,\"dur\":10,\"ph\":\"X\",\"args\":{\"hhash\":"
    "\"00000000000000bb\",\"fhash\":\"00000000000000aa\",\"size\":100,"
    "\"ret\":100,\"offset\":4096,\"level\":1,\"p_idx\":-1}}\n"
    "not json\n"
    "{\"id\":4,\"name\":\"block_rq_issue\",\"cat\":\"kernel\",\"pid\":10,"
    "\"tid\":1077936139,\"ts\":1001,\"dur\":5,\"ph\":\"X\",\"args\":{}}\n"
    "{\"id\":5,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,"
    "\"ph\":\"M\",\"args\":{\"name\":\"/data/\\u00e9\",\"value\":"
    "\"00000000000000aa\"}}\n"
    "{\"name\":\"pwrite\",\"cat\":\"POSIX\",\"pid\":10,\"tid\":11,"
    "\"ts\":2000,\"dur\":0,\"ph\":\"C\",\"args\":{\"count\":3,"
    "\"dur_sum\":30,\"size_sum\":300}}\n"
    "]\n";

int main(void)
{
	char path[] = "/tmp/test_report_rows-XXXXXX";
	const int64_t *line, *ts, *size, *off;
	const uint32_t *name, *cat, *tid, *has;
	const uint64_t *count, *fhash;
	const uint8_t *ph;
	struct dcr_rows *rw = NULL;
	int64_t bit = 0, pbit = 0;
	const char *text;
	uint64_t key;
	char kind;
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, trace, sizeof(trace) - 1) ==
			     (ssize_t)(sizeof(trace) - 1));
	close(fd);
	CHECK(dcr_const("HAS_SIZE", &bit) == 0 && bit);
	CHECK(dcr_const("HAS_P_IDX", &pbit) == 0 && pbit);

	CHECK(dcr_rows_read(path, 0, sizeof(trace) - 1, 0, &rw) == 0);
	if (!rw)
		return 1;
	CHECK(dcr_rows_count(rw) == 3 && dcr_rows_lines(rw) == 9);
	line = dcr_rows_column(rw, "line");
	ts = dcr_rows_column(rw, "ts");
	size = dcr_rows_column(rw, "size");
	off = dcr_rows_column(rw, "offset");
	name = dcr_rows_column(rw, "name");
	cat = dcr_rows_column(rw, "cat");
	tid = dcr_rows_column(rw, "tid");
	has = dcr_rows_column(rw, "has");
	count = dcr_rows_column(rw, "count");
	fhash = dcr_rows_column(rw, "fhash");
	ph = dcr_rows_column(rw, "ph");
	CHECK(!dcr_rows_column(rw, "nonesuch"));
	CHECK(line[0] == 4 && line[1] == 6 && line[2] == 8);
	CHECK(ts[0] == 1000 && ts[1] == 1001 && ts[2] == 2000);
	CHECK(size[0] == 100 && (has[0] & bit) && (has[0] & pbit));
	CHECK(off[0] == 4096 && fhash[0] == 0xaa);
	CHECK(size[1] == 0 && !(has[1] & bit) && !(has[1] & pbit));
	CHECK(tid[0] == 11 && tid[1] == 11); /* lane 1 of thread 11 */
	CHECK(ph[0] == 'X' && ph[2] == 'C' && count[2] == 3);
	CHECK(name[0] == name[2] && cat[0] == cat[2] && name[0] != name[1]);
	CHECK(dcr_rows_strings(rw) == 4);
	CHECK_STR(dcr_rows_string(rw, name[1]), "block_rq_issue");
	CHECK_STR(dcr_rows_string(rw, cat[0]), "POSIX");
	CHECK(!dcr_rows_string(rw, 4));
	CHECK(dcr_rows_name(rw, 0, &kind, &key, &text) == 0 && kind == 'H' &&
	      key == 0xbb && !strcmp(text, "node"));
	CHECK(dcr_rows_name(rw, 1, &kind, &key, &text) == 0 && kind == 'F' &&
	      key == 0xaa && !strcmp(text, "/data/\xc3\xa9"));
	CHECK(dcr_rows_name(rw, 2, &kind, &key, &text) == -ENOENT);
	dcr_rows_free(rw);

	/* The names alone; an empty range; the contract's errors. */
	rw = NULL;
	CHECK(dcr_rows_read(path, 0, sizeof(trace) - 1, DCR_ROWS_NAMES, &rw) ==
	      0);
	CHECK(rw && dcr_rows_count(rw) == 0 && dcr_rows_lines(rw) == 9 &&
	      dcr_rows_name(rw, 1, &kind, &key, &text) == 0);
	dcr_rows_free(rw);
	rw = NULL;
	CHECK(dcr_rows_read(path, 0, 0, 0, &rw) == 0 && rw &&
	      dcr_rows_count(rw) == 0 && dcr_rows_lines(rw) == 0);
	dcr_rows_free(rw);
	CHECK(dcr_rows_read(path, 2, 1, 0, &rw) == -EINVAL);
	CHECK(dcr_rows_read(path, 0, 1, 4, &rw) == -EINVAL);
	CHECK(dcr_rows_read("/nonexistent/t.pfw", 0, 1, 0, &rw) == -ENOENT);
	unlink(path);
	return CHECK_DONE();
}
