#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No circle between the files of a folder: each file's calls into the
other files of its folder (read from the built objects with nm: a symbol
one object leaves undefined and another defines), and the #include
"..." lines of every source and template, form graphs without a cycle.
A cycle is printed with the symbols or includes that make it."""
import collections
import os
import re
import subprocess

from dctest import BUILD, SRC, check, done, need_tool

FOLDERS = ("lib", "runtime", "report", "generator", "explorer", "client")
need_tool("nm")


def cycles(graph):
    """The strongly connected parts of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def call_graph(folder):
    """Source file -> {source file: symbols it uses there}, in @folder."""
    objs = {}
    for root, _, files in os.walk(os.path.join(BUILD, folder)):
        for f in files:
            if f.endswith(".c.o"):
                objs.setdefault(f[:-4], os.path.join(root, f))
    defs, uses = {}, {src: set() for src in objs}
    by_obj = {obj: src for src, obj in objs.items()}
    # One nm for the folder: each run costs a quarter of a second here.
    out = subprocess.run(["nm", "-A"] + sorted(by_obj), capture_output=True, text=True,
                         check=True).stdout if objs else ""
    for line in out.splitlines():
        obj, _, sym = line.partition(":")
        p = sym.split()
        src = by_obj.get(obj)
        if len(p) == 3 and p[1] in "TDBR":
            defs[p[2]] = src
        elif len(p) == 2 and p[0] == "U":
            uses[src].add(p[1])
    graph = collections.defaultdict(dict)
    for src, syms in uses.items():
        for s in syms:
            to = defs.get(s)
            if to and to != src:
                graph[src].setdefault(to, []).append(s)
    return objs, graph


def include_graph():
    graph = collections.defaultdict(dict)
    for folder in FOLDERS + ("templates", "include/datacrumbs"):
        d = os.path.join(SRC, folder)
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                with open(os.path.join(d, f)) as fh:
                    for inc in re.findall(r'^#include "([^"]+)"', fh.read(), re.M):
                        graph["%s/%s" % (folder, f)][os.path.basename(inc)] = [inc]
    # Name each node by file name, as the includes do.
    return {os.path.basename(k): v for k, v in graph.items()}


for folder in FOLDERS:
    objs, graph = call_graph(folder)
    check(objs, "%s: no objects under %s (build first)" % (folder, BUILD))
    for part in cycles(graph):
        edges = ["%s -> %s (%s)" % (a, b, ", ".join(sorted(graph[a][b])[:3]))
                 for a in part for b in part if b in graph[a]]
        check(False, "%s: calls go round %s: %s" % (folder, part, "; ".join(edges)))

for part in cycles(include_graph()):
    check(False, "includes go round: %s" % part)
done()
