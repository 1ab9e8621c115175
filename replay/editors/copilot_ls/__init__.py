"""GitHub Copilot's language server (`@github/copilot-language-server`), the client of Neovim,
JetBrains and Xcode: chat-lib's completion code (replay.editors.copilot) with its own inline
prompt (inline_layout.py), request and formatting options (profile.py), and what it shows
(completion.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from replay.editors.copilot import CopilotProfile
from replay.editors.interface import EditorSession, LayoutAuditor

if TYPE_CHECKING:
    from replay.tokens.tokenizer import Tokenizer


class CopilotLsProfile(CopilotProfile):
    """The language server: Copilot's client with the language server's prompt and request."""

    name = "copilot-ls"
    display = "GitHub Copilot language server (Neovim, JetBrains, Xcode)"
    releases = "@github/copilot-language-server 1.539.0"
    stop_source = ("microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/openai/fetch.ts"
                   " (the request's stop; bundled in @github/copilot-language-server)")
    has_timing = False

    def session(self, model: str, version: str | None = None) -> EditorSession:
        from replay.editors.copilot_ls.profile import Session

        return Session(model, version)

    def layout_audit(self, tokenizer: Tokenizer, engine: str, ctx: int) -> LayoutAuditor | None:
        """None: the audit of Copilot's split-context layout does not read the inline prompt."""
        return None


PROFILE = CopilotLsProfile()

__all__ = ["PROFILE", "CopilotLsProfile"]
