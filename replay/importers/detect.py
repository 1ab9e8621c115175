"""Which capture format a file holds, from its first bytes (`--format` overrides it).

Each format (replay.importers.formats) has a signature that the others cannot have; a head that
opens with `{` is tried against the JSON Lines formats only, any other against the text logs.
A byte order mark, whitespace and NUL bytes before the first record are not part of it (a
crash can leave a run of NULs where a log was never written); NULs further on are the bad
lines' business, rejected one by one, not the whole file's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import IO

from replay.importers.common import READ_ERRORS, BadRecord, open_binary
from replay.importers.formats import FORMATS

HEAD_BYTES = 64 * 1024
_BLANK_LINES = re.compile(rb"\A(?:[ \t\r]*\n)+")


class EmptyLog(BadRecord):
    """A file with nothing in it (an install's unused `chat.jsonl`): skipped and counted, not an error."""


def check_head(head: bytes) -> bytes:
    """`head` without a BOM, leading whitespace and NULs; EmptyLog when nothing is left."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n\x00")
    if not text:
        raise EmptyLog("empty file" if not head.strip(b"\x00") else "NUL bytes only")
    return text


def detect_bytes(head: bytes, name: str = "") -> str:
    """The format of a file named `name` that starts with `head`; BadRecord (empty, binary,
    unknown) otherwise."""
    text = check_head(head)
    json_lines = text[:1] == b"{"
    # a text log from the start of its first non-blank line (its leading spaces may mean something)
    text_head = _BLANK_LINES.sub(b"", head.removeprefix(b"\xef\xbb\xbf").lstrip(b"\x00"), count=1)
    for fmt in FORMATS.values():
        if fmt.kind == "lines" and json_lines and (fmt.looks_like(text) or name in fmt.file_names):
            return fmt.name
        if fmt.kind == "text" and not json_lines and fmt.looks_like(text_head):
            return fmt.name
    if b"\x00" in text:
        raise BadRecord("binary file (NUL bytes), not a capture log")
    if json_lines:
        raise BadRecord("JSON lines of an unknown log (neither Tabby events nor Continue dev data)")
    decoded = text.decode("utf-8", errors="replace")
    if decoded.count("\ufffd") > len(decoded) // 10:
        raise BadRecord("binary file (not UTF-8 text), not a capture log")
    raise BadRecord("format not recognized (use --format to force one)")


def read_head(f: IO[bytes]) -> bytes:
    """The first HEAD_BYTES of an open capture file (decompressed for `.gz`), read once: the
    caller goes on reading the same stream (a pipe or FIFO cannot be opened twice). BadRecord
    when nothing could be read."""
    head = b""
    try:
        while len(head) < HEAD_BYTES:  # in steps, so a `.gz` cut short still shows its start
            chunk = f.read(min(4096, HEAD_BYTES - len(head)))
            if not chunk:
                break
            head += chunk
    except READ_ERRORS as exc:
        if not head:
            raise BadRecord(f"cannot read: {exc}") from None
    return head


def detect_file(path: Path) -> str:
    """The format of the file at `path` (`.gz` is looked into); BadRecord when it is none."""
    try:
        with open_binary(path) as f:
            head = read_head(f)
    except OSError as exc:
        raise BadRecord(f"cannot read: {exc.strerror or exc}") from None
    return detect_bytes(head, path.name)
