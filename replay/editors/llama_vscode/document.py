"""The document as VS Code hands it to the extension: lines without their line breaks
(`document.lineAt(i).text`), `lineCount`, and the cursor as (line, character).

VS Code's text model breaks lines at "\\r\\n", "\\n" and a lone "\\r"; a text ending in a line
break has an empty last line, and an empty text one empty line. The cursor cannot sit inside a
"\\r\\n": a prefix ending in "\\r" before a suffix starting with "\\n" puts it after the pair.
Characters are kept as Python code points: a slice of a line is the same text, and the rules
that count UTF-16 units (`.length`) count them with replay.editors.js.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """`text` cut into VS Code's lines."""
    return _BREAK.split(text)


@dataclass(frozen=True)
class Document:
    """A text document and the cursor in it."""

    lines: tuple[str, ...]
    line: int  # the cursor's 0-based line
    character: int  # the cursor's offset in that line (code points)

    @classmethod
    def at(cls, prefix: str, suffix: str) -> Document:
        if prefix.endswith("\r") and suffix.startswith("\n"):
            prefix, suffix = prefix + "\n", suffix[1:]
        before = split_lines(prefix)
        return cls(lines=tuple(split_lines(prefix + suffix)), line=len(before) - 1, character=len(before[-1]))

    @property
    def line_count(self) -> int:
        return len(self.lines)

    def line_at(self, index: int) -> str | None:
        """`document.lineAt(index).text`; None for a line outside the document, where VS Code
        throws ("Illegal value for `line`")."""
        return self.lines[index] if 0 <= index < len(self.lines) else None

    @property
    def line_prefix(self) -> str:
        return self.lines[self.line][: self.character]

    @property
    def line_suffix(self) -> str:
        return self.lines[self.line][self.character:]

