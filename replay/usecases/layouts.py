"""The audit's findings about an editor's own prompt layout, beside the generic gotchas.

A rendered row names the profile that made it; Copilot's rows (their request body) get what
Copilot's split-context layout does to the target tokenizer (replay.editors.copilot.audit).
Where the layout cut is found against the render input the rows came from (`audit
--render-input FILE`, rows matched by their `line`); without it, the findings that need only the
body stand.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from replay.editors.copilot.audit import Body, LayoutAudit, body_of, with_middle
from replay.editors.inputs import read_lines
from replay.errors import UsageError
from replay.records import EditorInput
from replay.rejects import Rejects
from replay.tokens.audit import Finding, Subject
from replay.tokens.tokenizer import Tokenizer
from replay.usecases.render_file import RENDER_KEYS, decode_line


def render_inputs(path: Path, rejects: Rejects) -> dict[int, EditorInput]:
    """The render input's cursors by line number; a line render could not read goes to the rejects."""
    try:
        data = path.read_bytes()  # decoded line by line (replay.jsonl)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    found: dict[int, EditorInput] = {}
    for number, line in read_lines(data):
        try:
            found[number] = decode_line(line, RENDER_KEYS, "the text the client received").input
        except UsageError as exc:
            rejects.at(path, number, f"not a render input: {exc}", line)
    return found


class EditorLayouts:
    """Routes each subject to its editor's layout audit (Copilot's, today)."""

    def __init__(self, tok: Tokenizer, engine: str, ctx: int, cursors: dict[int, EditorInput] | None,
                 rejects: Rejects) -> None:
        self.copilot = LayoutAudit(tok, engine=engine, ctx=ctx)
        self.cursors, self.rejects = cursors, rejects
        self._bodies: dict[str, Body] = {}

    def _cursor(self, s: Subject) -> EditorInput | None:
        return self.cursors.get(s.line) if self.cursors is not None and s.line is not None else None

    def prepare(self, subjects: list[Subject]) -> list[Subject]:
        """The subjects to audit: a Copilot row whose body is not Copilot's is rejected; one with
        its render input gets the document after the cursor as its middle (cursor-splits-token)."""
        kept = []
        for s in subjects:
            if s.profile.partition("@")[0] != "copilot" or s.request is None:
                kept.append(s)
                continue
            try:
                body = body_of(s.request)
            except msgspec.ValidationError as exc:
                where, _, line = s.where.rpartition(":")
                raw = msgspec.json.encode(s.request).decode()
                self.rejects.at(where, int(line) if line.isdigit() else 0, f"not Copilot's request body: {exc}", raw)
                continue
            inp = self._cursor(s)
            s = with_middle(s, body, inp) if inp is not None else s
            self._bodies[s.where] = body
            kept.append(s)
        return kept

    def __call__(self, s: Subject) -> list[Finding]:
        body = self._bodies.get(s.where)
        return [] if body is None else self.copilot.findings(s, body, self._cursor(s))
