"""JSON Lines, read one way everywhere: lines end at "\\n" only, a line is UTF-8 on its own, and a
line's JSON is decoded with a bounded nesting depth and without lone UTF-16 surrogates.

JSON Lines (https://jsonlines.org) ends a line at "\\n" alone. str.splitlines also ends one at
U+2028, U+2029, U+0085, form feeds and lone "\\r" -- characters JSON allows unescaped inside a
string -- so it cuts valid records in two. A "\\r" right before the "\\n" is the line end of a
file saved with CRLF and is not part of the record; a UTF-8 byte order mark (a file saved by a
Windows editor) is not part of the first line.

A file is decoded line by line (`json_lines` over bytes): a byte that is not UTF-8 (a file cut
mid-character by a crash and then appended to, a disk error) damages its line alone. The line
is handed on with the byte kept as a lone surrogate (Python's "surrogateescape"), which `loads`
rejects with the byte's column, so every reader that rejects a line `loads` refused rejects this
one too, and the rejects file gets the byte back (replay.rejects).

A JSON string may also spell a lone UTF-16 surrogate as an escape ("\\ud83d" without its low
half: what JavaScript's JSON.stringify writes for a string cut in the middle of an emoji).
Python's json module decodes it into a str that no UTF-8 file, SQLite text or msgspec encoder
can hold, so `loads` rejects it; a reader whose writer is JavaScript may instead keep the
record with the half replaced (`replace_lone_surrogates`).

Python's json module recurses once per nesting level and raises RecursionError (not a
ValueError) on a value nested ~1000 deep; `loads` turns that into a ValueError, so a hostile
line is one bad line, never a crash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

BOM = "\ufeff"

# A character of a str that UTF-8 cannot hold: a byte that was not UTF-8 (kept by
# "surrogateescape" as U+DC80..U+DCFF) or a lone half of a UTF-16 pair.
_SURROGATE = re.compile("[\ud800-\udfff]")
# JSON escapes in order, so that an escaped backslash ("\\\\ud83d": text, not an escape) is
# consumed as one; a \u escape's four hex digits captured.
_ESCAPES = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.S)


def json_lines(data: str | bytes) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of every non-blank line of a JSON Lines text. Given bytes,
    each line is decoded on its own; a line that is not UTF-8 keeps its bad bytes as lone
    surrogates, which `loads` (and `bad_text`) name."""
    if isinstance(data, bytes):
        lines: Any = (raw.decode("utf-8", "surrogateescape") for raw in data.removeprefix(BOM.encode()).split(b"\n"))
    else:
        lines = data.removeprefix(BOM).split("\n")
    for number, line in enumerate(lines, start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if line.strip():
            yield number, line


def bad_text(text: str) -> str | None:
    """Why `text` cannot be kept as UTF-8 (a byte that was not UTF-8, or a lone surrogate), or None."""
    m = _SURROGATE.search(text)
    if m is None:
        return None
    char = ord(m.group())
    if 0xDC80 <= char <= 0xDCFF:
        return f"invalid UTF-8: byte 0x{char - 0xDC00:02x} at column {m.start() + 1}"
    return f"lone UTF-16 surrogate U+{char:04X} at column {m.start() + 1}"


def first_invalid_utf8(data: bytes) -> int | None:
    """The offset of the first byte of `data` that is not UTF-8 there, or None: the one place
    every reader of raw bytes (an import line, a proxied body) finds where its bytes went wrong."""
    if data.isascii():
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return None


def loads(text: str | bytes) -> Any:
    """json.loads of one line; ValueError (a one-line reason) for invalid JSON, invalid UTF-8,
    a lone UTF-16 surrogate escape, or a value nested too deeply for Python's recursion limit."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    if (why := bad_text(text)) is not None:
        raise ValueError(why)
    try:
        obj = json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if ("\\ud" in text or "\\uD" in text) and (at := lone_surrogate_escape(text.encode("utf-8"))) is not None:
        raise ValueError(f"lone UTF-16 surrogate escape at byte {at + 1} (UTF-8 cannot hold it)")
    return obj


def _lone_escapes(data: bytes) -> Iterator[re.Match[bytes]]:
    """The \\u escapes of a JSON text that spell half of a UTF-16 pair without the other half."""
    if b"\\ud" not in data and b"\\uD" not in data:
        return
    high: re.Match[bytes] | None = None
    for m in _ESCAPES.finditer(data):
        code = int(m.group(1), 16) if m.group(1) else -1
        if high is not None:
            if 0xDC00 <= code <= 0xDFFF and m.start() == high.end():
                high = None
                continue
            yield high
            high = None
        if 0xD800 <= code <= 0xDBFF:
            high = m
        elif 0xDC00 <= code <= 0xDFFF:
            yield m
    if high is not None:
        yield high


def lone_surrogate_escape(data: bytes) -> int | None:
    """The byte offset of the first lone UTF-16 surrogate escape in a JSON text, or None."""
    return next((m.start() for m in _lone_escapes(data)), None)


def replace_lone_surrogates(data: bytes) -> tuple[bytes, int]:
    """A JSON text with each lone UTF-16 surrogate escape replaced by \\ufffd (U+FFFD, what a
    UTF-8 encoder writes for one), and how many were replaced."""
    found = list(_lone_escapes(data))
    if not found:
        return data, 0
    out, last = [], 0
    for m in found:
        out += [data[last:m.start()], b"\\ufffd"]
        last = m.end()
    out.append(data[last:])
    return b"".join(out), len(found)
