// SPDX-License-Identifier: MIT
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "elfsym.h"

int dc_build_id(const char *path, unsigned char id[DC_BUILD_ID_MAX])
{
	Elf_Scn *scn = NULL;
	int fd, err = 0, len = 0;
	Elf *elf;

	elf = dc_elf_open(path, &fd, &err);
	if (!elf)
		return err;
	while (!len && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, name, desc;
		GElf_Shdr sh;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name, &desc)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name, "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= DC_BUILD_ID_MAX) {
				memcpy(id, (char *)data->d_buf + desc,
				       nh.n_descsz);
				len = nh.n_descsz;
				break;
			}
	}
	elf_end(elf);
	close(fd);
	return len;
}
