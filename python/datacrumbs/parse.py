# SPDX-License-Identifier: MIT
"""Lines of a trace into records, with the rules of report/event.c and
report/agg.c: which lines are events, which are skipped ("[", "]",
blank) and which are bad (not JSON, no name, a field of the wrong type,
a time out of range, no string ph, a timed event without ts, longer
than MAX_LINE), each bad one with its reason."""
import json
import re

from ._keys import INT64_MAX
from .core import const

SKIP, BAD = "skip", "bad"
# A longer line is damaged: readers skip it in bounded pieces, never
# holding it whole (a 4 GiB line fits in a 4 MB gzip).
MAX_LINE = const("LINE_MAX")
TOO_LONG = "line longer than %d bytes" % MAX_LINE
_WS = " \t\r\n"
_LEAD = re.compile(r"-?\d+")


def _int_part(text):
    """A number with a fraction or exponent: its integer part, as the
    report's parser takes it."""
    v = int(_LEAD.match(text).group())
    return max(-INT64_MAX, min(INT64_MAX, v))


def _no_constant(name):
    raise ValueError("%s is not a JSON number" % name)


_decoder = json.JSONDecoder(parse_float=_int_part, parse_constant=_no_constant)
_decode, _scan = _decoder.decode, _decoder.scan_once


def _loose(s):
    """What the report also accepts around an event: a leading "[" or "]"
    and a trailing comma; SKIP for "[", "]" and blank lines."""
    t = s.strip(_WS)
    if t[:1] in ("[", "]"):
        t = t[1:].lstrip(_WS)
    if not t:
        return SKIP
    if t.endswith(","):
        t = t[:-1]
    try:
        return _decode(t)
    except (ValueError, RecursionError) as e:
        return "not a JSON event: %s" % getattr(e, "msg", e)


def _clamp(v):
    if -INT64_MAX <= v <= INT64_MAX:
        return v
    return INT64_MAX if v > 0 else -INT64_MAX


_TOP_INTS = ("ts", "dur", "id", "pid", "tid")
# Times (us) a trace can hold: 0 up to, not including, the bound
# datacrumbs-report takes (2^62). Past it sums and bin arithmetic would
# overflow; no clock gives such a time, so the line is damaged.
MAX_TIME_US = const("TIME_MAX")
_ARG_INTS = ("size", "ret", "level", "p_idx", "count", "dur_sum", "size_sum")


def event(s):
    """One line (text without its newline) -> a dict, SKIP, or a reason
    string for a bad line."""
    try:
        # A line that is exactly one object, the usual case, in one call.
        o, end = _scan(s, 0)
        if end != len(s):
            raise ValueError
    except (StopIteration, ValueError, RecursionError):
        o = _loose(s)
        if type(o) is str:
            return o
    if type(o) is not dict:
        return "not a JSON object"
    if type(o.get("name")) is not str:
        return "no name, or name is not a string"
    if "cat" in o and type(o["cat"]) is not str:
        return "cat is not a string"
    for k in _TOP_INTS:
        v = o.get(k, 0)
        if type(v) is not int or not -INT64_MAX <= v <= INT64_MAX:
            if type(v) is not int:
                return "%s is not a number" % k
            o[k] = _clamp(v)
    a = o.get("args")
    if type(a) is dict:
        for k in _ARG_INTS:
            v = a.get(k, 0)
            if type(v) is not int or not -INT64_MAX <= v <= INT64_MAX:
                if type(v) is not int:
                    return "args.%s is not a number" % k
                a[k] = _clamp(v)
        for k in ("fhash", "hhash"):
            if k in a and type(a[k]) is not str and type(a[k]) is not int:
                return "args.%s is not a string or number" % k
    for k in ("ts", "dur"):
        if k in o and not 0 <= o[k] < MAX_TIME_US:
            return "%s out of range (0 to 2^62 us)" % k
    ph = o.get("ph")
    if type(ph) is not str or len(ph) != 1 or ph >= "\x80":
        return "no ph, or ph is not a string"
    if (ph == "X" or ph == "C") and "ts" not in o:
        return "no ts"
    return o


def text_value(v):
    """A metadata value as the report copies it: strings as they are,
    anything else as its JSON text."""
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(",", ":"))
