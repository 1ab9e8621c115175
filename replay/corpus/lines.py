"""Lines of source text as the corpus code counts them."""

from __future__ import annotations

import re

_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def split_lines(text: str) -> list[str]:
    """Lines ending at "\\n" only, each keeping its ending ("\\r\\n" stays whole). Unlike
    str.splitlines, a form feed or U+2028 inside a comment or string does not end a line."""
    return _LINE.findall(text)
