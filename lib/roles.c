// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <datacrumbs/abi.h>

#include "roles.h"

/* What the programs do with an argument of each role. */
enum {
	INT = 1 << 0,	   /* a C int, sign-extended from the low 32 bits */
	QUANTITY = 1 << 1, /* a number of bytes or items */
	USER = 1 << 2,	   /* read from the user memory it points to */
	PATH = 1 << 3,	   /* a string sent in the event's one path buffer */
	LATE = 1 << 4,	   /* read through its pointer when the call it feeds
			      returns: what it points to settles during it */
	GIVEN = 1 << 5,	   /* read through its pointers as a feeder enters
			      and given to the call it feeds */
};

static const struct {
	const char *name;
	unsigned what;
} roles[DC_ROLE_NR] = {
	[DC_ROLE_NONE] = { "_", 0 },
	[DC_ROLE_FD] = { "fd", INT },
	[DC_ROLE_PATH] = { "path", USER | PATH },
	[DC_ROLE_COUNT] = { "count", QUANTITY },
	[DC_ROLE_OFFSET] = { "offset", 0 },
	[DC_ROLE_FLAGS] = { "flags", INT },
	[DC_ROLE_MODE] = { "mode", INT },
	[DC_ROLE_WHENCE] = { "whence", INT },
	[DC_ROLE_NEWFD] = { "newfd", INT },
	[DC_ROLE_DIRFD] = { "dirfd", INT },
	[DC_ROLE_STREAM] = { "stream", USER },
	[DC_ROLE_HANDLE] = { "handle", 0 },
	[DC_ROLE_BUF] = { "buf", 0 },
	[DC_ROLE_HANDLE_OUT] = { "handle_out", USER },
	[DC_ROLE_HANDLE_REF] = { "handle_ref", USER },
	[DC_ROLE_ITEMS] = { "items", INT | QUANTITY },
	[DC_ROLE_ITEMSIZE] = { "itemsize", QUANTITY },
	[DC_ROLE_DATATYPE] = { "datatype", USER },
	[DC_ROLE_STR] = { "str", USER },
	[DC_ROLE_STR_OUT] = { "str_out", USER },
	[DC_ROLE_ELEMENTS] = { "elements", QUANTITY },
	[DC_ROLE_NAME] = { "name", USER | PATH },
	[DC_ROLE_FED] = { "fed", 0 },
	[DC_ROLE_FUNC] = { "func", USER },
	[DC_ROLE_SRCFILE] = { "srcfile", USER },
	[DC_ROLE_LINE] = { "line", INT },
	[DC_ROLE_SELECTION] = { "selection", INT | USER | LATE },
	[DC_ROLE_REGULAR] = { "regular", INT | USER | LATE },
	[DC_ROLE_NDIMS] = { "ndims", INT | USER | GIVEN },
	[DC_ROLE_NPOINTS] = { "npoints", USER | GIVEN },
	[DC_ROLE_TYPESIZE] = { "typesize", USER | GIVEN },
};

static const char *const ret_names[DC_RET_NR] = {
	[DC_RET_STATUS] = "status", [DC_RET_FD] = "fd",
	[DC_RET_SIZE] = "size",	    [DC_RET_OFFSET] = "offset",
	[DC_RET_ADDR] = "addr",	    [DC_RET_STREAM] = "stream",
	[DC_RET_HANDLE] = "handle", [DC_RET_ITEMS] = "items",
	[DC_RET_ISIZE] = "isize",   [DC_RET_CHAR] = "char",
};

static const char *const effect_names[DC_EFFECT_NR] = {
	[DC_EFFECT_NONE] = "none",
	[DC_EFFECT_CLOSE] = "close",
	[DC_EFFECT_DUP] = "dup",
};

static const char *const mech_names[] = {
	[DC_MECH_SYSCALL] = "syscall",
	[DC_MECH_UPROBE] = "uprobe",
	[DC_MECH_TRACEPOINT] = "tracepoint",
	[DC_MECH_KFUNC] = "kfunc",
	[DC_MECH_USDT] = "usdt",
	[DC_MECH_IO_URING] = "io_uring",
	[DC_MECH_LIBAIO] = "libaio",
	[DC_MECH_POSIXAIO] = "posixaio",
};

static const char *const loss_names[DC_LOSS_NR] = {
	[DC_LOSS_RINGBUF] = "ringbuf_full",
	[DC_LOSS_STATE] = "no_thread_state",
	[DC_LOSS_DEPTH] = "too_deep",
	[DC_LOSS_NORETURN] = "no_return",
	[DC_LOSS_AGG_FULL] = "profile_map_full",
	[DC_LOSS_NOENTRY] = "no_entry",
	[DC_SKIP_SHORT] = "filtered_short",
	[DC_END_EXEC] = "ended_by_exec",
};

static int lookup(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return -1;
}

static const char *name_of(const char *const *names, int n, int i)
{
	return i >= 0 && i < n && names[i] ? names[i] : "?";
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *dc_role_name(int role)
{
	return role >= 0 && role < DC_ROLE_NR && roles[role].name
		   ? roles[role].name
		   : "?";
}

int dc_role_parse(const char *name)
{
	for (int i = 0; i < DC_ROLE_NR; i++)
		if (roles[i].name && !strcmp(roles[i].name, name))
			return i;
	return -1;
}

const char *dc_ret_name(int ret)
{
	return name_of(ret_names, N(ret_names), ret);
}

int dc_ret_parse(const char *name)
{
	return lookup(ret_names, N(ret_names), name);
}

const char *dc_effect_name(int effect)
{
	return name_of(effect_names, N(effect_names), effect);
}

int dc_effect_parse(const char *name)
{
	return lookup(effect_names, N(effect_names), name);
}

const char *dc_mech_name(int mech)
{
	return name_of(mech_names, N(mech_names), mech);
}

int dc_mech_parse(const char *name)
{
	return lookup(mech_names, N(mech_names), name);
}

const char *dc_loss_name(int reason)
{
	return name_of(loss_names, N(loss_names), reason);
}

bool dc_loss_is_lost(int reason)
{
	return reason != DC_SKIP_SHORT && reason != DC_LOSS_NOENTRY &&
	       reason != DC_END_EXEC;
}

/* @names as "a, b, c" (or "a, b@lastc") into @buf, leaving out entry
 * @skip and the NULL ones. */
static int list_of(const char *const *names, int n, int skip, const char *last,
		   char *buf, size_t size)
{
	size_t len = 0;
	int end = n;

	while (end > 0 && (end - 1 == skip || !names[end - 1]))
		end--;
	buf[0] = '\0';
	for (int i = 0; i < end; i++) {
		const char *sep = !len ? "" : i == end - 1 ? last : ", ";
		int w;

		if (i == skip || !names[i])
			continue;
		w = snprintf(buf + len, size - len, "%s%s", sep, names[i]);
		if (w < 0 || (size_t)w >= size - len)
			return -ENOSPC;
		len += w;
	}
	return 0;
}

/* The names of the roles that are all of @what. */
static int roles_list(unsigned what, const char *last, char *buf, size_t size)
{
	const char *names[DC_ROLE_NR];

	for (int i = 0; i < DC_ROLE_NR; i++)
		names[i] =
		    (roles[i].what & what) == what ? roles[i].name : NULL;
	return list_of(names, DC_ROLE_NR, DC_ROLE_FED, last, buf, size);
}

int dc_role_list(char *buf, size_t size)
{
	return roles_list(0, ", ", buf, size);
}

int dc_quantity_list(const char *last, char *buf, size_t size)
{
	return roles_list(QUANTITY, last, buf, size);
}

int dc_ret_list(char *buf, size_t size)
{
	return list_of(ret_names, N(ret_names), -1, ", ", buf, size);
}

int dc_effect_list(char *buf, size_t size)
{
	return list_of(effect_names, N(effect_names), -1, ", ", buf, size);
}

int dc_mech_list(char *buf, size_t size)
{
	return list_of(mech_names, N(mech_names), -1, ", ", buf, size);
}

bool dc_mech_numbered(int mech)
{
	return mech == DC_MECH_SYSCALL || mech == DC_MECH_IO_URING ||
	       mech == DC_MECH_LIBAIO || mech == DC_MECH_POSIXAIO;
}

static bool role_is(int role, unsigned what)
{
	return role >= 0 && role < DC_ROLE_NR && (roles[role].what & what);
}

bool dc_role_is_int(int role)
{
	return role_is(role, INT);
}

bool dc_role_is_quantity(int role)
{
	return role_is(role, QUANTITY);
}

bool dc_role_reads_user(int role)
{
	return role_is(role, USER);
}

bool dc_role_is_path(int role)
{
	return role_is(role, PATH);
}

bool dc_role_is_late(int role)
{
	return role_is(role, LATE);
}

bool dc_role_is_given(int role)
{
	return role_is(role, GIVEN);
}
