# SPDX-License-Identifier: MIT
"""One pass over a trace that inflates it without parsing events: where
to cut it into partitions of whole lines, how many lines it has, its
damage, and its FH/HH records (the names every partition needs)."""
import os
import re

from . import gzstream
from ._keys import hash_value, key_of
from .parse import MAX_LINE, event, text_value
from .tracefile import open_trace

_META = re.compile(rb'"[FH]H"')
# Text per partition: a task parsing one holds about ten times as much.
PART_SIZE = 16 << 20


class Part:
    """Partition: @length bytes of text from @skip bytes into the text of
    the member at @off (plain files: byte off + skip); its first line is
    line @first_line of the trace."""

    __slots__ = ("off", "skip", "length", "first_line")

    def __init__(self, off, skip, first_line):
        self.off, self.skip, self.length, self.first_line = off, skip, 0, first_line

    def __getstate__(self):
        return (self.off, self.skip, self.length, self.first_line)

    def __setstate__(self, s):
        self.off, self.skip, self.length, self.first_line = s

    def __dask_tokenize__(self):
        return self.__getstate__()


class Index:
    """What the pass learnt about one trace."""

    def __init__(self, path, size, gz):
        self.path, self.size, self.gz = path, size, gz
        self.parts = []
        self.lines = 0
        self.names = []  # (line, "F" or "H", key, name), in file order
        self.hh = None  # (line, key) of the first HH record
        self.damage = []  # (line, byte offset, what)
        self.bad_members = self.bytes_skipped = 0


class _Indexer:
    def __init__(self, ix, part_size):
        self.ix, self.part_size = ix, part_size
        self.pos = 0  # bytes of text so far
        self.newlines = 0
        self.start = None  # text offset of the open partition
        self.carry = b""  # the line in progress (not kept past MAX_LINE)
        self.cut = 0  # its length, kept or not

    def text(self, moff, within, data):
        ix, i = self.ix, 0
        while i < len(data):
            if self.start is None:
                first = self.newlines + data.count(b"\n", 0, i) + 1
                ix.parts.append(Part(moff, within + i, first))
                self.start = self.pos + i
            target = self.start + self.part_size - 1
            if self.pos + len(data) <= target:
                break
            j = data.find(b"\n", max(i, target - self.pos))
            if j < 0:
                break
            ix.parts[-1].length = self.pos + j + 1 - self.start
            self.start = None
            i = j + 1
        self.lines(data)
        self.pos += len(data)

    def lines(self, data):
        if self.cut > len(self.carry):
            # In a line too long to be a record (the parse counts it as
            # damaged): skip to its end without holding it.
            j = data.find(b"\n")
            if j < 0:
                self.cut += len(data)
                return
            self.newlines += 1
            self.carry, self.cut = b"", 0
            data = data[j + 1:]
        buf = self.carry + data if self.carry else data
        last = buf.rfind(b"\n")
        if last < 0:
            self.cut = len(buf)
            self.carry = buf if len(buf) <= MAX_LINE else b""
            return
        seen, line = -1, self.newlines + 1
        for m in _META.finditer(buf, 0, last + 1):
            s = buf.rfind(b"\n", 0, m.start()) + 1
            if s == seen:
                continue
            line += buf.count(b"\n", max(seen, 0), s)
            self.meta(line, buf[s:buf.find(b"\n", m.end())])
            seen = s
        self.newlines += buf.count(b"\n", 0, last + 1)
        self.cut = len(buf) - last - 1
        self.carry = buf[last + 1:] if self.cut <= MAX_LINE else b""

    def meta(self, line, text):
        if len(text) > MAX_LINE:
            return  # a damaged line, not a name
        o = event(text.decode("utf-8", "surrogateescape"))
        if type(o) is not dict or o["ph"] != "M" or o["name"] not in ("FH", "HH"):
            return
        a = o.get("args")
        if type(a) is not dict or "name" not in a or "value" not in a:
            return
        key = key_of(hash_value(a["value"]))
        self.ix.names.append((line, o["name"][0], key, text_value(a["name"])))
        if o["name"] == "HH" and self.ix.hh is None:
            self.ix.hh = (line, key)

    def end(self, truncated):
        ix = self.ix
        end = self.pos
        if truncated:
            end -= self.cut  # the cut line is lost
        elif self.cut:
            if self.carry and _META.search(self.carry):
                self.meta(self.newlines + 1, self.carry)
            self.newlines += 1
        if self.start is not None:
            ix.parts[-1].length = end - self.start
            if ix.parts[-1].length <= 0:
                ix.parts.pop()
        ix.lines = self.newlines


def index(path, part_size=PART_SIZE):
    """Index the trace at @path; partitions hold about @part_size bytes."""
    fd, size = open_trace(path)
    try:
        gz = gzstream.is_gzip(fd)
        ix = Index(path, size, gz)
        idx = _Indexer(ix, max(1, part_size))
        moff, within = None, 0
        for item in gzstream.walk(fd, size, 0, gz):
            if item[0] == gzstream.TEXT:
                if gz:
                    if item[1] != moff:
                        moff, within = item[1], 0
                    idx.text(moff, within, item[2])
                    within += len(item[2])
                else:
                    idx.text(0, idx.pos, item[2])
            elif item[0] == gzstream.DAMAGE:
                ix.damage.append((idx.newlines + 1, item[1], item[2]))
            else:
                idx.end(item[1])
                ix.bad_members, ix.bytes_skipped = item[2], item[3]
        return ix
    finally:
        os.close(fd)
