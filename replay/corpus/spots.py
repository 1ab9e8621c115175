"""The usable spots of one file, counted exactly and addressable by number 0..count-1.

A spot is where a middle can be cut: in line mode `lines` whole lines, in span mode any
(start, end) character span. Spots are numbered chunk by chunk and, within a chunk, by start
then end, so that a random number below `count` picks one spot with no rejection loop.

`allowed`, when given, is the file's character ranges where a middle may lie (the new code of a
version: replay.corpus.newcode); a middle must then fit inside one of them. The prefix and the
suffix are still the whole chunk around it, as the editor would send.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence
from typing import Any

from replay.corpus.lines import split_lines

_LAST_SPACE = 0x3000  # the highest code point str.isspace accepts

Ranges = Sequence[tuple[int, int]]


class LineSpots:
    """Line mode: the first masked line i of a chunk obeys 1 <= i, i + n <= len(lines) - 1 (the
    prefix and the suffix keep at least one line), and line i is not blank (the seed's rule).
    `code` (prefix counts of code characters, code_before): the masked lines must hold code."""

    def __init__(self, chunks: Sequence[tuple[int, str]], n: int, allowed: Ranges | None = None,
                 code: Any | None = None) -> None:
        self.n = n
        self.blocks: list[tuple[int, list[int], list[int]]] = []  # (chunk number, line offsets, usable first lines)
        self.bounds: list[int] = []
        total = 0
        for c, (chunk_start, chunk) in enumerate(chunks):
            lines = split_lines(chunk)
            offsets = [chunk_start]
            for line in lines:
                offsets.append(offsets[-1] + len(line))
            starts = [i for i in range(1, len(lines) - n) if lines[i].strip()]
            if allowed is not None:
                starts = [i for i in starts if _inside(allowed, offsets[i], offsets[i + n])]
            if code is not None:  # the masked lines hold code, not only comments
                starts = [i for i in starts if code[offsets[i + n]] > code[offsets[i]]]
            self.blocks.append((c, offsets, starts))
            total += len(starts)
            self.bounds.append(total)
        self.count = total

    def spot(self, index: int) -> tuple[int, int, int]:
        """(chunk number, start, end) in file offsets of spot number `index`."""
        k = bisect.bisect_right(self.bounds, index)
        c, offsets, starts = self.blocks[k]
        i = starts[index - (self.bounds[k - 1] if k else 0)]
        return c, offsets[i], offsets[i + self.n]


class SpanSpots:
    """Span mode: middle = chunk[s:e] with 1 <= s, e <= len - 1 (non-empty prefix and suffix),
    e - s >= min_middle, e - s <= max_middle (if set), and a non-whitespace character inside:
    e > next_nonws[s], the first index >= s holding one (with `comments`, a mask of the comment
    characters, one that is code: comments count as whitespace). For each s the usable e form one
    interval [lo, hi], so the count is a sum and spot number k is found by bisection.

    Computed with numpy over the whole file at once (positions are file offsets; each knows the
    end of its chunk): a Python loop per character made span mode ten times slower than line
    mode, and one numpy pass per chunk still spent most of its time in call overhead.
    """

    def __init__(self, text: str, chunks: Sequence[tuple[int, str]], min_middle: int, max_middle: int,
                 allowed: Ranges | None = None, comments: Any | None = None) -> None:
        import numpy as np

        self.chunk_starts = [start for start, _ in chunks]
        length = len(text)
        begins = np.array(self.chunk_starts, dtype=np.int64)
        chunk_end = np.repeat(begins + np.array([len(c) for _, c in chunks], dtype=np.int64),
                              [len(c) for _, c in chunks])
        pos = np.arange(length, dtype=np.int64)
        blank = _spaces(text) if comments is None else _spaces(text) | comments  # code only: comments are blank
        nonws_from = np.minimum.accumulate(np.where(blank, length, pos)[::-1])[::-1]
        next_nonws = np.minimum(nonws_from, chunk_end)  # a chunk's own: its end when none is left in it
        lo = np.maximum(pos + max(1, min_middle), next_nonws + 1)
        hi = chunk_end - 1 if not max_middle else np.minimum(chunk_end - 1, pos + max_middle)
        if allowed is not None:
            range_end = np.full(length, -1, dtype=np.int64)  # end of the allowed range holding pos
            for a, b in allowed:
                range_end[a:b] = b
            hi = np.minimum(hi, range_end)
        count = np.maximum(hi - lo + 1, 0)
        count[begins] = 0  # s = 0: the prefix would be empty
        self.lo = lo
        self.cumulative = np.cumsum(count)
        self.count = int(self.cumulative[-1]) if length else 0

    def spot(self, index: int) -> tuple[int, int, int]:
        """(chunk number, start, end) in file offsets of spot number `index`."""
        p = int(self.cumulative.searchsorted(index, side="right"))
        before = int(self.cumulative[p - 1]) if p else 0
        return bisect.bisect_right(self.chunk_starts, p) - 1, p, int(self.lo[p]) + (index - before)


def code_before(text: str, comments: Any) -> Any:
    """Prefix counts of code characters (neither whitespace nor inside a comment): entry i is
    how many of text[:i] are code, so [a, b) holds code when entry b exceeds entry a."""
    import numpy as np

    return np.concatenate(([0], np.cumsum(~(_spaces(text) | comments), dtype=np.int64)))


def _inside(allowed: Ranges, start: int, end: int) -> bool:
    """[start, end) lies inside one of the sorted, disjoint `allowed` ranges."""
    k = bisect.bisect_right(allowed, (start, float("inf"))) - 1
    return k >= 0 and allowed[k][0] <= start and end <= allowed[k][1]


@functools.cache
def _space_table() -> Any:
    """is-whitespace (str.isspace) of every code point up to U+3000; none above is."""
    import numpy as np

    return np.array([chr(c).isspace() for c in range(_LAST_SPACE + 1)], dtype=bool)


def _spaces(text: str) -> Any:
    """A boolean array: text[i].isspace() for every i."""
    import numpy as np

    table = _space_table()
    if text.isascii():
        return table[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    return table[np.minimum(points, _LAST_SPACE)] & (points <= _LAST_SPACE)


def warm() -> None:
    """Load numpy and the whitespace table now (before worker processes fork from this one)."""
    _space_table()
