# SPDX-License-Identifier: MIT
"""python3 -m datacrumbs summary [--json] [--scheduler ADDRESS] TRACE..."""
import argparse
import os
import sys

from ._deps import message, missing
from .tracefile import TraceError, check  # the standard library only

USAGE = """\
usage: python3 -m datacrumbs summary [OPTIONS] TRACE...

The summary of datacrumbs-report (its library, libdatacrumbs-report,
computes it), run with Dask: here, or on a Dask cluster.

  --json                  the summary as JSON (docs/report.md's schema)
  --scheduler ADDRESS     a running Dask scheduler (tls://host:8786);
                          its workers must see the traces at these paths
  --workers N             local worker processes (0: threads in this
                          process; default: processes for traces > 8 MiB)
  --partition-size BYTES  a task per range of about BYTES of a trace's
                          gzip members (default: a task per trace); the
                          client merges their reports
  --top N                 rows per table in the text summary (default 10)
  -h, --help              show this help

Needs pandas, dask and distributed (Debian: python3-pandas python3-dask
python3-distributed), so Debian's /usr/bin/python3. Exit status: 0, 1
if a trace was damaged (each problem is named with its file and line),
2 on usage or I/O errors.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, msg):
        sys.stderr.write("datacrumbs: %s\n%s" % (msg, USAGE))
        sys.exit(2)

    def print_help(self, file=None):
        (file or sys.stdout).write(USAGE)


def _size(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    try:
        if text[-1:].upper() in mult:
            v = int(text[:-1]) * mult[text[-1].upper()]
        else:
            v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a size: %r" % text) from None
    if v < 1:
        raise argparse.ArgumentTypeError("not a size: %r" % text)
    return v


def _count(text):
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError("not a count: %r" % text)
    return v


def parse_args(argv):
    p = _Parser(prog="python3 -m datacrumbs", add_help=False)
    p.add_argument("-h", "--help", action="help")
    p.add_argument("command", choices=["summary"])
    p.add_argument("--json", action="store_true")
    p.add_argument("--scheduler")
    p.add_argument("--workers", type=_count)
    p.add_argument("--partition-size", type=_size)
    p.add_argument("--top", type=_count, default=10)
    p.add_argument("traces", nargs="+", metavar="TRACE")
    return p.parse_args(argv)


def _say(msg):
    from .text import clean  # the standard library only

    # Paths and names in messages may come from a hostile trace.
    sys.stderr.write("datacrumbs: %s\n" % clean(msg))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    miss = missing()
    if miss:
        sys.stderr.write(message(miss, argv) + "\n")
        return 2

    from . import cluster, graph
    from .core import CoreError

    try:
        runner = cluster.connect(args.scheduler, args.workers, check(args.traces))
    except (TraceError, cluster.ClusterError) as e:
        _say(str(e))
        return 2
    # Workers elsewhere may run in another directory.
    paths = [os.path.abspath(p) for p in args.traces] if args.scheduler else args.traces
    where = " (the workers must see the traces at the same paths)" if args.scheduler else ""
    fmt = "JSON" if args.json else "TEXT"
    try:
        res = graph.summarize(paths, runner, [fmt], args.top,
                              partition_size=args.partition_size)
    except CoreError as e:
        _say(str(e) + where)
        return 2
    except OSError as e:
        _say("%s: %s%s" % (e.filename or "reading the traces", e.strerror or e, where))
        return 2
    except graph.WorkerDied:
        _say("a Dask worker died reading the traces")
        return 2
    finally:
        runner.close()
    for m in res["messages"]:
        _say(m)
    try:
        sys.stdout.write(res["out"][fmt])
        sys.stdout.flush()
    except OSError as e:
        # Nothing more can be written there, not even at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        _say("writing the summary failed: %s" % e.strerror)
        return 2
    return 1 if res["problems"] else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
