// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <datacrumbs/abi.h>

#include "roles.h"

static const char *const role_names[DC_ROLE_NR] = {
	[DC_ROLE_NONE] = "_",
	[DC_ROLE_FD] = "fd",
	[DC_ROLE_PATH] = "path",
	[DC_ROLE_COUNT] = "count",
	[DC_ROLE_OFFSET] = "offset",
	[DC_ROLE_FLAGS] = "flags",
	[DC_ROLE_MODE] = "mode",
	[DC_ROLE_WHENCE] = "whence",
	[DC_ROLE_NEWFD] = "newfd",
	[DC_ROLE_DIRFD] = "dirfd",
	[DC_ROLE_STREAM] = "stream",
	[DC_ROLE_HANDLE] = "handle",
	[DC_ROLE_BUF] = "buf",
	[DC_ROLE_HANDLE_OUT] = "handle_out",
	[DC_ROLE_HANDLE_REF] = "handle_ref",
	[DC_ROLE_ITEMS] = "items",
	[DC_ROLE_ITEMSIZE] = "itemsize",
	[DC_ROLE_DATATYPE] = "datatype",
	[DC_ROLE_STR] = "str",
	[DC_ROLE_STR_OUT] = "str_out",
	[DC_ROLE_ELEMENTS] = "elements",
	[DC_ROLE_NAME] = "name",
	[DC_ROLE_FED] = "fed",
	[DC_ROLE_FUNC] = "func",
	[DC_ROLE_SRCFILE] = "srcfile",
	[DC_ROLE_LINE] = "line",
};

static const char *const ret_names[DC_RET_NR] = {
	[DC_RET_STATUS] = "status", [DC_RET_FD] = "fd",
	[DC_RET_SIZE] = "size",	    [DC_RET_OFFSET] = "offset",
	[DC_RET_ADDR] = "addr",	    [DC_RET_STREAM] = "stream",
	[DC_RET_HANDLE] = "handle", [DC_RET_ITEMS] = "items",
	[DC_RET_ISIZE] = "isize",   [DC_RET_CHAR] = "char",
};

static const char *const mech_names[] = {
	[DC_MECH_SYSCALL] = "syscall",
	[DC_MECH_UPROBE] = "uprobe",
	[DC_MECH_TRACEPOINT] = "tracepoint",
	[DC_MECH_KFUNC] = "kfunc",
	[DC_MECH_USDT] = "usdt",
	[DC_MECH_IO_URING] = "io_uring",
	[DC_MECH_LIBAIO] = "libaio",
};

static const char *const loss_names[DC_LOSS_NR] = {
	[DC_LOSS_RINGBUF] = "ringbuf_full",
	[DC_LOSS_STATE] = "no_thread_state",
	[DC_LOSS_DEPTH] = "too_deep",
	[DC_LOSS_NORETURN] = "no_return",
	[DC_LOSS_AGG_FULL] = "profile_map_full",
	[DC_LOSS_NOENTRY] = "no_entry",
	[DC_SKIP_SHORT] = "filtered_short",
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
	return name_of(role_names, N(role_names), role);
}

int dc_role_parse(const char *name)
{
	return lookup(role_names, N(role_names), name);
}

const char *dc_ret_name(int ret)
{
	return name_of(ret_names, N(ret_names), ret);
}

int dc_ret_parse(const char *name)
{
	return lookup(ret_names, N(ret_names), name);
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
	return reason != DC_SKIP_SHORT && reason != DC_LOSS_NOENTRY;
}

/* @names as "a, b, c" into @buf, leaving out entry @skip. */
static int list_of(const char *const *names, int n, int skip, char *buf,
		   size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		int w;

		if (i == skip || !names[i])
			continue;
		w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
			     names[i]);
		if (w < 0 || (size_t)w >= size - len)
			return -ENOSPC;
		len += w;
	}
	return 0;
}

int dc_role_list(char *buf, size_t size)
{
	return list_of(role_names, N(role_names), DC_ROLE_FED, buf, size);
}

int dc_ret_list(char *buf, size_t size)
{
	return list_of(ret_names, N(ret_names), -1, buf, size);
}

int dc_mech_list(char *buf, size_t size)
{
	return list_of(mech_names, N(mech_names), -1, buf, size);
}

bool dc_mech_numbered(int mech)
{
	return mech == DC_MECH_SYSCALL || mech == DC_MECH_IO_URING ||
	       mech == DC_MECH_LIBAIO;
}

bool dc_role_is_int(int role)
{
	return role == DC_ROLE_FD || role == DC_ROLE_NEWFD ||
	       role == DC_ROLE_DIRFD || role == DC_ROLE_FLAGS ||
	       role == DC_ROLE_MODE || role == DC_ROLE_WHENCE ||
	       role == DC_ROLE_ITEMS || role == DC_ROLE_LINE;
}
