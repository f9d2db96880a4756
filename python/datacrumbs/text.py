# SPDX-License-Identifier: MIT
"""Messages for a terminal: a path or name from a trace is shown with its
control characters escaped, so it cannot move the cursor, retitle the
window or do anything else a terminal does on ESC or CSI (U+009B). (The
summaries themselves come escaped from libdatacrumbs-report.)"""
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
