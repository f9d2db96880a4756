// SPDX-License-Identifier: MIT
/*
 * --check OBJECT: whether this kernel traces with OBJECT, found as a run
 * finds it (privileges, BTF, tracefs, each feature probed, every program
 * through the verifier), with nothing attached and nothing written: what
 * a site runs once per kernel and object before its users trace.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>

#include "check.h"
#include "kfeatures.h"
#include "log.h"
#include "sysenv.h"
#include "trace.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void say_loaded(const struct dc_session *sess, const char *obj,
		       double ms)
{
	__u32 fb = sess->o.cfg->fallbacks;
	size_t on = 0, progs = 0;
	struct bpf_program *p;
	char name[32];

	for (size_t i = 0; i < sess->nprobes; i++)
		on += !sess->probes[i].disabled;
	bpf_object__for_each_program (p, sess->o.obj)
		progs += bpf_program__autoload(p);
	printf("object      %s: loaded, %zu programs verified, in %.0f ms\n",
	       obj, progs, ms);
	printf("probes      %zu of %zu traced here (the rest: --layers, or "
	       "unsupported)\n",
	       on, sess->nprobes);
	printf("uprobes     %s\n",
	       sess->uprobe_session ? "session: one uprobe.session link a batch"
	       : sess->uprobe_multi
		   ? "pairs: an entry and a return link a batch (no session "
		     "links: Linux 6.13)"
		   : "perf: a perf-event uprobe and uretprobe a function (no "
		     "multi links: Linux 6.6)");
	if (!fb)
		printf("fallbacks   none\n");
	for (__u32 bit = 1; bit; bit <<= 1) {
		if (!(fb & bit) || !dc_kernel_fallback_why(bit))
			continue;
		dc_kernel_fallback_names(bit, name, sizeof(name));
		printf("fallbacks   %s: %s\n", name,
		       dc_kernel_fallback_why(bit));
	}
	printf("unsupported %s\n",
	       *sess->unsupported ? sess->unsupported : "nothing");
}

int dc_check(struct dc_session *sess, const char *obj)
{
	struct utsname u;
	double t0 = now_ms();
	int err;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "(unknown)");
	printf("kernel      Linux %s\n", u.release);
	fflush(stdout);
	err = dc_sysenv_check() ?: dc_load(sess, obj);
	if (!err)
		say_loaded(sess, obj, now_ms() - t0);
	dc_unload(sess);
	if (err) {
		printf("result      no: %s cannot be traced with here (the "
		       "error above)\n",
		       obj);
		return 1;
	}
	printf("result      yes: %s traces here\n", obj);
	return 0;
}
