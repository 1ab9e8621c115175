"""Renders a prompt as its tokens: each token boundary visible (alternating background),
whitespace shown (replay.tokens.pieces.visible: · space, → tab, ↵ newline, which also breaks
the line), special tokens highlighted, the cursor position marked with ▮. Pure rendering: the
pieces and diffs come from `replay.tokens`."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from replay.tokens.diff import TokenDiff
from replay.tokens.pieces import visible

STYLES = ("on grey23", "on grey35")
SPECIAL = "bold black on yellow"
CURSOR = "bold reverse"


def show_whitespace(text: str) -> str:
    return visible(text).replace("↵", "↵\n")


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


def render_token_diff(diff: TokenDiff) -> Text:
    """Side A's tokens with B's changes inline: removed tokens struck red, added ones green,
    each change labelled with its token index on both sides."""
    out = Text(f"{diff.a_label} ({diff.a_len} tokens) vs {diff.b_label} ({diff.b_len} tokens): "
               + ("identical" if diff.identical else f"{diff.distance} token edits") + "\n")
    for op in diff.ops:
        if op.tag == "equal":
            for index, piece in enumerate(op.a_pieces):
                out.append(show_whitespace(piece), STYLES[(op.a_start + index) % 2])
            continue
        out.append(f"[a{op.a_start}/b{op.b_start}]", "bold")
        for piece in op.a_pieces:
            out.append(show_whitespace(piece), "bold strike red")
        for piece in op.b_pieces:
            out.append(show_whitespace(piece), "bold underline green")
    return out
