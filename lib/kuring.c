// SPDX-License-Identifier: MIT
#include <bpf/btf.h>
#include <stdio.h>
#include <string.h>

#include "kbtf.h"
#include "kuring.h"

/* The parameters of tracepoint @name's BTF prototype (the first is the
 * probe's own data pointer), and their number in *@n; NULL if the kernel
 * has no such tracepoint with BTF. */
static const struct btf_param *tp_params(const struct dc_kbtf *vmlinux,
					 const char *name, int *n)
{
	const struct btf_type *t;
	char typedef_name[128];
	int id;

	snprintf(typedef_name, sizeof(typedef_name), "btf_trace_%s", name);
	id = dc_kbtf_find(vmlinux, typedef_name, BTF_KIND_TYPEDEF);
	if (id <= 0 || (id = dc_kbtf_resolve(vmlinux, id)) <= 0)
		return NULL;
	t = dc_kbtf_type(vmlinux, id);
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = dc_kbtf_type(vmlinux, t->type);
	if (!t || !btf_is_func_proto(t))
		return NULL;
	*n = btf_vlen(t);
	return btf_params(t);
}

/* Parameter @i of @n as a pointer type (through typedefs and
 * modifiers), or NULL. */
static const struct btf_type *ptr(const struct dc_kbtf *vmlinux,
				  const struct btf_param *p, int n, int i)
{
	const struct btf_type *t;
	int id;

	if (i >= n)
		return NULL;
	id = dc_kbtf_resolve(vmlinux, p[i].type);
	t = id > 0 ? dc_kbtf_type(vmlinux, id) : NULL;
	return t && btf_is_ptr(t) ? t : NULL;
}

/* Is parameter @i of @n a struct io_kiocb pointer? */
static int is_req(const struct dc_kbtf *vmlinux, const struct btf_param *p,
		  int n, int i)
{
	const struct btf_type *t = ptr(vmlinux, p, n, i);
	const char *name;

	t = t ? dc_kbtf_type(vmlinux, t->type) : NULL;
	name = t ? dc_kbtf_name(vmlinux, t->name_off) : NULL;
	return t && btf_is_struct(t) && name && !strcmp(name, "io_kiocb");
}

enum dc_uring_shape dc_uring_shape(const struct dc_kbtf *vmlinux,
				   const char **submit)
{
	static const char *const names[] = { "io_uring_submit_req",
					     "io_uring_submit_sqe" };
	const struct btf_param *p = NULL;
	int n = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !p; i++) {
		p = tp_params(vmlinux, names[i], &n);
		/* (data, req, ...): older kernels pass the ring first. */
		if (p && !is_req(vmlinux, p, n, 1))
			p = NULL;
		else if (p)
			*submit = names[i];
	}
	if (!p)
		return DC_URING_NONE;
	p = tp_params(vmlinux, "io_uring_complete", &n);
	if (!p || !ptr(vmlinux, p, n, 2))
		return DC_URING_NONE;
	if (n == 4 && ptr(vmlinux, p, n, 3))
		return DC_URING_CQE;
	if (n >= 5 && !ptr(vmlinux, p, n, 3) && !ptr(vmlinux, p, n, 4))
		return DC_URING_RES;
	return DC_URING_NONE;
}
