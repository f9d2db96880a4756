// SPDX-License-Identifier: MIT
/* Each process's library handles (hid_t, MPI_File): their files, their
 * objects, and in profile mode their generations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <datacrumbs/abi.h>

#include "procs.h"

/* Handle 0 is never valid (MPI_FILE_NULL, H5I_INVALID_HID is -1), which
 * keeps the map's reserved key free. */
struct dc_file *dc_handle_lookup(struct dc_proc *p, uint64_t h)
{
	return h ? dc_map_get(&p->handles, h) : NULL;
}

void dc_handle_set(struct dc_proc *p, uint64_t h, struct dc_file *f)
{
	if (!h || (int64_t)h == -1 || !f)
		return;
	dc_map_put(&p->handles, h, f);
	/* A handle given again is not the one closed. */
	dc_map_del(&p->closing[0], h);
	dc_map_del(&p->closing[1], h);
}

void dc_handle_close(struct dc_proc *p, uint64_t h)
{
	if (h) {
		dc_map_del(&p->handles, h);
		dc_map_del(&p->objects, h);
	}
}

const char *dc_handle_object(struct dc_proc *p, uint64_t h)
{
	return h ? dc_map_get(&p->objects, h) : NULL;
}

const char *dc_handle_set_object(struct dc_procs *ps, struct dc_proc *p,
				 uint64_t h, uint64_t base, const char *name)
{
	const char *parent = dc_handle_object(p, base);
	char full[DC_PATH_MAX * 2];
	const char *n = full;

	if (!h || (int64_t)h == -1)
		return NULL;
	/* A relative name is under its base's object, or under the root
	 * group when the base is the file itself. */
	if (name[0] == '/')
		n = name;
	else
		snprintf(full, sizeof(full), "%s/%s",
			 parent && strcmp(parent, "/") ? parent : "", name);
	n = dc_name_intern(ps, n);
	if (!n || dc_map_put(&p->objects, h, (void *)n))
		return NULL;
	return n;
}

int dc_handle_gen_set(struct dc_proc *p, uint64_t h, uint32_t gen,
		      struct dc_file *f, const char *object)
{
	struct dc_hgen *g = malloc(sizeof(*g));

	if (!g)
		return -ENOMEM;
	*g = (struct dc_hgen){ gen, 0, f, object, dc_map_get(&p->hgens, h) };
	if (dc_map_put(&p->hgens, h, g)) {
		free(g);
		return -ENOMEM;
	}
	return 0;
}

const struct dc_hgen *dc_handle_gen(struct dc_proc *p, uint64_t h, uint32_t gen)
{
	const struct dc_hgen *g = h ? dc_map_get(&p->hgens, h) : NULL;

	while (g && g->gen != gen)
		g = g->older;
	return g;
}

static void free_hgens(void *v)
{
	for (struct dc_hgen *g = v, *older; g; g = older) {
		older = g->older;
		free(g);
	}
}

/* Generations replaced two drains ago have no calls left to name. */
static void age_hgens(struct dc_hgen *newest)
{
	for (struct dc_hgen *g = newest; g && g->older; g = g->older)
		if (++g->older->age >= 2) {
			free_hgens(g->older);
			g->older = NULL;
		}
}

void dc_handle_close_later(struct dc_proc *p, uint64_t h)
{
	if (h)
		dc_map_put(&p->closing[1], h, p);
}

void dc_handles_expire(struct dc_procs *ps)
{
	dc_map_foreach (&ps->procs, i) {
		struct dc_proc *p = ps->procs.vals[i];

		dc_map_foreach (&p->closing[0], k) {
			dc_map_del(&p->handles, p->closing[0].keys[k]);
			dc_map_del(&p->objects, p->closing[0].keys[k]);
			free_hgens(
			    dc_map_del(&p->hgens, p->closing[0].keys[k]));
		}
		dc_map_foreach (&p->hgens, k)
			age_hgens(p->hgens.vals[k]);
		dc_map_free(&p->closing[0], NULL);
		p->closing[0] = p->closing[1];
		memset(&p->closing[1], 0, sizeof(p->closing[1]));
	}
}

/* fork copies memory: the child's handles are the parent's. */
void dc_handles_copy(struct dc_proc *p, const struct dc_proc *parent)
{
	dc_map_foreach (&parent->handles, i)
		dc_map_put(&p->handles, parent->handles.keys[i],
			   parent->handles.vals[i]);
	dc_map_foreach (&parent->objects, i)
		dc_map_put(&p->objects, parent->objects.keys[i],
			   parent->objects.vals[i]);
}

void dc_handles_free(struct dc_proc *p)
{
	dc_map_free(&p->handles, NULL);
	dc_map_free(&p->objects, NULL);
	dc_map_free(&p->closing[0], NULL);
	dc_map_free(&p->closing[1], NULL);
	dc_map_free(&p->hgens, free_hgens);
}
