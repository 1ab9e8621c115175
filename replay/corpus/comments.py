"""Which characters of a file are comments, for `evalgen --code-only`.

New code is often mostly comments: in @openzeppelin/contracts 5.1.0, 239 of 334 one-line middles
drawn from the lines 5.0.2 lacks were NatSpec or `//` lines. Completing prose and completing code
are different tasks, and on those 334 items Qwen2.5-Coder 1.5B and 0.5B differed by 0.131 Indel
on the code lines and by -0.013 on the comment lines: the comments hid the difference. So a
benchmark can ask that every middle hold code, i.e. a non-whitespace character outside comments.

Comments are the file's own tree-sitter comment nodes (every grammar names them `comment`,
`line_comment` or `block_comment`), parsed with the grammar CodeBLEU uses for the language: a
`//` inside a string is not a comment, a trailing comment leaves its line's code counted. A
Python docstring is a string, so it is code here. A language without an installed grammar
cannot be judged: its files are skipped with that reason rather than taken whole.
"""

from __future__ import annotations

from typing import Any


def comment_mask(text: str, language: str) -> Any | None:
    """A numpy boolean array, True for each character of `text` inside a comment; None when
    `language` has no grammar here."""
    import numpy as np

    from replay.languages import parser_or_none

    parser = parser_or_none(language)
    if parser is None:
        return None
    data = text.encode("utf-8", "surrogatepass")
    mask = np.zeros(len(text), dtype=bool)
    spans = _comment_bytes(parser.parse(data).root_node)
    if not spans:
        return mask
    starts = _char_byte_offsets(text, len(data))
    for a, b in spans:  # byte offsets -> character offsets (a node starts and ends on characters)
        mask[int(np.searchsorted(starts, a)):int(np.searchsorted(starts, b))] = True
    return mask


def _comment_bytes(root: Any) -> list[tuple[int, int]]:
    """(start byte, end byte) of every comment node, outermost only."""
    spans, stack = [], [root]
    while stack:  # a stack, not recursion: a deeply nested file cannot overflow it
        node = stack.pop()
        if node.type.endswith("comment"):
            spans.append((node.start_byte, node.end_byte))
        else:
            stack.extend(node.children)
    return spans


def _char_byte_offsets(text: str, n_bytes: int) -> Any:
    """The UTF-8 byte offset at which each character of `text` starts."""
    import numpy as np

    if len(text) == n_bytes:  # ASCII: one byte a character
        return np.arange(len(text), dtype=np.int64)
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    widths = 1 + (points >= 0x80) + (points >= 0x800) + (points >= 0x10000)
    return np.concatenate(([0], np.cumsum(widths[:-1], dtype=np.int64)))
