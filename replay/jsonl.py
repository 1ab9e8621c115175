"""JSON Lines, read one way everywhere: lines end at "\\n" only, and a line's JSON is decoded
with a bounded nesting depth.

JSON Lines (https://jsonlines.org) ends a line at "\\n" alone. str.splitlines also ends one at
U+2028, U+2029, U+0085, form feeds and lone "\\r" -- characters JSON allows unescaped inside a
string -- so it cuts valid records in two. A "\\r" right before the "\\n" is the line end of a
file saved with CRLF and is not part of the record; a UTF-8 byte order mark (a file saved by a
Windows editor) is not part of the first line.

Python's json module recurses once per nesting level and raises RecursionError (not a
ValueError) on a value nested ~1000 deep; `loads` turns that into a ValueError, so a hostile
line is one bad line, never a crash.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

BOM = "\ufeff"


def json_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of every non-blank line of a JSON Lines text."""
    for number, line in enumerate(text.removeprefix(BOM).split("\n"), start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if line.strip():
            yield number, line


def loads(text: str | bytes) -> Any:
    """json.loads, with a value nested too deeply for Python's recursion limit a ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
