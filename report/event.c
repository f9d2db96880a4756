// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "event.h"
#include "hash.h"

/* A cursor over one line; every read is bounds-checked, so any bytes
 * (a fuzzer's, a truncated file's) are safe to parse. */
struct scan {
	const char *s;
	size_t n, i;
	const char *err;
	size_t err_col;
};

static int fail(struct scan *c, const char *why)
{
	if (!c->err) {
		c->err = why;
		c->err_col = c->i;
	}
	return -EINVAL;
}

static void ws(struct scan *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' ||
			       c->s[c->i] == '\r' || c->s[c->i] == '\n'))
		c->i++;
}

static int is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

/* Bytes that end the fast scan of a string: '"', '\\' and controls. */
static const unsigned char special[256] = {
	[0 ... 0x1f] = 1,
	['"'] = 1,
	['\\'] = 1,
};

/* At a '"': the string's contents, escapes checked but left in place. */
static int str(struct scan *c, struct dc_str *out)
{
	const unsigned char *s = (const unsigned char *)c->s;
	size_t start;

	if (c->i >= c->n || s[c->i] != '"')
		return fail(c, "expected a string");
	start = ++c->i;
	out->esc = 0;
	out->quoted = 1;
	while (c->i < c->n) {
		unsigned char ch;

		size_t i = c->i, n = c->n;

		/* Locals: the compiler keeps them in registers. */
		while (i < n && !special[s[i]])
			i++;
		c->i = i;
		if (c->i >= c->n)
			break;
		ch = s[c->i];
		if (ch == '"') {
			out->p = c->s + start;
			out->n = c->i - start;
			c->i++;
			return 0;
		}
		if (ch < 0x20)
			return fail(c, "control character in a string");
		out->esc = 1;
		if (++c->i >= c->n)
			break;
		ch = s[c->i];
		if (ch == 'u') {
			for (int k = 1; k <= 4; k++)
				if (c->i + k >= c->n || !is_hex(c->s[c->i + k]))
					return fail(c, "bad \\u escape");
			c->i += 5;
		} else if (ch && strchr("\"\\/bfnrt", ch)) {
			c->i++;
		} else {
			return fail(c, "bad escape in a string");
		}
	}
	return fail(c, "unterminated string");
}

/* A JSON number: its integer part in *v (saturated), its text in *raw. */
static int num(struct scan *c, int64_t *v, struct dc_str *raw)
{
	size_t start = c->i;
	uint64_t u = 0;
	int neg = 0, digits = 0;

	if (c->i < c->n && c->s[c->i] == '-') {
		neg = 1;
		c->i++;
	}
	for (size_t i = c->i, n = c->n;; i++) {
		unsigned d = i < n ? (unsigned char)c->s[i] - '0' : 10;

		if (d > 9) {
			c->i = i;
			break;
		}
		/* Only a 20th digit can overflow. */
		if (++digits < 20)
			u = u * 10 + d;
		else
			u = u > (UINT64_MAX - d) / 10 ? UINT64_MAX : u * 10 + d;
	}
	if (!digits)
		return fail(c, "expected a value");
	if (c->i < c->n && c->s[c->i] == '.') {
		c->i++;
		if (c->i >= c->n || c->s[c->i] < '0' || c->s[c->i] > '9')
			return fail(c, "bad number");
		while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
			c->i++;
	}
	if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
		c->i++;
		if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
			c->i++;
		if (c->i >= c->n || c->s[c->i] < '0' || c->s[c->i] > '9')
			return fail(c, "bad number");
		while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
			c->i++;
	}
	if (u > INT64_MAX)
		u = INT64_MAX;
	*v = neg ? -(int64_t)u : (int64_t)u;
	if (raw) {
		raw->p = c->s + start;
		raw->n = c->i - start;
		raw->esc = 0;
		raw->quoted = 0;
	}
	return 0;
}

static int word(struct scan *c, const char *w)
{
	size_t n = strlen(w);

	if (c->n - c->i < n || memcmp(c->s + c->i, w, n))
		return fail(c, "expected a value");
	c->i += n;
	return 0;
}

/* Skip any value; nesting is bounded so hostile input cannot recurse
 * deep. */
static int skip(struct scan *c, int depth)
{
	struct dc_str s;
	int64_t v;

	if (depth > 64)
		return fail(c, "nested too deep");
	ws(c);
	if (c->i >= c->n)
		return fail(c, "expected a value");
	switch (c->s[c->i]) {
	case '"': return str(c, &s);
	case 't': return word(c, "true");
	case 'f': return word(c, "false");
	case 'n': return word(c, "null");
	case '{':
	case '[': {
		char close = c->s[c->i] == '{' ? '}' : ']';

		c->i++;
		ws(c);
		if (c->i < c->n && c->s[c->i] == close) {
			c->i++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				ws(c);
				if (str(c, &s))
					return -EINVAL;
				ws(c);
				if (c->i >= c->n || c->s[c->i] != ':')
					return fail(c, "expected ':'");
				c->i++;
			}
			if (skip(c, depth + 1))
				return -EINVAL;
			ws(c);
			if (c->i < c->n && c->s[c->i] == ',') {
				c->i++;
				continue;
			}
			if (c->i < c->n && c->s[c->i] == close) {
				c->i++;
				return 0;
			}
			return fail(c, close == '}' ? "expected ',' or '}'"
						    : "expected ',' or ']'");
		}
	}
	default: return num(c, &v, NULL);
	}
}

/* The key of the next member and the ':' after it; @first says whether
 * an opening '{' was just read. Returns 1, 0 at '}', or -EINVAL. */
static int member(struct scan *c, int first, struct dc_str *key)
{
	ws(c);
	if (c->i >= c->n)
		return fail(c, "unexpected end of line");
	if (c->s[c->i] == '}') {
		c->i++;
		return 0;
	}
	if (!first) {
		if (c->s[c->i] != ',')
			return fail(c, "expected ',' or '}'");
		c->i++;
		ws(c);
	}
	if (str(c, key))
		return -EINVAL;
	ws(c);
	if (c->i >= c->n || c->s[c->i] != ':')
		return fail(c, "expected ':'");
	c->i++;
	ws(c);
	return 1;
}

/* The parser's hottest test: a byte loop of constant length, unrolled
 * by the compiler, where a memcmp call would cost more than the compare. */
static inline __attribute__((always_inline)) int
bytes_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

#define KEY(k, lit)                                                            \
	((k)->n == sizeof(lit) - 1 && bytes_eq((k)->p, lit, sizeof(lit) - 1))

/* Hex digit values plus one; 0 for anything else. */
static const unsigned char hexval[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int parse_hex(const struct dc_str *s, uint64_t *out)
{
	uint64_t h = 0;

	if (!s->n || s->n > 16 || s->esc)
		return -EINVAL;
	for (uint32_t i = 0; i < s->n; i++) {
		unsigned d = hexval[(unsigned char)s->p[i]];

		if (!d)
			return -EINVAL;
		h = h << 4 | (d - 1);
	}
	*out = h;
	return 0;
}

uint64_t dc_hash_value(const struct dc_str *raw)
{
	uint64_t h;

	if (!raw->n)
		return 0;
	if (!raw->quoted) {
		h = 0;
		for (uint32_t i = 0;
		     i < raw->n && raw->p[i] >= '0' && raw->p[i] <= '9'; i++)
			h = h * 10 + (raw->p[i] - '0');
		return h;
	}
	if (!parse_hex(raw, &h))
		return h;
	/* Any other string is still an opaque key: hash it, so a definition
	 * and its references agree. */
	return dc_hash(raw->p, raw->n);
}

/* A hash: a string (hex, or any opaque text) or a decimal number. */
static int hash(struct scan *c, uint64_t *out)
{
	struct dc_str s;
	int64_t v;

	if (c->i < c->n && c->s[c->i] == '"') {
		if (str(c, &s))
			return -EINVAL;
		if (parse_hex(&s, out))
			*out = dc_hash(s.p, s.n);
		return 0;
	}
	if (num(c, &v, NULL))
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

/* A value whose text is kept: strings without their quotes, anything
 * else as it stands. */
static int raw_value(struct scan *c, struct dc_str *out)
{
	size_t start = c->i;

	if (c->i < c->n && c->s[c->i] == '"')
		return str(c, out);
	if (skip(c, 1))
		return -EINVAL;
	out->p = c->s + start;
	out->n = c->i - start;
	out->esc = 0;
	out->quoted = 0;
	return 0;
}

static int int_field(struct scan *c, int64_t *v, struct dc_trace_event *ev,
		     uint32_t bit)
{
	if (num(c, v, NULL))
		return -EINVAL;
	ev->has |= bit;
	return 0;
}

/* A counter's "hist": up to DC_HIST_N counts of Darshan's size buckets. */
static int hist(struct scan *c, uint64_t *h)
{
	int64_t v;

	ws(c);
	if (c->i >= c->n || c->s[c->i] != '[')
		return -EINVAL;
	c->i++;
	ws(c);
	if (c->i < c->n && c->s[c->i] == ']') {
		c->i++;
		return 0;
	}
	for (int k = 0;; k++) {
		ws(c);
		if (k == DC_HIST_N || num(c, &v, NULL) || v < 0)
			return -EINVAL;
		h[k] = v;
		ws(c);
		if (c->i < c->n && c->s[c->i] == ']') {
			c->i++;
			return 0;
		}
		if (c->i >= c->n || c->s[c->i] != ',')
			return -EINVAL;
		c->i++;
	}
}

/* Counter fields that are plain counts, by key. */
static uint64_t *counter_field(struct dc_trace_event *ev,
			       const struct dc_str *k)
{
	if (KEY(k, "seq"))
		return &ev->seq;
	if (KEY(k, "consec"))
		return &ev->consec;
	if (KEY(k, "switches"))
		return &ev->switches;
	if (KEY(k, "errs"))
		return &ev->errs;
	return NULL;
}

static int args(struct scan *c, struct dc_trace_event *ev)
{
	uint64_t *cf;
	struct dc_str k;
	int64_t v;
	int r;

	if (c->i >= c->n || c->s[c->i] != '{')
		return skip(c, 1);
	ev->args = c->s + c->i;
	c->i++;
	for (int first = 1; (r = member(c, first, &k)) > 0; first = 0) {
		if (KEY(&k, "hhash")) {
			r = hash(c, &ev->hhash);
			ev->has |= DC_EV_HHASH;
		} else if (KEY(&k, "fhash")) {
			r = hash(c, &ev->fhash);
			ev->has |= DC_EV_FHASH;
		} else if (KEY(&k, "size")) {
			r = int_field(c, &ev->size, ev, DC_EV_SIZE);
		} else if (KEY(&k, "ret")) {
			r = int_field(c, &ev->ret, ev, DC_EV_RET);
		} else if (KEY(&k, "offset")) {
			r = int_field(c, &ev->offset, ev, DC_EV_OFFSET);
		} else if (KEY(&k, "whence")) {
			r = int_field(c, &ev->whence, ev, DC_EV_WHENCE);
		} else if (KEY(&k, "flags")) {
			r = int_field(c, &ev->flags, ev, DC_EV_FLAGS);
		} else if (KEY(&k, "mode") && c->s[c->i] != '"') {
			/* An open's; the start record's is a word. */
			r = int_field(c, &ev->mode, ev, DC_EV_MODE);
		} else if (KEY(&k, "selection")) {
			r = int_field(c, &ev->selection, ev, DC_EV_SELECTION);
		} else if (KEY(&k, "regular")) {
			r = int_field(c, &ev->regular, ev, 0);
		} else if (KEY(&k, "ndims")) {
			r = int_field(c, &ev->ndims, ev, DC_EV_SHAPE);
		} else if (KEY(&k, "npoints")) {
			r = int_field(c, &ev->npoints, ev, 0);
		} else if (KEY(&k, "typesize")) {
			r = int_field(c, &ev->typesize, ev, 0);
		} else if (KEY(&k, "object")) {
			r = str(c, &ev->object);
			ev->has |= DC_EV_OBJECT;
		} else if (KEY(&k, "aio_helper")) {
			r = int_field(c, &v, ev, 0);
			ev->has |= v ? DC_EV_AIO_HELPER : 0;
		} else if (KEY(&k, "size_unknown")) {
			r = int_field(c, &v, ev, 0);
			ev->unsized = v > 0 ? (uint64_t)v : 0;
			ev->has |= v > 0 ? DC_EV_SIZE_UNKNOWN : 0;
		} else if (KEY(&k, "level")) {
			r = int_field(c, &ev->level, ev, DC_EV_LEVEL);
		} else if (KEY(&k, "p_idx")) {
			r = int_field(c, &ev->p_idx, ev, DC_EV_PIDX);
		} else if (KEY(&k, "count")) {
			r = int_field(c, &v, ev, DC_EV_COUNT);
			ev->count = v;
		} else if (KEY(&k, "dur_sum")) {
			r = int_field(c, &v, ev, DC_EV_DUR_SUM);
			ev->dur_sum = v;
		} else if (KEY(&k, "size_sum")) {
			r = int_field(c, &v, ev, DC_EV_SIZE_SUM);
			ev->size_sum = v;
		} else if ((cf = counter_field(ev, &k))) {
			r = num(c, &v, NULL);
			*cf = v;
		} else if (KEY(&k, "max_byte")) {
			r = num(c, &ev->max_byte, NULL);
		} else if (KEY(&k, "inner")) {
			r = num(c, &v, NULL);
			ev->inner = v != 0;
		} else if (KEY(&k, "hist")) {
			r = hist(c, ev->hist);
		} else if (KEY(&k, "name")) {
			r = raw_value(c, &ev->arg_name);
			ev->has |= DC_EV_ARG_NAME;
		} else if (KEY(&k, "value")) {
			r = raw_value(c, &ev->arg_value);
			ev->has |= DC_EV_ARG_VALUE;
		} else {
			r = skip(c, 1);
		}
		if (r)
			return -EINVAL;
	}
	ev->args_len = c->s + c->i - ev->args;
	return r;
}

static int top(struct scan *c, struct dc_trace_event *ev)
{
	struct dc_str k, s;
	int64_t v;
	int r;

	for (int first = 1; (r = member(c, first, &k)) > 0; first = 0) {
		if (KEY(&k, "name")) {
			r = str(c, &ev->name);
		} else if (KEY(&k, "cat")) {
			r = str(c, &ev->cat);
		} else if (KEY(&k, "ph")) {
			/* A non-string ph (Perfetto would drop it) is kept
			 * as "missing". */
			if (c->i < c->n && c->s[c->i] == '"') {
				r = str(c, &s);
				ev->ph = !r && s.n == 1 ? s.p[0] : 0;
			} else {
				r = skip(c, 1);
			}
		} else if (KEY(&k, "ts")) {
			r = int_field(c, &ev->ts, ev, DC_EV_TS);
		} else if (KEY(&k, "dur")) {
			r = int_field(c, &ev->dur, ev, DC_EV_DUR);
		} else if (KEY(&k, "id")) {
			r = int_field(c, &v, ev, DC_EV_ID);
			ev->id = v;
		} else if (KEY(&k, "pid")) {
			r = int_field(c, &v, ev, DC_EV_PID);
			ev->pid = v;
		} else if (KEY(&k, "tid")) {
			r = int_field(c, &v, ev, DC_EV_TID);
			/* A kernel request's lane track (tid + 2^30 + lane <<
			 * 22, docs/trace-format.md) belongs to its thread. */
			ev->tid = v & DC_LANE_BIT ? v & DC_TID_MASK : v;
		} else if (KEY(&k, "args")) {
			r = args(c, ev);
		} else {
			r = skip(c, 1);
		}
		if (r)
			return -EINVAL;
	}
	return r;
}

int dc_event_parse(const char *line, size_t len, struct dc_trace_event *ev)
{
	struct scan c = { .s = line, .n = len };

	memset(ev, 0, sizeof(*ev));
	ev->p_idx = -1;
	ws(&c);
	if (c.i == c.n)
		return DC_EVENT_SKIP;
	if (c.s[c.i] == '[' || c.s[c.i] == ']') {
		c.i++;
		ws(&c);
		if (c.i == c.n)
			return DC_EVENT_SKIP;
	}
	if (c.s[c.i] != '{') {
		fail(&c, "expected '{'");
		goto bad;
	}
	c.i++;
	if (top(&c, ev))
		goto bad;
	/* Some writers separate events with a comma. */
	ws(&c);
	if (c.i < c.n && c.s[c.i] == ',')
		c.i++;
	ws(&c);
	if (c.i != c.n) {
		fail(&c, "text after the event");
		goto bad;
	}
	if (!ev->name.p) {
		c.i = 0;
		fail(&c, "no name");
		goto bad;
	}
	return 0;
bad:
	ev->err = c.err;
	ev->err_col = c.err_col;
	return -EINVAL;
}

int dc_json_member(const char *s, size_t len, size_t *pos, struct dc_str *key,
		   struct dc_str *val)
{
	struct scan c = { .s = s, .n = len, .i = *pos };
	int first, r;

	if (c.i >= c.n)
		return -EINVAL;
	if (c.s[c.i] == '}')
		return 0;
	first = c.s[c.i] == '{';
	if (first)
		c.i++;
	r = member(&c, first, key);
	if (r <= 0) {
		*pos = c.i ? c.i - 1 : 0;
		return r;
	}
	if (raw_value(&c, val))
		return -EINVAL;
	*pos = c.i;
	return 1;
}

size_t dc_str_copy(const struct dc_str *s, char *out, size_t cap)
{
	size_t o = 0;

	if (!cap)
		return 0;
	for (uint32_t i = 0; i < s->n && o + 1 < cap; i++) {
		char ch = s->p[i];

		if (!s->esc || ch != '\\' || i + 1 >= s->n) {
			out[o++] = ch;
			continue;
		}
		ch = s->p[++i];
		switch (ch) {
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u': {
			unsigned cp = 0;

			for (int k = 1; k <= 4 && i + k < s->n; k++) {
				char h = s->p[i + k];

				cp = cp << 4 | (h <= '9'   ? h - '0'
						: h >= 'a' ? h - 'a' + 10
							   : h - 'A' + 10);
			}
			i += 4;
			/* UTF-8; a lone surrogate becomes U+FFFD. */
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0xfffd;
			if (cp < 0x80) {
				out[o++] = cp;
			} else if (cp < 0x800 && o + 2 < cap) {
				out[o++] = 0xc0 | cp >> 6;
				out[o++] = 0x80 | (cp & 0x3f);
			} else if (o + 3 < cap) {
				out[o++] = 0xe0 | cp >> 12;
				out[o++] = 0x80 | ((cp >> 6) & 0x3f);
				out[o++] = 0x80 | (cp & 0x3f);
			}
			break;
		}
		default: out[o++] = ch;
		}
	}
	out[o] = 0;
	return o;
}

/* A time no run has (before 1970, or in 146,000 years): the sums and
 * the time bins of the rest then cannot overflow. */
static bool times_ok(const struct dc_trace_event *ev)
{
	return ev->ts >= 0 && ev->ts < DC_TIME_MAX &&
	       (!(ev->has & DC_EV_DUR) ||
		(ev->dur >= 0 && ev->dur < DC_TIME_MAX)) &&
	       (ev->ph != 'C' || ev->dur_sum < DC_TIME_MAX);
}

int dc_event_check(int status, struct dc_trace_event *ev)
{
	bool timed = ev->ph == 'X' || ev->ph == 'C';

	if (status)
		return status;
	/* dftracer-utils' rules: every event has a string ph, a name (the
	 * parser checks it) and, if it is timed, a ts. */
	if (!ev->ph)
		ev->err = "no ph, or ph is not a string";
	else if (timed && !(ev->has & DC_EV_TS))
		ev->err = "no ts";
	else if (timed && !times_ok(ev))
		ev->err = "ts or dur outside 0..2^62";
	else
		return 0;
	return -EINVAL;
}
