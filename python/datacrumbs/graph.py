# SPDX-License-Identifier: MIT
"""The summary of datacrumbs-report --json, computed with Dask.

Every trace is indexed (one task each), then cut into partitions that
are read and parsed in parallel. The nesting of calls is followed one
partition after the other within a trace (traces in parallel), carrying
only the calls still open; each partition's tables are computed apart
and merged in trace order by a tree of tasks."""
import os

import dask

from . import agg, chunk, index, nest
from .cluster import run_on
from .index import PART_SIZE
from .jsonout import Report


def _read(trace, path, gz, part):
    ch = chunk.read(trace, path, gz, part)
    agg.derive(ch.calls)
    return ch


def _step(state, ch):
    st, root, fout, fsized = nest.step(state, ch.calls)
    return st, (root, fout, fsized)


def _first(pair):
    return pair[0]


def _second(pair):
    return pair[1]


def _tree(items, merge):
    """Merge @items (delayed) pairwise in order down to one."""
    while len(items) > 1:
        nxt = [dask.delayed(merge, pure=True)(items[i], items[i + 1])
               for i in range(0, len(items) - 1, 2)]
        if len(items) % 2:
            nxt.append(items[-1])
        items = nxt
    return items[0]


def indexes(paths, client, part_size):
    """Index every trace (TraceError if one cannot be read)."""
    index.check(paths)
    tasks = [dask.delayed(index.index, pure=True)(os.path.abspath(p), part_size)
             for p in paths]
    return run_on(client, tasks)


def summarize(paths, client, part_size=PART_SIZE):
    """Returns (Report, indexes). @client: where to compute (see
    cluster.run_on)."""
    ixs = indexes(paths, client, part_size)
    partials, states = [], []
    for t, ix in enumerate(ixs):
        state = nest.State()
        for part in ix.parts:
            ch = dask.delayed(_read, pure=True)(t, ix.path, ix.gz, part)
            res = dask.delayed(_step, pure=True)(state, ch)
            state = dask.delayed(_first, pure=True)(res)
            flags = dask.delayed(_second, pure=True)(res)
            partials.append(dask.delayed(agg.partial, pure=True)(ch, flags, ix.hh))
        states.append(dask.delayed(nest.finish, pure=True)(state))
    total = _tree(partials, agg.merge) if partials else dask.delayed(agg.Partial)()
    total, states = run_on(client, [total, states])
    return Report(total, states, ixs), ixs


def problems(report, ixs, paths, say):
    """Name the damage as the report does; returns how many problems."""
    n = 0
    for path, ix in zip(paths, ixs):
        for line, off, what in ix.damage:
            say("%s: line %d: %s at byte %d" % (path, line, what, off))
            n += 1
    for (t, line), why in report.t.errors:
        say("%s: line %d: %s; line skipped" % (paths[t], line, why))
    n += report.t.bad
    for (t, line), h in report.unknown[:10]:
        say("%s: line %d: fhash %016x has no FH record; the file is shown by its hash"
            % (paths[t], line, h))
    return n + len(report.unknown)
