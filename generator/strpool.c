// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "hash.h"
#include "strpool.h"

int dc_strpool_add(struct dc_strpool *p, const char *str, uint32_t *off)
{
	size_t len = strlen(str);
	uint64_t key = dc_hash(str, len) | 1; /* map keys are non-zero */
	uintptr_t at;

	if (!p->s.len && dc_buf_add(&p->s, "", 1))
		return -ENOMEM;
	if (!len) {
		*off = 0;
		return 0;
	}
	at = (uintptr_t)dc_map_get(&p->index, key);
	if (at && !strcmp(p->s.p + at - 1, str)) {
		*off = at - 1;
		return 0;
	}
	if (p->s.len + len + 1 >= UINT32_MAX)
		return -E2BIG;
	*off = p->s.len;
	if (dc_buf_add(&p->s, str, len + 1))
		return -ENOMEM;
	/* Two strings with one hash: the first keeps the entry, the
	 * second is stored again, which costs bytes, not correctness. */
	return at ? 0
		  : dc_map_put(&p->index, key, (void *)(uintptr_t)(*off + 1));
}

void dc_strpool_free(struct dc_strpool *p)
{
	dc_buf_free(&p->s);
	dc_map_free(&p->index, NULL);
	memset(p, 0, sizeof(*p));
}
