// SPDX-License-Identifier: MIT
/* The start and end records of a trace, the run's or a job's: what the
 * run was and what it lost. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "json.h"
#include "kfeatures.h"
#include "log.h"
#include "records.h"
#include "roles.h"

static void withheld_args(const struct dc_withheld *h, struct dc_buf *b)
{
	dc_buf_addf(b, ",\"withheld_events\":%llu,\"withheld_pids\":[",
		    (unsigned long long)h->events);
	for (int i = 0; i < h->npids; i++)
		dc_buf_addf(b, "%s%u", i ? "," : "", h->pids[i]);
	dc_buf_adds(b, "]");
}

/* Attached wrappers traced at sys_enter (@via_sys), or uprobes left on
 * an instruction the kernel single-steps. */
static size_t count_probes(const struct dc_session *sess, bool via_sys)
{
	size_t n = 0;

	for (size_t i = 0; i < sess->nprobes; i++)
		n += sess->probes[i].attached &&
		     (via_sys ? sess->probes[i].via_sys : sess->probes[i].slow);
	return n;
}

void dc_rec_start(struct dc_buf *b, const struct dc_session *sess,
		  const char *mounts, char **cmd, const struct dc_opts *o,
		  const char *date)
{
	size_t attached = 0;
	char fb[128];

	/* A server attaches them with its first job: it counts those it
	 * will attach. */
	for (size_t i = 0; i < sess->nprobes; i++)
		attached += o->server ? !sess->probes[i].disabled
				      : sess->probes[i].attached;
	dc_buf_adds(b, "\"cmd\":");
	if (cmd) {
		struct dc_buf c = {};

		for (int i = 0; cmd[i]; i++)
			dc_buf_addf(&c, "%s%s", i ? " " : "", cmd[i]);
		dc_json_str(b, c.p ? c.p : "", c.len);
		dc_buf_free(&c);
	} else {
		dc_buf_adds(b, o->all ? "\"--all\"" : "\"--pid\"");
	}
	dc_buf_addf(b,
		    ",\"version\":\"%s\",\"date\":\"%s\",\"mode\":\"%s\","
		    "\"probes\":%zu",
		    DC_VERSION, date, o->profile ? "profile" : "trace",
		    attached);
	if (o->profile)
		dc_buf_addf(b, ",\"interval_us\":%llu",
			    (unsigned long long)(o->interval * 1e6));
	dc_buf_addf(b, ",\"uprobes\":\"%s\"",
		    sess->uprobe_session ? "session"
		    : sess->uprobe_multi ? "pairs"
					 : "perf");
	dc_kernel_fallback_names(sess->o.cfg->fallbacks, fb, sizeof(fb));
	/* Tracepoint names come from the object: escaped. */
	dc_buf_addf(b, ",\"fallbacks\":\"%s\",\"unsupported\":", fb);
	dc_json_str(b, sess->unsupported, strlen(sess->unsupported));
	dc_buf_addf(b, ",\"wrappers_at_syscalls\":%zu,\"slow_uprobes\":%zu",
		    count_probes(sess, true), count_probes(sess, false));
	if (mounts)
		dc_buf_addf(b, ",%s", mounts);
	dc_buf_add(b, "", 1);
}

/* Calls written, in every trace of the run. */
static uint64_t calls(const struct dc_session *sess)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sess->nprobes; i++)
		n += sess->probes[i].calls;
	return n;
}

uint64_t dc_rec_end(struct dc_buf *b, const struct dc_session *sess,
		    const struct dc_rec_counts *n,
		    const struct dc_withheld *held, bool quiet)
{
	uint64_t by_reason[DC_LOSS_NR] = {}, total = 0;
	for (size_t i = 0; i < sess->nprobes; i++) {
		const struct dc_probe *p = &sess->probes[i];

		for (int r = 0; r < DC_LOSS_NR; r++) {
			if (!p->lost[r])
				continue;
			by_reason[r] += p->lost[r];
			/* Calls left out by --min-duration were asked for;
			 * returns of calls begun before tracing saw them
			 * are no calls lost. */
			if (!dc_loss_is_lost(r))
				continue;
			total += p->lost[r];
			if (!quiet)
				dc_warn("lost %llu %s %s events (%s)",
					(unsigned long long)p->lost[r],
					p->d->layer, p->d->name,
					dc_loss_name(r));
		}
	}
	/* -q shortens the list, never hides that events were lost. */
	if (quiet && total)
		dc_warn("lost %llu events (per probe and reason in the "
			"trace's end record)",
			(unsigned long long)total);
	/* A wrapper's call not recognised is a call lost. */
	if (n->unmatched)
		dc_warn("lost %llu calls of syscall wrappers: their syscalls "
			"could not be matched to them",
			(unsigned long long)n->unmatched);
	total += n->unmatched;
	dc_buf_addf(b, "\"num_events\":%llu,\"dropped\":%llu",
		    (unsigned long long)calls(sess), (unsigned long long)total);
	for (int r = 0; r < DC_LOSS_NR; r++)
		dc_buf_addf(b, ",\"%s\":%llu", dc_loss_name(r),
			    (unsigned long long)by_reason[r]);
	dc_buf_addf(b, ",\"filtered_paths\":%llu,\"bad_records\":%llu",
		    (unsigned long long)n->filtered,
		    (unsigned long long)n->bad_records);
	/* Not events, but a hole all the same: --strict counts it. */
	dc_buf_addf(b, ",\"untraced_procs\":%llu",
		    (unsigned long long)n->untraced);
	if (n->untraced)
		dc_warn("%llu processes were not traced: more than --max-procs "
			"were traced at once",
			(unsigned long long)n->untraced);
	dc_buf_addf(b, ",\"unmatched_wrappers\":%llu",
		    (unsigned long long)n->unmatched);
	withheld_args(held, b);
	/* Per probe, so a reader can add lost to written for each call. */
	dc_buf_adds(b, ",\"lost\":{");
	for (size_t i = 0, k = 0; i < sess->nprobes; i++) {
		const struct dc_probe *p = &sess->probes[i];
		uint64_t sum = 0;

		for (int r = 0; r < DC_LOSS_NR; r++)
			sum += dc_loss_is_lost(r) ? p->lost[r] : 0;
		if (!sum)
			continue;
		dc_buf_addf(b, "%s\"%s/%s\":%llu", k++ ? "," : "", p->d->layer,
			    p->d->name, (unsigned long long)sum);
	}
	dc_buf_adds(b, "}");
	dc_buf_add(b, "", 1);
	return total;
}

void dc_rec_job_start(struct dc_buf *b, uint32_t job, const char *comm,
		      bool profile, const char *mounts)
{
	dc_buf_addf(b, "\"job\":%u,\"cmd\":", job);
	dc_json_str(b, comm, strlen(comm));
	dc_buf_addf(b, ",\"mode\":\"%s\"", profile ? "profile" : "trace");
	if (mounts)
		dc_buf_addf(b, ",%s", mounts);
	dc_buf_add(b, "", 1);
}

void dc_rec_job_end(struct dc_buf *b, const char *run_end, uint64_t events,
		    uint64_t lost, const struct dc_withheld *held)
{
	if (run_end)
		dc_buf_adds(b, run_end);
	else
		dc_buf_addf(b, "\"num_events\":%llu,\"dropped\":%llu",
			    (unsigned long long)events,
			    (unsigned long long)lost);
	withheld_args(held, b);
	dc_buf_add(b, "", 1);
}
