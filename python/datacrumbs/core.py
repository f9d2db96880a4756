# SPDX-License-Identifier: MIT
"""libdatacrumbs-report through ctypes (ABI mode: nothing is compiled at
install). The report is the library's: its parser, aggregation, Darshan
counters and outputs; this module only calls it. The standard library
only, so the CLI can say what is missing before it imports pandas."""
import contextlib
import ctypes
import errno
import os

SONAME = "libdatacrumbs-report.so.1"


class CoreError(Exception):
    pass


def _candidates():
    env = os.environ.get("DATACRUMBS_REPORT_LIB")
    if env:
        return [env]
    out = []
    try:
        from ._libdir import LIBDIR  # written by meson install

        out.append(os.path.join(LIBDIR, SONAME))
    except ImportError:
        pass
    return out + [SONAME]


_lib = None
_LOG = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)
_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64)


def _declare(lib):
    P, I, S, U64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint64
    for name, res, args in (
            ("dcr_version", S, []),
            ("dcr_set_prog", None, [S]),
            ("dcr_set_log", None, [_LOG, P]),
            ("dcr_const", I, [S, ctypes.POINTER(ctypes.c_int64)]),
            ("dcr_report_new", I, [ctypes.POINTER(P)]),
            ("dcr_report_free", None, [P]),
            ("dcr_report_set_file", I, [P, S]),
            ("dcr_report_set_darshan", I, [P, I]),
            ("dcr_report_set_threads", I, [P, I]),
            ("dcr_report_add", I, [P, S]),
            ("dcr_report_add_range", I, [P, S, U64, U64]),
            ("dcr_report_finish", I, [P]),
            ("dcr_report_save", I, [P, ctypes.POINTER(P), ctypes.POINTER(ctypes.c_size_t)]),
            ("dcr_report_load", I, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)]),
            ("dcr_report_merge", I, [P, P]),
            ("dcr_report_events", U64, [P]),
            ("dcr_report_problems", U64, [P]),
            ("dcr_report_render", I, [P, I, I, ctypes.POINTER(P),
                                      ctypes.POINTER(ctypes.c_size_t)]),
            ("dcr_report_html", I, [P, S, S]),
            ("dcr_trace_split", I, [S, I, ctypes.POINTER(U64)]),
            ("dcr_rows_read", I, [S, U64, U64, ctypes.c_uint, ctypes.POINTER(P)]),
            ("dcr_rows_count", U64, [P]),
            ("dcr_rows_lines", U64, [P]),
            ("dcr_rows_column", P, [P, S]),
            ("dcr_rows_strings", ctypes.c_uint32, [P]),
            ("dcr_rows_string", S, [P, ctypes.c_uint32]),
            ("dcr_rows_name", I, [P, U64, ctypes.POINTER(ctypes.c_char), ctypes.POINTER(U64),
                                  ctypes.POINTER(S)]),
            ("dcr_rows_free", None, [P]),
            ("dcr_free", None, [P])):
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


def lib():
    """The loaded library (CoreError naming where it was looked for)."""
    global _lib
    if _lib is None:
        tried = []
        for path in _candidates():
            try:
                cand = ctypes.CDLL(path)
            except OSError as e:
                tried.append(str(e))
                continue
            _declare(cand)
            cand.dcr_set_prog(b"datacrumbs")
            _lib = cand
            break
        else:
            raise CoreError("cannot load %s (%s): install DataCrumbs (meson install), or "
                            "point DATACRUMBS_REPORT_LIB at the library"
                            % (SONAME, "; ".join(tried)))
    return _lib


def const(name):
    """A constant of the report (HIST_N, BINS, MAX_LAYERS, LINE_MAX, ...),
    read from the library: there is no copy here."""
    v = ctypes.c_int64()
    if lib().dcr_const(name.encode(), ctypes.byref(v)):
        raise KeyError(name)
    return v.value


def _path(p):
    return os.fsencode(p)


def _check(err, what):
    if err < 0:
        raise OSError(-err, os.strerror(-err), what)


# Formats of dcr_report_render(), by the library's numbers.
FORMATS = ("JSON", "TEXT", "FOLDED", "DARSHAN", "SUMMARY", "FLAME")


class _Handle:
    """An object of the library, released by its function _free on
    close(), at the end of a with block, or when collected."""

    _h = None
    _free = None

    def close(self):
        if self._h:
            getattr(lib(), self._free)(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Report(_Handle):
    """One report of the library over @paths (a path, or (path, begin,
    end) for the gzip members of a trace that start in that byte range:
    dcr_report_add_range()), finished unless @finish is
    false: render() any of its outputs. @file: --file's pattern;
    @darshan: Darshan's counters and job summary too; @threads: inflating
    threads (0: one per CPU). Damage in the traces is counted (problems)
    and its messages kept (messages), as datacrumbs-report prints them;
    an unreadable trace raises OSError naming it. An unfinished report
    can be saved (save()), loaded (Report.load()), merged with the report
    of later traces (merge()) and then finished (finish())."""

    _free = "dcr_report_free"

    def __init__(self, paths, file=None, darshan=False, threads=0, finish=True):
        L = lib()
        self.messages = []
        h = ctypes.c_void_p()
        _check(L.dcr_report_new(ctypes.byref(h)), "libdatacrumbs-report")
        self._h = h
        with self._log():
            if file is not None:
                _check(L.dcr_report_set_file(h, file.encode("utf-8", "surrogateescape")),
                       "--file")
            _check(L.dcr_report_set_darshan(h, 1 if darshan else 0), "darshan")
            _check(L.dcr_report_set_threads(h, threads), "threads")
            for p in paths:
                if isinstance(p, tuple):  # (path, begin, end): a range
                    _check(L.dcr_report_add_range(h, _path(p[0]), p[1], p[2]), p[0])
                    continue
                err = L.dcr_report_add(h, _path(p))
                if err == -errno.EISDIR:
                    raise OSError(errno.EISDIR, "a directory, not a trace (give its files: "
                                  "%s/*.pfw.gz)" % p, p)
                _check(err, p)
        if finish:
            self.finish()

    @contextlib.contextmanager
    def _log(self):
        """The library's messages meanwhile into self.messages."""
        L = lib()
        sink = _LOG(lambda ctx, msg: self.messages.append(
            msg.decode("utf-8", "surrogateescape")))
        L.dcr_set_log(sink, None)
        try:
            yield
        finally:
            L.dcr_set_log(_LOG(), None)

    def finish(self):
        L = lib()
        with self._log():
            _check(L.dcr_report_finish(self._h), "computing the report")
        self.problems = L.dcr_report_problems(self._h)
        self.events = L.dcr_report_events(self._h)

    def save(self):
        """The unfinished report as bytes (dcr_report_save())."""
        L = lib()
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        _check(L.dcr_report_save(self._h, ctypes.byref(out), ctypes.byref(n)),
               "saving the report")
        try:
            return ctypes.string_at(out, n.value)
        finally:
            L.dcr_free(out)

    @classmethod
    def load(cls, data):
        """A report saved by save(), unfinished."""
        r = cls.__new__(cls)
        r.messages = []
        h = ctypes.c_void_p()
        _check(lib().dcr_report_load(data, len(data), ctypes.byref(h)), "loading a report")
        r._h = h
        return r

    def merge(self, other):
        """Add @other, the report of traces after these, to this one."""
        _check(lib().dcr_report_merge(self._h, other._h), "merging reports")
        self.messages += other.messages

    def render(self, fmt, top=10):
        """The report as @fmt (a name of FORMATS), as text."""
        L = lib()
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        _check(L.dcr_report_render(self._h, const("FORMAT_" + fmt), top, ctypes.byref(out),
                                   ctypes.byref(n)), "rendering the report as " + fmt)
        try:
            return ctypes.string_at(out, n.value).decode("utf-8", "surrogateescape")
        finally:
            L.dcr_free(out)

    def json(self):
        """The summary, parsed: datacrumbs-report --json's."""
        import json

        return json.loads(self.render("JSON"))

    def frames(self):
        """{layers, functions, files, processes, slowest}: DataFrames of
        the summary (tables.frames())."""
        from .tables import frames

        return frames(self.render("JSON"))

    def darshan_frame(self):
        """Darshan's counters (darshan=True), one row per counter of a
        record, as datacrumbs-report --darshan prints them."""
        from .tables import darshan

        return darshan(self.render("DARSHAN"))

    def html(self, path, templates=None):
        """The HTML page (datacrumbs-report --html) to @path; @templates:
        the directory of report.html (default: the installed one)."""
        _check(lib().dcr_report_html(self._h, _path(templates) if templates else None,
                                     _path(path)), path)


def split(path, n):
    """dcr_trace_split(): n + 1 offsets that cut the trace at @path into
    @n ranges at gzip member starts (line starts, in plain text)."""
    offs = (ctypes.c_uint64 * (n + 1))()
    _check(lib().dcr_trace_split(_path(path), n, offs), path)
    return list(offs)


def ranges(path, size):
    """The non-empty ranges [begin, end) of about @size bytes each that
    cut the trace at @path at member starts (split())."""
    n = max(1, min(-(-os.path.getsize(path) // size), 1 << 16))
    offs = split(path, n)
    return [(a, b) for a, b in zip(offs, offs[1:]) if b > a]


# The C type of each column of dcr_rows_column().
ROW_COLUMNS = dict(
    [(c, ctypes.c_int64) for c in ("line", "id", "ts", "dur", "p_idx", "level", "size", "ret",
                                   "offset")]
    + [(c, ctypes.c_uint64) for c in ("fhash", "hhash", "count", "dur_sum", "size_sum")]
    + [(c, ctypes.c_uint32) for c in ("pid", "tid", "name", "cat", "has")]
    + [("ph", ctypes.c_uint8)])


class Rows(_Handle):
    """dcr_rows_read(): the calls of the members of @path starting in
    [@begin, @end) as columns of the library's memory (valid while this
    is open), or with @names_only just its FH and HH records."""

    _free = "dcr_rows_free"

    def __init__(self, path, begin, end, names_only=False):
        L = lib()
        self._h = None
        h = ctypes.c_void_p()
        _check(L.dcr_rows_read(_path(path), begin, end,
                               const("ROWS_NAMES") if names_only else 0, ctypes.byref(h)), path)
        self._h = h
        self.count = L.dcr_rows_count(h)
        self.lines = L.dcr_rows_lines(h)

    def column(self, name):
        """Column @name as a ctypes array over the library's memory."""
        ptr = lib().dcr_rows_column(self._h, name.encode())
        ctype = ROW_COLUMNS[name] * self.count
        return ctype.from_address(ptr) if ptr and self.count else ctype()

    def strings(self):
        L = lib()
        return [L.dcr_rows_string(self._h, i).decode("utf-8", "surrogateescape")
                for i in range(L.dcr_rows_strings(self._h))]

    def names(self):
        """The FH and HH records in file order: (kind "F" or "H", hash
        key, name)."""
        L, out, i = lib(), [], 0
        kind, key, name = ctypes.c_char(), ctypes.c_uint64(), ctypes.c_char_p()
        while not L.dcr_rows_name(self._h, i, ctypes.byref(kind), ctypes.byref(key),
                                  ctypes.byref(name)):
            out.append((kind.value.decode(), key.value,
                        name.value.decode("utf-8", "surrogateescape")))
            i += 1
        return out

