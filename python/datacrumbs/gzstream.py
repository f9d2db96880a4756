# SPDX-License-Identifier: MIT
"""The text of a trace, read the way report/traceread.c reads it.

A .pfw.gz is a sequence of gzip members. Members are found by their
headers; a header-like pattern inside a member already read is ignored;
a truncated member gives the text it has except its cut last line, and
ends the file; a corrupt member gives nothing (or, past MEMBER_CAP of text,
what came before the damage) and the reader looks for the next member
that inflates. Damage is reported, never fatal. Memory stays bounded: a
member is held whole only up to MEMBER_CAP (the report's); bigger ones
stream, in pieces of at most OUT_MAX bytes of text.
"""
import os
import zlib

from .core import const

MAGIC = b"\x1f\x8b\x08"
MEMBER_CAP = const("MEMBER_CAP")  # bigger members stream, as the report's
FEED = 16 << 10  # compressed bytes read at a time
# Text per inflate call: a bound whatever the ratio (16 KiB of deflate
# can hold 16 MiB of text), and small pieces inflate faster.
OUT_MAX = 1 << 20
PLAIN_CHUNK = 4 << 20

TEXT, DAMAGE, END = "text", "damage", "end"
_OK, _TRUNC, _BAD = "ok", "truncated", "corrupt"


def is_gzip(fd):
    return os.pread(fd, 2, 0) == MAGIC[:2]


def _next_magic(fd, size, start):
    pos = start
    while pos < size:
        block = os.pread(fd, 1 << 20, pos)
        i = block.find(MAGIC)
        if i >= 0:
            return pos + i
        if len(block) < 3:
            return None
        pos += len(block) - 2
    return None


def _before_error(d, data):
    """The text a decompressor gives from @data up to the byte where it
    fails (inflate keeps what it made before the damage)."""
    out = []
    for i in range(len(data)):
        try:
            out.append(d.decompress(data[i:i + 1]))
        except zlib.error:
            break
    return b"".join(out)


def _member(fd, off, size):
    """Inflate the member at @off: yields its text; returns (result, end)."""
    d = zlib.decompressobj(31)
    pos = off
    while True:
        data = os.pread(fd, FEED, pos)
        if not data:
            return _TRUNC, size
        while True:
            saved = d.copy()
            try:
                out = d.decompress(data, OUT_MAX)
            except zlib.error:
                out = _before_error(saved, data)
                if out:
                    yield out
                return _BAD, pos
            if out:
                yield out
            if d.eof:
                return _OK, pos + len(data) - len(d.unused_data)
            tail = d.unconsumed_tail
            if not tail:
                break
            pos += len(data) - len(tail)
            data = tail
        pos += len(data)


def walk(fd, size, start=0, gz=True):
    """Yield (TEXT, member offset, bytes), (DAMAGE, byte offset, what) and
    finally (END, truncated, bad members, compressed bytes skipped), as
    datacrumbs-report counts them, for the trace open on @fd, from @start:
    0, or a member that was accepted when the whole file was read."""
    if not gz:
        pos = start
        while pos < size:
            data = os.pread(fd, min(PLAIN_CHUNK, size - pos), pos)
            if not data:
                break
            yield TEXT, 0, data
            pos += len(data)
        yield END, False, 0, 0
        return
    cur, resync, bad, skipped, bad_from = start, False, 0, 0, 0
    cand = _next_magic(fd, size, start)
    while cand is not None:
        if cand < cur and not resync:
            cand = _next_magic(fd, size, cur)
            continue
        held, nout, accepted = [], 0, False
        gen = _member(fd, cand, size)
        while True:
            try:
                piece = next(gen)
            except StopIteration as stop:
                res, end = stop.value
                break
            nout += len(piece)
            if accepted:
                yield TEXT, cand, piece
                continue
            held.append(piece)
            if nout > MEMBER_CAP:
                # Past the cap the report streams the member: taken
                # whatever follows, damage included.
                accepted = True
                if cand > cur and not resync:
                    yield DAMAGE, cur, "data that is not gzip"
                    skipped += cand - cur
                if resync:
                    skipped += cand - bad_from
                resync = False
                for p in held:
                    yield TEXT, cand, p
                held = None
        if not accepted:
            big = nout >= MEMBER_CAP and res != _OK
            if resync and res != _OK and not big:
                bad += 1
                cand = _next_magic(fd, size, cand + 1)
                continue
            if cand > cur and not resync:
                yield DAMAGE, cur, "data that is not gzip"
                skipped += cand - cur
            if resync:
                skipped += cand - bad_from
            resync = False
            if res != _BAD or big:
                for p in held:
                    yield TEXT, cand, p
        if res == _TRUNC:
            yield DAMAGE, cand, "truncated gzip member (the rest is lost)"
            yield END, True, bad + 1, skipped
            return
        if res == _BAD:
            yield DAMAGE, cand, "corrupt gzip member"
            bad += 1
            bad_from = cand
            resync = True
            cand = _next_magic(fd, size, cand + 1)
        else:
            cur = end
            cand = _next_magic(fd, size, cur)
    if cur < size and not resync:
        yield DAMAGE, cur, "truncated gzip data"
        skipped += size - cur
    if resync:
        skipped += size - bad_from
    yield END, False, bad, skipped


def iter_text(path, gz, off, skip, length):
    """@length bytes of the text of @path, from @skip bytes into the text
    of the member at @off (plain files: from byte off + skip), in pieces
    of at most a few MiB."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if not gz:
            pos = off + skip
            while length > 0:
                data = os.pread(fd, min(length, PLAIN_CHUNK), pos)
                if not data:
                    break
                yield data
                pos += len(data)
                length -= len(data)
            return
        size = os.fstat(fd).st_size
        for item in walk(fd, size, off, True):
            if item[0] != TEXT:
                continue
            data = item[2]
            if skip:
                if len(data) <= skip:
                    skip -= len(data)
                    continue
                data = data[skip:]
                skip = 0
            data = data[:length]
            length -= len(data)
            yield data
            if length <= 0:
                break
    finally:
        os.close(fd)


def read_text(path, gz, off, skip, length):
    """iter_text()'s pieces, joined."""
    return b"".join(iter_text(path, gz, off, skip, length))
