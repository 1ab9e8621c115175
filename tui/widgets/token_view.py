"""Renders a prompt as its tokens: each token boundary visible (alternating background),
whitespace shown (· for a space, → for a tab, ↵ before a newline), special tokens highlighted,
the cursor position marked with ▮. Pure rendering: the pieces come from `replay.tokens`."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

WHITESPACE = {" ": "·", "\t": "→", "\r": "␍"}
STYLES = ("on grey23", "on grey35")
SPECIAL = "bold black on yellow"
CURSOR = "bold reverse"


def show_whitespace(text: str) -> str:
    return "".join("↵\n" if ch == "\n" else WHITESPACE.get(ch, ch) for ch in text)


def render_tokens(pieces: Sequence[str], special: Sequence[bool], cursor: int | None = None,
                  marked: int | None = None) -> Text:
    """`pieces` are the token texts in order (joined they give the prompt); `cursor` is a
    character offset in the prompt; `marked` the index of a token to pick out (an audit jump)."""
    out = Text()
    offset = 0
    for index, (piece, is_special) in enumerate(zip(pieces, special)):
        style = SPECIAL if is_special else STYLES[index % 2]
        if index == marked:
            style += " underline bold"
        if cursor is not None and offset <= cursor < offset + len(piece) and not is_special:
            cut = cursor - offset
            out.append(show_whitespace(piece[:cut]), style)
            out.append("▮", CURSOR)
            out.append(show_whitespace(piece[cut:]), style)
        else:
            if cursor is not None and cursor == offset and (is_special or index == 0):
                out.append("▮", CURSOR)
            out.append(piece if is_special else show_whitespace(piece), style)
        offset += len(piece)
    if cursor is not None and cursor >= offset:
        out.append("▮", CURSOR)
    return out


def render_text(text: str, cursor: int | None = None) -> Text:
    """The prompt before it is tokenized: whitespace shown, cursor marked."""
    return render_tokens([text], [False], cursor)
