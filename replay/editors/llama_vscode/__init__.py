"""llama.vscode (ggml-org/llama.vscode), llama.cpp's own VS Code extension, by tag: the /infill
body it sends (request.py, settings.py), its ring buffer of extra context (ring.py), the prompt
llama-server builds from it (profile.py), what it shows of the answer (completion.py); the
server half is replay.editors.llama_server. releases.py holds the tags and the rules' history.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from replay.editors.interface import PackageProfile
from replay.editors.live import Doc, Host
from replay.editors.timed_client import Complete, Debouncer, Render, TimedClient
from replay.editors.timing import TimingRules
from replay.records import CaptureRecord, EditorInput


class LlamaVscodeProfile(PackageProfile):
    """llama.vscode's half joined to llama-server's (the package's modules above)."""

    name = "llama.vscode"
    display = "llama.vscode"
    releases = "llama.vscode v0.0.1 - v0.0.63, with llama-server's rules by day or build"
    capture_source = "`fimreplay proxy` in front of llama-server"
    stop_source = "ggml-org/llama.cpp tools/server (the /infill body's stop)"
    stage_needs_model = False
    sends_body = True
    rule_book = "releases"
    has_timing = True

    def capture_version(self, record: CaptureRecord) -> str | None:
        """Its own version and llama-server's rules of the day it was captured."""
        from replay.editors import llama_server

        return llama_server.capture_spec(record.editor_version, record.day())

    def input_from_capture(self, record: CaptureRecord, item_id: str) -> EditorInput:
        from replay.editors import llama_server

        return llama_server.capture_input(record, item_id)

    def timed_client(self, host: Host, rules: TimingRules, body: Render, complete: Complete,
                     cursor_input: Callable[[Doc], EditorInput], debouncer: Debouncer | None, model: str,
                     version: str | None, options: Mapping[str, Any]) -> TimedClient:
        """The client of the timing rules that also sends the extension's speculative follow-up
        requests after each item shown (live.py)."""
        from replay.editors.llama_server import split_version
        from replay.editors.llama_vscode.live import FollowUpClient
        from replay.editors.llama_vscode.releases import release
        from replay.editors.llama_vscode.settings import settings

        rel = release(split_version(version)[0])
        return FollowUpClient(host, rules, body, complete, cursor_input, debouncer, settings(options, rel), rel)


PROFILE = LlamaVscodeProfile()

__all__ = ["PROFILE", "LlamaVscodeProfile"]
