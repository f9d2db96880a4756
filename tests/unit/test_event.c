// SPDX-License-Identifier: MIT
/* dc_event_parse on the shapes it meets: ours, DFTracer's own, escapes,
 * and every truncation of a line (the sanitized build checks that none
 * reads outside the line). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "event.h"
#include "hash.h"

/* Parse a C string literal. */
#define PARSE(s, ev) dc_event_parse(s, strlen(s), ev)

static int str_is(const struct dc_str *s, const char *w)
{
	return s->n == strlen(w) && !memcmp(s->p, w, s->n);
}

int main(void)
{
	static const char ours[] =
	    "{\"id\":390,\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":4829,"
	    "\"tid\":4830,\"ts\":1795336778791197,\"dur\":45,\"ph\":\"X\","
	    "\"args\":{\"hhash\":\"08cf3707b570dbec\",\"fhash\":"
	    "\"6cc138ddf27467ce\",\"fd\":1,\"count\":4096,\"ret\":4096,"
	    "\"size\":4096,\"level\":2,\"p_idx\":389}}";
	static const char dft[] =
	    "{\"ph\":\"X\",\"args\":{\"p_idx\":7,\"size_sum\":12,\"hhash\":"
	    "39537,\"fhash\":51242,\"core\":[1,2,{\"a\":null}]},\"dur\":3,"
	    "\"ts\":5,\"tid\":2,\"pid\":1,\"cat\":\"STDIO\",\"name\":"
	    "\"fread\"}";
	static const char meta[] =
	    "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,"
	    "\"tid\":1,\"ph\":\"M\",\"args\":{\"hhash\":\"08cf3707b570dbec\","
	    "\"name\":\"/a\\\"b\\u00e9\\n\",\"value\":\"6cc138ddf27467ce\"}}";
	struct dc_trace_event ev;
	struct dc_str k, v;
	char buf[64];
	size_t pos = 0;
	int n = 0;

	CHECK(dc_event_parse(ours, strlen(ours), &ev) == 0);
	CHECK(ev.ph == 'X' && str_is(&ev.name, "write") &&
	      str_is(&ev.cat, "POSIX"));
	CHECK(ev.id == 390 && ev.pid == 4829 && ev.tid == 4830);
	CHECK(ev.ts == 1795336778791197 && ev.dur == 45);
	CHECK(ev.hhash == 0x08cf3707b570dbecull &&
	      ev.fhash == 0x6cc138ddf27467ceull);
	CHECK(ev.size == 4096 && ev.ret == 4096 && ev.level == 2 &&
	      ev.p_idx == 389);
	CHECK((ev.has & (DC_EV_SIZE | DC_EV_PIDX | DC_EV_FHASH)) ==
	      (DC_EV_SIZE | DC_EV_PIDX | DC_EV_FHASH));
	/* The raw args object, member by member. */
	while (dc_json_member(ev.args, ev.args_len, &pos, &k, &v) > 0)
		n++;
	CHECK(n == 8);

	/* Every truncation fails cleanly, never reading past its end: each
	 * is copied to a block of exactly its size for ASan to guard. */
	for (size_t len = 0; len < strlen(ours); len++) {
		char *p = malloc(len ? len : 1);
		int r;

		memcpy(p, ours, len);
		r = dc_event_parse(p, len, &ev);
		CHECK(r == -EINVAL || (len == 0 && r == DC_EVENT_SKIP));
		CHECK(r != -EINVAL || ev.err);
		free(p);
	}

	CHECK(dc_event_parse(dft, strlen(dft), &ev) == 0);
	CHECK(str_is(&ev.name, "fread") && ev.pid == 1 && ev.ts == 5);
	CHECK(ev.hhash == 39537 && ev.fhash == 51242 && ev.size_sum == 12 &&
	      ev.p_idx == 7 && !(ev.has & DC_EV_SIZE));

	CHECK(dc_event_parse(meta, strlen(meta), &ev) == 0);
	CHECK(ev.ph == 'M' && ev.arg_name.esc);
	dc_str_copy(&ev.arg_name, buf, sizeof(buf));
	CHECK_STR(buf, "/a\"b\xc3\xa9\n");
	CHECK(dc_hash_value(&ev.arg_value) == 0x6cc138ddf27467ceull);

	CHECK(PARSE("[", &ev) == DC_EVENT_SKIP);
	CHECK(PARSE(" ]\r", &ev) == DC_EVENT_SKIP);
	CHECK(PARSE("{\"name\":\"a\"},", &ev) == 0);
	CHECK(PARSE("{\"name\":\"a\"} x", &ev) == -EINVAL);
	CHECK(PARSE("{\"cat\":\"a\"}", &ev) == -EINVAL);
	CHECK(PARSE("{\"name\":\"a\\q\"}", &ev) == -EINVAL);
	CHECK(PARSE("{\"name\":\"a\",\"x\":tru}", &ev) == -EINVAL);
	/* A non-hex hash string is an opaque key: the same for its
	 * definition and its uses. */
	CHECK(PARSE("{\"name\":\"a\",\"args\":{\"fhash\":\"zz\"}}", &ev) == 0);
	CHECK(ev.fhash == dc_hash("zz", 2));
	return CHECK_DONE();
}
