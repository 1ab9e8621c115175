"""The editor profiles: how each editor turns a cursor into a prompt, and the model's answer into
what it shows.

A profile is registered once here (PROFILES) and every name list (CLI choices, TUI menus, run
inputs) is derived from it. Each profile's package or module provides:
- `render(inp, model, version)` -> RenderedPrompt (the prompt side);
- `complete(inp, raw, model=, version=, timing=)` -> Shown (the completion stage, stage.py);
- `stream_stop(inp, model=, version=)` -> a predicate over the streamed text, or None when the
  editor never cancels a stream early;
- `rebuild_logged_prompt(record)` where the editor logs prompts (what `fimreplay verify` checks);
- optionally `session(model, version)` -> an object whose `render(inp, received)` renders the
  cursors of one session in order with the client's state carried (`received`: the text the
  client got for that cursor's request, which it caches).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Any

import msgspec

from replay.editors.stage import Shown, StreamStop, Timing
from replay.errors import UsageError
from replay.records import CaptureRecord, EditorInput, RenderedPrompt, TraceStep


class UnknownEditor(UsageError):
    """An editor name with no profile."""


@dataclass(frozen=True)
class EditorProfile:
    """One editor: its prompt module and its completion-stage module (imported on first use, so
    that naming an editor does not load every editor's tables)."""

    name: str
    prompt_module: str
    completion_module: str
    stop_source: str  # where the editor's model call is stopped at the prompt's stop words
    logs_prompts: bool = True  # the editor logs the prompts it sends: captures of it can be verified
    stage_needs_model: bool = True  # the completion stage reads the model (its template's stop words)
    replaces_before: bool = False  # the shown item also replaces text before the cursor (Shown.replace_before)
    sends_body: bool = False  # the client's HTTP body is part of its rendering (null where it sends nothing)

    def _prompt(self) -> ModuleType:
        return import_module(self.prompt_module)

    def _completion(self) -> ModuleType:
        return import_module(self.completion_module)

    def render(self, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
        return self._prompt().render(inp, model, version=version)

    def complete(self, inp: EditorInput, raw: str, model: str | None, version: str | None = None,
                 timing: Timing | None = None) -> Shown:
        return self._completion().complete(inp, raw, model=model, version=version, timing=timing)

    @property
    def keeps_sessions(self) -> bool:
        """The client carries state from one cursor of a session to the next (`session`)."""
        return hasattr(self._prompt(), "session")

    def session(self, model: str, version: str | None = None) -> Any | None:
        """A stateful renderer for the cursors of one session (None: the editor keeps no state)."""
        return self._prompt().session(model, version) if self.keeps_sessions else None

    def stream_stop(self, inp: EditorInput, model: str, version: str | None = None) -> StreamStop | None:
        return self._completion().stream_stop(inp, model=model, version=version)

    def shown(self, inp: EditorInput, raw: str, received: str, model: str, version: str | None = None,
              timing: Timing | None = None) -> Shown:
        """The completion stage on what the editor received (`raw`, the engine's text, cut at the
        prompt's stop words: the engine or server stops there before the editor sees it), with
        that cut, when it cut anything, as the first step of the trace."""
        shown = self.complete(inp, received, model, version, timing)
        if raw == received:
            return shown
        cut = TraceStep(step="stopWords", source=self.stop_source, text=received)
        return msgspec.structs.replace(shown, trace=(cut, *shown.trace))


PROFILES: dict[str, EditorProfile] = {
    "tabby": EditorProfile("tabby", "replay.editors.tabby.profile", "replay.editors.tabby.completion",
                           "TabbyML/tabby crates/tabby-inference/src/decoding.rs", stage_needs_model=False,
                           sends_body=True),
    "continue": EditorProfile("continue", "replay.editors.continue_.prompt", "replay.editors.continue_.completion",
                              "continuedev/continue core/autocomplete/templating/getStopTokens.ts"),
    "llama.vscode": EditorProfile("llama.vscode", "replay.editors.llama_vscode.profile", "replay.editors.llama_vscode.profile",
                                  "ggml-org/llama.cpp tools/server (the /infill body's stop)", logs_prompts=False,
                                  stage_needs_model=False, sends_body=True),
    "llama.vim": EditorProfile("llama.vim", "replay.editors.llama_vim.profile", "replay.editors.llama_vim.profile",
                               "ggml-org/llama.vim autoload/llama.vim (stop_strings, sent as stop)", logs_prompts=False,
                               stage_needs_model=False, sends_body=True),
    "copilot": EditorProfile("copilot", "replay.editors.copilot.profile", "replay.editors.copilot.completion",
                             "microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/openai/fetch.ts"
                             " (the request's stop)", logs_prompts=False, stage_needs_model=False, replaces_before=True,
                             sends_body=True),
    "copilot-ls": EditorProfile("copilot-ls", "replay.editors.copilot.language_server",
                                "replay.editors.copilot.language_server",
                                "microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/openai/fetch.ts"
                                " (the request's stop; bundled in @github/copilot-language-server)", logs_prompts=False,
                                stage_needs_model=False, replaces_before=True, sends_body=True),
    "standard": EditorProfile("standard", "replay.editors.standard", "replay.editors.standard",
                              "replay/editors/templates.py (the family's stop words)", logs_prompts=False),
}
EDITORS = tuple(PROFILES)
LOGGING_EDITORS = tuple(name for name, p in PROFILES.items() if p.logs_prompts)  # whose captures `verify` checks
LLAMA_CLIENTS = ("llama.vscode", "llama.vim")  # llama.cpp's own clients: their captures are llama-server /infill bodies


def profile(spec: str) -> tuple[EditorProfile, str | None]:
    """`tabby`, `continue@0.9.262` or `standard` -> the profile and the version (None: newest)."""
    name, _, version = spec.partition("@")
    if name not in PROFILES:
        raise UnknownEditor(f"unknown editor {name!r} (known: {', '.join(EDITORS)})")
    return PROFILES[name], version or None


def render(editor: str, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The prompt `editor` (tabby | continue | standard) builds for `model` at this cursor."""
    return profile(editor)[0].render(inp, model, version)


def complete(editor: str, inp: EditorInput, raw: str, model: str, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What `editor` shows of the raw text `raw` the model returned at this cursor."""
    return profile(editor)[0].complete(inp, raw, model, version, timing)


def rebuild_logged_prompt(record: CaptureRecord) -> str | None:
    """The editor's logged prompt rebuilt from the capture's segments (None: nothing to rebuild
    from, e.g. no segments)."""
    if record.editor == "tabby":
        from replay.editors.tabby import logged_prompt

        if record.segments is None:
            return None
        day = record.day()
        return logged_prompt(record.segments, record.language, model=record.model, version=record.editor_version,
                             reference=record.logged_prompt, date=day.isoformat() if day else None)
    if record.editor != "continue":  # a client no profile renders (llama.vscode, llama.vim, unknown)
        return None
    from replay.editors.continue_ import rebuild_logged_prompt as continue_logged

    return continue_logged(record)


def capture_version(record: CaptureRecord) -> str | None:
    """The release whose rules a capture was made under: its own version (for Continue, a
    JetBrains release when its IDE is one), else (Continue, whose rules are also dated) the day
    it was captured (None before the first dated profile: the newest rules stand). A Tabby
    capture names both halves: the agent of its user agent at its day, the server of its day;
    so does a llama.cpp client's (`CLIENT,server=DAY`: llama-server's rules of its day)."""
    if record.editor == "tabby" and not record.editor_version:
        from replay.editors.tabby.version import capture_spec

        return capture_spec(record.user_agent, record.day())
    if record.editor in LLAMA_CLIENTS:
        from replay.editors.llama_server import capture_spec as llama_spec

        return llama_spec(record.editor, record.editor_version, record.day())
    if record.editor != "continue":
        return record.editor_version
    from replay.editors.continue_.releases import ERAS, capture_release

    if record.editor_version:
        return capture_release(record.editor_version, record.user_agent)
    day = record.day()
    return day.isoformat() if day is not None and day >= ERAS[0].since else None


def explain_mismatch(record: CaptureRecord) -> dict[str, str]:
    """For a capture whose rebuilt prompt differs from the log: which rule of which release wrote
    the bytes (Continue, whose rules are kept per release); empty for the other editors."""
    if record.editor != "continue":
        return {}
    from replay.editors.continue_.logs import explain_mismatch as continue_explain

    return continue_explain(record)
