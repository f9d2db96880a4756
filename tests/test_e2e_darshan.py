#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report --darshan against Darshan 3.4.7 itself: the same
fixed mix of POSIX and STDIO calls (tests/workloads/darshan_mix.c) runs
once under Darshan (LD_PRELOAD) and once under DataCrumbs, and every
counter both print for a file must be equal. Darshan's own wrappers call
libc (fileno in its fopen), so the two do not share one run."""
import json
import os
import tempfile

from dctest import BUILD, RUNTIME, check, darshan_prefix, done, generate, need_bpf, run, skip

# Counters that differ for a reason, with the reason (docs/report.md).
KNOWN = {
    # Darshan 3.4.7 wraps __xstat/__fxstat; glibc 2.33+ programs call
    # stat/fstat, which it never sees.
    "POSIX_STATS",
    # -1: Darshan does not follow mmap unless built to.
    "POSIX_MMAPS",
}

need_bpf()
pre = darshan_prefix()
if not pre:
    skip("no Darshan: set DARSHAN_PREFIX or keep ../shared/peers/build-darshan beside the checkout")
WORK = os.path.join(BUILD, "tests", "darshan_mix")
REPORT = os.path.join(BUILD, "report", "datacrumbs-report")


def table(text, base):
    """{(counter, file name): value} of darshan-parser-style lines for
    files under @base."""
    out = {}
    for line in text.splitlines():
        f = line.split("\t")
        if line.startswith("#") or len(f) < 5:
            continue
        # darshan-parser: module, rank, record id, counter, value, file, ...
        # ours: module, rank, file, counter, value.
        counter, value, name = (f[3], f[4], f[5]) if len(f) > 5 else (f[3], f[4], f[2])
        if name.startswith(base + "/") and "_F_" not in counter:
            out[(counter, os.path.basename(name))] = int(value)
    return out


with tempfile.TemporaryDirectory() as tmp:
    dd, od = os.path.join(tmp, "darshan"), os.path.join(tmp, "ours")
    os.mkdir(dd)
    os.mkdir(od)
    log = os.path.join(tmp, "run.darshan")
    env = dict(os.environ, LD_PRELOAD=os.path.join(pre, "lib", "libdarshan.so"),
               DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGFILE=log)
    r = run([WORK, dd], env=env)
    check(r.returncode == 0 and os.path.exists(log), "workload under Darshan: " + r.stderr)
    r = run([os.path.join(pre, "bin", "darshan-parser"), log])
    check(r.returncode == 0, "darshan-parser: " + r.stderr)
    theirs = table(r.stdout, dd)

    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    trace = os.path.join(tmp, "mix.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", WORK, od])
    check(r.returncode == 0, "runtime: " + r.stderr)
    r = run([REPORT, "--darshan", trace])
    check(r.returncode == 0, "datacrumbs-report --darshan: " + r.stderr)
    ours = table(r.stdout, od)

    shared = sorted(set(theirs) & set(ours))
    check(len(shared) >= 60 and {f for _, f in shared} == {"posix.dat", "stdio.dat"},
          "%d counters in both, on both files" % len(shared))
    diff = ["%s %s: Darshan %d, ours %d" % (c, f, theirs[(c, f)], ours[(c, f)])
            for c, f in shared if c not in KNOWN and theirs[(c, f)] != ours[(c, f)]]
    check(not diff, "counters equal to Darshan's:\n  " + "\n  ".join(diff))
    # --json --darshan: the same counters on each file's entry.
    r = run([REPORT, "--json", "--darshan", trace])
    check(r.returncode == 0, "datacrumbs-report --json --darshan: " + r.stderr)
    files = {os.path.basename(f["name"]): f for f in json.loads(r.stdout)["files"]
             if f["name"].startswith(od + "/")}
    injson = {(c, name): v for name, f in files.items()
              for mod in f.get("darshan", {}).values() for c, v in mod.items()}
    check(all(injson.get(k) == ours[k] for k in ours), "--json carries the same counters")
    # Non-zero values prove the comparison is about something.
    check(ours[("POSIX_BYTES_WRITTEN", "posix.dat")] > 0 and ours[("POSIX_SEQ_READS", "posix.dat")] > 0
          and ours[("POSIX_STRIDE1_STRIDE", "posix.dat")] > 0 and ours[("STDIO_WRITES", "stdio.dat")] == 6,
          "the mix's counters are not trivial")
done()
