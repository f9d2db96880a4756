// SPDX-License-Identifier: MIT
/* The page's plots, as inline SVG: no scripts, nothing fetched. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "plots.h"

#define W  900
#define H  260
#define ML 70 /* margins: room for the axis labels */
#define MR 150
#define MT 20
#define MB 40

static void svg_open(struct dc_buf *b, int w, int h, const char *label)
{
	dc_buf_addf(b,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		    "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		    "aria-label=\"%s\" class=\"plot\">\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		    w, h, w, h, label);
}

/* Axes with the maximum on y and the time span on x. */
static void axes(struct dc_buf *b, const char *ylabel, double ymax,
		 const char *xlabel)
{
	dc_buf_addf(b,
		    "<g stroke=\"#333\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		    "y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		    "</g>\n",
		    ML, MT, ML, H - MB, ML, H - MB, W - MR, H - MB);
	dc_buf_addf(
	    b,
	    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.3g</text>\n"
	    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n"
	    "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" "
	    "text-anchor=\"middle\">%s</text>\n"
	    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
	    ML - 4, MT + 10, ymax, ML - 4, H - MB, (H - MB + MT) / 2,
	    (H - MB + MT) / 2, ylabel, (ML + W - MR) / 2, H - 8, xlabel);
}

static void legend(struct dc_buf *b, int i, const char *name, int layer)
{
	dc_buf_addf(b,
		    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
		    "fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
		    W - MR + 12, MT + i * 18, dc_layer_color(layer),
		    W - MR + 30, MT + i * 18 + 11);
	dc_html_esc(b, name);
	dc_buf_adds(b, "</text>\n");
}

/* Bins that hold anything: the plots stop at the last one. */
static int used_bins(const struct dc_report *r)
{
	int64_t end = dc_report_end(r);
	int64_t n =
	    r->width ? (int64_t)(((__int128)end - r->t0) / r->width) + 1 : 0;

	return n < 1 ? 1 : n > DC_BINS ? DC_BINS : n;
}

int dc_plot_bandwidth(const struct dc_report *r, struct dc_buf *b)
{
	int n = used_bins(r), shown = 0;
	double ymax = 0, w = r->width ? (double)r->width : 1;
	char xl[64];

	for (int l = 0; l < r->nlayers; l++)
		for (int i = 0; i < n; i++)
			ymax = fmax(ymax, r->layers[l].bw[i] / w);
	svg_open(b, W, H, "bandwidth over time per layer");
	snprintf(xl, sizeof(xl), "time (s), %d bins of %.3g ms", n, w / 1e3);
	axes(b, "MB/s", ymax, xl);
	for (int l = 0; l < r->nlayers && ymax > 0; l++) {
		const struct dc_layer *ly = &r->layers[l];

		if (!ly->s.bytes)
			continue;
		dc_buf_addf(b,
			    "<polyline fill=\"none\" stroke-width=\"2\" "
			    "stroke=\"%s\" points=\"",
			    dc_layer_color(l));
		for (int i = 0; i < n; i++) {
			double x = ML + (W - MR - ML) *
					    (n > 1 ? (double)i / (n - 1) : 0.5);
			double y =
			    (H - MB) - (H - MB - MT) * (ly->bw[i] / w) / ymax;

			dc_buf_addf(b, "%.1f,%.1f ", x, y);
		}
		dc_buf_adds(b, "\"/>\n");
		legend(b, shown++, ly->name, l);
	}
	if (!shown)
		dc_buf_addf(b,
			    "<text x=\"%d\" y=\"%d\">no bytes moved</text>\n",
			    ML + 20, H / 2);
	dc_buf_addf(b, "<text x=\"%d\" y=\"%d\">%.3g s</text>\n", W - MR - 30,
		    H - MB + 16, n * w / 1e6);
	return dc_buf_adds(b, "</svg>\n");
}

static void size_label(int bin, char out[32])
{
	static const char *const u[] = { "", "K", "M", "G", "T" };
	uint64_t v = bin ? 1ull << (bin - 1) : 0;
	int k = 0;

	while (v >= 1024 && k < 4) {
		v /= 1024;
		k++;
	}
	snprintf(out, 32, "%llu%s", (unsigned long long)v, u[k]);
}

int dc_plot_sizes(const struct dc_report *r, struct dc_buf *b)
{
	int lo = DC_SIZE_BINS, hi = -1, nl = 0, shown = 0;
	uint64_t ymax = 0;

	for (int l = 0; l < r->nlayers; l++) {
		bool any = false;

		for (int i = 0; i < DC_SIZE_BINS; i++) {
			if (!r->layers[l].sizes[i])
				continue;
			any = true;
			lo = i < lo ? i : lo;
			hi = i > hi ? i : hi;
			if (r->layers[l].sizes[i] > ymax)
				ymax = r->layers[l].sizes[i];
		}
		nl += any;
	}
	svg_open(b, W, H, "transfer size histogram");
	axes(b, "calls", (double)ymax, "bytes per call (at least)");
	if (hi < 0) {
		dc_buf_addf(b,
			    "<text x=\"%d\" y=\"%d\">no bytes moved</text>\n",
			    ML + 20, H / 2);
		return dc_buf_adds(b, "</svg>\n");
	}
	double slot = (double)(W - MR - ML) / (hi - lo + 1);
	double bw = (slot - 4) / nl;

	for (int i = lo; i <= hi; i++) {
		char lab[32];

		size_label(i, lab);
		dc_buf_addf(b,
			    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			    "font-size=\"10\">%s</text>\n",
			    ML + slot * (i - lo + 0.5), H - MB + 14, lab);
	}
	for (int l = 0, k = 0; l < r->nlayers; l++) {
		const struct dc_layer *ly = &r->layers[l];
		bool any = false;

		for (int i = lo; i <= hi; i++) {
			double h = (double)(H - MB - MT) * ly->sizes[i] / ymax;

			if (!ly->sizes[i])
				continue;
			any = true;
			dc_buf_addf(
			    b,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"%s\"><title>",
			    ML + slot * (i - lo) + 2 + bw * k, (H - MB) - h, bw,
			    h, dc_layer_color(l));
			dc_html_esc(b, ly->name);
			dc_buf_addf(b, ": %llu calls</title></rect>\n",
				    (unsigned long long)ly->sizes[i]);
		}
		if (any) {
			legend(b, shown++, ly->name, l);
			k++;
		}
	}
	return dc_buf_adds(b, "</svg>\n");
}

int dc_plot_timeline(const struct dc_report *r, const size_t *order,
		     size_t nproc, struct dc_buf *b)
{
	int n = used_bins(r), rowh = 14, h;
	double w = r->width ? (double)r->width : 1;
	double cell = (double)(W - MR - ML) / n;
	char label[96];

	h = MT + (int)nproc * rowh + MB;
	svg_open(b, W, h, "I/O timeline per process");
	for (size_t k = 0; k < nproc; k++) {
		const struct dcr_proc *p = r->procs[order[k]];
		int y = MT + (int)k * rowh;

		if (p->rank)
			snprintf(label, sizeof(label), "rank %s", p->rank);
		else
			snprintf(label, sizeof(label), "%.10s %u",
				 p->name ? p->name : "pid", p->pid);
		dc_buf_addf(b,
			    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
			    "font-size=\"10\">",
			    ML - 4, y + 10);
		dc_html_esc(b, label);
		dc_buf_adds(b, "</text>\n");
		dc_buf_addf(
		    b,
		    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		    "fill=\"#f3f3f3\"/>\n",
		    ML, y, W - MR - ML, rowh - 2);
		for (int i = 0; i < n; i++) {
			double f = p->bins[i] / w;

			if (f <= 0)
				continue;
			dc_buf_addf(b,
				    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				    "height=\"%d\" fill=\"#4c78a8\" "
				    "fill-opacity=\"%.2f\"/>\n",
				    ML + cell * i, y, cell < 1 ? 1 : cell,
				    rowh - 2, f > 1 ? 1 : 0.15 + 0.85 * f);
		}
	}
	dc_buf_addf(b,
		    "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" "
		    "text-anchor=\"end\">%.3g s (darker: more of the bin in "
		    "I/O)</text>\n",
		    ML, h - MB + 16, W - MR, h - MB + 16, n * w / 1e6);
	return dc_buf_adds(b, "</svg>\n");
}
