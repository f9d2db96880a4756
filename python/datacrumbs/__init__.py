# SPDX-License-Identifier: MIT
"""DataCrumbs traces (and DFTracer's) in pandas and Dask.

    import datacrumbs
    df = datacrumbs.load(["run/*.pfw.gz"])   # a Dask DataFrame, one row per event

and ``python3 -m datacrumbs summary [--json] TRACE...`` for the summary
of datacrumbs-report --json, on a local or a site's Dask cluster. Needs
pandas and Dask from the distribution (Debian's /usr/bin/python3).
"""

from .index import PART_SIZE  # the standard library only

__all__ = ["load", "summary", "ship"]


def load(paths, partition_size=PART_SIZE):
    """The events of the traces at @paths (names or glob patterns) as a
    Dask DataFrame: one row per event (ph X or C), in file order, with
    the file and host hashes resolved to their names. See docs/python.md."""
    from ._deps import require

    require()
    from .frame import load as _load

    return _load(paths, partition_size)


def summary(paths, client, partition_size=PART_SIZE):
    """The summary of datacrumbs-report --json for @paths, computed on the
    dask.distributed @client, as the JSON text."""
    from ._deps import require

    require(with_distributed=True)
    from .graph import summarize

    return summarize(paths, client, partition_size)[0].json()


def ship(client):
    """Send this package to the workers of a dask.distributed @client, so
    that load()'s and summary()'s tasks run there whatever they have
    installed (the summary command does it by itself)."""
    from ._deps import require

    require(with_distributed=True)
    from .cluster import ship as _ship

    _ship(client)
