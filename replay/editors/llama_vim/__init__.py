"""llama.vim (ggml-org/llama.vim), llama.cpp's own Vim/Neovim plugin: its request to llama-server's
/infill (request.py, body.py), its ring buffer of extra context (ring.py), the prompt the server
builds from it (profile.py), what it shows of the answer (completion.py, fim_render.py), by
commit (releases.py); the server's half is replay.editors.llama_server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.editors.interface import PackageProfile
from replay.editors.live import Host, LiveClient
from replay.records import CaptureRecord, EditorInput


class LlamaVimProfile(PackageProfile):
    """llama.vim's half joined to llama-server's (the package's modules above)."""

    name = "llama.vim"
    display = "llama.vim"
    releases = "llama.vim commits 2024-10-28 - 2026-01-31, with llama-server's rules by day or build"
    capture_source = "`fimreplay proxy` in front of llama-server"
    stop_source = "ggml-org/llama.vim autoload/llama.vim (stop_strings, sent as stop)"
    stage_needs_model = False
    sends_body = True
    rule_book = "releases"
    has_timing = True

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

    def speculation_budget(self, body: Mapping[str, Any]) -> tuple[int, int] | None:
        """llama.vim's first request at a cursor asks t_max_predict_ms FIRST_PREDICT_MS ("the first
        request is quick") and its speculative follow-up the setting's (ggml-org/llama.vim
        autoload/llama.vim `llama#fim`, since 1175c8d); the ring's warm-up (n_predict 0,
        `s:ring_update`) is neither."""
        from replay.editors.llama_vim.releases import FIRST_PREDICT_MS

        value = body.get("t_max_predict_ms")
        if body.get("n_predict") == 0 or type(value) is not int:
            return None
        return value, FIRST_PREDICT_MS

    def live_client(self, host: Host, version: str | None, options: dict[str, Any], model: str | None,
                    filepath: str | None, language: str | None) -> LiveClient:
        """The plugin's own loop (live.py): its body names no model (the setting `model` is sent)."""
        from replay.editors.llama_vim.live import LlamaVimClient

        return LlamaVimClient(host, version, options, filepath or "")


PROFILE = LlamaVimProfile()

__all__ = ["PROFILE", "LlamaVimProfile"]
