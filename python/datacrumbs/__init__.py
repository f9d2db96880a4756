# SPDX-License-Identifier: MIT
"""DataCrumbs traces (and DFTracer's) in pandas and Dask.

    import datacrumbs
    df = datacrumbs.load(["run/*.pfw.gz"])   # a Dask DataFrame, one row per event

    r = datacrumbs.report(["run/*.pfw.gz"])  # datacrumbs-report's numbers

and ``python3 -m datacrumbs summary [--json] TRACE...`` for the summary
of datacrumbs-report --json, on a local or a site's Dask cluster. The
summaries are libdatacrumbs-report's (the library datacrumbs-report is
built on). Needs pandas and Dask from the distribution (Debian's
/usr/bin/python3).
"""

__all__ = ["load", "report", "summary", "ship"]


def load(paths, partition_size=None):
    """The events of the traces at @paths (names or glob patterns) as a
    Dask DataFrame: one row per event (ph X or C), in file order, with
    the file and host hashes resolved to their names. See docs/python.md."""
    from ._deps import require

    require()
    from .frame import load as _load

    return _load(paths, partition_size)


def report(paths, file=None, darshan=False):
    """libdatacrumbs-report's report of the traces at @paths, read in this
    process: a core.Report, whose render("JSON"), render("TEXT"),
    render("DARSHAN"), render("SUMMARY") (with @darshan), ... are
    datacrumbs-report's outputs. @file: its --file pattern."""
    from .core import Report

    return Report(paths, file=file, darshan=darshan)


def summary(paths, client, partition_size=None):
    """The summary of datacrumbs-report --json for @paths, computed on the
    dask.distributed @client, as the JSON text: a task per trace, or
    with @partition_size per range of about that many bytes of one."""
    from ._deps import require

    require(with_distributed=True)
    from .graph import summarize

    return summarize(paths, client, partition_size=partition_size)["out"]["JSON"]


def ship(client):
    """Send this package to the workers of a dask.distributed @client, so
    that load()'s and summary()'s tasks run there whatever they have
    installed (the summary command does it by itself)."""
    from ._deps import require

    require(with_distributed=True)
    from .cluster import ship as _ship

    _ship(client)
