/* SPDX-License-Identifier: MIT */
#ifndef DC_MAP_H
#define DC_MAP_H

#include <stddef.h>
#include <stdint.h>

/* An open-addressing hash map from a non-zero u64 key to a pointer. */
struct dc_map {
	uint64_t *keys;
	void **vals;
	size_t cap; /* power of two */
	size_t len;
};

void *dc_map_get(const struct dc_map *m, uint64_t key);
/* Returns 0 or -ENOMEM; replaces an existing value. */
int dc_map_put(struct dc_map *m, uint64_t key, void *val);
/* Returns the removed value or NULL. */
void *dc_map_del(struct dc_map *m, uint64_t key);
/* Call @fn on every value, then free the map's own memory. */
void dc_map_free(struct dc_map *m, void (*fn)(void *));

#define dc_map_foreach(m, i)                                                   \
	for (size_t i = 0; i < (m)->cap; i++)                                  \
		if ((m)->keys[i])

#endif
