"""What every importer shares: bounded line reading and the result of a parse.

A parser turns one line (or one log entry) into a CaptureRecord, an OutcomeEvent, an `Ignored`
marker (valid, but not a completion: chat events), or raises `BadRecord` with a one-line reason.
Nothing is dropped silently: the caller counts each of the four and keeps rejects in a file
(replay.rejects).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import msgspec

from replay.errors import UsageError
from replay.records import CaptureRecord, OutcomeEvent
from replay.rejects import RAW_KEEP_BYTES

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


def snippet_of(data: bytes) -> str:
    """The first bytes of a rejected record as text (invalid UTF-8 shown as \\x escapes)."""
    return data[:RAW_KEEP_BYTES].decode("utf-8", errors="backslashreplace")


def decode_error_reason(exc: Exception) -> str:
    """One line from a msgspec error: JSON syntax, invalid UTF-8, or a field of the wrong type."""
    if isinstance(exc, UnicodeDecodeError):
        return f"invalid UTF-8 at byte {exc.start}"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, msgspec.ValidationError):
        return f"wrong field type: {text}"
    return f"invalid JSON: {text}"


def read_text(path: Path, max_bytes: int = 256 * 1024 * 1024) -> str:
    """A whole text log (console copies, prompt.log) as str; invalid UTF-8 raises BadRecord."""
    with open_binary(path) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise BadRecord(f"text log larger than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise BadRecord(f"invalid UTF-8 at byte {exc.start} (line {line})") from exc


# Extension -> language id, from TabbyML/tabby crates/tabby-common/assets/languages.toml (`exts`),
# with the JavaScript/TypeScript group split into the VS Code language ids Continue and Tabby's
# clients send. Used where a log names a file but no language (Continue dev data).
_EXT_LANGUAGE = {
    "py": "python", "rs": "rust", "java": "java", "kt": "kotlin", "kts": "kotlin",
    "js": "javascript", "mjs": "javascript", "jsx": "javascriptreact", "ts": "typescript",
    "mts": "typescript", "tsx": "typescriptreact", "go": "go", "rb": "ruby", "c": "c", "h": "c",
    "cpp": "cpp", "hpp": "cpp", "c++": "cpp", "h++": "cpp", "cc": "cpp", "hh": "cpp", "C": "cpp",
    "H": "cpp", "tcc": "cpp", "cs": "csharp", "php": "php", "sol": "solidity", "dart": "dart",
    "ex": "elixir", "exs": "elixir", "R": "r", "r": "r", "css": "css", "hs": "haskell",
    "html": "html", "jl": "julia", "lua": "lua", "md": "markdown", "markdown": "markdown",
    "txt": "txt", "pl": "perl", "pm": "perl", "ps1": "powershell", "sql": "sql", "scala": "scala",
    "sbt": "scala", "sh": "shellscript", "bash": "shellscript", "zsh": "shellscript",
    "tex": "tex", "vb": "vb", "ml": "ocaml", "mli": "ocaml", "gd": "gdscript",
}
_NAME_LANGUAGE = {"Dockerfile": "dockerfile", "Makefile": "makefile"}


def language_of(filepath: str | None) -> str | None:
    """The language id of a file path or URI by its extension (None when unknown)."""
    if not filepath:
        return None
    name = filepath.replace("\\", "/").rsplit("/", 1)[-1]
    if name in _NAME_LANGUAGE:
        return _NAME_LANGUAGE[name]
    if "." not in name:
        return None
    return _EXT_LANGUAGE.get(name.rsplit(".", 1)[-1])
