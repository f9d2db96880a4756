# SPDX-License-Identifier: MIT
"""The file and host hashes of load()'s rows, computed as
datacrumbs-report computes them: FNV-1a hashes (lib/hash.c) and hash
values of metadata (report/event.c)."""
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
