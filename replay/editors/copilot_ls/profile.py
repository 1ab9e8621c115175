"""The `copilot-ls` profile: GitHub Copilot's language server, the client of Neovim (copilot.vim,
copilot.lua), JetBrains and Xcode, as `@github/copilot-language-server` 1.539.0 publishes it.

Its completion code is chat-lib's (the same completions-core of microsoft/vscode-copilot-chat,
bundled in its `dist/main.js`). Its experiments are assigned by the server: main.js
`ExpConfigFromTAS.fetchExperiments` GETs `<endpoints.telemetry>/telemetry` (the endpoint the
token names) and reads `Configs[Id = "vscode"].Parameters`; a failed fetch leaves every flag at
its default. The profile pins them at their defaults, but for the one that changes the layout:
option `split_context` (default false) is the flag `copilotenablepromptcontextproxyfield`
turned on (main.js `shouldUseSplitContextPrompt`: the `internal.useSplitContextPrompt` config
key when set, else that flag), with which the server sends chat-lib's split-context body
(checked by serving the flag from the stub). What differs from chat-lib
0.66.0 and is modelled here:
- the prompt is the inline, commented layout, with no `extra.context` in the body
  (inline_layout.py), unless `split_context`;
- a document under 10 characters is never completed (chat-lib completes one in `scminput`);
- the editor sends its formatting options with each request (copilot.vim: `expandtab`,
  `shiftwidth`): where the input names none, 4 and spaces, to which the item is re-indented as
  chat-lib re-indents it to the options its caller passes (formatting.py).
The request fields, the multiline decision, the session state and the other answer rules are
the copilot profile's (replay.editors.copilot: request.py, session.py, completion.py), each checked against bodies and
items the language server itself sent and returned (tests/data/golden/copilot-ls).

`version` may be None or "1.539.0". Options: the copilot profile's (`multiline`, `cycling`),
`split_context`, and the editor's formatting options `tab_size` (default 4) and
`insert_spaces` (default true; null: the editor sends none, and nothing is normalised).
Documents and open files are named as chat-lib names them (uris.py): the workspace folder is
`initialize`'s `workspaceFolders` (null: none, and every file is named by its file name). Their
language is detected as chat-lib detects it (languages.py: main.js bundles the same
`detectLanguage`, `GroupingLanguageDetection` and tables, in two copies, both read in
`CopilotTextDocument.create`), so the inline prompt's comment markers are those of the detected
language, not of the language id `textDocument/didOpen` gave.
"""

from __future__ import annotations

from typing import Any

from replay.editors.copilot import profile as chat_lib
from replay.editors.copilot_ls import inline_layout
from replay.editors.copilot.formatting import FormattingOptions
from replay.editors.copilot.session import ClientState
from replay.editors.inputs import BadInputLine
from replay.records import EditorInput, RenderedPrompt

RELEASE = "1.539.0"
LABEL = f"copilot-ls@{RELEASE}"  # the profile a rendered prompt names
_CLIENT = "copilot-ls profile models copilot-language-server"
OPTIONS = (*chat_lib.OPTIONS, "split_context")
FORMATTING = FormattingOptions()  # what copilot.vim passes with every request when the input names none


def check_input(inp: EditorInput, version: str | None) -> None:
    chat_lib.check_input(inp, version, RELEASE, _CLIENT, OPTIONS, FORMATTING)
    if inp.options.get("split_context", False) not in (True, False):
        raise BadInputLine(f"option split_context must be true or false, not {inp.options['split_context']!r}")


def request_body(inp: EditorInput, state: ClientState | None = None) -> dict[str, Any] | None:
    """The body the language server sends at this cursor (None: it sends none)."""
    # main.js: the server's own prompt factories' `failFastPrompt` refuse every document under 10
    # characters (`e.getText().length<10`); chat-lib's spares the `scminput` language.
    if inp.options.get("split_context"):
        return chat_lib.request_body(inp, state, short_ok=())
    body = chat_lib.request_body(inp, state, prompt_layout=inline_layout.layout, short_ok=())
    if body is not None:
        # lib/src/openai/fetch.ts: `extra.context` only when the prompt has a context (the split layout).
        del body["extra"]["context"]
    return body


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """One cursor on its own (a fresh language server)."""
    check_input(inp, version)
    return chat_lib.rendered(inp, model, request_body(inp), LABEL)


class Session(chat_lib.Session):
    """One language server's cursors in order, its state carried as chat-lib's is."""

    name = LABEL
    editor_formatting = FORMATTING

    def _body(self, inp: EditorInput) -> dict[str, Any] | None:
        check_input(inp, self.version)
        return request_body(inp, self.state)


def session(model: str, version: str | None = None) -> Session:
    return Session(model, version)
