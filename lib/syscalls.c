// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "syscalls.h"

struct sysent {
	const char *name;
	int nr;
};

static const struct sysent table[] = {
#include "syscall_table.h"
};

const char *dc_tracefs_events(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing/events",
		"/sys/kernel/debug/tracing/events",
	};
	char p[128];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/syscalls", dirs[i]);
		/* With file capabilities the effective ones count, not the real
		 * uid. */
		if (!faccessat(AT_FDCWD, p, X_OK, AT_EACCESS))
			return dirs[i];
	}
	return NULL;
}

static int cmp(const void *key, const void *ent)
{
	return strcmp(key, ((const struct sysent *)ent)->name);
}

static int lookup(const char *name)
{
	const struct sysent *e =
	    bsearch(name, table, sizeof(table) / sizeof(table[0]),
		    sizeof(table[0]), cmp);

	return e ? e->nr : -1;
}

int dc_syscall_nr(const char *name)
{
	size_t n = strlen(name);
	char base[64];
	int nr = lookup(name);

	if (nr >= 0)
		return nr;
	if (!strncmp(name, "new", 3) && (nr = lookup(name + 3)) >= 0)
		return nr;
	if (n > 2 && n < sizeof(base) && !strcmp(name + n - 2, "64")) {
		memcpy(base, name, n - 2);
		base[n - 2] = '\0';
		return lookup(base);
	}
	return -1;
}
