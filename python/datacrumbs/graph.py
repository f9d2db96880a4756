# SPDX-License-Identifier: MIT
"""The summary on Dask: a task runs libdatacrumbs-report over the traces
and returns its outputs as text, with the messages about damage it
would have printed and their count, so the client shows them whichever
worker did the reading."""
from .cluster import Local, run_on
from .core import Report


class WorkerDied(Exception):
    pass


def outputs(paths, formats, top=10, file=None, darshan=False):
    """The report of the traces at @paths in each of @formats (names of
    core.FORMATS): {"out": {format: text}, "messages": [...],
    "problems": N, "events": N}. Runs where the task is sent."""
    with Report(paths, file=file, darshan=darshan) as r:
        return {"out": {f: r.render(f, top) for f in formats}, "messages": r.messages,
                "problems": r.problems, "events": r.events}


def summarize(paths, client, formats=("JSON",), top=10, file=None, darshan=False):
    """outputs() computed on @client (see cluster.run_on); WorkerDied if
    the worker running it died. A Local client without worker processes
    runs it here, without Dask, which would only add its import."""
    args = (list(paths), tuple(formats), top, file, darshan)
    if isinstance(client, Local) and not client.workers:
        return outputs(*args)
    from concurrent.futures.process import BrokenProcessPool

    import dask
    from distributed.scheduler import KilledWorker

    try:
        return run_on(client, [dask.delayed(outputs, pure=False)(*args)])[0]
    except (KilledWorker, BrokenProcessPool):
        raise WorkerDied() from None
