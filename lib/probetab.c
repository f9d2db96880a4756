// SPDX-License-Identifier: MIT
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "probetab.h"

#define TERMINATE(s) ((s)[sizeof(s) - 1] = '\0')

int dc_probe_table_read(const char *path, struct dc_probe_desc **out, size_t *n)
{
	const struct dc_probe_table *t;
	struct dc_probe_desc *v = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	Elf *elf = NULL;
	size_t shstrndx;
	int fd, err = -ENOEXEC;

	elf = dc_elf_open(path, &fd, &err);
	if (!elf)
		return err;
	err = -ENOEXEC;
	if (elf_getshdrstrndx(elf, &shstrndx))
		goto cleanup;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, DC_PROBE_SECTION)) {
			data = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!data || data->d_size < sizeof(*t))
		goto cleanup;
	t = data->d_buf;
	if (t->magic != DC_PROBE_TABLE_MAGIC)
		goto cleanup;
	if (t->abi_version != DC_ABI_VERSION || t->desc_size != sizeof(*v)) {
		err = -EPROTO;
		goto cleanup;
	}
	if (!t->count || t->count > (data->d_size - sizeof(*t)) / sizeof(*v))
		goto cleanup;
	v = malloc(t->count * sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		goto cleanup;
	}
	memcpy(v, t + 1, t->count * sizeof(*v));
	for (size_t i = 0; i < t->count; i++) {
		TERMINATE(v[i].name);
		TERMINATE(v[i].symbol);
		TERMINATE(v[i].layer);
		TERMINATE(v[i].target);
		TERMINATE(v[i].path);
		if (v[i].id != i || v[i].nslots > DC_CAPTURE) {
			free(v);
			v = NULL;
			goto cleanup;
		}
	}
	*out = v;
	*n = t->count;
	err = 0;
cleanup:
	elf_end(elf);
	close(fd);
	return err;
}
