#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The STDIO layer against a workload that reports its calls: exact counts
per function and file, bytes (itemsize * items for fread/fwrite), the file
behind fdopen's stream and stdout, and nesting: the write syscalls a
stream flush causes sit under POSIX write under the STDIO call."""
import json
import os
import tempfile

from dctest import BUILD, RUNTIME, Trace, attached_programs, check, done, generate, need_bpf, run

need_bpf()
WORK = os.path.join(BUILD, "tests", "stdio_calls")
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    trace = os.path.join(tmp, "stdio.pfw.gz")
    out = os.path.join(tmp, "stdout.txt")
    with open(out, "w") as so:
        r = run([RUNTIME, "-o", trace, obj, "--", WORK, tmp], stdout=so)
    check(r.returncode == 0, "runtime: " + r.stderr)
    truth = json.loads(open(out).read())
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped")
    f = truth["file"]

    def on(name, path=f):
        return t.select(cat="STDIO", name=name, path=path)

    fw = on("fwrite")
    check(len(fw) == truth["fwrite"] and all(e["args"]["size"] == truth["fwrite_size"] for e in fw),
          "fwrite: %d calls, sizes %s" % (len(fw), {e["args"].get("size") for e in fw}))
    fp = on("fprintf")
    check(len(fp) == truth["fprintf"] and all(e["args"]["size"] == truth["fprintf_size"] for e in fp),
          "fprintf: %d" % len(fp))
    fr = on("fread")
    check(len(fr) == truth["fread"] and all(e["args"]["size"] == truth["fread_size"] for e in fr),
          "fread: %d calls, sizes %s" % (len(fr), {e["args"].get("size") for e in fr}))
    check(len(on("fgets")) == truth["fgets"], "fgets: %d" % len(on("fgets")))
    ft = on("ftell")
    check(len(ft) == 1 and ft[0]["args"]["ret"] == truth["ftell"], "ftell returns the offset")
    check(len(on("fopen")) == 2 and len(on("fclose")) == 2, "two fopen/fclose on the file")
    check(len(on("fputs")) == 1 and len(on("fflush")) == 1 and len(on("fseek")) == 1
          and len(on("rewind")) == 1 and len(on("setvbuf")) == 1, "one each of fputs/fflush/fseek/rewind/setvbuf")
    check(len(on("fputs", truth["fdopen_file"])) == 1, "fdopen'd stream named through its fd")
    check(len(on("fprintf", out)) == 1, "stdout, opened before tracing, is named")

    # fflush writes the buffered 2565 bytes: STDIO fflush -> POSIX write -> sys write.
    ids = {e["id"]: e for e in t.events}
    sysw = t.select(cat="sys", name="write", path=f)
    check(len(sysw) >= 1, "the data reaches a write syscall")
    for e in sysw:
        parent = ids.get(e["args"]["p_idx"])
        grand = parent and ids.get(parent["args"]["p_idx"])
        check(parent and parent["cat"] == "POSIX" and parent["name"] == "write"
              and grand and grand["cat"] == "STDIO" and grand["name"] in ("fflush", "fclose"),
              "sys write nests under POSIX write under STDIO fflush: %s" % e)
    check(sum(e["args"]["size"] for e in sysw) == 40 * 64 + 25 * 10 + 5, "bytes reaching the file")

    # With the STDIO layer alone no syscall is traced, so the syscall
    # programs, which every syscall on the node would pay for, are not
    # attached: the kernel's list of what the runtime attached says so.
    # (glibc's fclose and others jump into code that makes syscalls;
    # those sites alone once attached them.)
    obj = generate(tmp, ["probes.d/stdio.yaml"], "stdio.bpf.o")
    ours = attached_programs(tmp, obj, "stdio")
    check(ours is not None and any(n.startswith("dc_uprobe") for n in ours)
          and not any(n.startswith("dc_sys_") for n in ours),
          "STDIO alone: uprobes attached, no syscall program: %s" % ours)
done()
