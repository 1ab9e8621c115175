"""A character diff of a completion against its reference (rapidfuzz Indel opcodes, the same
alignment the Indel score counts): deletions struck red, insertions green."""

from __future__ import annotations

from rapidfuzz.distance import Indel
from rich.text import Text

from tui.widgets.token_view import show_whitespace


def render_char_diff(completion: str, reference: str) -> Text:
    out = Text()
    for tag, a0, a1, b0, b1 in Indel.opcodes(completion, reference):
        if tag == "equal":
            out.append(show_whitespace(completion[a0:a1]))
        if tag in ("delete", "replace"):
            out.append(show_whitespace(completion[a0:a1]), "bold strike red")
        if tag in ("insert", "replace"):
            out.append(show_whitespace(reference[b0:b1]), "bold underline green")
    return out
