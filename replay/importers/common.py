"""What every importer shares: bounded line reading and the result of a parse.

A parser turns one line (or one log entry) into a CaptureRecord, an OutcomeEvent, an `Ignored`
marker (valid, but not a completion: chat events), or raises `BadRecord` with a one-line reason.
Nothing is dropped silently: the caller counts each of the four and keeps rejects in a file
(replay.rejects).
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import msgspec

from replay.errors import UsageError, first_line
from replay.jsonl import first_invalid_utf8, lone_surrogate_escape
from replay.records import CaptureRecord, OutcomeEvent
from replay.rejects import RAW_KEEP_BYTES
from replay.secrets import scrub_obj

# Longest line an importer holds in memory. A real Tabby completion line (1,536-byte prompt, 20+20
# lines of segments, five 500-char declarations) stays under 64 KiB; 16 MiB leaves room for odd
# logs while a 100 MB line is read in chunks and rejected without ever being held whole.
MAX_LINE_BYTES = 16 * 1024 * 1024
_SKIP_CHUNK = 1024 * 1024


# What reading a capture file can raise besides a bad record: I/O errors, and a corrupt or cut
# `.gz` (EOFError from gzip, zlib.error from its decompressor).
READ_ERRORS = (OSError, EOFError, zlib.error)


class BadRecord(UsageError):
    """A record that cannot be used; the message is the one-line reason (the importer turns it
    into a replay.rejects.Reject with the record's file and line)."""


@dataclass(frozen=True)
class Ignored:
    """A valid record that is not a completion request (e.g. a Tabby chat_completion event)."""

    kind: str


Parsed = CaptureRecord | OutcomeEvent | Ignored


class Line(msgspec.Struct, frozen=True, gc=False):
    """One line read from a log: 1-based number, byte offset of its start, its bytes (without the
    newline), whether it ended with a newline, and whether it was cut at MAX_LINE_BYTES.
    (A Struct, not a dataclass: one is built per line, and a frozen dataclass costs 4x more.)"""

    number: int
    offset: int
    data: bytes
    complete: bool
    too_long: bool = False
    length: int = 0


def open_binary(path: Path) -> IO[bytes]:
    """Open a capture file for reading bytes; `.gz` files are decompressed on the fly."""
    if path.name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb", buffering=1024 * 1024)


class Replayed:
    """A stream whose first bytes were already read (to detect its format), given again before
    the rest: a pipe, a FIFO or /dev/stdin can be read only once, so the importer never opens a
    file twice."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = head
        self._pos = 0
        self._rest = rest

    def readline(self, limit: int = -1) -> bytes:
        if self._pos >= len(self._head):
            return self._rest.readline(limit)
        end = self._head.find(b"\n", self._pos)
        stop = len(self._head) if end < 0 else end + 1
        if limit >= 0:
            stop = min(stop, self._pos + limit)
        out = self._head[self._pos : stop]
        self._pos = stop
        if out.endswith(b"\n") or len(out) == limit or self._pos < len(self._head):
            return out
        return out + self._rest.readline(-1 if limit < 0 else limit - len(out))

    def read(self, n: int = -1) -> bytes:
        out = self._head[self._pos :] if n < 0 else self._head[self._pos : self._pos + n]
        self._pos += len(out)
        if n < 0:
            return out + self._rest.read()
        return out + (self._rest.read(n - len(out)) if len(out) < n else b"")


def record_bytes(line: Line) -> bytes:
    """What a JSON line's record is, whatever file it was copied to: the "\r" of a CRLF copy, the
    UTF-8 BOM of a file's first line and a NUL run a crash left before it are not part of it
    (JSON has no raw CR, BOM or NUL outside its whitespace), so a record's identity (its line's
    sha256 for Tabby, its content for the others) is the same in every copy. A line written
    with plain "\n" is returned unchanged, so stores made before keep their identities."""
    data = line.data
    if data[-1:] == b"\r":
        data = data[:-1]
    if line.offset == 0 and data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if data[:1] == b"\x00":
        data = data.lstrip(b"\x00")
    return data


def iter_lines(f: IO[bytes], start_offset: int = 0, start_line: int = 0, max_line: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """Yield the lines of `f` from `start_offset` on without ever holding more than `max_line`
    bytes of one line: a longer line is skipped in chunks and yielded cut, with `too_long` set.
    The last line has `complete=False` when the file does not end with a newline (a writer that
    has not flushed the rest yet, or a truncated log)."""
    offset = start_offset
    number = start_line
    readline = f.readline
    while True:
        data = readline(max_line + 1)
        if not data:
            return
        number += 1
        start = offset
        if data[-1:] == b"\n":
            offset += len(data)
            yield Line(number, start, data[:-1], True, False, len(data) - 1)
            continue
        if len(data) <= max_line:  # end of file without a newline
            offset += len(data)
            yield Line(number, start, data, False, False, len(data))
            return
        head = data[:RAW_KEEP_BYTES]
        length = len(data)
        del data
        complete = False
        while True:
            chunk = readline(_SKIP_CHUNK)
            if not chunk:
                break
            if chunk[-1:] == b"\n":
                length += len(chunk) - 1
                complete = True
                offset += 1
                break
            length += len(chunk)
        offset += length
        yield Line(number, start, head, complete, True, length)


def scrub_json(obj: Any) -> Any:
    """replay.secrets.scrub_obj over a decoded value; one nested too deeply for it is a BadRecord."""
    try:
        return scrub_obj(obj)
    except RecursionError:
        raise BadRecord("JSON nested too deeply") from None


def snippet_of(data: bytes) -> str:
    """The first bytes of a rejected record as text (invalid UTF-8 shown as \\x escapes)."""
    return data[:RAW_KEEP_BYTES].decode("utf-8", errors="backslashreplace")


def invalid_utf8(data: bytes) -> str | None:
    """Why a line's bytes are not UTF-8 (the first bad byte and where), or None."""
    at = first_invalid_utf8(data)
    return None if at is None else f"invalid UTF-8: byte 0x{data[at]:02x} at byte {at + 1}"


def lone_surrogate_reason(data: bytes) -> str | None:
    """Why a JSON line spells what no UTF-8 text can hold (a lone UTF-16 surrogate escape), or None."""
    at = lone_surrogate_escape(data)
    return None if at is None else f"lone UTF-16 surrogate escape at byte {at + 1} (UTF-8 cannot hold it)"


def decode_error_reason(exc: Exception) -> str:
    """One line from a msgspec error: JSON syntax, invalid UTF-8, or a field of the wrong type."""
    if isinstance(exc, UnicodeDecodeError):
        return f"invalid UTF-8 at byte {exc.start}"
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    text = first_line(exc)
    if isinstance(exc, msgspec.ValidationError):
        return f"wrong field type: {text}"
    return f"invalid JSON: {text}"


MAX_TEXT_BYTES = 256 * 1024 * 1024


def decode_text(data: bytes, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """A whole text log (console copies, prompt.log) as str, without its BOM. A byte that is not
    UTF-8 is kept as a lone surrogate (surrogateescape): the entry holding it is rejected by
    `bad_byte_line`, the others are imported."""
    if len(data) > max_bytes:
        raise BadRecord(f"text log larger than {max_bytes} bytes")
    return data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")


_SURROGATE = re.compile("[\udc80-\udcff]")


def bad_byte(text: str) -> int | None:
    """The index of the first byte of `text` (from decode_text) that was not UTF-8, or None."""
    m = _SURROGATE.search(text)
    return m.start() if m else None
