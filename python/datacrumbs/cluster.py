# SPDX-License-Identifier: MIT
"""Where the summary runs: a local Dask cluster bound to 127.0.0.1, or a
running scheduler given by its address, whose workers are sent this
package so they run the same code whatever they have installed."""
import logging
import os
import tempfile
import zipfile

LOCAL_PROCESSES_FROM = 8 << 20  # bytes of traces worth starting processes for


class ClusterError(Exception):
    pass


def ship(client):
    """Send this package to the workers and forget any older copy."""
    def forget():
        import sys
        for name in [m for m in sys.modules if m == "datacrumbs" or
                     m.startswith("datacrumbs.")]:
            del sys.modules[name]

    client.run(forget)
    pkg = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "datacrumbs.zip")
        with zipfile.ZipFile(path, "w") as z:
            for f in sorted(os.listdir(pkg)):
                if f.endswith(".py"):
                    z.write(os.path.join(pkg, f), "datacrumbs/" + f)
        client.upload_file(path)


def connect(address=None, workers=None, trace_bytes=0, wait=60):
    """A distributed Client, and the LocalCluster to close after (None
    for a scheduler of the site's). @workers: local worker processes
    (0: threads in this process; None: processes for big inputs)."""
    from distributed import Client, LocalCluster

    if address:
        try:
            client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise ClusterError("cannot reach the Dask scheduler at %s: %s" % (address, e)) \
                from None
        try:
            client.wait_for_workers(1, timeout=wait)
        except TimeoutError:
            client.close()
            raise ClusterError("the Dask scheduler at %s has no workers (waited %d s)"
                               % (address, wait)) from None
        ship(client)
        return client, None
    cpus = len(os.sched_getaffinity(0))
    if workers is None:
        workers = cpus if trace_bytes >= LOCAL_PROCESSES_FROM and cpus > 1 else 0
    common = dict(dashboard_address=None, silence_logs=logging.ERROR)
    try:
        if workers:
            # Worker processes talk over TCP, on the loopback only.
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                   processes=True, host="127.0.0.1", **common)
        else:
            # Threads in this process: nothing listens at all.
            cluster = LocalCluster(n_workers=1, threads_per_worker=cpus,
                                   processes=False, **common)
    except (OSError, RuntimeError) as e:
        raise ClusterError("cannot start a local Dask cluster: %s" % e) from None
    return Client(cluster), cluster
