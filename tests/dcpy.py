# SPDX-License-Identifier: MIT
"""Helpers for the tests of the Python package (python/datacrumbs): it runs
on Debian's /usr/bin/python3, which sees python3-pandas and python3-dask,
whatever Python runs the test itself; and its summary is compared with
datacrumbs-report's, number for number."""
import json
import os
import subprocess

from dctest import BUILD, REPORT, SRC, check, skip

PY = "/usr/bin/python3"  # the interpreter that sees Debian's packages
PKG = os.path.join(SRC, "python")


def _sanitized(build):
    try:
        with open(os.path.join(build, "meson-info", "intro-buildoptions.json")) as f:
            opts = json.load(f)
    except (OSError, ValueError):
        return False
    v = next((o["value"] for o in opts if o["name"] == "b_sanitize"), "none")
    return v not in ("none", "", [], ["none"])


# The library the package loads. /usr/bin/python3 is not built with ASan:
# a sanitized library loads into it only with libasan preloaded, whose
# shadow memory does not fit the address-space bound of
# test_python_hostile.py. So the sanitized build's Python tests use the
# plain build's library (scripts/test builds it first); the sanitized
# one is tested by the C tests, through datacrumbs-report.
PLAIN_BUILD = os.path.join(SRC, "build") if _sanitized(BUILD) else BUILD
REPORT_LIB = os.path.join(PLAIN_BUILD, "report", "libdatacrumbs-report.so.1")


def env(**extra):
    """The environment to run the package from the checkout."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    e["PYTHONPATH"] = PKG
    e["DATACRUMBS_REPORT_LIB"] = REPORT_LIB
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    e.update(extra)
    return e


def need_pandas():
    if not os.access(PY, os.X_OK):
        skip("needs Debian's %s" % PY)
    if not os.path.exists(REPORT_LIB) or _sanitized(PLAIN_BUILD):
        skip("needs a build without sanitizers of libdatacrumbs-report in %s (python3 "
             "cannot load a sanitized one)" % PLAIN_BUILD)
    r = subprocess.run([PY, "-c", "import pandas, dask.dataframe, distributed"],
                       capture_output=True, text=True)
    if r.returncode:
        skip("%s cannot import pandas, dask and distributed (scripts/setup installs "
             "python3-pandas python3-dask python3-distributed)" % PY)


def summary(traces, *opts, **kw):
    return subprocess.run([PY, "-m", "datacrumbs", "summary"] + list(opts) + list(traces),
                          capture_output=True, text=True, env=kw.get("env") or env(),
                          timeout=kw.get("timeout", 600))


def report(traces):
    return subprocess.run([REPORT, "-q", "--json"] + list(traces), capture_output=True,
                          text=True)


def _diff(a, b, path, out, tol):
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            out.append("%s: keys %s != %s" % (path, list(a)[:8], list(b)[:8]))
        for k in a:
            if k in b:
                _diff(a[k], b[k], "%s.%s" % (path, k), out, tol)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d items != %d" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, "%s[%d]" % (path, i), out, tol)
    elif a != b or type(a) is not type(b):
        num = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
        if num and tol and ".by_layer_us." in path and abs(a - b) <= 1e-9 * max(abs(a), abs(b)):
            return
        out.append("%s: %r != %r" % (path, a, b))


def same(traces, *opts, what="", several=False, **kw):
    """The package's summary --json equals datacrumbs-report --json on
    @traces: the same exit status and the same text; with @several traces
    the time split among layers (by_layer_us) may differ in the last bit
    of a double (see docs/python.md), everything else not at all."""
    want, got = report(traces), summary(traces, "--json", *opts, **kw)
    what = what or " ".join(os.path.basename(t) for t in traces)
    check(got.returncode == want.returncode,
          "%s: exit %d, report's %d: %s" % (what, got.returncode, want.returncode,
                                           got.stderr[-2000:]))
    if got.stdout == want.stdout:
        return json.loads(want.stdout) if want.stdout else None
    try:
        a, b = json.loads(got.stdout), json.loads(want.stdout)
    except ValueError:
        check(False, "%s: not JSON: %r %s" % (what, got.stdout[:200], got.stderr[-2000:]))
        return None
    out = []
    _diff(a, b, "", out, several)
    check(not out, "%s: summary differs from datacrumbs-report's: %s" % (what, out[:8]))
    return b
