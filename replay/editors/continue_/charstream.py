"""The character side of Continue's completion stream: the source as Continue reads it, and the
transforms over chunks of text (continuedev/continue core/autocomplete/charStream.ts, later
core/autocomplete/filtering/streamTransforms/charStream.ts; core/diff/util.ts streamLines;
core/autocomplete/util.ts, later generation/GeneratorReuseManager.ts; generation/utils.ts).

Every transform is a generator over the previous one, pulled as Continue's async generators are:
a transform that stops returns and nothing upstream is read any further. Text is in UTF-16 code
units (one Python character per unit, `to_units`), as JavaScript indexes and measures it.

`Feed` is the model's stream: chunks with their arrival time. `full_stop()` is Continue's
fullStop (ListenableGenerator.cancel): the stream ends before the next chunk, and what the
transforms still hold is flushed. In prefix mode (`final=False`) a pull past the text received so
far raises NeedMore: the pipeline would read on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from replay.editors.js import JS_WHITESPACE as JS_SPACE
from replay.editors.js import js_trim, js_trim_end, js_trim_start, utf16

Chars = Iterator[str]


def to_units(text: str) -> str:
    """The text as JavaScript sees it: one character per UTF-16 code unit."""
    return utf16(text)


def from_units(units: str) -> str:
    """Back from code units; a pair split by a cut becomes U+FFFD."""
    if all(not "\ud800" <= ch <= "\udfff" for ch in units):
        return units
    return units.encode("utf-16-le", errors="surrogatepass").decode("utf-16-le", errors="replace")


def is_js_space(ch: str) -> bool:
    """`/\\s/.test(ch)` for one character."""
    return ch != "" and ch in JS_SPACE


class NeedMore(Exception):
    """The pipeline pulled past the text streamed so far: Continue would read on."""


@dataclasses.dataclass
class Feed:
    """The model's stream as Continue reads it: (text, arrival seconds) chunks. `consumed` counts
    the code units handed out, `clock` is the arrival time of the last chunk read (what
    Date.now() - start shows a time-based rule)."""

    chunks: Sequence[tuple[str, float]]
    final: bool = True
    max_time: float | None = None  # stopAfterMaxProcessingTime limit in seconds (every 10 chunks)
    consumed: int = 0
    clock: float = 0.0
    cancelled: bool = False
    timed_out: bool = False  # ended by stopAfterMaxProcessingTime

    def full_stop(self) -> None:
        self.cancelled = True

    def source(self) -> Chars:
        """llm.streamFim / streamComplete through ListenableGenerator.tee: a cancelled stream ends
        before its next chunk. With `max_time`, generation/utils.ts stopAfterMaxProcessingTime
        checks every 10th chunk whether the request has run longer and then ends the stream."""
        for count, (text, at) in enumerate(self.chunks, start=1):
            if self.cancelled:
                return
            self.consumed += len(text)
            self.clock = at
            yield text
            if self.max_time is not None and count % 10 == 0 and at > self.max_time:
                self.cancelled = self.timed_out = True
                return
        if not self.final and not self.cancelled:
            raise NeedMore


def reuse_generator(chunks: Chars, multiline: bool) -> Chars:
    """GeneratorReuseManager.getGenerator (core/autocomplete/util.ts, later
    generation/GeneratorReuseManager.ts) for a fresh request: empty chunks are skipped and, in
    single-line mode, the stream ends at the first newline (the text before it is kept)."""
    for chunk in chunks:
        if not chunk:
            continue
        newline = chunk.find("\n")
        if newline >= 0 and not multiline:
            yield chunk[:newline]
            return
        yield chunk


def no_first_char_newline(chunks: Chars) -> Chars:
    """charStream.ts noFirstCharNewline: nothing at all when the first chunk starts with a
    line break."""
    first = True
    for chunk in chunks:
        if first:
            first = False
            if chunk.startswith(("\n", "\r")):
                return
        yield chunk


def only_whitespace_after_end_of_line(chunks: Chars, end_of_line: Sequence[str], feed: Feed) -> Chars:
    """charStream.ts onlyWhitespaceAfterEndOfLine: an end-of-line character (";" in C-like
    languages) followed by anything but whitespace ends the completion after that character."""
    pending = ""
    for chunk in chunks:
        chunk = pending + chunk
        pending = ""
        for i in range(len(chunk) - 1):
            if chunk[i] in end_of_line and not is_js_space(chunk[i + 1]):
                yield chunk[:i + 1]
                feed.full_stop()
                return
        if chunk and chunk[-1] in end_of_line:
            pending = chunk[-1]
            yield chunk[:-1]
        else:
            yield chunk
    yield pending


def _code_points(units: str) -> Iterator[str]:
    """`for (const char of string)`: code points, a surrogate pair kept together."""
    i = 0
    while i < len(units):
        step = 2 if "\ud800" <= units[i] <= "\udbff" and i + 1 < len(units) and "\udc00" <= units[i + 1] <= "\udfff" else 1
        yield units[i:i + step]
        i += step


def stop_at_stop_tokens(chunks: Chars, stops: Sequence[str], tail_filter: bool) -> Chars:
    """charStream.ts stopAtStopTokens: a buffer as long as the longest stop word; the stream ends
    where a stop word starts. At the end of the stream the buffer is flushed, since 2024-11-13
    with each stop word's first occurrence removed from it (`tail_filter`)."""
    if not stops:
        yield from chunks
        return
    longest = max(len(s) for s in stops)
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        while len(buffer) >= longest:
            if any(buffer.startswith(s) for s in stops):
                return
            yield buffer[0]
            buffer = buffer[1:]
    if tail_filter:
        for stop in stops:
            buffer = buffer.replace(stop, "", 1)
    yield from _code_points(buffer)


def stop_at_start_of(chunks: Chars, suffix: str, variant: str, length: int = 20) -> Chars:
    """charStream.ts stopAtStartOf: stop where the model starts repeating the text after the
    cursor (a suffix shorter than 20 units turns it off). Variants by release:
    `lcs` (2024-11-25) a common substring longer than 20 with the suffix's first 60 units;
    `prefix20` (2024-11-28) the first 20 units of the trimmed suffix, cut before it;
    `window30` (2024-11-28) the last 20+ units read lie inside the trimmed suffix's first 30."""
    if len(suffix) < length:
        yield from chunks
        return
    if variant == "lcs":
        yield from _stop_at_common_substring(chunks, suffix, length)
        return
    target = js_trim_start(suffix)[:length if variant == "prefix20" else int(length * 1.5)]
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        if variant == "prefix20" and target in buffer:
            yield buffer[:buffer.index(target)]
            return
        if variant == "window30" and len(buffer) >= length and buffer in target:
            return
        while len(buffer) > length:
            yield buffer[0]
            buffer = buffer[1:]
    if buffer:
        yield buffer


def _stop_at_common_substring(chunks: Chars, suffix: str, length: int) -> Chars:
    """The first stopAtStartOf (2024-11-25): longest common substring of the stream and the
    suffix's first min(len, 60) units, by rows of a dynamic programme."""
    n = min(len(suffix), 3 * length)
    prev = [0] * (n + 1)
    best = 0
    buffer = ""
    for chunk in chunks:
        for ch in chunk:
            curr = [0] * (n + 1)
            for j in range(1, n + 1):
                if ch == suffix[j - 1]:
                    curr[j] = prev[j - 1] + 1
                    best = max(best, curr[j])
            prev = curr
            if best > length:
                return
            buffer += ch
            while len(buffer) > length:
                yield buffer[0]
                buffer = buffer[1:]
    yield buffer


def stream_lines(chunks: Chars, empty_after_newline_chunk: bool = False) -> Iterator[str]:
    """core/diff/util.ts streamLines: complete lines as their newline arrives, the rest at the
    end if not empty (so a final newline is dropped). Between 2024-10-25 and 2024-10-30 an extra
    empty line followed every chunk that ended in a newline."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        lines = buffer.split("\n")
        buffer = lines.pop()
        yield from lines
        if empty_after_newline_chunk and buffer == "" and chunk.endswith("\n"):
            yield ""
    if buffer:
        yield buffer


__all__ = ["JS_SPACE", "Feed", "NeedMore", "from_units", "is_js_space", "js_trim", "js_trim_end", "js_trim_start", "reuse_generator", "stop_at_start_of", "stop_at_stop_tokens",
           "stream_lines", "to_units"]
