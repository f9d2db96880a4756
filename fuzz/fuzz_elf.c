// SPDX-License-Identifier: MIT
/* The ELF readers (lib/elfsym.c, lib/usdt.c) on arbitrary bytes: symbols
 * with their file offsets, then USDT notes with their argument counts. */
#include <stdlib.h>

#include "elfsym.h"
#include "file.h"
#include "usdt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dc_usdt_note *notes;
	struct dc_elf_syms syms;
	const char *path = fuzz_file(data, size);
	size_t n;

	if (!path)
		return 0;
	if (!dc_elf_syms_load(path, &syms)) {
		/* Every name is a string, and the lookup finds it. */
		for (size_t i = 0; i < syms.n; i++)
			if (!dc_elf_syms_find(&syms, syms.v[i].name))
				abort();
		dc_elf_syms_free(&syms);
	}
	if (!dc_usdt_notes(path, &notes, &n)) {
		for (size_t i = 0; i < n; i++)
			if (dc_usdt_nargs(&notes[i]) < 0)
				abort();
		free(notes);
	}
	return 0;
}
