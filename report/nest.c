// SPDX-License-Identifier: MIT
/*
 * Nesting through id/p_idx. Our traces write an outermost call first and
 * its descendants after it in entry order, so a stack per thread follows
 * them: a call's parent is on the stack, and what is above the parent has
 * returned. Each open call collects the time its subtree spent, per call
 * path; when it is closed, a call whose children add up to more than it
 * lasted (block requests in flight together) has them scaled down to its
 * own duration, so every outermost call's time is split among the layers
 * exactly, and layers sum honestly.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nest.h"

#define MAX_DEPTH 64

struct part {
	int node;
	double w;
};

struct open_call {
	uint64_t id;
	int node, layer;
	double dur;
	uint64_t fhash;
	bool sized, scope;
	struct part *parts;
	int nparts;
	size_t cap;
};

struct thread {
	struct open_call st[MAX_DEPTH];
	int depth;
	bool seen;
};

int dc_node_get(struct dc_report *r, int parent, int func, bool scope)
{
	uint64_t key =
	    ((uint64_t)(uint32_t)(parent + 1) << 32 | (uint32_t)func) * 2 +
	    scope + 1;
	uintptr_t v = (uintptr_t)dc_map_get(&r->node_ix, key);
	struct dc_node *n;

	if (v)
		return v - 1;
	if (dc_grow((void **)&r->nodes, r->nnodes, sizeof(*r->nodes), 256))
		return -ENOMEM;
	n = &r->nodes[r->nnodes];
	*n = (struct dc_node){ .parent = parent, .func = func, .scope = scope };
	if (dc_map_put(&r->node_ix, key, (void *)(uintptr_t)(r->nnodes + 1)))
		return -ENOMEM;
	return r->nnodes++;
}

static int add_part(struct open_call *c, int node, double w)
{
	/* Recent paths repeat: look from the end. */
	for (int i = c->nparts - 1; i >= 0; i--) {
		if (c->parts[i].node == node) {
			c->parts[i].w += w;
			return 0;
		}
	}
	if (dc_grow_cap((void **)&c->parts, &c->cap, c->nparts,
			sizeof(*c->parts), 8))
		return -ENOMEM;
	c->parts[c->nparts++] = (struct part){ node, w };
	return 0;
}

/* Close the top call of @t: settle its subtree into its parent, or, for
 * an outermost call, into the totals. */
static void pop(struct dc_report *r, struct thread *t)
{
	struct open_call *c = &t->st[--t->depth];
	double sum = 0, self;

	for (int i = 0; i < c->nparts; i++)
		sum += c->parts[i].w;
	if (sum > c->dur && sum > 0) {
		/* Scaled to whole 1/1024 us: sums of such shares are exact
		 * in any order (below 2^43 us), so partial reports merge
		 * to the same figures. */
		for (int i = 0; i < c->nparts; i++)
			c->parts[i].w = ldexp(
			    round(ldexp(c->parts[i].w * c->dur / sum, 10)),
			    -10);
		self = 0;
	} else {
		self = c->dur - sum;
	}
	add_part(c, c->node, self);
	if (t->depth) {
		struct open_call *p = &t->st[t->depth - 1];

		for (int i = 0; i < c->nparts; i++)
			add_part(p, c->parts[i].node, c->parts[i].w);
	} else {
		struct dc_layer *root = &r->layers[c->layer];

		for (int i = 0; i < c->nparts; i++) {
			struct dc_node *n = &r->nodes[c->parts[i].node];
			int l = r->funcs[n->func].layer;

			n->self += c->parts[i].w;
			root->by_layer[l] += c->parts[i].w;
			if (n->scope)
				r->layers[l].scope_excl += c->parts[i].w;
		}
	}
	c->nparts = 0;
}

static struct thread *thread_get(struct dc_report *r, uint32_t pid,
				 uint32_t tid)
{
	uint64_t key = ((uint64_t)pid << 32 | tid) + 1;
	struct thread *t = dc_map_get(&r->thread_ix, key);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (t && dc_map_put(&r->thread_ix, key, t)) {
		free(t);
		t = NULL;
	}
	return t;
}

int dc_nest_event(struct dc_report *r, const struct dc_trace_event *ev,
		  int func, bool match, int64_t bytes, struct dc_nest_info *out)
{
	struct thread *t = thread_get(r, ev->pid, ev->tid);
	struct open_call *c;
	int parent_node = -1;

	memset(out, 0, sizeof(*out));
	if (!t)
		return -ENOMEM;
	/* Before its first outermost call a thread may be inside a call of
	 * an earlier range; after it, its stack is the whole trace's. */
	if (!t->seen && (ev->has & DC_EV_PIDX) && ev->p_idx >= 0)
		r->unplaced += r->continued;
	t->seen = true;
	if (!(ev->has & DC_EV_PIDX) || ev->p_idx < 0) {
		while (t->depth)
			pop(r, t);
	} else {
		while (t->depth &&
		       t->st[t->depth - 1].id != (uint64_t)ev->p_idx)
			pop(r, t);
		if (!t->depth)
			r->orphans++;
	}
	if (t->depth == MAX_DEPTH)
		pop(r, t);
	out->root = !t->depth;
	out->file_outer = true;
	out->file_sized_outer = true;
	if (t->depth) {
		struct open_call *p = &t->st[t->depth - 1];

		parent_node = p->node;
		out->scope = p->scope;
		out->parent_layer = p->layer;
	}
	out->scope |= match;
	for (int i = 0; i < t->depth && (ev->has & DC_EV_FHASH); i++) {
		if (t->st[i].fhash != ev->fhash)
			continue;
		out->file_outer = false;
		if (t->st[i].sized)
			out->file_sized_outer = false;
	}
	c = &t->st[t->depth];
	c->node = dc_node_get(r, parent_node, func, out->scope);
	if (c->node < 0)
		return -ENOMEM;
	t->depth++;
	c->id = ev->id;
	c->layer = r->funcs[func].layer;
	c->dur = ev->dur > 0 ? (double)ev->dur : 0;
	c->fhash = ev->has & DC_EV_FHASH ? ev->fhash : 0;
	c->sized = bytes >= 0;
	c->scope = out->scope;
	return 0;
}

static void flush_thread(struct dc_report *r, struct thread *t)
{
	while (t->depth)
		pop(r, t);
}

void dc_nest_flush(struct dc_report *r)
{
	dc_map_foreach (&r->thread_ix, i)
		flush_thread(r, r->thread_ix.vals[i]);
}

static void free_thread(void *p)
{
	struct thread *t = p;

	for (int i = 0; i < MAX_DEPTH; i++)
		free(t->st[i].parts);
	free(t);
}

void dc_nest_free(struct dc_report *r)
{
	dc_map_free(&r->thread_ix, free_thread);
}
