# SPDX-License-Identifier: MIT
"""pandas DataFrames of a report's outputs: the tables of its JSON
(docs/report.md's schema) and Darshan's rows, as libdatacrumbs-report
renders them; nothing is computed here."""
import json

import pandas as pd

TABLES = ("layers", "functions", "files", "processes", "slowest")
DARSHAN_COLUMNS = ("module", "rank", "record_id", "counter", "value", "file", "mount",
                   "fs_type")


def frames(summary):
    """{table: DataFrame} of a summary (the JSON text, or it parsed), one
    row per item of its lists; nested objects become dotted columns
    (stats.count, darshan.POSIX.POSIX_WRITES, ...)."""
    j = json.loads(summary) if isinstance(summary, (str, bytes)) else summary
    return {k: pd.json_normalize(j[k]) for k in TABLES if k in j}


def darshan(rows):
    """darshan-parser's rows (render("DARSHAN")) as a DataFrame: module,
    rank (as printed: the MPI rank, -1 for a record reduced over the
    ranks, pid:N for a process without one), record_id, counter, value
    (a number), file, mount, fs_type."""
    out = [ln.split("\t") for ln in rows.splitlines() if ln and not ln.startswith("#")]
    df = pd.DataFrame(out, columns=list(DARSHAN_COLUMNS))
    df["value"] = pd.to_numeric(df["value"])
    return df
