// SPDX-License-Identifier: MIT
/* The ring buffer's consumer: each record goes to enrich.c. */
#include <errno.h>

#include "runtime.h"

static int on_record(void *ctx, void *data, size_t size)
{
	return dc_enrich_record(ctx, data, size);
}

int dc_ringbuf_open(struct dc_rt *rt)
{
	rt->rb = ring_buffer__new(bpf_map__fd(rt->sess.o.maps.events),
				  on_record, rt, NULL);
	return rt->rb ? 0 : -errno;
}

/* The BPF side wakes us only when the buffer fills (or for process
 * events), so after waiting, take whatever is there. */
int dc_ringbuf_poll(struct dc_rt *rt, int timeout_ms)
{
	int n = ring_buffer__poll(rt->rb, timeout_ms);

	if (n == -EINTR)
		n = 0;
	if (n >= 0)
		n = ring_buffer__consume(rt->rb);
	return n;
}

int dc_ringbuf_drain(struct dc_rt *rt)
{
	int n;

	while ((n = ring_buffer__consume(rt->rb)) > 0)
		;
	dc_enrich_flush(rt);
	return n < 0 ? n : 0;
}

void dc_ringbuf_close(struct dc_rt *rt)
{
	ring_buffer__free(rt->rb);
	rt->rb = NULL;
}
