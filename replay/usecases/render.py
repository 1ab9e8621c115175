"""The editor pipelines: render prompts as an editor would, turn model outputs into what the
editor showed, and verify the profiles against the prompts editors logged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from replay.backends.models import editor_model
from replay.editors import EDITORS, logging_editors
from replay.usecases.render_file import LineFileSummary
from replay.usecases.verify import VerifyReport
from replay.store import Store

__all__ = ["EDITORS", "logging_editors", "LineFileSummary", "VerifyReport", "postprocess", "render", "verify"]


def render(input_path: Path, editor: str, model: str, editor_version: str | None = None, output: Path | None = None,
           keep_going: bool = False, warn: Callable[[str], None] | None = None) -> LineFileSummary:
    """One rendered prompt per input line, to `output` (None: stdout). A bad line stops the run
    (RenderFailure, usage) unless `keep_going`, which keeps it in the rejects file instead and
    tells `warn` its file:line and reason."""
    from replay.usecases.render_file import render_file

    return render_file(input_path, editor, editor_model(model), editor_version, output, keep_going, warn)


def postprocess(input_path: Path, editor: str, model: str | None, editor_version: str | None = None,
                output: Path | None = None, keep_going: bool = False, editor_timing: bool = False,
                received: bool = False, warn: Callable[[str], None] | None = None) -> LineFileSummary:
    """What the editor showed of each line's `raw` model text, one output line per input line
    (`received`: `raw` is what the editor's client received, so only its own stage runs)."""
    from replay.usecases.postprocess_file import postprocess_file

    return postprocess_file(input_path, editor, None if model is None else editor_model(model), editor_version, output,
                            keep_going, editor_timing, received, warn)


def verify(store: Store, editor: str | None = None, model: str | None = None,
           editor_version: str | None = None) -> VerifyReport:
    """Rebuild every stored capture's prompt (of `editor` only, when given) from its logged
    segments and compare byte for byte. `model` and `editor_version` stand in where a capture
    records none."""
    from replay.usecases.verify import verify as verify_captures

    return verify_captures(((cid, rec) for cid, rec, _ in store.captures(editor=editor or None)),
                           model=None if model is None else editor_model(model),
                           version=editor_version)
