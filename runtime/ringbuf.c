// SPDX-License-Identifier: MIT
/* The ring buffer's consumer: each record goes to enrich.c. */
#include <errno.h>
#include <unistd.h>

#include "runtime.h"

/*
 * Records taken per wait. libbpf's consume returns only once the ring
 * is empty, and a traced loop of small calls can refill it as fast as
 * we read: the loop must still get back to signals, callers and the
 * writer's clock. Past a batch the callback stops libbpf, which has
 * consumed that record, and the next wait does not sleep.
 */
#define DC_RINGBUF_BATCH 16384

static int on_record(void *ctx, void *data, size_t size)
{
	struct dc_rt *rt = ctx;
	int err = dc_enrich_record(rt, data, size);

	if (err)
		return err;
	return ++rt->batch < DC_RINGBUF_BATCH ? 0 : -EAGAIN;
}

/* libbpf's count of records, or -errno: a full batch is not an error. */
static int batch_end(struct dc_rt *rt, int n)
{
	rt->rb_more = n == -EAGAIN;
	return rt->rb_more || n > 0 ? 0 : n;
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
	int n;

	rt->batch = 0;
	n = ring_buffer__poll(rt->rb, rt->rb_more ? 0 : timeout_ms);
	if (n == -EINTR)
		n = 0;
	if (n >= 0)
		n = ring_buffer__consume(rt->rb);
	return batch_end(rt, n);
}

int dc_ringbuf_consume(struct dc_rt *rt)
{
	rt->batch = 0;
	return batch_end(rt, ring_buffer__consume(rt->rb));
}

int dc_ringbuf_drain(struct dc_rt *rt)
{
	int n;

	do
		n = dc_ringbuf_consume(rt);
	while (!n && rt->rb_more);
	dc_enrich_flush(rt);
	return n;
}

int dc_ringbuf_catch_up(struct dc_rt *rt)
{
	struct ring *r = ring_buffer__ring(rt->rb, 0);
	unsigned long end = ring__producer_pos(r);
	int stalls = 0, n;

	/* A record reserved but not yet submitted stops the consumer: its
	 * thread is between the two, which takes microseconds unless it is
	 * preempted. Past 100 ms, take the rest later. */
	while ((long)(end - ring__consumer_pos(r)) > 0 && stalls < 1000) {
		unsigned long before = ring__consumer_pos(r);

		rt->batch = 0;
		n = ring__consume(r);
		if (n < 0 && n != -EAGAIN)
			return n;
		if (ring__consumer_pos(r) != before)
			continue;
		stalls++;
		usleep(100);
	}
	return 0;
}

void dc_ringbuf_close(struct dc_rt *rt)
{
	ring_buffer__free(rt->rb);
	rt->rb = NULL;
}
