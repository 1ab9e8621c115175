"""The `copilot-ls` profile: GitHub Copilot's language server, the client of Neovim (copilot.vim,
copilot.lua), JetBrains and Xcode, as `@github/copilot-language-server` 1.539.0 publishes it.

Its completion code is chat-lib's (the same completions-core of microsoft/vscode-copilot-chat,
bundled in its `dist/main.js`), with the experiments it is served left at their defaults (it
fetches its assignments from default.exp-tas.com; this profile pins none, as a client that
cannot reach it runs). What differs from chat-lib 0.66.0 and is modelled here:
- the prompt is the inline, commented layout, with no `extra.context` in the body
  (inline_layout.py);
- nothing else found so far: the request fields, the multiline decision, the session state
  and what is shown of an answer are the copilot profile's (request.py, session.py,
  completion.py), each checked against bodies and items the language server itself sent and
  returned (tests/data/copilot_ls_golden).

`version` may be None or "1.539.0"; options are the copilot profile's (`multiline`, `cycling`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from replay.editors.copilot import completion, inline_layout
from replay.editors.copilot import profile as chat_lib
from replay.editors.copilot.session import ClientState
from replay.editors.stage import Shown, StreamStop, Timing
from replay.records import EditorInput, RenderedPrompt

RELEASE = "1.539.0"
PROFILE = f"copilot-ls@{RELEASE}"
_CLIENT = "copilot-ls profile models copilot-language-server"


def request_body(inp: EditorInput, state: ClientState | None = None) -> dict[str, Any] | None:
    """The body the language server sends at this cursor (None: it sends none)."""
    body = chat_lib.request_body(inp, state, prompt_layout=inline_layout.layout)
    if body is not None:
        # lib/src/openai/fetch.ts: `extra.context` only when the prompt has a context (the split layout).
        del body["extra"]["context"]
    return body


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """One cursor on its own (a fresh language server)."""
    chat_lib._check(inp, version, RELEASE, _CLIENT)
    return chat_lib._rendered(inp, model, request_body(inp), PROFILE)


class Session(chat_lib.Session):
    """One language server's cursors in order, its state carried as chat-lib's is."""

    name = PROFILE

    def _body(self, inp: EditorInput) -> dict[str, Any] | None:
        chat_lib._check(inp, self.version, RELEASE, _CLIENT)
        return request_body(inp, self.state)


def session(model: str, version: str | None = None) -> Session:
    return Session(model, version)


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What the language server shows of `raw`: chat-lib's rules (completion.py), with the
    multiline flag of this client's own request."""
    shown = completion.complete(inp, raw, model=model, version=version, timing=timing)
    body = request_body(inp)
    return msgspec.structs.replace(shown, multiline=body is not None and body["stop"] != ["\n"])


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    return completion.stream_stop(inp, model=model, version=version)
