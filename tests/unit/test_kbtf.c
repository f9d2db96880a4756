// SPDX-License-Identifier: MIT
/* lib/kbtf.c against libbpf's reading of the same kernel BTF, and on
 * damaged files. */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "kbtf.h"

/* A BTF file of one INT "int" and @types/@strs as given, in @path. */
static void write_btf(const char *path, __u32 magic, const void *types,
		      __u32 type_len, const char *strs, __u32 str_len)
{
	struct btf_header h = { .magic = magic,
				.version = 1,
				.hdr_len = sizeof(h),
				.type_len = type_len,
				.str_off = type_len,
				.str_len = str_len };
	FILE *f = fopen(path, "w");

	CHECK(f);
	if (!f)
		return;
	fwrite(&h, sizeof(h), 1, f);
	fwrite(types, 1, type_len, f);
	fwrite(strs, 1, str_len, f);
	fclose(f);
}

static void check_damaged(void)
{
	char path[] = "/tmp/test_kbtf.XXXXXX";
	struct {
		struct btf_type t;
		__u32 bits;
	} one = { { .name_off = 1, .info = BTF_KIND_INT << 24, .size = 4 },
		  32 };
	struct btf_type unknown = { .name_off = 1, .info = 31u << 24 };
	struct dc_kbtf k;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	write_btf(path, BTF_MAGIC, &one, sizeof(one), "\0int", 5);
	CHECK(!dc_kbtf_open(&k, path));
	CHECK(k.n == 2 && dc_kbtf_find(&k, "int", BTF_KIND_INT) == 1);
	CHECK(dc_kbtf_find(&k, "int", BTF_KIND_TYPEDEF) == -ENOENT);
	CHECK(!dc_kbtf_type(&k, 2) && !dc_kbtf_name(&k, 5));
	dc_kbtf_close(&k);
	/* Not BTF; an INT cut short; strings without their NUL; a kind
	 * this reader does not know; nothing at all. */
	write_btf(path, 0x1234, &one, sizeof(one), "\0int", 5);
	CHECK(dc_kbtf_open(&k, path) == -EPROTO);
	write_btf(path, BTF_MAGIC, &one, sizeof(one) - 2, "\0int", 5);
	CHECK(dc_kbtf_open(&k, path) == -EPROTO);
	write_btf(path, BTF_MAGIC, &one, sizeof(one), "\0int", 4);
	CHECK(dc_kbtf_open(&k, path) == -EPROTO);
	write_btf(path, BTF_MAGIC, &unknown, sizeof(unknown), "\0int", 5);
	CHECK(dc_kbtf_open(&k, path) == -EPROTO);
	CHECK(truncate(path, 0) == 0);
	CHECK(dc_kbtf_open(&k, path) == -EPROTO);
	CHECK(dc_kbtf_open(&k, "/nonexistent/btf") == -ENOENT);
	unlink(path);
}

/* Every type as libbpf reads it; names and resolution on a sample. */
static void check_kernel(struct btf *ref)
{
	struct dc_kbtf k;
	__u32 n = btf__type_cnt(ref);

	CHECK(!dc_kbtf_open(&k, DC_KBTF_PATH));
	CHECK(k.n == n);
	for (__u32 id = 1; id < n && id < k.n; id++) {
		const struct btf_type *a = dc_kbtf_type(&k, id);
		const struct btf_type *b = btf__type_by_id(ref, id);
		const char *name = btf__name_by_offset(ref, b->name_off);

		CHECK(a && a->name_off == b->name_off && a->info == b->info &&
		      a->size == b->size);
		CHECK(name && !strcmp(dc_kbtf_name(&k, a->name_off), name));
		if (id % 2000 == 0 && *name)
			CHECK(dc_kbtf_find(&k, name, btf_kind(b)) ==
			      btf__find_by_name_kind(ref, name, btf_kind(b)));
		/* libbpf says -EINVAL where a chain ends at void (0 here)
		 * or at a declaration (its id here). */
		if (id % 50 == 0 && !btf_is_var(b)) {
			int want = btf__resolve_type(ref, id);
			int got = dc_kbtf_resolve(&k, id);
			const struct btf_type *end = dc_kbtf_type(&k, got);

			CHECK(want < 0 ? got == 0 || (end && btf_is_fwd(end))
				       : got == want);
		}
	}
	CHECK(dc_kbtf_find(&k, "task_struct", BTF_KIND_STRUCT) ==
	      btf__find_by_name_kind(ref, "task_struct", BTF_KIND_STRUCT));
	dc_kbtf_close(&k);
}

int main(void)
{
	struct btf *ref;

	check_damaged();
	ref = btf__load_vmlinux_btf();
	if (!ref) {
		printf("kbtf: the kernel part skipped: no kernel BTF (%s)\n",
		       strerror(errno));
		return CHECK_DONE() ?: 77;
	}
	check_kernel(ref);
	btf__free(ref);
	return CHECK_DONE();
}
