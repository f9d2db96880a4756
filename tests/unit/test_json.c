// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "check.h"
#include "json.h"

static void expect(const char *in, size_t n, const char *want)
{
	struct dc_buf b = {};

	CHECK(!dc_json_str(&b, in, n));
	dc_buf_add(&b, "", 1);
	CHECK_STR(b.p, want);
	dc_buf_free(&b);
}

int main(void)
{
	expect("/tmp/plain.h5", 13, "\"/tmp/plain.h5\"");
	expect("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
	expect("tab\there\n", 9, "\"tab\\u0009here\\u000a\"");
	expect("\x01\x1f", 2, "\"\\u0001\\u001f\"");
	/* Valid UTF-8 passes through: é, €, 😀 */
	expect("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
	       "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* Invalid bytes become U+FFFD: lone continuation, truncated,
	 * overlong, surrogate, past U+10FFFF. */
	expect("a\x80z", 3, "\"a\xef\xbf\xbdz\"");
	expect("\xe2\x82", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	expect("\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	expect("\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	expect("\xf4\x90\x80\x80", 4,
	       "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	expect("", 0, "\"\"");
	/* An embedded NUL is a control character, not the end. */
	expect("a\0b", 3, "\"a\\u0000b\"");
	return CHECK_DONE();
}
