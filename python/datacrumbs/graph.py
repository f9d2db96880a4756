# SPDX-License-Identifier: MIT
"""The summary on Dask: a task runs libdatacrumbs-report over the traces
and returns its outputs as text, with the messages about damage it
would have printed and their count, so the client shows them whichever
worker did the reading."""
import dask

from .cluster import run_on
from .core import Report


def outputs(paths, formats, top=10, file=None, darshan=False):
    """The report of the traces at @paths in each of @formats (names of
    core.FORMATS): {"out": {format: text}, "messages": [...],
    "problems": N, "events": N}. Runs where the task is sent."""
    with Report(paths, file=file, darshan=darshan) as r:
        return {"out": {f: r.render(f, top) for f in formats}, "messages": r.messages,
                "problems": r.problems, "events": r.events}


def summarize(paths, client, formats=("JSON",), top=10, file=None, darshan=False):
    """outputs() computed on @client (see cluster.run_on)."""
    task = dask.delayed(outputs, pure=True)(list(paths), tuple(formats), top, file, darshan)
    return run_on(client, [task])[0]
