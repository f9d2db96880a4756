// SPDX-License-Identifier: MIT
#include <string.h>

#include "dpattern.h"

/* The calls Darshan's POSIX and STDIO modules follow the offset of, by
 * name, as datacrumbs-report's Darshan counters count them. */
static const struct {
	const char *name;
	uint8_t dmod, pat;
} pats[] = {
	{ "read", DC_DMOD_POSIX, DC_PAT_READ },
	{ "readv", DC_DMOD_POSIX, DC_PAT_READ },
	{ "pread", DC_DMOD_POSIX, DC_PAT_READ },
	{ "pread64", DC_DMOD_POSIX, DC_PAT_READ },
	{ "preadv", DC_DMOD_POSIX, DC_PAT_READ },
	{ "preadv64", DC_DMOD_POSIX, DC_PAT_READ },
	{ "preadv2", DC_DMOD_POSIX, DC_PAT_READ },
	{ "write", DC_DMOD_POSIX, DC_PAT_WRITE },
	{ "writev", DC_DMOD_POSIX, DC_PAT_WRITE },
	{ "pwrite", DC_DMOD_POSIX, DC_PAT_WRITE },
	{ "pwrite64", DC_DMOD_POSIX, DC_PAT_WRITE },
	{ "pwritev", DC_DMOD_POSIX, DC_PAT_WRITE },
	{ "pwritev64", DC_DMOD_POSIX, DC_PAT_WRITE },
	{ "pwritev2", DC_DMOD_POSIX, DC_PAT_WRITE },
	{ "lseek", DC_DMOD_POSIX, DC_PAT_SEEK },
	{ "lseek64", DC_DMOD_POSIX, DC_PAT_SEEK },
	{ "fread", DC_DMOD_STDIO, DC_PAT_READ },
	{ "fgets", DC_DMOD_STDIO, DC_PAT_READ },
	{ "fgetc", DC_DMOD_STDIO, DC_PAT_READ },
	{ "getc", DC_DMOD_STDIO, DC_PAT_READ },
	{ "_IO_getc", DC_DMOD_STDIO, DC_PAT_READ },
	{ "getw", DC_DMOD_STDIO, DC_PAT_READ },
	{ "fscanf", DC_DMOD_STDIO, DC_PAT_READ },
	{ "__isoc99_fscanf", DC_DMOD_STDIO, DC_PAT_READ },
	{ "vfscanf", DC_DMOD_STDIO, DC_PAT_READ },
	{ "fwrite", DC_DMOD_STDIO, DC_PAT_WRITE },
	{ "fputs", DC_DMOD_STDIO, DC_PAT_WRITE },
	{ "fputc", DC_DMOD_STDIO, DC_PAT_WRITE },
	{ "putc", DC_DMOD_STDIO, DC_PAT_WRITE },
	{ "_IO_putc", DC_DMOD_STDIO, DC_PAT_WRITE },
	{ "putw", DC_DMOD_STDIO, DC_PAT_WRITE },
	{ "fprintf", DC_DMOD_STDIO, DC_PAT_WRITE },
	{ "vfprintf", DC_DMOD_STDIO, DC_PAT_WRITE },
	/* Darshan counts a flush as a write of no bytes. */
	{ "fflush", DC_DMOD_STDIO, DC_PAT_WRITE },
	{ "fseek", DC_DMOD_STDIO, DC_PAT_SSEEK },
	{ "fseeko", DC_DMOD_STDIO, DC_PAT_SSEEK },
	{ "fseeko64", DC_DMOD_STDIO, DC_PAT_SSEEK },
	{ "rewind", DC_DMOD_STDIO, DC_PAT_REWIND },
};

static const struct {
	const char *layer;
	uint8_t dmod;
} mods[] = {
	{ "POSIX", DC_DMOD_POSIX },
	{ "STDIO", DC_DMOD_STDIO },
	{ "MPIIO", DC_DMOD_MPIIO },
	{ "HDF5", DC_DMOD_HDF5 },
};

void dc_dpattern(const char *layer, const char *name, uint8_t *dmod,
		 uint8_t *pat)
{
	*dmod = DC_DMOD_NONE;
	*pat = DC_PAT_NONE;
	for (size_t i = 0; i < sizeof(mods) / sizeof(*mods); i++)
		if (!strcmp(layer, mods[i].layer))
			*dmod = mods[i].dmod;
	for (size_t i = 0; i < sizeof(pats) / sizeof(*pats); i++)
		if (pats[i].dmod == *dmod && !strcmp(name, pats[i].name))
			*pat = pats[i].pat;
}
