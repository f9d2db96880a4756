// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "kbtf.h"

/* Bytes that follow a type of @kind with @vlen entries, or -1 for a kind
 * this reader does not know. */
static long extra_size(unsigned kind, unsigned vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG: return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG: return 0;
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64: return (long)vlen * sizeof(struct btf_enum64);
	default: return -1;
	}
}

/* The whole of @fd, @size bytes as fstat() says, into *@data: mapped,
 * or where the file cannot be (before Linux 6.16), read. */
static int load(int fd, size_t size, struct dc_kbtf *k)
{
	size_t got = 0;
	ssize_t n = 0;

	k->data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (k->data != MAP_FAILED) {
		k->mapped = true;
		k->size = size;
		return 0;
	}
	k->data = malloc(size);
	if (!k->data)
		return -ENOMEM;
	while (got < size && (n = pread(fd, (char *)k->data + got, size - got,
					(off_t)got)) > 0)
		got += (size_t)n;
	if (n < 0)
		return -errno;
	k->size = got;
	return 0;
}

/* Check the header and sections (types 4-byte aligned, as their
 * fields are read in place), and index every type by id. */
static int index_types(struct dc_kbtf *k)
{
	const struct btf_header *h = k->data;
	size_t at = 0, cap = 1 << 16;
	__u32 *grown;

	if (k->size < sizeof(*h) || h->magic != BTF_MAGIC || h->version != 1 ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > k->size ||
	    (size_t)h->type_off + h->type_len > k->size - h->hdr_len ||
	    (size_t)h->str_off + h->str_len > k->size - h->hdr_len ||
	    !h->str_len || (h->hdr_len + h->type_off) % 4)
		return -EPROTO;
	k->types = (const char *)k->data + h->hdr_len + h->type_off;
	k->strs = (const char *)k->data + h->hdr_len + h->str_off;
	k->strs_len = h->str_len;
	if (k->strs[k->strs_len - 1])
		return -EPROTO;
	k->off = malloc(cap * sizeof(*k->off));
	if (!k->off)
		return -ENOMEM;
	k->off[0] = 0;
	k->n = 1;
	while (at < h->type_len) {
		const struct btf_type *t = (const void *)(k->types + at);
		long extra;

		if (h->type_len - at < sizeof(*t))
			return -EPROTO;
		extra = extra_size(btf_kind(t), btf_vlen(t));
		if (extra < 0 || h->type_len - at - sizeof(*t) < (size_t)extra)
			return -EPROTO;
		if (k->n == cap) {
			cap *= 2;
			grown = realloc(k->off, cap * sizeof(*k->off));
			if (!grown)
				return -ENOMEM;
			k->off = grown;
		}
		k->off[k->n++] = (__u32)at;
		at += sizeof(*t) + (size_t)extra;
	}
	return 0;
}

int dc_kbtf_open(struct dc_kbtf *k, const char *path)
{
	struct stat st;
	int fd, err;

	memset(k, 0, sizeof(*k));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		err = -EPROTO;
	else
		err = load(fd, (size_t)st.st_size, k) ?: index_types(k);
	close(fd);
	if (err)
		dc_kbtf_close(k);
	return err;
}

void dc_kbtf_close(struct dc_kbtf *k)
{
	if (k->mapped)
		munmap(k->data, k->size);
	else
		free(k->data);
	free(k->off);
	memset(k, 0, sizeof(*k));
}

const struct btf_type *dc_kbtf_type(const struct dc_kbtf *k, __u32 id)
{
	if (!id || id >= k->n)
		return NULL;
	return (const void *)(k->types + k->off[id]);
}

const char *dc_kbtf_name(const struct dc_kbtf *k, __u32 off)
{
	return off < k->strs_len ? k->strs + off : NULL;
}

int dc_kbtf_find(const struct dc_kbtf *k, const char *name, int kind)
{
	for (__u32 id = 1; id < k->n; id++) {
		const struct btf_type *t = dc_kbtf_type(k, id);
		const char *s;

		if (btf_kind(t) != (unsigned)kind)
			continue;
		s = dc_kbtf_name(k, t->name_off);
		if (s && !strcmp(s, name))
			return (int)id;
	}
	return -ENOENT;
}

int dc_kbtf_resolve(const struct dc_kbtf *k, __u32 id)
{
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = dc_kbtf_type(k, id);

		if (!t)
			return id ? -EINVAL : 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG: id = t->type; break;
		default: return (int)id;
		}
	}
	return -EINVAL;
}
