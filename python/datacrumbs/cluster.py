# SPDX-License-Identifier: MIT
"""Where the summary runs: on this machine with Dask's local schedulers
(worker processes that talk to this one over pipes, or threads in this
process: nothing listens on any socket), or on a running Dask scheduler
the user named, whose workers are sent this package so they run the
same code whatever they have installed.

A dask.distributed LocalCluster is not used: its scheduler and workers
listen on TCP ports without authentication, so on a shared node any
local user could connect and run code as whoever runs the summary."""
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


class Remote:
    """A dask.distributed Client of a scheduler the user named."""

    def __init__(self, client):
        self.client = client

    def compute(self, tasks):
        c = self.client
        return list(c.gather(c.compute(list(tasks))))

    def close(self):
        self.client.close()


class Local:
    """Dask's local schedulers. @workers > 0: that many worker processes,
    started with multiprocessing's "spawn" (they talk to this process over
    pipes); 0: threads in this process."""

    def __init__(self, workers, threads):
        self.workers, self.threads, self.pool = workers, threads, None

    def compute(self, tasks):
        import dask

        if not self.workers:
            return list(dask.compute(*tasks, scheduler="threads", num_workers=self.threads))
        if self.pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # One pool for every compute() of the summary: workers start
            # (and import pandas) once.
            self.pool = ProcessPoolExecutor(self.workers,
                                            mp_context=multiprocessing.get_context("spawn"))
        return list(dask.compute(*tasks, scheduler="processes", pool=self.pool))

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


def run_on(runner, tasks):
    """Compute the dask.delayed @tasks on @runner: a Local or Remote, a
    dask.distributed Client (the library's summary()), or None (Dask's
    current scheduler)."""
    import dask

    if runner is None:
        return list(dask.compute(*tasks))
    if hasattr(runner, "gather"):
        return list(runner.gather(runner.compute(list(tasks))))
    return runner.compute(tasks)


def connect(address=None, workers=None, trace_bytes=0, wait=60):
    """Where to compute: Remote(address) if a scheduler is named, else
    Local. @workers: local worker processes (0: threads in this process;
    None: processes for big inputs)."""
    if address:
        from distributed import Client

        # Dask's own setting where the site gives one (a loaded
        # scheduler); else 10 s, as a refused connection is retried
        # until then.
        timeout = os.environ.get("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "10s")
        try:
            client = Client(address, timeout=timeout)
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
        return Remote(client)
    cpus = len(os.sched_getaffinity(0))
    if workers is None:
        workers = cpus if trace_bytes >= LOCAL_PROCESSES_FROM and cpus > 1 else 0
    return Local(workers, cpus)
