# SPDX-License-Identifier: MIT
"""The summary for a terminal: a few short tables, from the same numbers
as the JSON. Every string from a trace is shown with its control
characters escaped: a layer, file or function name must not move the
cursor, retitle the window or anything else a terminal does on ESC or
CSI (U+009B)."""
import json
import re

# C0 controls, DEL, C1 controls, and the bytes of invalid UTF-8 (kept by
# surrogateescape as U+DC80..U+DCFF; a raw 0x9b is CSI to 8-bit terminals).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\udc80-\udcff]")


def _escape(m):
    c = ord(m.group())
    if c < 0x80:
        return "\\x%02x" % c
    if c < 0xA0:
        return "\\u%04x" % c
    return "\\x%02x" % (c - 0xDC00)


def clean(s):
    """@s for a terminal: control characters as \\xNN or \\u00NN escapes."""
    return _CONTROL.sub(_escape, s)


def _cleaned(v):
    """@v (parsed JSON) with every string and key clean()ed."""
    if isinstance(v, str):
        return clean(v)
    if isinstance(v, list):
        return [_cleaned(x) for x in v]
    if isinstance(v, dict):
        return {clean(k): _cleaned(x) for k, x in v.items()}
    return v


def fmt_time(us):
    if us < 1000:
        return "%.0f us" % us
    if us < 1e6:
        return "%.2f ms" % (us / 1e3)
    return "%.3f s" % (us / 1e6)


def fmt_bytes(v):
    units, i = ("B", "KiB", "MiB", "GiB", "TiB"), 0
    v = float(v)
    while v >= 1024 and i < 4:
        v /= 1024
        i += 1
    return ("%.1f %s" if i else "%.0f %s") % (v, units[i])


def has_records(report, trace):
    return report.t.good.get(trace, 0) > 0


def _head(out, title):
    out.append("\n%s\n  %-6s %-16s %8s %9s %8s %8s %8s %9s %11s" % (
        title, "layer", "function", "calls", "time", "mean", "p50", "p99", "bytes",
        "bandwidth"))


def _row(out, layer, name, s):
    p50 = fmt_time(s["p50_us"]) if s["p50_us"] is not None else "-"
    p99 = fmt_time(s["p99_us"]) if s["p99_us"] is not None else "-"
    bw = fmt_bytes(s["bandwidth_bps"]) + "/s" if s["bandwidth_bps"] is not None else "-"
    # A name longer than its column goes whole on a line of its own, as
    # datacrumbs-report writes it.
    if len(name) > 16:
        out.append("  %-6.6s %s" % (layer, name))
        layer = name = ""
    out.append("  %-6.6s %-16.16s %8d %9s %8s %8s %8s %9s %11s" % (
        layer, name, s["calls"], fmt_time(s["time_us"]), fmt_time(s["mean_us"]), p50, p99,
        fmt_bytes(s["bytes"]) if s["bytes"] else "-", bw))


def render(report, top):
    # Only the rows shown: the JSON of every file of a trace naming
    # millions would take gigabytes to build and parse.
    j = _cleaned(json.loads(report.json(top)))
    out = []
    ranks = sum(p[6] is not None for p in report.procs)
    head = "%d traces, %d calls" % (j["traces"], j["calls"])
    if j["counters"]:
        head += " and %d counters" % j["counters"]
    head += ", %d processes" % len(report.procs)
    if ranks:
        head += " (%d ranks)" % ranks
    head += ", %d files, %d hosts, run time %s" % (
        len(report.files), len(report.hosts),
        fmt_time(j["run"]["time_us"]) if j["run"]["time_us"] > 0 else "0")
    out.append(head)
    if j["command"] is not None:
        out.append("command: %s" % j["command"])
    if j["bad_lines"] or j["unknown_hashes"]:
        out.append("damaged input: %d bad lines, %d undefined file hashes (see the messages "
                   "above)" % (j["bad_lines"], j["unknown_hashes"]))
    _head(out, "Per layer (inclusive: nested calls count in each layer)")
    for l in j["layers"]:
        if l["calls"]:
            _row(out, l["name"], "", l)
    out.append("\nTime per layer, nesting taken into account (outermost calls, split by "
               "the layer\nthat spent the time)")
    for l in j["layers"]:
        o = l["outermost"]
        if o["calls"]:
            split = "".join("  %s %.1f%%" % (k, 100 * v / o["time_us"])
                            for k, v in o["by_layer_us"].items() if o["time_us"] > 0)
            out.append("  %-6.6s %8d calls %9s:%s" % (l["name"], o["calls"],
                                                      fmt_time(o["time_us"]), split))
    _head(out, "Top functions by time")
    for f in j["functions"][:top]:
        _row(out, f["layer"], f["name"], f)
    out.append("\nTop files by I/O time\n  %10s %9s %10s %10s  %s" % (
        "time", "calls", "read", "written", "file (time per layer)"))
    for f in j["files"][:top]:
        per = ", ".join("%s %s" % (k, fmt_time(v["time_us"])) for k, v in f["layers"].items())
        out.append("  %10s %9d %10s %10s  %s (%s)" % (
            fmt_time(f["time_us"]), f["calls"], fmt_bytes(f["bytes_read"]),
            fmt_bytes(f["bytes_written"]), f["name"], per))
    out.append("\nProcesses\n  %-16s %8s %-12s %6s %9s %10s" % (
        "host", "pid", "name", "rank", "calls", "busy"))
    for p in j["processes"][:top]:
        out.append("  %-16.16s %8d %-12.12s %6s %9d %10s" % (
            p["host"] or "-", p["pid"], p["name"] or "-", p["rank"] or "-", p["calls"],
            fmt_time(p["busy_us"])))
    lost = j["lost"]
    if not lost["end_records"]:
        out.append("\nEvents lost: unknown, no trace has an end record (cut short?)")
    else:
        more = ", ".join("%s %d" % (k, v) for k, v in lost.items()
                         if v and k not in ("end_records", "dropped", "num_events"))
        out.append("\nEvents lost: %d (end records: %d of %d traces)%s" % (
            lost.get("dropped", 0), lost["end_records"], j["traces"],
            ": " + more if more else ""))
    return "\n".join(out) + "\n"
