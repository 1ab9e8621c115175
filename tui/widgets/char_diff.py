"""A character diff of a completion against its reference (rapidfuzz Indel opcodes, the same
alignment the Indel score counts): deletions struck red, insertions green; and the editor's
completion stage shown as the rules that changed the raw text."""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import Indel
from rich.text import Text

from replay.records import TraceStep
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


def render_stage_diff(raw: str, trace: Sequence[TraceStep]) -> Text:
    """What the editor's completion stage did to the engine's text, step by step: for each rule
    that changed it, its name and source, then the lines it removed (struck red) or changed
    (character diff), each marked with the rule's name. Lines are aligned with rapidfuzz's
    Indel opcodes over the line lists (the same alignment as the character diff)."""
    out = Text()
    before = raw
    for number, step in enumerate(trace, 1):
        after = step.text
        out.append(f"{number}. {step.step}", "bold")
        out.append(f"  {step.source}\n", "dim")
        if after is None:
            out.append("   (nothing shown)", "bold red")
            out.append(f"  ⟵ {step.step}\n", "italic yellow")
            break
        old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
        for tag, a0, a1, b0, b1 in Indel.opcodes(old, new):
            if tag == "equal":
                continue
            removed, added = "".join(old[a0:a1]), "".join(new[b0:b1])
            out.append("   ")
            if tag == "insert":
                out.append(show_whitespace(added), "bold underline green")
            elif tag == "delete":
                out.append(show_whitespace(removed), "bold strike red")
            else:
                out.append_text(render_char_diff(removed, added))
            out.append(f"  ⟵ {step.step}\n", "italic yellow")
        before = after
    if not trace:
        out.append("the editor showed the engine's text unchanged\n", "dim")
    return out
