"""GitHub Copilot's language server (`@github/copilot-language-server`), the client of Neovim,
JetBrains and Xcode: chat-lib's completion code (replay.editors.copilot) with its own inline
prompt (inline_layout.py), request and formatting options (profile.py), and what it shows
(completion.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from replay.editors.copilot import CopilotProfile
from replay.editors.interface import EditorProfile, EditorSession, LayoutAuditor
from replay.editors.stage import Shown, StreamStop, Timing
from replay.editors.timing import TimingRules
from replay.records import EditorInput, RenderedPrompt

if TYPE_CHECKING:
    from replay.tokens.tokenizer import Tokenizer


class CopilotLsProfile(CopilotProfile):
    """The language server: Copilot's client with the language server's prompt and request."""

    name = "copilot-ls"
    display = "GitHub Copilot language server (Neovim, JetBrains, Xcode)"
    releases = "@github/copilot-language-server 1.539.0"
    stop_source = ("microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/openai/fetch.ts"
                   " (the request's stop; bundled in @github/copilot-language-server)")

    def render(self, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
        from replay.editors.copilot_ls.profile import render

        return render(inp, model, version=version)

    def complete(self, inp: EditorInput, raw: str, model: str | None, version: str | None = None,
                 timing: Timing | None = None) -> Shown:
        from replay.editors.copilot_ls import completion

        return completion.complete(inp, raw, model=model, version=version, timing=timing)

    def stream_stop(self, inp: EditorInput, model: str, version: str | None = None) -> StreamStop | None:
        from replay.editors.copilot_ls import completion

        return completion.stream_stop(inp, model=model, version=version)

    def session(self, model: str, version: str | None = None) -> EditorSession:
        from replay.editors.copilot_ls.profile import Session

        return Session(model, version)

    def timing(self, version: str | None, options: Mapping[str, Any] | None = None) -> TimingRules:
        """Not chat-lib's: the language server's scheduling is its own and not read yet."""
        return EditorProfile.timing(self, version, options)

    def layout_audit(self, tokenizer: Tokenizer, engine: str, ctx: int) -> LayoutAuditor | None:
        """None: the audit of Copilot's split-context layout does not read the inline prompt."""
        return None


PROFILE = CopilotLsProfile()

__all__ = ["PROFILE", "CopilotLsProfile"]
