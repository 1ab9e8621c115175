"""The audit's findings about an editor's own prompt layout, beside the generic gotchas.

A rendered row names the profile that made it; where that profile audits its own layout
(EditorProfile.layout_audit: Copilot's, what its split-context layout does to the target
tokenizer, replay.editors.copilot.audit), its rows get those findings too.
Where the layout cut is found against the render input the rows came from (`audit
--render-input FILE`, rows matched by their `line`); without it, the findings that need only the
body stand.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from replay.editors import PROFILES
from replay.editors.interface import BadLayoutRow, LayoutAuditor
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
    """Routes each subject to its editor's own layout audit (EditorProfile.layout_audit), where
    the profile that rendered it has one."""

    def __init__(self, tok: Tokenizer, engine: str, ctx: int, cursors: dict[int, EditorInput] | None,
                 rejects: Rejects) -> None:
        self.tok, self.engine, self.ctx = tok, engine, ctx
        self.cursors, self.rejects = cursors, rejects
        self._audits: dict[str, LayoutAuditor | None] = {}

    def _cursor(self, s: Subject) -> EditorInput | None:
        return self.cursors.get(s.line) if self.cursors is not None and s.line is not None else None

    def _audit(self, s: Subject) -> LayoutAuditor | None:
        """The layout audit of the profile that rendered the subject (None: none, or no profile)."""
        name = s.profile.partition("@")[0]
        if name not in self._audits:
            prof = PROFILES[name] if name in PROFILES else None
            self._audits[name] = prof.layout_audit(self.tok, self.engine, self.ctx) if prof is not None else None
        return self._audits[name]

    def prepare(self, subjects: list[Subject]) -> list[Subject]:
        """The subjects to audit: a row its editor's audit cannot read (a body that is not the
        editor's) is rejected; the others as that audit prepares them (Copilot's: the document
        after the cursor as the middle, where the render input gives it)."""
        kept = []
        for s in subjects:
            audit = self._audit(s)
            if audit is None:
                kept.append(s)
                continue
            try:
                kept.append(audit.prepare(s, self._cursor(s)))
            except BadLayoutRow as exc:
                where, _, line = s.where.rpartition(":")
                raw = msgspec.json.encode(s.request).decode()
                self.rejects.at(where, int(line) if line.isdigit() else 0, str(exc), raw)
        return kept

    def __call__(self, s: Subject) -> list[Finding]:
        audit = self._audit(s)
        return [] if audit is None else audit.findings(s, self._cursor(s))
