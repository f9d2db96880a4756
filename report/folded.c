// SPDX-License-Identifier: MIT
/* Call paths: folded stacks (flamegraph.pl, speedscope, inferno read
 * them) and the flame graph drawn as SVG. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

/* With --file, only the calls on the matching files and what they
 * caused. */
static bool shown(const struct dc_report *r, const struct dc_node *n)
{
	return !r->file_pattern || n->scope;
}

int dc_folded_report(const struct dc_report *r, FILE *o)
{
	struct dc_buf b = {};
	int err = 0;

	for (int i = 0; i < r->nnodes && !err; i++) {
		const struct dc_node *n = &r->nodes[i];
		uint64_t w = (uint64_t)llround(n->self);

		if (!w || !shown(r, n))
			continue;
		b.len = 0;
		if (dc_node_path(r, i, &b))
			err = -ENOMEM;
		else if (fprintf(o, "%.*s %llu\n", (int)b.len, b.p,
				 (unsigned long long)w) < 0)
			err = -EIO;
	}
	dc_buf_free(&b);
	return err;
}

/* One colour per layer, the same in every plot. */
const char *dc_layer_color(int layer)
{
	static const char *const c[] = { "#e45756", "#4c78a8", "#f58518",
					 "#54a24b", "#b279a2", "#eeca3b",
					 "#72b7b2", "#ff9da6", "#9d755d",
					 "#bab0ac" };

	return c[layer % (int)(sizeof(c) / sizeof(c[0]))];
}

struct flame {
	const struct dc_report *r;
	double *incl;
	int *first, *next; /* children lists */
	double total, scale;
	int depth;
	struct dc_buf *b;
	int width;
};

static void frame(struct flame *f, int node, double x, int level)
{
	const struct dc_report *r = f->r;
	const struct dc_node *n = node >= 0 ? &r->nodes[node] : NULL;
	double w = (node >= 0 ? f->incl[node] : f->total) * f->scale;
	int y = (f->depth - level) * 17 + 30;
	char label[300];

	if (w < 0.5)
		return;
	if (n)
		snprintf(label, sizeof(label), "%s %s",
			 r->layers[r->funcs[n->func].layer].name,
			 r->funcs[n->func].name);
	else
		snprintf(label, sizeof(label), "all");
	dc_buf_addf(f->b, "<g><title>");
	dc_html_esc(f->b, label);
	dc_buf_addf(f->b,
		    " (%.0f us, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" "
		    "width=\"%.1f\" height=\"16\" fill=\"%s\" rx=\"2\"/>",
		    node >= 0 ? f->incl[node] : f->total,
		    100 * (node >= 0 ? f->incl[node] : f->total) / f->total,
		    x + 10, y, w,
		    n ? dc_layer_color(r->funcs[n->func].layer) : "#999");
	if (w > 30) {
		dc_buf_addf(f->b, "<text x=\"%.1f\" y=\"%d\">", x + 13, y + 12);
		dc_html_escn(f->b, label, (size_t)(w / 7));
		dc_buf_adds(f->b, "</text>");
	}
	dc_buf_adds(f->b, "</g>\n");
	for (int c = node >= 0 ? f->first[node] : f->first[r->nnodes]; c >= 0;
	     c = f->next[c]) {
		frame(f, c, x, level + 1);
		x += f->incl[c] * f->scale;
	}
}

int dc_flame_svg(const struct dc_report *r, struct dc_buf *b, int width)
{
	struct flame f = { .r = r, .b = b, .width = width };
	int *depth = NULL, err = -ENOMEM;

	f.incl = calloc(r->nnodes + 1, sizeof(*f.incl));
	f.first = malloc((r->nnodes + 1) * sizeof(*f.first));
	f.next = malloc((r->nnodes + 1) * sizeof(*f.next));
	depth = calloc(r->nnodes + 1, sizeof(*depth));
	if (!f.incl || !f.first || !f.next || !depth)
		goto cleanup;
	for (int i = 0; i <= r->nnodes; i++)
		f.first[i] = -1;
	/* A parent's node is made before its children's. */
	for (int i = r->nnodes - 1; i >= 0; i--) {
		const struct dc_node *n = &r->nodes[i];
		int p = n->parent >= 0 ? n->parent : r->nnodes;

		if (shown(r, n))
			f.incl[i] += n->self;
		if (f.incl[i] <= 0)
			continue;
		if (n->parent >= 0)
			f.incl[n->parent] += f.incl[i];
		else
			f.total += f.incl[i];
		f.next[i] = f.first[p];
		f.first[p] = i;
	}
	for (int i = 0; i < r->nnodes; i++) {
		const struct dc_node *n = &r->nodes[i];

		depth[i] = n->parent >= 0 ? depth[n->parent] + 1 : 1;
		if (f.incl[i] > 0 && depth[i] > f.depth)
			f.depth = depth[i];
	}
	f.scale = f.total > 0 ? (width - 20) / f.total : 0;
	dc_buf_addf(b,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		    "height=\"%d\" viewBox=\"0 0 %d %d\" "
		    "font-family=\"monospace\" font-size=\"11\">\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		    "<text x=\"10\" y=\"18\" font-size=\"14\">I/O flame graph: "
		    "time in each call path, nesting taken into "
		    "account</text>\n",
		    width, (f.depth + 1) * 17 + 40, width,
		    (f.depth + 1) * 17 + 40);
	if (f.total > 0)
		frame(&f, -1, 0, 0);
	else
		dc_buf_adds(b,
			    "<text x=\"10\" y=\"40\">no timed calls</text>\n");
	err = dc_buf_adds(b, "</svg>\n");
cleanup:
	free(f.incl);
	free(f.first);
	free(f.next);
	free(depth);
	return err;
}
