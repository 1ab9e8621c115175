"""llama.vim (ggml-org/llama.vim), llama.cpp's own Vim/Neovim plugin: its request to llama-server's
/infill (request.py, body.py), its ring buffer of extra context (ring.py), the prompt the server
builds from it (profile.py), what it shows of the answer (completion.py, fim_render.py), by
commit (releases.py); the server's half is replay.editors.llama_server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.editors.interface import EditorProfile
from replay.editors.rulebook import HistoryRow, InForce
from replay.editors.stage import Shown, StreamStop, Timing
from replay.editors.timing import TimingRules
from replay.records import CaptureRecord, EditorInput, RenderedPrompt


class LlamaVimProfile(EditorProfile):
    """llama.vim's half joined to llama-server's (the package's modules above)."""

    name = "llama.vim"
    display = "llama.vim"
    releases = "llama.vim commits 2024-10-28 - 2026-01-31, with llama-server's rules by day or build"
    capture_source = "`fimreplay proxy` in front of llama-server"
    stop_source = "ggml-org/llama.vim autoload/llama.vim (stop_strings, sent as stop)"
    stage_needs_model = False
    sends_body = True
    has_history = True

    def render(self, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
        from replay.editors.llama_vim.profile import render

        return render(inp, model, version=version)

    def complete(self, inp: EditorInput, raw: str, model: str | None, version: str | None = None,
                 timing: Timing | None = None) -> Shown:
        from replay.editors.llama_vim import completion

        return completion.complete(inp, raw, model=model, version=version, timing=timing)

    def stream_stop(self, inp: EditorInput, model: str, version: str | None = None) -> StreamStop | None:
        from replay.editors.llama_vim import completion

        return completion.stream_stop(inp, model=model, version=version)

    def capture_version(self, record: CaptureRecord) -> str | None:
        """Its own version, or (its versions are commit days) the day it was captured, and
        llama-server's rules of that day."""
        from replay.editors import llama_server

        day = record.day()
        client = record.editor_version or (day.isoformat() if day is not None else None)
        return llama_server.capture_spec(client, day)

    def input_from_capture(self, record: CaptureRecord, item_id: str) -> EditorInput:
        from replay.editors import llama_server

        return llama_server.capture_input(record, item_id)

    def history(self) -> list[HistoryRow]:
        """The plugin's rules by commit with llama-server's, the half both clients share."""
        from replay.editors.llama_vim.releases import history

        return history()

    def rules_in_force(self, version: str | None) -> tuple[InForce, ...]:
        from replay.editors.llama_vim.releases import in_force

        return in_force(version)

    def timing(self, version: str | None, options: Mapping[str, Any] | None = None) -> TimingRules:
        from replay.editors.llama_server import split_version
        from replay.editors.llama_vim.timing import timing

        return timing(split_version(version)[0], options)


PROFILE = LlamaVimProfile()

__all__ = ["PROFILE", "LlamaVimProfile"]
