# SPDX-License-Identifier: MIT
"""Nesting through id/p_idx, as report/nest.c does it, one partition of a
trace after the other: a stack of open calls per thread; closing a call
settles its subtree's time (scaled down to the call's duration when its
children add up to more) into its parent, or, for an outermost call,
into the time its layer spent in each layer. The state between
partitions is small: the open calls, the call paths, the sums."""
import pickle

import numpy as np

from ._keys import map_order, thread_key

MAX_DEPTH = 64


class State:
    def __init__(self):
        self.threads = {}  # thread key -> stack of open calls
        self.order = []  # thread keys as they were first seen
        self.nodes = {}  # (parent node, function key) -> node
        self.node_layer = []  # node -> layer name
        self.by_layer = {}  # (outermost call's layer, layer) -> us
        self.orphans = 0


# An open call: [id, node, layer, dur, fhash, sized, parts, where], parts
# being [node, us] in the order first met and where node -> index.
_ID, _NODE, _LAYER, _DUR, _FH, _SIZED, _PARTS, _WHERE = range(8)


def _pop(st, stack):
    c = stack.pop()
    parts, where = c[_PARTS], c[_WHERE]
    total = 0.0
    for p in parts:
        total += p[1]
    dur = c[_DUR]
    if total > dur and total > 0:
        for p in parts:
            p[1] *= dur / total
        own = 0.0
    else:
        own = dur - total
    j = where.get(c[_NODE])
    if j is None:
        parts.append([c[_NODE], own])
    else:
        parts[j][1] += own
    if stack:
        up = stack[-1]
        uparts, uwhere = up[_PARTS], up[_WHERE]
        for node, w in parts:
            j = uwhere.get(node)
            if j is None:
                uwhere[node] = len(uparts)
                uparts.append([node, w])
            else:
                uparts[j][1] += w
    else:
        acc, rl, nl = st.by_layer, c[_LAYER], st.node_layer
        for node, w in parts:
            k = (rl, nl[node])
            acc[k] = acc.get(k, 0.0) + w


def step(state, calls):
    """Run one partition's calls (chunk columns plus the derived fkey,
    layer, bytes and deff) through a copy of @state. Returns the new state
    and, per call, whether it is outermost, the outermost call on its
    file, and the outermost call on its file that moved bytes."""
    st = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    n = len(calls)
    root = np.ones(n, dtype=bool)
    fout = np.ones(n, dtype=bool)
    fsized = np.ones(n, dtype=bool)
    threads, nodes, node_layer = st.threads, st.nodes, st.node_layer
    acc = st.by_layer
    cols = (calls["counter"].tolist(), calls["pid"].tolist(), calls["tid"].tolist(),
            calls["id"].tolist(), calls["has_p_idx"].tolist(), calls["p_idx"].tolist(),
            calls["fkey"].tolist(), calls["layer"].tolist(), calls["has_fhash"].tolist(),
            calls["fhash"].tolist(), (calls["bytes"] >= 0).tolist(), calls["deff"].tolist())
    for i, (counter, pid, tid, cid, has_pidx, pidx, fkey, layer, hasf, fh, sized,
            dur) in enumerate(zip(*cols)):
        if counter:
            k = (layer, layer)
            acc[k] = acc.get(k, 0.0) + float(dur)
            continue
        tk = thread_key(pid, tid)
        stack = threads.get(tk)
        if stack is None:
            stack = threads[tk] = []
            st.order.append(tk)
        if not has_pidx or pidx < 0:
            while stack:
                _pop(st, stack)
        else:
            while stack and stack[-1][_ID] != pidx:
                _pop(st, stack)
            if not stack:
                st.orphans += 1
        if len(stack) == MAX_DEPTH:
            _pop(st, stack)
        parent = -1
        if stack:
            root[i] = False
            parent = stack[-1][_NODE]
            if hasf:
                for c in stack:
                    if c[_FH] == fh:
                        fout[i] = False
                        if c[_SIZED]:
                            fsized[i] = False
        nk = (parent, fkey)
        node = nodes.get(nk)
        if node is None:
            node = nodes[nk] = len(node_layer)
            node_layer.append(layer)
        stack.append([cid, node, layer, float(dur), fh if hasf else 0, sized, [], {}])
    return st, root, fout, fsized


def finish(state):
    """The end of a trace: close every open call, thread by thread in the
    order the report visits them."""
    st = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    for tk in map_order(st.order):
        stack = st.threads[tk]
        while stack:
            _pop(st, stack)
    st.threads, st.order, st.nodes, st.node_layer = {}, [], {}, []
    return st
