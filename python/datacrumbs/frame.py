# SPDX-License-Identifier: MIT
"""load(): traces as a Dask DataFrame, one row per call, names resolved.

Each trace is cut into ranges of whole gzip members of about
partition_size bytes of the file (dcr_trace_split()). One task per range
reads its FH and HH records and counts its lines; then each partition is
a range's calls, read and parsed by libdatacrumbs-report
(dcr_rows_read()) into columns, its hashes resolved with the names of
all the traces. Nothing holds a whole trace; the package parses nothing."""
import glob
import os

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from . import core
from .tracefile import TraceError, check

# Bytes of a trace file per partition.
PART_SIZE = 16 << 20

# Column -> dtype of the frame; docs/python.md says what each holds.
SCHEMA = {
    "trace": "object", "line": "int64", "id": "int64", "name": "object", "cat": "object",
    "ph": "object", "pid": "uint32", "tid": "uint32", "ts": "int64", "dur": "int64",
    "level": "Int64", "p_idx": "Int64", "fhash": "object", "file": "object",
    "hhash": "object", "host": "object", "size": "Int64", "ret": "Int64", "offset": "Int64",
    "count": "UInt64", "dur_sum": "UInt64", "size_sum": "UInt64",
}


def _paths(paths):
    if isinstance(paths, str):
        paths = [paths]
    out = []
    for p in paths:
        hits = sorted(glob.glob(p)) if glob.has_magic(p) else [p]
        if not hits:
            raise TraceError("%s: no trace matches" % p)
        out += hits
    if not out:
        raise TraceError("no traces given")
    return out


def _text(values, present, fmt):
    """@values (uint64) as text, None where not @present: each distinct
    value formatted once."""
    uniq, inv = np.unique(values, return_inverse=True)
    out = np.array([fmt(v) for v in uniq.tolist()] + [None], dtype=object)
    return out[np.where(present, inv, len(uniq))]


def _hex(values, present):
    return _text(values, present, lambda v: "%016x" % v)


def _named(values, present, names):
    # The library keys its names by hash, with 0 as 1.
    return _text(values, present, lambda v: names.get(v or 1))


def _nullable(values, present, dtype):
    arr = pd.array(values, dtype=dtype)
    arr[~present] = pd.NA
    return arr


def _names(path, begin, end):
    with core.Rows(path, begin, end, names_only=True) as r:
        return r.lines, r.names()


def _part(name, path, begin, end, base, names, hh):
    """The rows of [@begin, @end) of the trace at @path, whose first line
    is line @base + 1 of the trace; @hh: the trace's first HH's key."""
    with core.Rows(path, begin, end) as r:
        c = {k: np.frombuffer(r.column(k), dtype=np.dtype(t)).copy()
             for k, t in core.ROW_COLUMNS.items()}
        strings = np.array(r.strings() + [""], dtype=object)
    fnames, hnames = names
    has = c["has"]

    def bit(k):
        return (has & core.const("HAS_" + k)) != 0

    counter = c["ph"] == ord("C")
    own_hh = bit("HHASH")
    hh_keys = np.where(own_hh, c["hhash"], np.uint64(hh or 0))
    host = own_hh | (hh is not None)

    return pd.DataFrame({
        "trace": np.full(len(has), name, dtype=object),
        "line": c["line"] + base,
        "id": c["id"],
        "name": strings[c["name"]],
        "cat": strings[c["cat"]],
        "ph": np.where(counter, "C", "X").astype(object),
        "pid": c["pid"],
        "tid": c["tid"],
        "ts": c["ts"],
        "dur": c["dur"],
        "level": _nullable(c["level"], bit("LEVEL"), "Int64"),
        "p_idx": _nullable(c["p_idx"], bit("P_IDX"), "Int64"),
        "fhash": _hex(c["fhash"], bit("FHASH")),
        "file": _named(c["fhash"], bit("FHASH"), fnames),
        "hhash": _hex(hh_keys, host),
        "host": _named(hh_keys, host, hnames),
        "size": _nullable(c["size"], bit("SIZE"), "Int64"),
        "ret": _nullable(c["ret"], bit("RET"), "Int64"),
        "offset": _nullable(c["offset"], bit("OFFSET"), "Int64"),
        "count": _nullable(c["count"], counter, "UInt64"),
        "dur_sum": _nullable(c["dur_sum"], counter, "UInt64"),
        "size_sum": _nullable(c["size_sum"], bit("SIZE_SUM"), "UInt64"),
    })


def load(paths, partition_size=None):
    paths = _paths(paths)
    check(paths)
    partition_size = partition_size or PART_SIZE
    paths_abs = [os.path.abspath(p) for p in paths]
    ranges = dask.compute(*[dask.delayed(core.ranges, pure=True)(p, partition_size)
                            for p in paths_abs])
    scans = dask.compute(*[dask.delayed(_names, pure=True)(p, a, b)
                           for p, rs in zip(paths_abs, ranges) for a, b in rs])
    fnames, hnames = {}, {}
    parts, k = [], 0
    meta = pd.DataFrame({c: pd.Series([], dtype=v) for c, v in SCHEMA.items()})
    for name, path, rs in zip(paths, paths_abs, ranges):
        scan = scans[k:k + len(rs)]
        k += len(rs)
        hh = next((key for _, names in scan for kind, key, _ in names if kind == "H"), None)
        base = 0
        for (a, b), (lines, names) in zip(rs, scan):
            for kind, key, text in names:
                (fnames if kind == "F" else hnames).setdefault(key, text)
            parts.append((name, path, a, b, base, hh))
            base += lines
    names = dask.delayed((fnames, hnames), pure=True)
    parts = [dask.delayed(_part, pure=True)(name, path, a, b, base, names, hh)
             for name, path, a, b, base, hh in parts]
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_delayed(parts, meta=meta, verify_meta=False)
