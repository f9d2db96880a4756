// SPDX-License-Identifier: MIT
/*
 * Argument roles from a prototype. A role is given only when the type and
 * the name agree on it; anything ambiguous (two size_t candidates, as in
 * fwrite's size and n) stays uncaptured rather than guessed.
 */
#include <stdbool.h>
#include <string.h>

#include "explore.h"

static const char *bare(const char *name)
{
	while (*name == '_')
		name++;
	return name;
}

static bool in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static const char *const path_names[] = { "filename", "fname",	 "pathname",
					  "path",     "file",	 "file_name",
					  "filepath", "oldpath", "old",
					  NULL };
static const char *const count_names[] = { "count", "nbytes", "nbyte", "n",
					   "len",   "length", "size",  NULL };
static const char *const buf_names[] = { "buf", "buffer", "ptr", "data", NULL };

static bool is_char_ptr(const char *canon)
{
	return !strcmp(canon, "const char *") || !strcmp(canon, "char *");
}

/* An offset by value: "off_t *" and C++'s "off_t &" are where one is
 * stored. */
static bool is_offset_type(const char *type)
{
	return !strpbrk(type, "*&") &&
	       (strstr(type, "off_t") || strstr(type, "off64_t") ||
		!strcmp(type, "MPI_Offset") || !strcmp(type, "loff_t"));
}

/* C++ spells the canonical type without "struct". */
static bool is_stream(const char *canon)
{
	return !strcmp(canon, "FILE *") ||
	       !strcmp(canon, "struct _IO_FILE *") ||
	       !strcmp(canon, "_IO_FILE *");
}

static bool is_handle(const char *type)
{
	return !strcmp(type, "hid_t") || !strcmp(type, "MPI_File");
}

static bool has_type(const struct xp_proto *p, const char *type)
{
	for (int i = 0; i < p->nparams; i++)
		if (!strcmp(p->params[i].type, type))
			return true;
	return false;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);

	return n >= e && !strcmp(s + n - e, end);
}

/* A C++ call that opens a file by its name: a constructor of a class
 * named *File (H5::H5File), or open*File/create*File. */
static bool opens_file(const struct xp_proto *p)
{
	return p->cxx && ends_with(p->name, "File") &&
	       (p->ctor || !strncmp(p->name, "open", 4) ||
		!strncmp(p->name, "create", 6));
}

/* The function's name as declared: a C++ symbol's is mangled. */
static const char *call_name(const struct xp_func *fn)
{
	return fn->proto->cxx ? fn->proto->name : fn->name;
}

static int role_of(const struct xp_func *fn, const struct xp_param *p,
		   int *counts)
{
	const char *n = bare(p->name), *t = p->type, *c = p->canon;

	if (is_char_ptr(c) && in(n, path_names))
		return DC_ROLE_PATH;
	if (is_char_ptr(c) && !strcmp(n, "name") && opens_file(fn->proto))
		return DC_ROLE_PATH;
	/* H5Dopen2(loc_id, name): the object a new handle stands for, by
	 * its name in the file. */
	if (is_char_ptr(c) && !strcmp(n, "name") &&
	    !strcmp(fn->proto->ret_type, "hid_t") &&
	    (strstr(call_name(fn), "open") || strstr(call_name(fn), "create")))
		return DC_ROLE_NAME;
	/* MPI_File_open stores the new handle through its MPI_File *;
	 * MPI_File_close takes one by reference. */
	if (!strcmp(t, "MPI_File *"))
		return strstr(call_name(fn), "open") ? DC_ROLE_HANDLE_OUT
						     : DC_ROLE_HANDLE_REF;
	/* An int count beside an MPI_Datatype counts items of it. */
	if (!strcmp(c, "int") && !strcmp(n, "count") &&
	    has_type(fn->proto, "MPI_Datatype"))
		return DC_ROLE_ITEMS;
	/* ... and the datatype gives those items' size. */
	if (!strcmp(t, "MPI_Datatype") && !strcmp(n, "datatype"))
		return DC_ROLE_DATATYPE;
	if (is_stream(c))
		return DC_ROLE_STREAM;
	if (is_handle(t))
		return DC_ROLE_HANDLE;
	/* MPI_File_set_size(fh, MPI_Offset size): a size, not a position. */
	if (is_offset_type(t))
		return in(n, count_names) ? DC_ROLE_COUNT : DC_ROLE_OFFSET;
	if (!strcmp(c, "int")) {
		if (!strcmp(n, "fd") || !strcmp(n, "fildes") ||
		    !strcmp(n, "filedes") || !strcmp(n, "oldfd"))
			return DC_ROLE_FD;
		if (!strcmp(n, "newfd") || !strcmp(n, "fd2"))
			return DC_ROLE_NEWFD;
		if (!strcmp(n, "dirfd") || !strcmp(n, "dfd") ||
		    !strcmp(n, "atfd"))
			return DC_ROLE_DIRFD;
		if (!strcmp(n, "flags") || !strcmp(n, "oflag") ||
		    !strcmp(n, "flag") || !strcmp(n, "amode"))
			return DC_ROLE_FLAGS;
		if (!strcmp(n, "whence"))
			return DC_ROLE_WHENCE;
	}
	if (!strcmp(t, "mode_t") || !strcmp(t, "__mode_t"))
		return DC_ROLE_MODE;
	if (!strcmp(c, "unsigned long") && in(n, count_names)) {
		(*counts)++;
		return DC_ROLE_COUNT;
	}
	if (strchr(c, '*') && strstr(c, "void") && in(n, buf_names))
		return DC_ROLE_BUF;
	return DC_ROLE_NONE;
}

static bool is_plist(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, "pl_id")) ||
	       strstr(name, "plist");
}

/* A property list is the object a call acts on only when every handle
 * it takes is one and it does not return a new handle (H5Pset_*, not
 * H5Fcreate). */
static bool plist_is_object(const struct xp_proto *p)
{
	if (!strcmp(p->ret_type, "hid_t"))
		return false;
	for (int i = 0; i < p->nparams; i++)
		if (is_handle(p->params[i].type) &&
		    !is_plist(p->params[i].name))
			return false;
	return true;
}

/* When more than DC_CAPTURE roles apply, the first of these win. */
static const int priority[] = {
	DC_ROLE_PATH,	DC_ROLE_FD,	    DC_ROLE_STREAM,	DC_ROLE_HANDLE,
	DC_ROLE_NAME,	DC_ROLE_HANDLE_OUT, DC_ROLE_HANDLE_REF, DC_ROLE_COUNT,
	DC_ROLE_OFFSET, DC_ROLE_ITEMS,	    DC_ROLE_DATATYPE,	DC_ROLE_NEWFD,
	DC_ROLE_DIRFD,	DC_ROLE_FLAGS,	    DC_ROLE_MODE,	DC_ROLE_WHENCE,
	DC_ROLE_BUF,
};

static int ret_of(const struct xp_func *fn, const struct xp_proto *p,
		  bool has_path, bool handle_out)
{
	const char *t = p->ret_type, *n = bare(call_name(fn));

	if (!strcmp(t, "ssize_t") || !strcmp(t, "__ssize_t"))
		return DC_RET_SIZE;
	if (is_offset_type(t))
		return DC_RET_OFFSET;
	if (!strcmp(t, "hid_t"))
		return DC_RET_HANDLE;
	if (is_stream(p->ret_canon))
		return DC_RET_STREAM;
	if (!strcmp(p->ret_canon, "int") &&
	    ((has_path && !handle_out &&
	      (strstr(n, "open") || strstr(n, "creat"))) ||
	     !strcmp(n, "dup") || !strcmp(n, "dup2") || !strcmp(n, "dup3")))
		return DC_RET_FD;
	if (!strcmp(n, "mmap") || !strcmp(n, "mmap64"))
		return DC_RET_ADDR;
	return DC_RET_STATUS;
}

/* The spec says what a call does to what it is given; the name says it
 * here, where a user reads and may correct the spec: H5Fclose and fclose
 * end their handle or stream, fcntl may duplicate its fd. */
static int effect_of(const struct xp_func *fn, const int *role, int n)
{
	const char *name = bare(call_name(fn));
	bool fd = false, flags = false, object = false;

	for (int i = 0; i < n; i++) {
		fd |= role[i] == DC_ROLE_FD;
		flags |= role[i] == DC_ROLE_FLAGS;
		object |= role[i] == DC_ROLE_FD || role[i] == DC_ROLE_STREAM ||
			  role[i] == DC_ROLE_HANDLE ||
			  role[i] == DC_ROLE_HANDLE_REF;
	}
	if (object &&
	    (ends_with(name, "close") || !strcmp(name, "close_range")))
		return DC_EFFECT_CLOSE;
	if (fd && flags && (!strcmp(name, "fcntl") || !strcmp(name, "fcntl64")))
		return DC_EFFECT_DUP;
	return DC_EFFECT_NONE;
}

void xp_infer(struct xp_func *fn)
{
	const struct xp_proto *p = fn->proto;
	int role[DC_MAX_ARGS] = {}, counts = 0, n, kept = 0, handles = 0;
	bool has_path = false, has_name = false, handle_out = false;

	if (!p)
		return;
	n = DC_MAX_ARGS;
	for (int i = 0; i < p->nparams; i++) {
		/* A C++ method's `this` comes first, and arguments in vector
		 * registers or on the stack take no position. */
		int pos = p->placed ? p->params[i].reg : i, r;

		if (pos < 0 || pos >= DC_MAX_ARGS)
			continue;
		r = role_of(fn, &p->params[i], &counts);
		/* The object a call acts on is its first handle that is not a
		 * property list (fapl_id, dxpl_id ...). */
		if (r == DC_ROLE_HANDLE &&
		    (handles ||
		     (is_plist(p->params[i].name) && !plist_is_object(p))))
			r = DC_ROLE_NONE;
		else if (r == DC_ROLE_HANDLE)
			handles++;
		/* One string travels with an event: a path, or a name. */
		if (r == DC_ROLE_PATH || r == DC_ROLE_NAME) {
			if (has_path || has_name)
				r = DC_ROLE_NONE;
			else if (r == DC_ROLE_PATH)
				has_path = true;
			else
				has_name = true;
		}
		role[pos] = r;
	}
	/* Two size_t candidates: which one is bytes is not knowable. */
	for (int i = 0; i < n && counts > 1; i++)
		if (role[i] == DC_ROLE_COUNT)
			role[i] = DC_ROLE_NONE;
	/* Keep at most DC_CAPTURE, the most telling first. */
	for (size_t k = 0; k < sizeof(priority) / sizeof(priority[0]); k++)
		for (int i = 0; i < n; i++)
			if (role[i] == priority[k] && kept++ >= DC_CAPTURE)
				role[i] = DC_ROLE_NONE;
	fn->nargs = 0;
	for (int i = 0; i < n; i++)
		if (role[i] != DC_ROLE_NONE)
			fn->nargs = i + 1;
	memcpy(fn->role, role, sizeof(role));
	for (int i = 0; i < n; i++)
		handle_out |= role[i] == DC_ROLE_HANDLE_OUT;
	fn->ret = ret_of(fn, p, has_path, handle_out);
	fn->effect = effect_of(fn, role, n);
}
