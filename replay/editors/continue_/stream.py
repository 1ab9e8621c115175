"""When Continue has read a streamed answer, and what of it: the time its provider call returns.

Read at continuedev/continue b238c1f11f (v2.1.0-vscode), checked against that code and
8a1287207f (v1.1.30-vscode) run under node (tests/data/golden/continue/sessions):

- generation/GeneratorReuseManager.ts: a single-line call stops at the first newline of a chunk,
  before any filter (the characters after it are dropped).
- filtering/streamTransforms/charStream.ts stopAtStopTokens: a character is passed on only once
  the longest stop word's length of characters is buffered, so the last (that length - 1)
  characters wait for more of the stream or its end; a line reaches the line filters when its
  newline is passed on (core/diff/util.ts streamLines; the last line at the end).
- lineStream.ts noDoubleNewLine (rules.py `closing_rule`, from f98117d7d2): a blank line after
  the first ends the stream.
- lineStream.ts showWhateverWeHaveAtXMs (`shown_by_ms` of timing.py): the time is checked after
  each line, once a non-blank line was read: past the limit, reading stops after that line.

The other line filters that end a stream early (stopAtLines, stopAtRepeatingLines,
stopAtSimilarLine, a language's) are not timed: their text is cut by the completion stage.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from replay.editors.continue_.completion import context
from replay.editors.live import Read
from replay.records import EditorInput


def reader(inp: EditorInput, model: str, version: str | None, shown_by_ms: float | None) -> Read:
    """How Continue reads an answer at this cursor: held back by its longest stop word (the
    request's and the pipeline's, completion.py's stop list), ended by a blank line where
    noDoubleNewLine is in force, cut by showWhateverWeHaveAtXMs, single- or multi-line as it
    decides at the cursor."""
    ctx = context(inp, model, version)
    hold = max((len(stop) for stop in ctx.stops), default=1) - 1
    return partial(read, hold=hold, shown_by_ms=shown_by_ms, blank_ends=ctx.rules.closing_rule == "noDoubleNewLine",
                   multiline=ctx.multiline)


def read(pieces: Sequence[tuple[float, str]], hold: int, shown_by_ms: float | None, blank_ends: bool,
         multiline: bool) -> tuple[float, str]:
    """(when the call has read the stream, the text read) for an answer arriving in `pieces`
    ((ms after sending, text), in time order), `hold` characters held back by stopAtStopTokens."""
    end = pieces[-1][0]
    if not multiline:
        for t, _ in pieces:
            got = "".join(text for u, text in pieces if u <= t)
            if "\n" in got:
                return t, got[:got.index("\n")]
        return end, "".join(text for _, text in pieces)
    full = "".join(text for _, text in pieces)
    arrived, total = [], 0
    for t, text in pieces:
        total += len(text)
        arrived.append((t, total))

    def passed(index: int) -> float:
        """When the character at `index` is passed on: `hold` more have come, or the stream ended."""
        return next((t for t, n in arrived if n >= index + 1 + hold), end)

    lines: list[str] = []
    start, seen = 0, False
    while start < len(full):
        newline = full.find("\n", start)
        line, t = (full[start:], end) if newline < 0 else (full[start:newline], passed(newline))
        if blank_ends and lines and line.strip() == "":
            return t, "\n".join(lines)
        lines.append(line)
        seen = seen or line.strip() != ""
        if shown_by_ms is not None and seen and t > shown_by_ms:
            return t, "\n".join(lines)
        start = len(full) if newline < 0 else newline + 1
    return end, full
