# SPDX-License-Identifier: MIT
"""Whether the traces named can be read at all, with a message for the
first that cannot. The standard library only: the command checks its
arguments before it loads anything else."""
import os
import stat


class TraceError(Exception):
    """A trace that cannot be read at all (missing, a directory, ...)."""


def open_trace(path):
    """(fd, size) of a trace, or TraceError saying why not."""
    try:
        # O_NONBLOCK: a FIFO is refused below, not waited on.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as e:
        raise TraceError("%s: %s" % (path, e.strerror)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        what = "is a directory" if stat.S_ISDIR(st.st_mode) else "is not a regular file"
        raise TraceError("%s: %s, not a trace" % (path, what))
    return fd, st.st_size


def check(paths):
    """The total size of the traces at @paths, or TraceError for the first
    that cannot be read."""
    total = 0
    for p in paths:
        fd, size = open_trace(p)
        os.close(fd)
        total += size
    return total
