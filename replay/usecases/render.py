"""The editor pipelines: render prompts as an editor would, turn model outputs into what the
editor showed, and verify the profiles against the prompts editors logged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay.backends.models import editor_model
from replay.editors import EDITORS, LOGGING_EDITORS
from replay.usecases.verify import VerifyReport
from replay.store import Store

__all__ = ["EDITORS", "LOGGING_EDITORS", "LineFileSummary", "VerifyReport", "postprocess", "render", "verify"]


@dataclass(frozen=True)
class LineFileSummary:
    """What a line-by-line command did: lines written (`done`, named by the command: `rendered`,
    `postprocessed`), lines rejected and their file; `shown` counts postprocessed lines the
    editor showed something for."""

    command: str
    input: str
    output: str  # "-": stdout
    done: int
    rejected: int
    rejects_file: str | None
    shown: int | None = None

    @property
    def to_stdout(self) -> bool:
        return self.output == "-"

    @property
    def lines(self) -> int:
        """The input's lines (blank lines aside): each was written or rejected."""
        return self.done + self.rejected

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input": self.input, "output": self.output, self.command: self.done}
        if self.shown is not None:
            out.update(shown=self.shown, nothing_shown=self.done - self.shown)
        out.update(rejected=self.rejected, rejects_file=self.rejects_file)
        return out


def render(input_path: Path, editor: str, model: str, editor_version: str | None = None, output: Path | None = None,
           keep_going: bool = False, warn: Callable[[str], None] | None = None) -> LineFileSummary:
    """One rendered prompt per input line, to `output` (None: stdout). A bad line stops the run
    (RenderFailure, usage) unless `keep_going`, which keeps it in the rejects file instead and
    tells `warn` its file:line and reason."""
    from replay.usecases.render_file import render_file

    s = render_file(input_path, editor, editor_model(model), editor_version, output, keep_going, warn)
    return LineFileSummary("rendered", s["input"], s["output"], s["rendered"], s["rejected"], s["rejects_file"])


def postprocess(input_path: Path, editor: str, model: str | None, editor_version: str | None = None,
                output: Path | None = None, keep_going: bool = False, editor_timing: bool = False,
                received: bool = False, warn: Callable[[str], None] | None = None) -> LineFileSummary:
    """What the editor showed of each line's `raw` model text, one output line per input line
    (`received`: `raw` is what the editor's client received, so only its own stage runs)."""
    from replay.usecases.postprocess_file import postprocess_file

    s = postprocess_file(input_path, editor, None if model is None else editor_model(model), editor_version, output,
                         keep_going, editor_timing, received, warn)
    return LineFileSummary("postprocessed", s["input"], s["output"], s["postprocessed"], s["rejected"],
                           s["rejects_file"], shown=s["shown"])


def verify(store: Store, editor: str | None = None, model: str | None = None,
           editor_version: str | None = None) -> VerifyReport:
    """Rebuild every stored capture's prompt (of `editor` only, when given) from its logged
    segments and compare byte for byte. `model` and `editor_version` stand in where a capture
    records none."""
    from replay.usecases.verify import verify as verify_captures

    where, params = ("editor = ?", (editor,)) if editor else ("", ())
    return verify_captures(((cid, rec) for cid, rec, _ in store.captures(where, params)),
                           model=None if model is None else editor_model(model),
                           version=editor_version)
