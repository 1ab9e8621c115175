"""Which capture format a file holds, from its first bytes (`--format` overrides it).

Each format has a signature that the others cannot have: Tabby event lines are JSON objects
whose keys are `ts`/`event` (and `user` since 2024-04-23, written first by serde); Continue dev
data lines are JSON objects naming `completionId`/`modelProvider`/`eventName`; the VS Code
output channel has its two 74-"=" separator lines; prompt.log has the LLMLogFormatter columns or
the bare `##### Completion options #####` / `Settings:` message heads.
"""

from __future__ import annotations

import re
from pathlib import Path

from replay.importers.common import READ_ERRORS, Reject, open_binary
from replay.importers.continue_jetbrains import is_formatter_log

FORMATS = ("tabby", "continue-devdata", "continue-console", "continue-jetbrains")
LINE_FORMATS = ("tabby", "continue-devdata")  # JSON Lines: read and tailed line by line
HEAD_BYTES = 64 * 1024
_TABBY_KEYS = re.compile(rb'^\{"(?:user|ts)":')
_SEP = b"=" * 74


def check_head(head: bytes) -> bytes:
    """`head` without a BOM and leading whitespace; Reject when the file is empty or binary
    (checked even when `--format` is forced)."""
    if not head:
        raise Reject("empty file")
    if b"\x00" in head:
        raise Reject("binary file (NUL bytes), not a capture log")
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text:
        raise Reject("empty file (whitespace only)")
    return text


def detect_bytes(head: bytes) -> str:
    """The format of a file that starts with `head`; Reject (empty, binary, unknown) otherwise."""
    text = check_head(head)
    if text[:1] == b"{":
        first = text.split(b"\n", 1)[0]
        if _TABBY_KEYS.match(first) and b'"event":' in text:
            return "tabby"
        if any(key in text for key in (b'"completionId":', b'"modelProvider":', b'"eventName":')):
            return "continue-devdata"
        raise Reject("JSON lines of an unknown log (neither Tabby events nor Continue dev data)")
    if _SEP + b"\n" + _SEP in text or _SEP + b"\r\n" + _SEP in text:
        return "continue-console"
    decoded = text.decode("utf-8", errors="replace")
    if is_formatter_log(decoded) or decoded.startswith(("##### Completion options #####\n", "Settings:\n")):
        return "continue-jetbrains"
    if decoded.count("\ufffd") > len(decoded) // 10:
        raise Reject("binary file (not UTF-8 text), not a capture log")
    raise Reject("format not recognized (use --format to force one)")


def detect_file(path: Path) -> str:
    """The format of the file at `path` (`.gz` is looked into); Reject when it is none."""
    return detect_bytes(read_head(path))


def read_head(path: Path) -> bytes:
    """The first HEAD_BYTES of a file (decompressed for `.gz`); Reject when unreadable."""
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
            raise Reject(f"cannot read: {exc}") from None
    return head
