"""How each editor turns a cursor into a prompt: templates, Tabby, Continue, the standard profile.

`render` dispatches one EditorInput to a profile; `rebuild_logged_prompt` rebuilds, from a
capture's segments, the prompt text the editor's own log holds (what `fimreplay verify`
compares byte for byte).
"""

from __future__ import annotations

from datetime import datetime, timezone
from importlib import import_module
from types import ModuleType

from replay.records import CaptureRecord, EditorInput, RenderedPrompt

EDITORS = ("tabby", "continue", "standard")


class UnknownEditor(ValueError):
    """An editor name with no profile."""


def _module(editor: str) -> ModuleType:
    names = {"tabby": "replay.editors.tabby", "continue": "replay.editors.continue_", "standard": "replay.editors.standard"}
    if editor not in names:
        raise UnknownEditor(f"unknown editor {editor!r} (known: {', '.join(EDITORS)})")
    return import_module(names[editor])


def render(editor: str, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The prompt `editor` (tabby | continue | standard) builds for `model` at this cursor."""
    return _module(editor).render(inp, model, version=version)


def rebuild_logged_prompt(record: CaptureRecord) -> str | None:
    """The editor's logged prompt rebuilt from the capture's segments (None: nothing to rebuild
    from, e.g. no segments)."""
    if record.editor == "tabby":
        from replay.editors.tabby import logged_prompt

        if record.segments is None:
            return None
        date = datetime.fromtimestamp(record.ts, timezone.utc).date().isoformat() if record.ts is not None else None
        return logged_prompt(record.segments, record.language, model=record.model, version=record.editor_version,
                             reference=record.logged_prompt, date=date)
    return _module(record.editor).rebuild_logged_prompt(record)
