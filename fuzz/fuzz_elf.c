// SPDX-License-Identifier: MIT
/* The ELF readers (lib/elfsym.c, lib/usdt.c, runtime/probetab.c) on arbitrary
 * bytes: symbols with their file offsets, USDT notes with their argument
 * counts, and a generated object's probe table. */
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "file.h"
#include "probetab.h"
#include "usdt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dc_usdt_note *notes;
	struct dc_probe_info *probes;
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
	if (!dc_probe_table_read(path, &probes, &n)) {
		/* Every string is whole and within the limits the runtime's
		 * buffers assume. */
		for (size_t i = 0; i < n; i++)
			if (strlen(probes[i].name) >= DC_SYMBOL_MAX ||
			    strlen(probes[i].target) >= DC_TARGET_MAX ||
			    strlen(probes[i].field[DC_CAPTURE - 1]) >=
				DC_FIELD_MAX)
				abort();
		free(probes);
	}
	return 0;
}
