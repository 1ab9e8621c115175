"""Which lines of a newer version of a corpus are absent from an older one.

A model trained before the older version was published may have seen every line it holds, but
not the lines the newer version added or changed. The lines are compared with the standard
library's diff (difflib.SequenceMatcher, the Ratcliff/Obershelp matcher `diff -u`-like tools in
Python use), per file:
- a file at the same path in the older version is diffed against it;
- a file not there, whose name is held by exactly one file of the older version, was moved:
  diffed against that one;
- otherwise the whole file is new.
Lines are compared without their leading and trailing whitespace, so re-indented or re-ended
(CRLF) lines count as old code; `autojunk` is off, so common lines (a lone `}`) still match.
Blank lines are never new code on their own.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from replay.corpus.lines import split_lines

LineRanges = list[tuple[int, int]]  # 0-based [first, end) line numbers, sorted, disjoint


def new_lines(old: Sequence[str], new: Sequence[str]) -> LineRanges:
    """The ranges of `new`'s lines that the diff does not match to a line of `old`."""
    a = [line.strip() for line in old]
    b = [line.strip() for line in new]
    ranges: LineRanges = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            ranges.extend(_without_blank_ends(b, j1, j2))
    return _merged(ranges)


def _without_blank_ends(lines: Sequence[str], first: int, end: int) -> LineRanges:
    while first < end and not lines[first]:
        first += 1
    while end > first and not lines[end - 1]:
        end -= 1
    return [(first, end)] if first < end else []


def _merged(ranges: LineRanges) -> LineRanges:
    out: LineRanges = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _read_lines(path: Path) -> list[str]:
    return split_lines(path.read_bytes().decode("utf-8", "replace"))


def corpus_new_lines(new_root: Path, new_files: Sequence[str], old_root: Path, old_files: Sequence[str]) -> dict[str, LineRanges]:
    """rel path -> new line ranges, for every file of the newer version that has new lines."""
    old_set = set(old_files)
    by_name = Counter(PurePosixPath(f).name for f in old_files)
    moved = {PurePosixPath(f).name: f for f in old_files if by_name[PurePosixPath(f).name] == 1}
    out: dict[str, LineRanges] = {}
    for rel in new_files:
        lines = _read_lines(new_root / rel)
        base = rel if rel in old_set else moved.get(PurePosixPath(rel).name)
        ranges = new_lines(_read_lines(old_root / base), lines) if base else _without_blank_ends([s.strip() for s in lines], 0, len(lines))
        if ranges:
            out[rel] = ranges
    return out


def char_ranges(text: str, ranges: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Line ranges of `text` as character ranges (each line with its ending)."""
    offsets = [0]
    for line in split_lines(text):
        offsets.append(offsets[-1] + len(line))
    last = len(offsets) - 1
    return [(offsets[min(a, last)], offsets[min(b, last)]) for a, b in ranges if min(a, last) < min(b, last)]


def summary(ranges: Mapping[str, LineRanges]) -> dict[str, int]:
    return {"n_files": len(ranges), "n_lines": sum(b - a for rs in ranges.values() for a, b in rs)}
