# SPDX-License-Identifier: MIT
"""load(): traces as a Dask DataFrame, one row per call, names resolved.

The traces are indexed first (one task per trace, on the current Dask
scheduler): that finds the partitions, whole lines at most about
partition_size bytes of text each, and the FH/HH records, so every
partition resolves its hashes on its own. Nothing holds a whole trace."""
import glob
import os

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from . import chunk, index
from .tracefile import TraceError, check
from .index import PART_SIZE
from ._keys import key_of

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


def _hex(vals, has):
    cache = {}
    out = np.empty(len(vals), dtype=object)
    for i, (v, h) in enumerate(zip(vals.tolist(), has.tolist())):
        if h:
            s = cache.get(v)
            if s is None:
                s = cache[v] = "%016x" % v
            out[i] = s
    return out


def _named(keys, has, names):
    out = np.empty(len(keys), dtype=object)
    for i, (k, h) in enumerate(zip(keys.tolist(), has.tolist())):
        if h:
            out[i] = names.get(key_of(k))
    return out


def _nullable(values, present, dtype):
    arr = pd.array(values, dtype=dtype)
    arr[~present] = pd.NA
    return arr


def _opt(c, col, dtype):
    return _nullable(c[col].to_numpy(), c["has_" + col].to_numpy(), dtype)


def _part(trace, name, path, gz, part, names, hh):
    c = chunk.read(trace, path, gz, part).calls
    fnames, hnames = names
    counter = c["counter"].to_numpy()
    own_hh = c["has_hhash"].to_numpy()
    hh_keys = np.where(own_hh, c["hhash"].to_numpy(), np.uint64(hh[1] if hh else 0))
    out = pd.DataFrame({
        "trace": np.full(len(c), name, dtype=object),
        "line": c["line"].to_numpy(),
        "id": c["id"].to_numpy(),
        "name": c["name"].astype(object).to_numpy(),
        "cat": c["cat"].astype(object).to_numpy(),
        "ph": np.where(counter, "C", "X").astype(object),
        "pid": c["pid"].to_numpy(),
        "tid": c["tid"].to_numpy(),
        "ts": c["ts"].to_numpy(),
        "dur": c["dur"].to_numpy(),
        "level": _opt(c, "level", "Int64"),
        "p_idx": _opt(c, "p_idx", "Int64"),
        "fhash": _hex(c["fhash"].to_numpy(), c["has_fhash"].to_numpy()),
        "file": _named(c["fhash"].to_numpy(), c["has_fhash"].to_numpy(), fnames),
        "hhash": _hex(hh_keys, own_hh | (hh is not None)),
        "host": _named(hh_keys, own_hh | (hh is not None), hnames),
        "size": _opt(c, "size", "Int64"),
        "ret": _opt(c, "ret", "Int64"),
        "offset": _opt(c, "offset", "Int64"),
        "count": _nullable(c["count"].to_numpy(), counter, "UInt64"),
        "dur_sum": _nullable(c["dur_sum"].to_numpy(), counter, "UInt64"),
        "size_sum": _opt(c, "size_sum", "UInt64"),
    })
    return out


def load(paths, partition_size=None):
    paths = _paths(paths)
    check(paths)
    partition_size = partition_size or PART_SIZE
    ixs = dask.compute(*[dask.delayed(index.index, pure=True)(os.path.abspath(p),
                                                              partition_size)
                         for p in paths])
    fnames, hnames = {}, {}
    for ix in ixs:
        for _, kind, key, name in ix.names:
            (fnames if kind == "F" else hnames).setdefault(key, name)
    names = dask.delayed((fnames, hnames), pure=True)
    meta = pd.DataFrame({k: pd.Series([], dtype=v) for k, v in SCHEMA.items()})
    parts = [dask.delayed(_part, pure=True)(t, name, ix.path, ix.gz, part, names, ix.hh)
             for t, (name, ix) in enumerate(zip(paths, ixs)) for part in ix.parts]
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_delayed(parts, meta=meta, verify_meta=False)
