// SPDX-License-Identifier: MIT
/* Each uprobe's placement, found once when the object is made. */
#include <errno.h>
#include <string.h>

#include "elfsym.h"
#include "log.h"
#include "place.h"
#include "placement.h"
#include "render.h"

static int place_group(struct dc_spec *spec, size_t g)
{
	struct dc_spec_group *grp = &spec->groups[g];
	uint8_t id[DC_BUILD_ID_SIZE];
	struct dc_elf_syms syms;
	struct dc_code code;
	int err;

	/* The runtime's lookup: a copy of this build finds the same. */
	err = dc_elf_syms_load_locals(grp->path, &syms);
	if (err)
		return err == -ENOMEM ? err : 0; /* dc_spec_check() said why */
	err = dc_code_open(grp->path, &code);
	if (err) {
		if (err != -ENOTSUP)
			dc_warn("%s: cannot read its code: %s", grp->path,
				strerror(-err));
		dc_elf_syms_free(&syms);
		return 0;
	}
	if (!dc_elf_build_id(grp->path, id))
		dc_build_id_hex(id, grp->build);
	for (size_t i = 0; i < spec->nprobes; i++) {
		struct dc_spec_probe *p = &spec->probes[i];
		const struct dc_elf_sym *s;
		struct dc_place_probe pp;
		struct dc_placement pl;
		struct dc_slots sl;

		if (p->group != g || p->pattern || p->alias_of >= 0 ||
		    !(s = dc_elf_syms_find(&syms, p->symbol)))
			continue;
		dc_slots_of(p, &sl);
		pp = (struct dc_place_probe){
			sl.n, sl.arg, sl.role, p->ret, true, dc_slots_read(&sl)
		};
		dc_place(&code, s->offset, s->size, &pp, true, &pl);
		p->place.known = true;
		p->place.via_sys = pl.via_sys;
		p->place.tail = !pl.via_sys && pl.stub.tail;
		p->place.not_sys = pl.not_sys;
		p->place.pp = pl.pp;
	}
	dc_code_close(&code);
	dc_elf_syms_free(&syms);
	return 0;
}

int dc_spec_place(struct dc_spec *spec)
{
	int err = 0;

	for (size_t g = 0; g < spec->ngroups && !err; g++)
		if (spec->groups[g].mech == DC_MECH_UPROBE &&
		    !spec->groups[g].skipped)
			err = place_group(spec, g);
	return err;
}
