// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "strpool.h"

static int rehash(struct dc_strpool *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 256;
	uint32_t *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nslots; i++) {
		const char *s;
		size_t h;

		if (!p->slots[i])
			continue;
		s = p->s.p + p->slots[i] - 1;
		h = dc_hash(s, strlen(s)) & (n - 1);
		while (v[h])
			h = (h + 1) & (n - 1);
		v[h] = p->slots[i];
	}
	free(p->slots);
	p->slots = v;
	p->nslots = n;
	return 0;
}

int dc_strpool_add(struct dc_strpool *p, const char *str, uint32_t *off)
{
	size_t len = strlen(str), h;

	if (!p->s.len && dc_buf_add(&p->s, "", 1))
		return -ENOMEM;
	if (!len) {
		*off = 0;
		return 0;
	}
	if ((p->n + 1) * 2 > p->nslots && rehash(p))
		return -ENOMEM;
	h = dc_hash(str, len) & (p->nslots - 1);
	for (; p->slots[h]; h = (h + 1) & (p->nslots - 1))
		if (!strcmp(p->s.p + p->slots[h] - 1, str)) {
			*off = p->slots[h] - 1;
			return 0;
		}
	if (p->s.len + len + 1 >= UINT32_MAX)
		return -E2BIG;
	*off = p->s.len;
	if (dc_buf_add(&p->s, str, len + 1))
		return -ENOMEM;
	p->slots[h] = *off + 1;
	p->n++;
	return 0;
}

void dc_strpool_free(struct dc_strpool *p)
{
	dc_buf_free(&p->s);
	free(p->slots);
	memset(p, 0, sizeof(*p));
}
