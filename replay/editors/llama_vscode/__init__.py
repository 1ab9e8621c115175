"""llama.vscode (ggml-org/llama.vscode), llama.cpp's own VS Code extension, by tag: the /infill
body it sends (request.py, settings.py), its ring buffer of extra context (ring.py), the prompt
llama-server builds from it (profile.py), what it shows of the answer (completion.py); the
server half is replay.editors.llama_server. releases.py holds the tags and the rules' history.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.editors.interface import EditorProfile
from replay.editors.rulebook import HistoryRow, InForce
from replay.editors.stage import Shown, StreamStop, Timing
from replay.editors.timing import TimingRules
from replay.records import CaptureRecord, EditorInput, RenderedPrompt


class LlamaVscodeProfile(EditorProfile):
    """llama.vscode's half joined to llama-server's (the package's modules above)."""

    name = "llama.vscode"
    display = "llama.vscode"
    releases = "llama.vscode v0.0.1 - v0.0.63, with llama-server's rules by day or build"
    capture_source = "`fimreplay proxy` in front of llama-server"
    stop_source = "ggml-org/llama.cpp tools/server (the /infill body's stop)"
    stage_needs_model = False
    sends_body = True
    has_history = True

    def render(self, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
        from replay.editors.llama_vscode.profile import render

        return render(inp, model, version=version)

    def complete(self, inp: EditorInput, raw: str, model: str | None, version: str | None = None,
                 timing: Timing | None = None) -> Shown:
        from replay.editors.llama_vscode import completion

        return completion.complete(inp, raw, model=model, version=version, timing=timing)

    def stream_stop(self, inp: EditorInput, model: str, version: str | None = None) -> StreamStop | None:
        from replay.editors.llama_vscode import completion

        return completion.stream_stop(inp, model=model, version=version)

    def capture_version(self, record: CaptureRecord) -> str | None:
        """Its own version and llama-server's rules of the day it was captured."""
        from replay.editors import llama_server

        return llama_server.capture_spec(record.editor_version, record.day())

    def input_from_capture(self, record: CaptureRecord, item_id: str) -> EditorInput:
        from replay.editors import llama_server

        return llama_server.capture_input(record, item_id)

    def history(self) -> list[HistoryRow]:
        """llama.vscode's rules by tag with llama-server's, the half both clients share."""
        from replay.editors.llama_vscode.releases import history

        return history()

    def rules_in_force(self, version: str | None) -> tuple[InForce, ...]:
        from replay.editors.llama_vscode.releases import in_force

        return in_force(version)

    def timing(self, version: str | None, options: Mapping[str, Any] | None = None) -> TimingRules:
        from replay.editors.llama_server import split_version
        from replay.editors.llama_vscode.timing import timing

        return timing(split_version(version)[0], options)


PROFILE = LlamaVscodeProfile()

__all__ = ["PROFILE", "LlamaVscodeProfile"]
