"""Which capture format a file holds, from its first bytes (`--format` overrides it).

Each format (replay.importers.formats) has a signature that the others cannot have; a head that
opens with `{` is tried against the JSON Lines formats only, any other against the text logs.
"""

from __future__ import annotations

from pathlib import Path

from replay.importers.common import READ_ERRORS, BadRecord, open_binary
from replay.importers.formats import FORMATS

HEAD_BYTES = 64 * 1024


def check_head(head: bytes) -> bytes:
    """`head` without a BOM and leading whitespace; BadRecord when the file is empty or binary
    (checked even when `--format` is forced)."""
    if not head:
        raise BadRecord("empty file")
    if b"\x00" in head:
        raise BadRecord("binary file (NUL bytes), not a capture log")
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text:
        raise BadRecord("empty file (whitespace only)")
    return text


def detect_bytes(head: bytes) -> str:
    """The format of a file that starts with `head`; BadRecord (empty, binary, unknown) otherwise."""
    text = check_head(head)
    json_lines = text[:1] == b"{"
    for fmt in FORMATS.values():
        if (fmt.kind == "lines") == json_lines and fmt.looks_like(text):
            return fmt.name
    if json_lines:
        raise BadRecord("JSON lines of an unknown log (neither Tabby events nor Continue dev data)")
    decoded = text.decode("utf-8", errors="replace")
    if decoded.count("\ufffd") > len(decoded) // 10:
        raise BadRecord("binary file (not UTF-8 text), not a capture log")
    raise BadRecord("format not recognized (use --format to force one)")


def detect_file(path: Path) -> str:
    """The format of the file at `path` (`.gz` is looked into); BadRecord when it is none."""
    return detect_bytes(read_head(path))


def read_head(path: Path) -> bytes:
    """The first HEAD_BYTES of a file (decompressed for `.gz`); BadRecord when unreadable."""
    head = b""
    try:
        with open_binary(path) as f:
            while len(head) < HEAD_BYTES:  # in steps, so a `.gz` cut short still shows its start
                chunk = f.read(4096)
                if not chunk:
                    break
                head += chunk
    except READ_ERRORS as exc:
        if not head:
            raise BadRecord(f"cannot read: {exc}") from None
    return head
