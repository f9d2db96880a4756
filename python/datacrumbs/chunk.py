# SPDX-License-Identifier: MIT
"""One partition of a trace, read and parsed: its calls as columns
(load()'s rows)."""
import numpy as np
import pandas as pd

from . import gzstream
from ._keys import M64, hash_ref
from .core import const
from .parse import MAX_LINE, TOO_LONG, event

# The call columns, in the order rows are built.
COLUMNS = ("line", "counter", "cat", "name", "id", "pid", "tid", "ts", "dur",
           "p_idx", "fhash", "hhash", "size", "ret", "count", "dur_sum",
           "size_sum", "level", "offset")
_OPTIONAL = ("p_idx", "size", "ret", "size_sum", "level", "offset")


class Chunk:
    """A parsed partition. calls: one row per call (ph X or C) in file
    order, with has_<field> columns for the optional fields."""

    def __init__(self, trace, path):
        self.trace, self.path = trace, path
        self.calls = None


def _hashes(col):
    conv = {v: hash_ref(v) for v in set(col) if v is not None}
    has = np.fromiter((v is not None for v in col), bool, len(col))
    vals = np.fromiter((conv[v] if v is not None else 0 for v in col), np.uint64, len(col))
    return vals, has


def _ints(col, dtype=np.int64):
    try:
        return np.array(col, dtype=dtype)
    except OverflowError:
        return np.array([v & M64 for v in col], dtype=np.uint64).astype(dtype)


def _thread(tid):
    """A kernel request's lane track (tid + 2**30 + lane * 2**22) is its
    thread's, as datacrumbs-report reads it."""
    return np.where(tid & const("LANE_BIT"), tid & const("TID_MASK"), tid)


def _frame(rows):
    cols = dict(zip(COLUMNS, zip(*rows))) if rows else {c: () for c in COLUMNS}
    out = {
        "line": np.array(cols["line"], dtype=np.int64),
        "counter": np.array(cols["counter"], dtype=bool),
        "cat": pd.Categorical(cols["cat"]),
        "name": pd.Categorical(cols["name"]),
        "id": _ints(cols["id"]),
        "pid": (_ints(cols["pid"]) & 0xFFFFFFFF).astype(np.uint32),
        "tid": _thread(_ints(cols["tid"]) & 0xFFFFFFFF).astype(np.uint32),
        "ts": _ints(cols["ts"]),
        "dur": _ints(cols["dur"]),
        "count": _ints([v & M64 for v in cols["count"]], np.uint64),
        "dur_sum": _ints([v & M64 for v in cols["dur_sum"]], np.uint64),
    }
    for k in ("fhash", "hhash"):
        out[k], out["has_" + k] = _hashes(cols[k])
    for k in _OPTIONAL:
        ok = [type(v) is int for v in cols[k]]
        vals = [v if t else 0 for v, t in zip(cols[k], ok)]
        out["has_" + k] = np.array(ok, dtype=bool)
        out[k] = _ints([v & M64 for v in vals], np.uint64) if k == "size_sum" else _ints(vals)
    return pd.DataFrame(out)


def lines_of(pieces):
    """The lines (bytes, without their newline) of the text in @pieces;
    None for a line longer than MAX_LINE, which is dropped as it comes,
    never held whole."""
    carry, long = b"", False
    for data in pieces:
        first = data.find(b"\n")
        if first < 0:
            if not long:
                if len(carry) + len(data) > MAX_LINE:
                    carry, long = b"", True
                else:
                    carry += data
            continue
        if long or len(carry) + first > MAX_LINE:
            yield None
        else:
            yield carry + data[:first] if carry else data[:first]
        long = False
        last = data.rfind(b"\n")
        if last > first:
            for b in data[first + 1:last].split(b"\n"):
                yield b if len(b) <= MAX_LINE else None
        carry = data[last + 1:]
        if len(carry) > MAX_LINE:
            carry, long = b"", True
    if long:
        yield None
    elif carry:
        yield carry


def parse(ch, text, first_line):
    """Parse @text (bytes, or an iterable of pieces of it), whose first
    line is line @first_line, into @ch."""
    rows = []
    line = first_line - 1
    for b in lines_of([text] if isinstance(text, (bytes, bytearray)) else text):
        line += 1
        o = TOO_LONG if b is None else event(b.decode("utf-8", "surrogateescape"))
        if type(o) is not dict:
            continue  # damaged or blank: the summary names it, load() has no row
        ph = o["ph"]
        if ph == "X" or ph == "C":
            cat = o.get("cat", "")
            if ph == "X" and cat == "dftracer":
                continue  # start and end records
            a = o.get("args")
            if type(a) is not dict:
                a = {}
            g = a.get
            rows.append((line, ph == "C", cat, o["name"], o.get("id", 0), o.get("pid", 0),
                         o.get("tid", 0), o["ts"], o.get("dur", 0), g("p_idx"), g("fhash"),
                         g("hhash"), g("size"), g("ret"), g("count", 0), g("dur_sum", 0),
                         g("size_sum"), g("level"), g("offset")))
    ch.calls = _frame(rows)
    return ch


def read(trace, path, gz, part):
    """Read and parse one partition (index.Part) of trace number @trace."""
    text = gzstream.iter_text(path, gz, part.off, part.skip, part.length)
    return parse(Chunk(trace, path), text, part.first_line)
