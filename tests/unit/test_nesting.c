// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "nesting.h"

static struct dc_probe_info descs[5] = {
	{ .id = 0, .name = "H5Dwrite", .layer = "HDF5" },
	{ .id = 1, .name = "MPI_File_write_at", .layer = "MPIIO" },
	{ .id = 2, .name = "pwrite64", .layer = "POSIX" },
	{ .id = 3, .name = "pwrite64", .layer = "sys" },
	{ .id = 4, .name = "lseek", .layer = "POSIX" },
};

struct line {
	long id;
	long p_idx;
	int level;
	char name[32];
};

static int parse(const char *path, struct line *out, int max)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	while (f && fgets(buf, sizeof(buf), f) && n < max) {
		char *p = strstr(buf, "\"ph\":\"X\"");
		char *lv = strstr(buf, "\"level\":");

		if (!p || !lv)
			continue;
		sscanf(buf, "{\"id\":%ld,\"name\":\"%31[^\"]", &out[n].id,
		       out[n].name);
		sscanf(lv, "\"level\":%d,\"p_idx\":%ld", &out[n].level,
		       &out[n].p_idx);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

int main(void)
{
	struct dc_pfw_opts o = { .compress = false,
				 .level = 1,
				 /* A member per line, but for a tree's. */
				 .member_size = 1,
				 .interval_ns = 1000000000ull };
	char path[] = "/tmp/dc-test-nesting-XXXXXX";
	struct dc_probe probes[5] = {};
	struct dc_procs ps = {};
	struct dc_rthread *t;
	struct dc_pfw w;
	struct line l[16];
	uint32_t pid = getpid();
	uint64_t members[7];
	int fd = mkstemp(path), n;
	char json[5][2][64];

	for (int i = 0; i < 5; i++) {
		probes[i].d = &descs[i];
		snprintf(json[i][0], 64, "\"%s\"", descs[i].name);
		snprintf(json[i][1], 64, "\"%s\"", descs[i].layer);
		probes[i].name_json = json[i][0];
		probes[i].cat_json = json[i][1];
	}
	CHECK(!dc_pfw_open(&w, fd, &o));
	t = dc_thread_get(&ps, pid, pid);
	/*
	 * On one thread: H5Dwrite(seq 1) -> MPI(2) -> POSIX pwrite(3) ->
	 * sys pwrite(4), then POSIX lseek(5) under MPI; then a lone lseek(6).
	 * They return innermost first: 4, 3, 5, 2, 1, 6.
	 */
	struct {
		int probe, level;
		uint64_t seq, parent;
	} order[] = { { 3, 4, 4, 3 }, { 2, 3, 3, 2 }, { 4, 3, 5, 2 },
		      { 1, 2, 2, 1 }, { 0, 1, 1, 0 }, { 4, 1, 6, 0 } };
	members[0] = w.gz.members;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct dc_call c = { .probe = &probes[order[i].probe],
				     .pid = pid,
				     .tid = pid,
				     .level = order[i].level,
				     .ts = 1000 * order[i].seq,
				     .dur = 10,
				     .seq = order[i].seq,
				     .parent_seq = order[i].parent };

		CHECK(!dc_nest_add(&w, t, &c));
		members[i + 1] = w.gz.members;
	}
	/* Held calls are written with their root, each tree in one member. */
	CHECK(members[4] == members[0]);
	CHECK(members[5] == members[0] + 1);
	CHECK(members[6] == members[0] + 2);
	dc_nest_flush(&w, t);
	CHECK(!dc_pfw_close(&w));
	close(fd);

	n = parse(path, l, 16);
	unlink(path);
	CHECK(n == 6);
	if (n == 6) {
		/* Written parents first, in entry order. */
		CHECK_STR(l[0].name, "H5Dwrite");
		CHECK_STR(l[1].name, "MPI_File_write_at");
		CHECK_STR(l[2].name, "pwrite64");
		CHECK_STR(l[3].name, "pwrite64");
		CHECK_STR(l[4].name, "lseek");
		CHECK_STR(l[5].name, "lseek");
		for (int i = 1; i < n; i++)
			CHECK(l[i].id > l[i - 1].id);
		CHECK(l[0].p_idx == -1 && l[0].level == 1);
		CHECK(l[1].p_idx == l[0].id && l[1].level == 2);
		CHECK(l[2].p_idx == l[1].id && l[2].level == 3);
		CHECK(l[3].p_idx == l[2].id && l[3].level == 4);
		CHECK(l[4].p_idx == l[1].id && l[4].level == 3);
		CHECK(l[5].p_idx == -1 && l[5].level == 1);
	}
	dc_procs_free(&ps);
	return CHECK_DONE();
}
