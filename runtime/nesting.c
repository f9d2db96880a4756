// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>

#include "nesting.h"

/* Held calls per thread before they are written without their parent. */
#define DC_NEST_MAX (1u << 20)

struct frame {
	uint64_t seq;
	uint64_t id;
};

static int by_seq(const void *a, const void *b)
{
	const struct dc_call *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Held calls sorted by seq are in entry order, so each one's ancestors are
 * on a stack that starts with the outermost call. */
static void write_held(struct dc_pfw *w, struct dc_rthread *t,
		       const struct frame *root)
{
	struct frame stack[DC_MAX_DEPTH + 2];
	int depth = 0;

	if (root)
		stack[depth++] = *root;
	qsort(t->pending, t->npending, sizeof(*t->pending), by_seq);
	for (size_t i = 0; i < t->npending; i++) {
		const struct dc_call *c = &t->pending[i];
		int64_t p_idx = -1;
		int k;

		for (k = depth - 1; k >= 0; k--)
			if (stack[k].seq == c->parent_seq)
				break;
		if (k >= 0) {
			p_idx = stack[k].id;
			depth = k + 1;
		}
		if (depth == DC_MAX_DEPTH + 2)
			depth--;
		stack[depth].seq = c->seq;
		stack[depth++].id = dc_pfw_call(w, c, p_idx);
	}
	t->npending = 0;
}

int dc_nest_add(struct dc_pfw *w, struct dc_rthread *t, const struct dc_call *c)
{
	if (c->level <= 1 || !c->parent_seq) {
		struct frame root;

		dc_gz_hold(&w->gz);
		root = (struct frame){ c->seq, dc_pfw_call(w, c, -1) };
		if (t->npending)
			write_held(w, t, &root);
		/* A write error stays with the writer, which names the file
		 * (dc_gz_tick()); the ring buffer goes on being drained. */
		dc_gz_release(&w->gz, c->ts);
		return 0;
	}
	if (t->npending == t->cap && t->npending >= DC_NEST_MAX)
		write_held(w, t, NULL);
	else if (dc_grow_cap((void **)&t->pending, &t->cap, t->npending,
			     sizeof(*t->pending), 16))
		return -ENOMEM;
	t->pending[t->npending++] = *c;
	return 0;
}

void dc_nest_flush(struct dc_pfw *w, struct dc_rthread *t)
{
	if (t->npending)
		write_held(w, t, NULL);
}
