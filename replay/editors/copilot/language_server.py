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
- the editor sends its formatting options with each request (copilot.vim: `expandtab`,
  `shiftwidth`), and the item's indentation is normalised to them
  (lib/src/ghostText/normalizeIndent.ts `normalizeIndentCharacter`, called by
  ghostText/copilotCompletion.ts `completionsFromGhostTextResults` when options are given):
  with spaces, leading tabs become `tab_size` spaces each and, on a blank line, a first line
  indented off the tab grid has every line's leading runs of that remainder re-indented to the
  next multiple of `tab_size`; with tabs, leading spaces become tabs (the rest kept as spaces).
The request fields, the multiline decision, the session state and the other answer rules are
the copilot profile's (request.py, session.py, completion.py), each checked against bodies and
items the language server itself sent and returned (tests/data/copilot_ls_golden).

`version` may be None or "1.539.0". Options: the copilot profile's (`multiline`, `cycling`),
`split_context`, and the editor's formatting options `tab_size` (default 4) and
`insert_spaces` (default true; null: the editor sends none, and nothing is normalised).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from replay.editors.copilot import completion, inline_layout, layout
from replay.editors.copilot import profile as chat_lib
from replay.editors.copilot.answer import adjust_leading_whitespace
from replay.editors.copilot.session import ClientState
from replay.editors.inputs import BadInputLine
from replay.editors.stage import Shown, StreamStop, Timing
from replay.records import EditorInput, RenderedPrompt, TraceStep

RELEASE = "1.539.0"
PROFILE = f"copilot-ls@{RELEASE}"
_CLIENT = "copilot-ls profile models copilot-language-server"
FORMATTING_OPTIONS = ("tab_size", "insert_spaces")
OPTIONS = (*chat_lib.OPTIONS, "split_context", *FORMATTING_OPTIONS)
ITEM_STEP = "completionsFromGhostTextResults"  # completion.py's last step, which makes the item's text
DEFAULT_TAB_SIZE = 4  # normalizeIndent.ts: a missing or non-numeric tabSize counts as 4
_SRC = "microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/ghostText/"


def _check(inp: EditorInput, version: str | None) -> None:
    chat_lib.check_input(inp, version, RELEASE, _CLIENT, OPTIONS)
    tab_size = inp.options.get("tab_size", DEFAULT_TAB_SIZE)
    if not isinstance(tab_size, int) or isinstance(tab_size, bool) or tab_size < 1:
        raise BadInputLine(f"option tab_size must be a positive integer, not {tab_size!r}")
    if inp.options.get("split_context", False) not in (True, False):
        raise BadInputLine(f"option split_context must be true or false, not {inp.options['split_context']!r}")
    if inp.options.get("insert_spaces", True) not in (True, False, None):
        raise BadInputLine(f"option insert_spaces must be true, false or null, not {inp.options['insert_spaces']!r}")


def _leading_runs(text: str, unit: str, indent: Callable[[int], str]) -> str:
    """normalizeIndent.ts `replace`: on every line, the leading repeats of `unit` (their length
    in characters) become `indent(length)`."""
    run = re.compile(f"^(?:{re.escape(unit)})+")
    return "\n".join(indent(len(m.group(0)) if (m := run.match(line)) else 0) + line[len(m.group(0)) if m else 0:]
                     for line in text.split("\n"))


def normalize_indent(text: str, tab_size: int, insert_spaces: bool, blank_line: bool) -> str:
    """normalizeIndent.ts `normalizeIndentCharacter` on one of the item's texts."""
    if not insert_spaces:
        return _leading_runs(text, " ", lambda n: "\t" * (n // tab_size) + " " * (n % tab_size))
    text = _leading_runs(text, "\t", lambda n: " " * (n * tab_size))
    if not blank_line or not text:
        return text
    first = text.split("\n")[0]
    depth = len(first) - len(first.lstrip())
    if depth == 0 or depth % tab_size == 0:
        return text
    return _leading_runs(text, " " * (depth % tab_size), lambda n: " " * ((n // tab_size + 1) * tab_size))


def request_body(inp: EditorInput, state: ClientState | None = None) -> dict[str, Any] | None:
    """The body the language server sends at this cursor (None: it sends none)."""
    if inp.options.get("split_context"):
        return chat_lib.request_body(inp, state)
    body = chat_lib.request_body(inp, state, prompt_layout=inline_layout.layout)
    if body is not None:
        # lib/src/openai/fetch.ts: `extra.context` only when the prompt has a context (the split layout).
        del body["extra"]["context"]
    return body


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """One cursor on its own (a fresh language server)."""
    _check(inp, version)
    return chat_lib.rendered(inp, model, request_body(inp), PROFILE)


class Session(chat_lib.Session):
    """One language server's cursors in order, its state carried as chat-lib's is."""

    name = PROFILE

    def _body(self, inp: EditorInput) -> dict[str, Any] | None:
        _check(inp, self.version)
        return request_body(inp, self.state)

    def complete(self, inp: EditorInput, received: str, timing: Timing | None = None) -> Shown:
        """chat-lib's session item (a cached one included), normalised as `complete` does."""
        return _formatted(inp, received, super().complete(inp, received, timing))


def session(model: str, version: str | None = None) -> Session:
    return Session(model, version)


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What the language server shows of `raw`: chat-lib's rules (completion.py), the item's
    indentation normalised to the editor's formatting options, with the multiline flag of
    this client's own request."""
    _check(inp, version)
    shown = completion.complete(inp, raw, model=model, version=version, timing=timing)
    body = request_body(inp)
    shown = msgspec.structs.replace(shown, multiline=body is not None and body["stop"] != ["\n"])
    return _formatted(inp, raw, shown)


def _formatted(inp: EditorInput, raw: str, shown: Shown) -> Shown:
    """The item with its indentation normalised to the editor's formatting options, if it sent any."""
    insert_spaces = inp.options.get("insert_spaces", True)
    if shown.text is None or insert_spaces is None:
        return shown
    return _normalized(inp, raw, shown, inp.options.get("tab_size", DEFAULT_TAB_SIZE), insert_spaces)


def _normalized(inp: EditorInput, raw: str, shown: Shown, tab_size: int, insert_spaces: bool) -> Shown:
    """copilotCompletion.ts `completionsFromGhostTextResults` with formatting options: the
    completion and its display text are normalised after the display text is cut from it and
    before the item's text is chosen (the whole completion on a blank line that it re-indents
    or starts like, else the line's text before the cursor then the display text)."""
    steps = list(shown.trace)
    if steps and steps[-1].step == ITEM_STEP:
        steps.pop()
    before_item = (steps[-1].text if steps else raw) or ""
    line_before, rest = inp.prefix.split("\n")[-1], inp.suffix.split("\n")[0]
    blank = not (line_before + rest).strip()
    display, needs_offset = adjust_leading_whitespace(before_item, layout.trim_last_line(inp.prefix)[1])
    text = normalize_indent(before_item, tab_size, insert_spaces, blank)
    display = normalize_indent(display, tab_size, insert_spaces, blank)
    if text != before_item:
        steps.append(TraceStep(step="normalizeIndentCharacter", source=_SRC + "normalizeIndent.ts", text=text))
    item = text if blank and (needs_offset or text.startswith(line_before + rest)) else line_before + display
    if item != text:
        steps.append(TraceStep(step=ITEM_STEP, source=_SRC + "copilotCompletion.ts", text=item))
    return msgspec.structs.replace(shown, text=item, trace=tuple(steps))


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    return completion.stream_stop(inp, model=model, version=version)
