# SPDX-License-Identifier: MIT
"""The summary's tables, per partition and then merged in trace order,
with report/agg.c's definitions: calls, time, latency histogram, bytes
(args.size, size_sum for counters, the positive ret of a read or write
without size), errors; per layer, function, file and process."""
import math

import numpy as np
import pandas as pd

from ._keys import M64, func_key, proc_key, raw

HIST_N = 64 + 58 * 32


# Which way a call's bytes go, by its name, as datacrumbs-report tells.
_READS = ("read", "get", "scanf")
_WRITES = ("write", "put", "printf")

def bucket(v):
    """report/hist.c's log-linear bucket of each value of @v (>= 0)."""
    v = np.asarray(v, dtype=np.uint64)
    out = v.astype(np.int64)
    big = v >= 64
    if big.any():
        w = v[big]
        k = np.frexp(w.astype(np.float64))[1].astype(np.int64) - 1
        k -= (np.left_shift(np.uint64(1), k.astype(np.uint64)) > w).astype(np.int64)
        sub = np.right_shift(w, (k - 5).astype(np.uint64)) & np.uint64(31)
        out[big] = 64 + (k - 6) * 32 + sub.astype(np.int64)
    return out


def lower(i):
    if i < 64:
        return i
    k = (i - 64) // 32 + 6
    return (32 + (i - 64) % 32) << (k - 5)


def pct(hist, total, p):
    """Nearest-rank percentile @p of a histogram, as its bucket's lower
    bound."""
    rank = max(1, math.ceil(p / 100.0 * float(total)))
    seen = 0
    for b in sorted(hist):
        seen += hist[b]
        if seen >= rank:
            return lower(b)
    return 0


# A stat: [count, time, min, min over all rows, max, bytes, read, written,
#          io_time, errors, timed, hist {bucket: n}]; min None without rows.
COUNT, TIME, MIN, MINALL, MAX, BYTES, READ, WRITTEN, IO, ERRORS, TIMED, HIST = range(12)


def new_stat():
    return [0, 0, None, None, 0, 0, 0, 0, 0, 0, 0, {}]


def merge_stat(a, b):
    """@a then @b, as if b's calls came after a's."""
    out = [a[i] + b[i] if i not in (MIN, MINALL, MAX) else None for i in range(HIST)]
    out[MAX] = max(a[MAX], b[MAX])
    # The report's min restarts while its count is 0 (counters of no
    # calls): b's own min then, else the least of all b's rows.
    if b[MIN] is None:
        out[MIN] = a[MIN]
    elif a[MIN] is None or a[COUNT] == 0:
        out[MIN] = b[MIN]
    else:
        out[MIN] = min(a[MIN], b[MINALL])
    mins = [m for m in (a[MINALL], b[MINALL]) if m is not None]
    out[MINALL] = min(mins) if mins else None
    h = dict(a[HIST])
    for k, v in b[HIST].items():
        h[k] = h.get(k, 0) + v
    out.append(h)
    return out


def _stats(g, rows, bytes_rows, c, hist=True):
    """Stats per group code @g over the rows selected by @rows (counts,
    time, min, max, errors, histogram) and @bytes_rows (bytes moved).
    Returns {code: stat}."""
    out = {}
    n, d, b, dirv, err, timed = c
    sel = rows
    df = pd.DataFrame({"g": g[sel], "n": n[sel], "d": d[sel],
                       "io": np.where(b[sel] >= 0, d[sel], 0),
                       "err": err[sel].astype(np.int64),
                       "tn": np.where(timed[sel], n[sel], 0)})
    if len(df):
        grp = df.groupby("g", sort=False)
        sums = grp[["n", "d", "io", "err", "tn"]].sum()
        mins, maxs = grp["d"].min(), grp["d"].max()
        for code, s in zip(sums.index.tolist(), sums.itertuples(index=False)):
            st = new_stat()
            st[COUNT], st[TIME], st[IO], st[ERRORS] = (
                int(s.n), int(s.d), int(s.io), int(s.err))
            st[TIMED] = int(s.tn) if hist else 0  # files have no latencies
            st[MINALL] = st[MIN] = int(mins[code])
            st[MAX] = int(maxs[code])
            out[code] = st
        if not (n[sel] > 0).all():
            _restart_min(out, df)
        if hist and (tsel := timed[sel]).any():
            key = df["g"].to_numpy()[tsel] * HIST_N + bucket(df["d"].to_numpy()[tsel])
            keys, counts = np.unique(key, return_counts=True)
            for k, cnt in zip(keys.tolist(), counts.tolist()):
                h = out[k // HIST_N][HIST]
                h[k % HIST_N] = cnt
    bsel = bytes_rows
    if bsel.any():
        bf = pd.DataFrame({"g": g[bsel], "b": b[bsel],
                           "r": np.where(dirv[bsel] == 1, b[bsel], 0),
                           "w": np.where(dirv[bsel] == 2, b[bsel], 0)})
        for code, s in bf.groupby("g", sort=False).sum().iterrows():
            st = out.setdefault(code, new_stat())
            st[BYTES], st[READ], st[WRITTEN] = int(s.b), int(s.r), int(s.w)
    return out


def _restart_min(out, df):
    """Where counters of no calls lead a group, the report's min is the
    min from the first row with calls on (or the last row's, if none)."""
    for code, grp in df.groupby("g", sort=False):
        nz = np.flatnonzero(grp["n"].to_numpy() > 0)
        d = grp["d"].to_numpy()
        out[code][MIN] = int(d[nz[0]:].min()) if len(nz) else int(d[-1])


class Partial:
    """Everything the summary adds up, for a run of partitions."""

    def __init__(self):
        self.funcs = {}  # fkey -> [first, cat, name, stat]
        self.layers = {}  # name -> [first, stat, root calls, root time]
        self.files = {}  # fhash -> [first, stat, {layer: [calls, time]}]
        self.procs = {}  # key -> [first, hhash, pid, calls, busy, name, rank]
        self.slowest = []  # (-dur, first, fkey, ts, pid, tid, bytes, fhash)
        self.events = self.counters = self.lines = self.bad = 0
        self.good = {}  # trace -> lines that are records
        self.errors = []  # (first, reason)
        self.t_min = self.t_max = None
        self.run_start = self.run_end = None
        self.cmd = None
        self.ends = {}  # key -> sum, in the order first met
        self.end_records = 0


def derive(calls):
    """Add what the tables key on to a chunk's calls: fkey, layer, dir
    (1 read, 2 write), n (calls it stands for), deff (its time, as the
    report takes it), d (deff, not below 0) and bytes (-1: none)."""
    cat, name = calls["cat"].cat, calls["name"].cat
    pair = cat.codes.to_numpy().astype(np.int64) * max(1, len(name.categories)) \
        + name.codes.to_numpy()
    codes, uniq = pd.factorize(pair)
    nn = max(1, len(name.categories))
    uniq = [(cat.categories[u // nn], name.categories[u % nn]) for u in uniq.tolist()]
    fkeys = np.array([func_key(c, nm) for c, nm in uniq], dtype=np.uint64)
    layers = np.array([c if len(raw(c)) <= 255
                       else raw(c)[:255].decode("utf-8", "surrogateescape")
                       for c, _ in uniq] + [""], dtype=object)[:-1]
    dirs = np.array([1 if any(w in nm for w in _READS) else 2 if any(w in nm for w in _WRITES)
                     else 0 for _, nm in uniq],
                    dtype=np.int8)
    calls["fkey"] = fkeys[codes]
    calls["layer"] = layers[codes]
    calls["dir"] = dirs[codes]
    counter = calls["counter"].to_numpy()
    calls["n"] = np.where(counter, calls["count"].to_numpy(), np.uint64(1))
    calls["deff"] = np.where(counter, calls["dur_sum"].to_numpy().astype(np.int64),
                             np.maximum(calls["dur"].to_numpy(), 0))
    calls["d"] = np.maximum(calls["deff"].to_numpy(), 0)
    size = calls["size"].to_numpy()
    ret = calls["ret"].to_numpy()
    x_bytes = np.where(calls["has_size"].to_numpy(), np.where(size >= 0, size, -1),
                       np.where((calls["dir"].to_numpy() > 0) & calls["has_ret"].to_numpy()
                                & (ret > 0), ret, -1))
    c_bytes = np.where(calls["has_size_sum"].to_numpy(),
                       calls["size_sum"].to_numpy().astype(np.int64), -1)
    calls["bytes"] = np.where(counter, c_bytes, x_bytes)
    return calls


def _first_rows(g, line):
    """For each group code: its first row (rows are in line order)."""
    _, idx = np.unique(g, return_index=True)
    return {int(g[i]): (int(line[i]), int(i)) for i in idx}


def partial(ch, nest_out, hh):
    """The tables of one parsed partition (chunk.Chunk with derive()d
    calls); @nest_out: nest.step's per-call flags; @hh: the trace's first
    HH record (line, key) or None."""
    root, fout, fsized = nest_out
    p = Partial()
    t = ch.trace
    calls = ch.calls
    p.lines, p.bad = ch.lines, ch.bad
    p.good = {t: ch.good}
    p.errors = [((t, line), why) for line, why in ch.errors]
    line = calls["line"].to_numpy()
    counter = calls["counter"].to_numpy()
    n = calls["n"].to_numpy().astype(np.uint64)
    d = calls["d"].to_numpy()
    deff = calls["deff"].to_numpy()
    b = calls["bytes"].to_numpy()
    dirv = calls["dir"].to_numpy()
    err = calls["has_ret"].to_numpy() & (calls["ret"].to_numpy() < 0)
    timed = ~counter
    c = (n, d, b, dirv, err, timed)
    everything = np.ones(len(calls), dtype=bool)
    p.events = int(timed.sum())
    p.counters = int(counter.sum())
    if len(calls):
        ts = calls["ts"].to_numpy()
        p.t_min = int(ts.min())
        p.t_max = int((ts + calls["dur"].to_numpy()).max())

    fk = calls["fkey"].to_numpy()
    fcodes, funiq = pd.factorize(fk)
    stats = _stats(fcodes, everything, b >= 0, c)
    cats, names = calls["cat"].astype(object).to_numpy(), calls["name"].astype(object).to_numpy()
    for code, (ln, i) in _first_rows(fcodes, line).items():
        p.funcs[int(funiq[code])] = [(t, ln), cats[i], names[i], stats[code]]

    lay = calls["layer"].to_numpy()
    lcodes, luniq = pd.factorize(lay)
    stats = _stats(lcodes, everything, b >= 0, c)
    rcount = pd.Series(n[root]).groupby(lcodes[root]).sum()
    rtime = pd.Series(deff[root]).groupby(lcodes[root]).sum()
    for code, (ln, i) in _first_rows(lcodes, line).items():
        p.layers[luniq[code]] = [(t, ln), stats[code], int(rcount.get(code, 0)),
                                 int(rtime.get(code, 0))]

    hasf = calls["has_fhash"].to_numpy()
    if hasf.any():
        fh = calls["fhash"].to_numpy()[hasf]
        sub = tuple(a[hasf] for a in c)
        gcodes, guniq = pd.factorize(fh)
        stats = _stats(gcodes, fout[hasf], fsized[hasf] & (sub[2] >= 0), sub, hist=False)
        per = pd.DataFrame({"g": gcodes, "l": lay[hasf], "n": sub[0], "t": deff[hasf]})
        per = per.groupby(["g", "l"], sort=False)[["n", "t"]].sum()
        layers = {}
        for (code, l), r in zip(per.index.tolist(), per.itertuples(index=False)):
            layers.setdefault(code, {})[l] = [int(r.n), int(r.t)]
        for code, (ln, i) in _first_rows(gcodes, line[hasf]).items():
            p.files[int(guniq[code])] = [(t, ln), stats.get(code, new_stat()), layers[code]]

    _procs(p, ch, calls, hh, n, deff, root)

    x = np.flatnonzero(timed)
    if len(x):
        dur = calls["dur"].to_numpy()[x]
        top = x[np.lexsort((line[x], -dur))[:10]]
        fhash = np.where(hasf, calls["fhash"].to_numpy(), 0)
        p.slowest = [(-int(calls["dur"].iat[i]), (t, int(line[i])), int(fk[i]),
                      int(calls["ts"].iat[i]), int(calls["pid"].iat[i]),
                      int(calls["tid"].iat[i]), int(b[i]), int(fhash[i])) for i in top]

    for ln, kind, ts, v in ch.markers:
        if kind == "start":
            p.run_start = ts if p.run_start is None else min(p.run_start, ts)
            if p.cmd is None and v is not None:
                p.cmd = v
        else:
            p.run_end = ts if p.run_end is None else max(p.run_end, ts)
            p.end_records += 1
            for k, val in v:
                p.ends[k] = (p.ends.get(k, 0) + val) & M64
    return p


def _trace_hh(line, hh):
    """The host of records without one: the trace's first HH, once read."""
    if hh is None:
        return np.zeros(len(line), dtype=np.uint64)
    return np.where(line > hh[0], np.uint64(hh[1]), np.uint64(0))


def _procs(p, ch, calls, hh, n, deff, root):
    t = ch.trace
    line = calls["line"].to_numpy()
    own = calls["hhash"].to_numpy()
    own = np.where(calls["has_hhash"].to_numpy() & (own != 0), own, _trace_hh(line, hh))
    pid = calls["pid"].to_numpy().astype(np.uint64)
    with np.errstate(over="ignore"):
        key = (own * np.uint64(1000003)) ^ pid
    key[key == 0] = 1
    rows = {}  # key -> [first, hhash, pid, calls, busy, name, rank]
    for line_, kind, hh_, pid_, text in ch.procs:
        h = hh_ or (hh[1] if hh is not None and line_ > hh[0] else 0)
        k = proc_key(h, pid_)
        r = rows.setdefault(k, [(t, line_), h, pid_, 0, 0, None, None])
        r[5 if kind == "name" else 6] = ((t, line_), text)
    if len(calls):
        codes, uniq = pd.factorize(key)
        cnt = pd.Series(n).groupby(codes).sum()
        busy = pd.Series(np.where(root, deff, 0)).groupby(codes).sum()
        for code, (ln, i) in _first_rows(codes, line).items():
            k = int(uniq[code])
            r = rows.get(k)
            if r is None or (t, ln) < r[0]:
                first = [(t, ln), int(own[i]), int(pid[i])]
                r = rows[k] = first + (r[3:] if r else [0, 0, None, None])
            r[3] += int(cnt[code])
            r[4] += int(busy[code])
    p.procs = rows


def _later(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return b if b[0] > a[0] else a


def merge(a, b):
    """Partials @a then @b (b's traces and lines come after a's)."""
    p = Partial()
    p.funcs = dict(a.funcs)
    for k, v in b.funcs.items():
        o = p.funcs.get(k)
        p.funcs[k] = v if o is None else [o[0], o[1], o[2], merge_stat(o[3], v[3])]
    p.layers = dict(a.layers)
    for k, v in b.layers.items():
        o = p.layers.get(k)
        p.layers[k] = v if o is None else [o[0], merge_stat(o[1], v[1]), o[2] + v[2],
                                           o[3] + v[3]]
    p.files = dict(a.files)
    for k, v in b.files.items():
        o = p.files.get(k)
        if o is None:
            p.files[k] = v
            continue
        layers = {l: list(x) for l, x in o[2].items()}
        for l, (cn, tm) in v[2].items():
            x = layers.setdefault(l, [0, 0])
            x[0] += cn
            x[1] += tm
        p.files[k] = [o[0], merge_stat(o[1], v[1]), layers]
    p.procs = dict(a.procs)
    for k, v in b.procs.items():
        o = p.procs.get(k)
        p.procs[k] = v if o is None else [o[0], o[1], o[2], o[3] + v[3], o[4] + v[4],
                                          _later(o[5], v[5]), _later(o[6], v[6])]
    p.slowest = sorted(a.slowest + b.slowest)[:10]
    p.events, p.counters = a.events + b.events, a.counters + b.counters
    p.lines, p.bad = a.lines + b.lines, a.bad + b.bad
    p.good = dict(a.good)
    for k, v in b.good.items():
        p.good[k] = p.good.get(k, 0) + v
    p.errors = (a.errors + b.errors)[:10]
    p.t_min = _pick(min, a.t_min, b.t_min)
    p.t_max = _pick(max, a.t_max, b.t_max)
    p.run_start = _pick(min, a.run_start, b.run_start)
    p.run_end = _pick(max, a.run_end, b.run_end)
    p.cmd = a.cmd if a.cmd is not None else b.cmd
    p.ends = dict(a.ends)
    for k, v in b.ends.items():
        p.ends[k] = (p.ends.get(k, 0) + v) & M64
    p.end_records = a.end_records + b.end_records
    return p


def _pick(f, x, y):
    if x is None:
        return y
    if y is None:
        return x
    return f(x, y)
