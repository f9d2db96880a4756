# SPDX-License-Identifier: MIT
"""The summary as datacrumbs-report --json writes it (report/json_out.c):
the same keys in the same order, numbers printed the same way, strings
escaped the same way, so the two can be compared byte for byte."""
import heapq

from . import agg
from ._keys import key_of, map_order, raw
from .chunk import trunc

INT64_MAX = (1 << 63) - 1
MAX_LAYERS = 32


def _utf8_len(b, i):
    c = b[i]
    if c < 0x80:
        return 1
    if 0xC2 <= c <= 0xDF:
        n, cp = 2, c & 0x1F
    elif 0xE0 <= c <= 0xEF:
        n, cp = 3, c & 0x0F
    elif 0xF0 <= c <= 0xF4:
        n, cp = 4, c & 0x07
    else:
        return 0
    if len(b) - i < n:
        return 0
    for k in range(1, n):
        if b[i + k] & 0xC0 != 0x80:
            return 0
        cp = cp << 6 | (b[i + k] & 0x3F)
    if (n == 3 and cp < 0x800) or (n == 4 and cp < 0x10000) or \
            0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
        return 0
    return n


def jstr(s):
    """lib/json.c's string literal: escapes per RFC 8259, invalid UTF-8
    as U+FFFD."""
    b = raw(s)
    out, i = bytearray(b'"'), 0
    while i < len(b):
        c = b[i]
        if 0x20 <= c < 0x80 and c not in (0x22, 0x5C):
            out.append(c)
            i += 1
        elif c in (0x22, 0x5C):
            out += b"\\" + bytes([c])
            i += 1
        elif c < 0x20:
            out += b"\\u00%02x" % c
            i += 1
        else:
            n = _utf8_len(b, i)
            out += b[i:i + n] if n else "\ufffd".encode()
            i += n or 1
    out += b'"'
    return out.decode("utf-8")


def num(v):
    """knum(): integral doubles as integers, the rest with 3 decimals."""
    f = float(v)
    if f == float(int(f)):
        return str(int(f))
    return "%.3f" % f


class _W:
    def __init__(self):
        self.parts = []

    def key(self, k):
        last = self.parts[-1][-1] if self.parts else ""
        if last not in ("{", "["):
            self.parts.append(",")
        self.parts.append(jstr(k) + ":")

    def num(self, k, v):
        self.key(k)
        self.parts.append(num(v))

    def str(self, k, v):
        self.key(k)
        self.parts.append(jstr(v) if v is not None else "null")

    def raw(self, k, text):
        self.key(k)
        self.parts.append(text)

    def open(self, c):
        last = self.parts[-1][-1] if self.parts else ""
        if last not in ("[", "{", ":"):
            self.parts.append(",")
        self.parts.append(c)

    def add(self, text):
        self.parts.append(text)


def _stat(w, s):
    count, time = s[agg.COUNT], s[agg.TIME]
    w.num("calls", count)
    w.num("time_us", time)
    w.num("mean_us", float(time) / float(count) if count else 0)
    w.num("min_us", s[agg.MIN] if s[agg.MIN] is not None else 0)
    w.num("max_us", s[agg.MAX])
    for k, p in (("p50_us", 50), ("p99_us", 99)):
        w.raw(k, str(agg.pct(s[agg.HIST], s[agg.TIMED], p)) if s[agg.TIMED] else "null")
    w.num("bytes", s[agg.BYTES])
    w.num("bytes_read", s[agg.READ])
    w.num("bytes_written", s[agg.WRITTEN])
    w.num("io_time_us", s[agg.IO])
    if s[agg.BYTES] and s[agg.IO] > 0:
        w.raw("bandwidth_bps", "%.0f" % (float(s[agg.BYTES]) / (float(s[agg.IO]) / 1e6)))
    else:
        w.raw("bandwidth_bps", "null")
    w.num("errors", s[agg.ERRORS])


def _file_rank(kv):
    """The report's order of files: by time, most first, then by hash."""
    return (-kv[1][1][agg.TIME], kv[0])


class Report:
    """The merged tables in the report's order, ready to print."""

    def __init__(self, total, states, indexes):
        self.t = total
        self.fnames, self.hnames, hkeys = {}, {}, []
        for ix in indexes:
            for _, kind, key, name in ix.names:
                m = self.fnames if kind == "F" else self.hnames
                if key not in m:
                    m[key] = name
                    if kind == "H":
                        hkeys.append(key)
        self.hosts = [self.hnames[k] for k in map_order(hkeys)]
        self.ntraces = len(indexes)
        # As datacrumbs-report counts damage: gzip members, compressed
        # bytes, and traces with no line at all.
        self.damaged = (sum(ix.bad_members for ix in indexes),
                        sum(ix.bytes_skipped for ix in indexes),
                        sum(1 for ix in indexes if not ix.lines))
        self.orphans = sum(s.orphans for s in states)
        self._layers(total, states)
        funcs = sorted(total.funcs.items(), key=lambda kv: kv[1][0])
        self.func_ix = {k: i for i, (k, _) in enumerate(funcs)}
        self.funcs = [(self.layer_of[trunc(v[1], 255)], v[2], v[3]) for _, v in funcs]
        self.files = total.files.items()  # sorted when written
        self.unknown = [(v[0], h) for h, v in total.files.items()
                        if key_of(h) not in self.fnames]
        self.unknown.sort()
        self.procs = sorted(total.procs.values(), key=lambda v: v[0])

    def _layers(self, total, states):
        order = sorted(total.layers.items(), key=lambda kv: kv[1][0])
        self.layer_of = {name: min(i, MAX_LAYERS - 1) for i, (name, _) in enumerate(order)}
        self.layers = []
        for name, (_, stat, rc, rt) in order:
            i = self.layer_of[name]
            if i < len(self.layers):  # past the limit, the rest share the last
                last = self.layers[i]
                self.layers[i] = [last[0], agg.merge_stat(last[1], stat), last[2] + rc,
                                  last[3] + rt, last[4]]
            else:
                self.layers.append([name, stat, rc, rt, [0.0] * MAX_LAYERS])
        for st in states:
            for (rl, l), v in st.by_layer.items():
                self.layers[self.layer_of[rl]][4][self.layer_of[l]] += v

    def file_name(self, h):
        name = self.fnames.get(key_of(h))
        return name if name is not None else "<fhash %016x>" % h

    def json(self, top=None):
        """The report's JSON; with @top, only the first @top hosts,
        processes, functions and files: what a text summary shows, in
        memory that does not grow with the number of files."""
        t, w = self.t, _W()
        self.top = top
        start = min(x for x in (t.run_start, t.t_min, INT64_MAX) if x is not None)
        end = max(x for x in (t.run_end, t.t_max, -INT64_MAX - 1) if x is not None)
        if end < start:
            start = end = 0
        w.add("{")
        w.num("version", 1)
        w.num("traces", self.ntraces)
        w.num("lines", t.lines)
        w.num("calls", t.events)
        w.num("counters", t.counters)
        w.num("bad_lines", t.bad)
        w.num("unknown_hashes", len(self.unknown))
        w.num("orphans", self.orphans)
        w.str("command", t.cmd)
        w.key("run")
        w.add("{")
        w.num("start_us", start)
        w.num("end_us", end)
        w.num("time_us", end - start)
        w.add("}")
        w.key("hosts")
        w.add("[" + ",".join(jstr(h) for h in self.hosts[:top]) + "]")
        self._procs(w)
        self._layer_list(w)
        self._func_list(w)
        self._file_list(w)
        self._slowest(w)
        w.key("lost")
        w.add("{")
        w.num("end_records", t.end_records)
        for k, v in t.ends.items():
            w.num(k, v)
        w.add("}")
        if any(self.damaged):
            w.key("damaged")
            w.add("{")
            w.num("members", self.damaged[0])
            w.num("bytes_skipped", self.damaged[1])
            w.num("empty_traces", self.damaged[2])
            w.add("}")
        w.add("}\n")
        return "".join(w.parts)

    def _procs(self, w):
        w.key("processes")
        w.add("[")
        for first, hh, pid, calls, busy, name, rank in self.procs[:self.top]:
            w.open("{")
            w.str("host", self.hnames.get(hh or 1))
            w.num("pid", pid)
            w.str("name", name[1] if name else None)
            w.str("rank", rank[1] if rank else None)
            w.num("calls", calls)
            w.num("busy_us", busy)
            w.add("}")
        w.add("]")

    def _layer_list(self, w):
        w.key("layers")
        w.add("[")
        for name, stat, rc, rt, by in self.layers:
            w.open("{")
            w.str("name", name)
            _stat(w, stat)
            w.key("outermost")
            w.add("{")
            w.num("calls", rc)
            w.num("time_us", rt)
            w.key("by_layer_us")
            w.add("{")
            for i, v in enumerate(by[:len(self.layers)]):
                if v > 0:
                    w.num(self.layers[i][0], v)
            w.add("}}}")
        w.add("]")

    def _func_list(self, w):
        w.key("functions")
        w.add("[")
        order = sorted(range(len(self.funcs)), key=lambda i: (-self.funcs[i][2][agg.TIME], i))
        n = 0
        for i in order:
            layer, name, stat = self.funcs[i]
            if not stat[agg.COUNT]:
                continue
            if self.top is not None and n >= self.top:
                break
            n += 1
            w.open("{")
            w.str("layer", self.layers[layer][0])
            w.str("name", name)
            _stat(w, stat)
            w.add("}")
        w.add("]")

    def _file_list(self, w):
        w.key("files")
        w.add("[")
        if self.top is None:
            files = sorted(self.files, key=_file_rank)
        else:
            files = heapq.nsmallest(self.top, self.files, key=_file_rank)
        for h, (_, stat, layers) in files:
            w.open("{")
            w.str("name", self.file_name(h))
            w.str("fhash", "%016x" % h)
            _stat(w, stat)
            w.key("layers")
            w.add("{")
            per = [[0, 0] for _ in self.layers]
            for l, (cn, tm) in layers.items():
                x = per[self.layer_of[l]]
                x[0] += cn
                x[1] += tm
            for i, (cn, tm) in enumerate(per):
                if cn:
                    w.key(self.layers[i][0])
                    w.add("{")
                    w.num("calls", cn)
                    w.num("time_us", tm)
                    w.add("}")
            w.add("}}")
        w.add("]")

    def _slowest(self, w):
        w.key("slowest")
        w.add("[")
        for negdur, _, fkey, ts, pid, tid, nbytes, fh in self.t.slowest:
            layer, name, _ = self.funcs[self.func_ix[fkey]]
            w.open("{")
            w.str("layer", self.layers[layer][0])
            w.str("name", name)
            w.num("dur_us", -negdur)
            w.num("ts_us", ts)
            w.num("pid", pid)
            w.num("tid", tid)
            w.raw("bytes", str(nbytes) if nbytes >= 0 else "null")
            w.str("file", self.file_name(fh) if fh else None)
            w.add("}")
        w.add("]")
