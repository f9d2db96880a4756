// SPDX-License-Identifier: MIT
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "usdt.h"

#define NT_STAPSDT 3

/* desc: pc, base, semaphore (8 bytes each), then provider, name and
 * argument spec as NUL-terminated strings. */
static int parse_note(const char *desc, size_t size, struct dc_usdt_note *u)
{
	const char *s = desc + 24, *end = desc + size;
	const char *strs[3];

	if (size < 24 + 3)
		return -EINVAL;
	memcpy(&u->pc, desc, 8);
	memcpy(&u->semaphore, desc + 16, 8);
	for (int i = 0; i < 3; i++) {
		const char *nul = memchr(s, '\0', end - s);

		if (!nul)
			return -EINVAL;
		strs[i] = s;
		s = nul + 1;
	}
	if (strlen(strs[0]) >= sizeof(u->provider) ||
	    strlen(strs[1]) >= sizeof(u->name) ||
	    strlen(strs[2]) >= sizeof(u->args))
		return -EINVAL;
	strcpy(u->provider, strs[0]);
	strcpy(u->name, strs[1]);
	strcpy(u->args, strs[2]);
	return 0;
}

int dc_usdt_notes(const char *path, struct dc_usdt_note **out, size_t *n)
{
	struct dc_usdt_note *v = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx, count = 0;
	Elf *elf = NULL;
	int fd, err = 0;

	*out = NULL;
	*n = 0;
	elf = dc_elf_open(path, &fd, &err);
	if (!elf)
		return err;
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".note.stapsdt"))
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff))) {
			struct dc_usdt_note *nv;

			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((char *)d->d_buf + noff, "stapsdt", 8))
				continue;
			nv = realloc(v, (count + 1) * sizeof(*v));
			if (!nv) {
				err = -ENOMEM;
				goto cleanup;
			}
			v = nv;
			if (!parse_note((char *)d->d_buf + doff, nh.n_descsz,
					&v[count]))
				count++;
		}
	}
cleanup:
	elf_end(elf);
	close(fd);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*n = count;
	return 0;
}

int dc_usdt_nargs(const struct dc_usdt_note *note)
{
	int n = 0;

	for (const char *s = note->args; *s;) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		n++;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}
