# SPDX-License-Identifier: MIT
"""The package runs on the distribution's pandas and Dask. Several
Pythons are common on HPC machines (a pyenv or conda one first on PATH),
and only the system's sees Debian's packages: say so, once, clearly."""
import sys

NEEDED = (("pandas", "python3-pandas"), ("dask.dataframe", "python3-dask"),
          ("distributed", "python3-distributed"))


def missing(with_distributed=True):
    """The (module, Debian package) pairs this interpreter cannot find.
    Found, not imported: importing pandas and Dask takes seconds, longer
    than the library takes to summarize most traces."""
    from importlib.util import find_spec

    out = []
    for mod, pkg in NEEDED:
        if mod == "distributed" and not with_distributed:
            continue
        if find_spec(mod.split(".")[0]) is None:
            out.append((mod, pkg))
    return out


def message(miss, argv=None):
    mods = ", ".join(m for m, _ in miss)
    pkgs = " ".join(p for _, p in miss)
    cmd = "/usr/bin/python3 -m datacrumbs" + ("".join(" " + a for a in argv) if argv else " ...")
    return ("datacrumbs: this Python (%s, %s) cannot import %s.\n"
            "datacrumbs runs on the distribution's pandas and Dask: install %s\n"
            "(scripts/setup does) and run it with the system's Python, which sees them:\n"
            "  %s" % (sys.executable, sys.version.split()[0], mods, pkgs, cmd))


def require(with_distributed=False):
    """For library use: ImportError naming what is missing and why."""
    miss = missing(with_distributed)
    if miss:
        raise ImportError(message(miss))
