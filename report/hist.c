// SPDX-License-Identifier: MIT
#include <math.h>

#include "report.h"

static int bucket(uint64_t v)
{
	int k;

	if (v < 64)
		return v;
	k = 63 - __builtin_clzll(v);
	return 64 + (k - 6) * 32 + (int)((v >> (k - 5)) & 31);
}

static uint64_t lower(int i)
{
	int k;

	if (i < 64)
		return i;
	k = (i - 64) / 32 + 6;
	return (uint64_t)(32 + (i - 64) % 32) << (k - 5);
}

void dc_hist_add(struct dc_hist *h, uint64_t v, uint64_t n)
{
	h->b[bucket(v)] += n;
}

uint64_t dc_hist_pct(const struct dc_hist *h, uint64_t total, double p)
{
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)total), seen = 0;

	if (rank < 1)
		rank = 1;
	for (int i = 0; i < DC_LAT_BINS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			return lower(i);
	}
	return 0;
}
