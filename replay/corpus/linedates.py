"""Each line of a corpus file dated by the commit that last changed it, and what follows for items.

A file's dates are kept as runs of consecutive lines sharing one commit: `[lines, time, commit]`,
`time` the commit's committer time in UTC (`YYYY-MM-DDTHH:MM:SSZ`), `commit` its full id, or
UNCOMMITTED (git blame's own id for a work tree's lines no commit holds) for lines dated when the
corpus was made. Lines are numbered as split_lines counts them ("\\n" ends a line), as git does.

An item's middle is as new as its newest line: a model whose training data ends before that
day cannot have seen the middle as it stands. `--newer-than` places middles only in lines all
newer than a day (newer_ranges), so every line of a middle was written after it.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Sequence
from typing import Any

from replay.corpus.lines import split_lines
from replay.corpus.newcode import LineRanges

UNCOMMITTED = "0" * 40  # git blame's commit id for lines of the work tree that no commit holds
Runs = Sequence[Sequence[Any]]  # [[lines, UTC time, commit], ...] as the manifest keeps them


def uncommitted(commit: str) -> bool:
    """git blame's id for a line no commit holds: all zeros (40 of them, 64 in a SHA-256 repository)."""
    return not str(commit).strip("0")


def utc_time(epoch: int) -> str:
    """A committer time (seconds since the epoch) as the UTC time the runs keep."""
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def runs_of(lines: Sequence[tuple[str, str]]) -> list[list[Any]]:
    """(time, commit) per line -> runs of equal neighbours."""
    runs: list[list[Any]] = []
    for when, commit in lines:
        if runs and runs[-1][1] == when and runs[-1][2] == commit:
            runs[-1][0] += 1
        else:
            runs.append([1, when, commit])
    return runs


def n_lines(runs: Runs) -> int:
    return sum(int(r[0]) for r in runs)


def newer_ranges(runs: Runs, day: dt.date) -> LineRanges:
    """The line ranges whose commit day (UTC) is after `day` (uncommitted lines always are)."""
    after = day.isoformat()
    out: LineRanges = []
    line = 0
    for count, when, commit in runs:
        if uncommitted(commit) or str(when)[:10] > after:
            if out and out[-1][1] == line:
                out[-1] = (out[-1][0], line + count)
            else:
                out.append((line, line + count))
        line += count
    return out


def intersect(a: LineRanges, b: LineRanges) -> LineRanges:
    """The lines in both sorted, disjoint range lists."""
    out: LineRanges = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


class FileDates:
    """One file's line dates, to date the middles cut from its text."""

    def __init__(self, text: str, runs: Runs) -> None:
        self.starts = [0]  # character offset where each line starts
        for line in split_lines(text):
            self.starts.append(self.starts[-1] + len(line))
        self.ends = []  # last line (exclusive) of each run
        self.runs = list(runs)
        total = 0
        for r in self.runs:
            total += int(r[0])
            self.ends.append(total)

    def item_fields(self, start: int, end: int) -> dict[str, str]:
        """The FimItem fields of a middle text[start:end]: its newest line's time, commit and
        where that date comes from ("blame", or "uncommitted": dated when the corpus was made).
        {} when the dates do not cover the middle's lines (the file changed since)."""
        first = bisect.bisect_right(self.starts, start) - 1
        last = bisect.bisect_right(self.starts, max(start, end - 1)) - 1  # the line holding the last character
        if not self.ends or last >= self.ends[-1] or len(self.starts) - 1 != self.ends[-1]:
            return {}
        k = bisect.bisect_right(self.ends, first)
        newest = None
        while k < len(self.runs) and (self.ends[k - 1] if k else 0) <= last:
            _, when, commit = self.runs[k]
            if newest is None or str(when) > newest[0]:
                newest = (str(when), str(commit))
            k += 1
        assert newest is not None
        when, commit = newest
        wip = uncommitted(commit)
        return {"middle_date": when, "middle_date_source": "uncommitted" if wip else "blame",
                "middle_commit": "" if wip else commit}
