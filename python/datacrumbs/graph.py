# SPDX-License-Identifier: MIT
"""The summary on Dask. Each task runs libdatacrumbs-report over some of
the traces, or over a range of one trace's gzip members, and returns its
partial report as bytes, with the messages about damage it would have
printed; the client merges the parts in the order of the traces and of
their ranges, finishes the report once and renders it, so the outputs
are one report's whichever worker read which part."""
import errno

from .cluster import Local, run_on
from .core import Report, ranges


class WorkerDied(Exception):
    pass


def outputs(paths, formats, top=10, file=None, darshan=False):
    """The report of the traces at @paths in each of @formats (names of
    core.FORMATS): {"out": {format: text}, "messages": [...],
    "problems": N, "events": N}. Runs where the task is sent."""
    with Report(paths, file=file, darshan=darshan) as r:
        return {"out": {f: r.render(f, top) for f in formats}, "messages": r.messages,
                "problems": r.problems, "events": r.events}


def partial(paths, darshan=False):
    """The unfinished report of the traces at @paths (or of ranges of
    them: core.Report) as bytes, and the messages of reading them. Runs
    where the task is sent."""
    with Report(paths, darshan=darshan, finish=False) as r:
        return {"part": r.save(), "messages": r.messages}


def merged(parts, formats, top=10, darshan=False):
    """outputs() of the partial() reports @parts, in their order."""
    with Report.load(parts[0]["part"]) as r:
        r.messages = list(parts[0]["messages"])
        for p in parts[1:]:
            with Report.load(p["part"]) as o:
                o.messages = p["messages"]
                r.merge(o)
        r.finish()
        return {"out": {f: r.render(f, top) for f in formats}, "messages": r.messages,
                "problems": r.problems, "events": r.events}


# Tasks at most: consecutive traces share one beyond it.
MAX_TASKS = 256


def groups(paths):
    """@paths in at most MAX_TASKS runs of consecutive traces."""
    n = min(len(paths), MAX_TASKS)
    return [paths[len(paths) * k // n:len(paths) * (k + 1) // n] for k in range(n)]


def summarize(paths, client, formats=("JSON",), top=10, file=None, darshan=False,
              partition_size=None):
    """outputs() computed on @client (see cluster.run_on): a task per run
    of traces (groups()), or with @partition_size a task per range of
    about that many bytes of a trace (core.ranges()), merged here;
    WorkerDied if a worker running one died. Traces whose ranges cannot
    be merged (a writer that cut a member inside nested calls, or
    records without their host), or that are damaged, are read again
    whole. A Local client without worker processes runs it here, without
    Dask, which would only add its import."""
    args = (list(paths), tuple(formats), top, file, darshan)
    if isinstance(client, Local) and not client.workers:
        return outputs(*args)
    from concurrent.futures.process import BrokenProcessPool

    import dask
    from distributed.scheduler import KilledWorker

    def run(units):
        return run_on(client, [dask.delayed(partial, pure=False)(u, darshan) for u in units])

    try:
        # A file's --file scope is decided as its calls are read, from
        # the names known then: such a report is not split.
        if file is not None or (len(paths) < 2 and not partition_size):
            return run_on(client, [dask.delayed(outputs, pure=False)(*args)])[0]
        if partition_size:
            units = [[(p, a, b)] for p in paths for a, b in ranges(p, partition_size)]
            parts = run(units)
            # A range's messages count lines from its start: damaged
            # traces are read again whole, to name their lines.
            try:
                if not any(p["messages"] for p in parts):
                    return merged(parts, formats, top, darshan)
            except OSError as e:
                if e.errno != errno.EOPNOTSUPP:
                    raise
        parts = run(groups(list(paths)))
    except (KilledWorker, BrokenProcessPool):
        raise WorkerDied() from None
    return merged(parts, formats, top, darshan)
