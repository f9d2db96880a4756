# SPDX-License-Identifier: MIT
"""The keys datacrumbs-report files things under, computed the same way:
FNV-1a hashes (lib/hash.c), hash values of metadata (report/event.c) and
the visiting order of its open-addressing map (lib/map.c), which is the
order the report lists hosts in and closes threads' calls in."""
import re

M64 = (1 << 64) - 1
INT64_MAX = (1 << 63) - 1
_HEX = re.compile(r"[0-9a-fA-F]{1,16}\Z").match


def raw(s):
    """A parsed string as the bytes it was written with (for text without
    escapes; invalid UTF-8 comes back byte for byte)."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return s.encode("utf-8", "replace")


def fnv(data):
    h = 0xCBF29CE484222325
    for c in data:
        h = ((h ^ c) * 0x100000001B3) & M64
    return h


def key_of(h):
    """The report keys its maps by hash, with 0 reserved."""
    return h or 1


def hash_ref(v):
    """An fhash/hhash of an event: hex text, any other text (hashed), or a
    number; None if it is neither (the line is then bad)."""
    t = type(v)
    if t is str:
        return int(v, 16) if _HEX(v) else fnv(raw(v))
    if t is int:
        return max(-INT64_MAX, min(INT64_MAX, v)) & M64
    return None


def hash_value(v):
    """The value of an FH/HH record (dc_hash_value): hex text, other text
    (hashed), or the leading decimal digits of anything else."""
    if isinstance(v, str):
        return int(v, 16) if _HEX(v) else fnv(raw(v))
    if type(v) is int:
        return v & M64 if v >= 0 else 0
    return 0


def func_key(cat, name):
    """The key of a (layer, function) pair: two pairs with the same key
    are one function, as in report/agg.c."""
    return key_of(((fnv(raw(cat)) * 31) & M64) ^ fnv(raw(name)))


def proc_key(hhash, pid):
    return key_of(((hhash * 1000003) & M64) ^ pid)


def thread_key(pid, tid):
    return ((pid << 32) | tid) + 1


def _slot(key, cap):
    key ^= key >> 33
    key = (key * 0xFF51AFD7ED558CCD) & M64
    key ^= key >> 33
    return key & (cap - 1)


def map_order(keys):
    """The order dc_map_foreach visits @keys, put in this order (non-zero;
    repeats are ignored)."""
    cap, n, table = 0, 0, []

    def place(tab, k):
        i = _slot(k, len(tab))
        while tab[i] and tab[i] != k:
            i = (i + 1) & (len(tab) - 1)
        return i

    for k in keys:
        if (n + 1) * 4 > cap * 3:
            cap = cap * 2 if cap else 64
            new = [0] * cap
            for old in table:
                if old:
                    new[place(new, old)] = old
            table = new
        i = place(table, k)
        if not table[i]:
            table[i] = k
            n += 1
    return [k for k in table if k]
