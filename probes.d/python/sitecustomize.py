# SPDX-License-Identifier: MIT
"""Makes CPython 3.11 fire its python:function__entry USDT probe, which it
does only while a profile function is set (CPython issue 98894), for
probes.d/python.yaml. datacrumbs-runtime puts this directory first on
the PYTHONPATH of the command it starts (--no-python-setup: it does not);
a process traced otherwise needs it there by hand:

  PYTHONPATH=/usr/share/datacrumbs/probes.d/python /usr/bin/python3 app.py

The profile function is a C function that does nothing: PyCallable_Check
returns 0 for the NULL it is given. New threads get it too. Then the
sitecustomize this one hides (Debian's, a venv's) runs as it would have.
"""
import ctypes
import os
import sys


def _profile(*_):
    api = ctypes.pythonapi
    api.PyEval_SetProfile.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    api.PyEval_SetProfile(ctypes.cast(api.PyCallable_Check, ctypes.c_void_p), None)


def _hidden():
    """The next sitecustomize on sys.path, run in this module's place."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in sys.path:
        path = os.path.join(os.path.abspath(d or "."), "sitecustomize.py")
        if os.path.dirname(path) != here and os.path.isfile(path):
            with open(path, "rb") as f:
                code = compile(f.read(), path, "exec")
            exec(code, globals())
            return


if sys.version_info[:2] == (3, 11) and sys.implementation.name == "cpython":
    _profile()
    # A thread's first event sets the C function in its place.
    import threading

    threading.setprofile(_profile)
_hidden()
