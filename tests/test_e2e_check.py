#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-runtime --check OBJECT: the kernel, the object's probes (as
its probe table counts them, read here without the runtime), each
fallback this kernel needs, and what is left out, with nothing written;
then a run of the same object, whose start record must say what the
check said. On Debian's kernels the fallbacks are also held against
what each release is known to lack. Refusals: a COMMAND, a corrupt
object, a user without the privileges."""
import json
import os
import re
import tempfile

from dctest import (REPORT, RUNTIME, Trace, check, check_fallback_names, check_said_as_run, done,
                    generate, need_bpf, probe_table, run, runtime_check)

need_bpf()

# What Debian's kernels lack (docs/cli.md#kernels); kprobe_multi is left
# out, as it is named only for an object with kernel-function probes.
KNOWN = {r"5\.10\.\d+-\d+-amd64": {"threads", "syscall_prog", "cookies", "find_vma", "prealloc"},
         r"6\.1\.\d+-\d+-amd64": set(),
         r"6\.12\.\d+\+deb\d+-amd64": set()}


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    _, table = probe_table(obj)
    cwd = os.path.join(tmp, "cwd")
    os.mkdir(cwd)

    r, f = runtime_check(obj, cwd=cwd)
    check(r.returncode == 0, "--check of a good object: exit %d: %s" % (r.returncode, r.stderr))
    check(f.get("kernel") == ["Linux " + os.uname().release], "the kernel named: %s" % f.get("kernel"))
    m = re.match(r"(\d+) of (\d+) traced here", (f.get("probes") or [""])[0])
    check(m and int(m.group(2)) == len(table) and int(m.group(1)) <= len(table),
          "probes: %s, the table holds %d" % (f.get("probes"), len(table)))
    check(f.get("result", [""])[0].startswith("yes"), "the result: %s" % f.get("result"))
    check(os.listdir(cwd) == [], "nothing written: %s" % os.listdir(cwd))

    # --layers as a run takes it: only sys's probes, counted from the table.
    r, said = runtime_check(obj, "-l", "sys")
    sys_probes = sum(1 for e in table if e["layer"] == "sys")
    m = re.match(r"(\d+) of", (said.get("probes") or [""])[0])
    check(r.returncode == 0 and m and 0 < int(m.group(1)) <= sys_probes,
          "-l sys: %s of the table's %d sys probes" % (said.get("probes"), sys_probes))

    # A run with the same object says what the check said.
    trace = os.path.join(tmp, "t.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", "true"])
    check(r.returncode == 0, "a run: " + r.stderr)
    check_said_as_run(f, Trace(trace).start["args"])
    for pat, lacks in KNOWN.items():
        if re.fullmatch(pat, os.uname().release):
            check(check_fallback_names(f) - {"kprobe_multi"} == lacks,
                  "Linux %s lacks %s: %s" % (os.uname().release, sorted(lacks), f.get("fallbacks")))

    # The report names a run's fallbacks, in its summary and its JSON.
    trace = os.path.join(tmp, "fb.pfw.gz")
    r = run([RUNTIME, "-q", "-o", trace, obj, "--", "true"],
            env=dict(os.environ, DATACRUMBS_FALLBACKS="threads,cookies"))
    text = run([REPORT, trace]).stdout
    js = json.loads(run([REPORT, "--json", trace]).stdout)
    # Those forced, and the kernel's own (5.10 has five), as the run's
    # start record lists them.
    used = Trace(trace).start["args"]["fallbacks"] if r.returncode == 0 else ""
    check(r.returncode == 0 and {"threads", "cookies"} <= set(used.split(","))
          and "kernel fallbacks: %s\n" % used in text and js.get("fallbacks") == used,
          "the report names the fallbacks %r: %r %r" % (used, text[:300], js.get("fallbacks")))

    # Every fallback at once, as on 5.10, each named with its reason; and
    # profile mode's programs verified too.
    r, f = runtime_check(obj, "-m", "profile", env=dict(os.environ, DATACRUMBS_FALLBACKS="all"))
    check(r.returncode == 0 and {"threads", "syscall_prog", "cookies", "find_vma", "prealloc"}
          <= check_fallback_names(f) and all("(" in v and ":" in v for v in f["fallbacks"]),
          "every fallback with its reason: %s %s" % (f.get("fallbacks"), r.stderr))
    check(f.get("uprobes", [""])[0].startswith("perf:"), "uprobes: %s" % f.get("uprobes"))

    # Refusals.
    r = run([RUNTIME, "--check", obj, "--", "true"])
    check(r.returncode == 2 and "--check loads OBJECT and stops" in r.stderr,
          "a COMMAND with --check: %d %s" % (r.returncode, r.stderr))
    bad = os.path.join(tmp, "bad.o")
    with open(bad, "w") as fh:
        fh.write("not an object\n")
    r = run([RUNTIME, "--check", bad])
    check(r.returncode == 1 and bad in r.stderr and "result      no:" in r.stdout,
          "a corrupt object: %d %s %s" % (r.returncode, r.stdout, r.stderr))
    r = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", RUNTIME, "--check", obj])
    check(r.returncode == 1 and "missing capabilities" in r.stderr and "result      no:" in r.stdout,
          "without privileges: %d %s" % (r.returncode, r.stderr))
done()
