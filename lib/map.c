// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>

#include "map.h"

static size_t slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return key & (cap - 1);
}

static size_t find(const struct dc_map *m, uint64_t key)
{
	size_t i = slot(key, m->cap);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *dc_map_get(const struct dc_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = find(m, key);
	return m->keys[i] ? m->vals[i] : NULL;
}

static int grow(struct dc_map *m)
{
	struct dc_map n = { .cap = m->cap ? m->cap * 2 : 64 };

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = find(&n, m->keys[i]);

		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	n.len = m->len;
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int dc_map_put(struct dc_map *m, uint64_t key, void *val)
{
	size_t i;

	if ((m->len + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	i = find(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->len++;
	}
	m->vals[i] = val;
	return 0;
}

void *dc_map_del(struct dc_map *m, uint64_t key)
{
	size_t i, j;
	void *val;

	if (!m->cap)
		return NULL;
	i = find(m, key);
	if (!m->keys[i])
		return NULL;
	val = m->vals[i];
	m->keys[i] = 0;
	m->len--;
	/* Re-seat the rest of the probe run so lookups still find them. */
	for (j = (i + 1) & (m->cap - 1); m->keys[j];
	     j = (j + 1) & (m->cap - 1)) {
		uint64_t k = m->keys[j];
		void *v = m->vals[j];
		size_t t;

		m->keys[j] = 0;
		t = find(m, k);
		m->keys[t] = k;
		m->vals[t] = v;
	}
	return val;
}

void dc_map_free(struct dc_map *m, void (*fn)(void *))
{
	if (fn)
		dc_map_foreach (m, i)
			fn(m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = (struct dc_map){};
}
