"""GitHub Copilot's completion client (VS Code's, as `@vscode/chat-lib` publishes it headless).

- `profile`: the prompt side (`render`, `render_session`): layout.py (the split-context prompt,
  budgets, elision), similar.py (similar-file snippets), request.py (the request body and the
  multiline decision), session.py (the state carried between requests), tokens.py (o200k as
  the client counts), uris.py (how the client names a file: its path in the workspace folder,
  else its file name), languages.py (the language it names a document by: the file name's,
  not the editor's id; C grouped with C++).
- `completion`: the answer side (what the client shows of a model's text); formatting.py, the
  item re-indented to the editor's formatting options.
- `live`: the client driven through a typing session (`fimreplay session`): chat-lib's ghost text
  call step by step, its state carried (session.py), its timing (timing.py).
- `audit`: what its split-context layout does to the target model's tokenizer (`fimreplay audit`).
The language server's variant, which reuses these, is replay.editors.copilot_ls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from replay.editors.inputs import BadInputLine
from replay.editors.interface import EditorSession, LayoutAuditor, PackageProfile
from replay.editors.live import Doc, Host, LiveClient
from replay.errors import UsageError
from replay.records import EditorInput

if TYPE_CHECKING:
    from replay.tokens.tokenizer import Tokenizer


class CopilotProfile(PackageProfile):
    """VS Code's Copilot client, chat-lib 0.66.0 (the package's modules above)."""

    name = "copilot"
    display = "GitHub Copilot (VS Code)"
    releases = "@vscode/chat-lib 0.66.0"
    stop_source = ("microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/openai/fetch.ts"
                   " (the request's stop)")
    stage_needs_model = False
    replaces_before = True
    sends_body = True
    keeps_sessions = True
    has_timing = True

    def session(self, model: str, version: str | None = None) -> EditorSession:
        from replay.editors.copilot.profile import Session

        return Session(model, version)

    def live_client(self, host: Host, version: str | None, options: dict[str, Any], model: str | None,
                    filepath: str | None, language: str | None) -> LiveClient:
        """chat-lib's ghost text calls step by step, the client's state carried (live.py)."""
        from replay.editors.copilot.live import CopilotClient

        rules = self.timing(version, options)

        def cursor_input(doc: Doc) -> EditorInput:
            return EditorInput(prefix=doc.prefix, suffix=doc.suffix, filepath=filepath, language=language, options=options)

        if model is None:
            raise UsageError(f"{self.name} builds its request for a model: give --model")
        if options.get("cycling"):  # ghostText.ts: a cycling call neither waits nor queues nor holds; not modelled
            raise BadInputLine("the copilot session client does not model the cycling request: leave 'cycling' out")
        return CopilotClient(host, rules, model, version, cursor_input)

    def layout_audit(self, tokenizer: Tokenizer, engine: str, ctx: int) -> LayoutAuditor | None:
        """What the split-context layout does to the target tokenizer (audit.py)."""
        from replay.editors.copilot.audit import CopilotLayouts

        return CopilotLayouts(tokenizer, engine, ctx)


PROFILE = CopilotProfile()

__all__ = ["PROFILE", "CopilotProfile"]
