"""The `copilot` profile's prompt side: an editor input -> Copilot's request body -> an engine prompt.

Modelled release: `@vscode/chat-lib` 0.66.0 (the headless build of microsoft/vscode-copilot-chat
src/extension/completions-core/, VS Code's Copilot completions), with no server experiment
variables set (their defaults stand). `version` may be None or "0.66.0".

Copilot's model and server are closed; what an open model receives is this project's mapping,
not Copilot's: the context blocks (`extra.context`, each ended by a newline) then the prompt, as
the FIM prefix, and the suffix, in the target family's template. The request body is Copilot's,
byte for byte.

Options (`inp.options`): `multiline` (bool) pins the multiline decision; `cycling` (bool) asks
three choices as the cycling command does; `tab_size` and `insert_spaces`, the
`formattingOptions` the editor passes to `getInlineCompletions` (none unless the input names one;
`insert_spaces` null: none; formatting.py); `completionsDebounce` (ms), the client's debounce
setting, which changes when it asks in a session (timing.py), not what.

Documents are named as the client names them (uris.py): `Path: <path in the workspace
folder>`, percent-encoded as in its URI, or the file name outside it and with no `workspace`.
Their language is the one the client detects from the file's name (languages.py: `.c` and `.h`
are `cpp`), not the input's `language` where the two differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from replay.editors.copilot import formatting, request, uris
from replay.editors.copilot import layout as lay
from replay.editors.copilot.formatting import FormattingOptions
from replay.editors.copilot.languages import detected
from replay.editors.copilot.session import ClientState
from replay.editors.copilot.similar import neighbors, options_for, similar_snippets, with_snippet_tabs
from replay.editors.inputs import BadInputLine
from replay.editors.rulebook import UnknownRelease
from replay.editors.stage import Shown, Timing
from replay.editors.templates import Family, family_for_model
from replay.errors import UsageError
from replay.records import EditorInput, RenderedPrompt
from replay.tokens.tokenizer import default_tokenizer_spec, load_tokenizer

CHAT_LIB = "0.66.0"
LABEL = f"copilot@{CHAT_LIB}"  # the profile a rendered prompt names
MIN_PROMPT_CHARS = 10  # lib/src/prompt/prompt.ts: a shorter document is not completed,
MIN_PROMPT_EXCLUDED_LANGUAGE_IDS = ("scminput",)  # but for these detected languages (the commit message box)
OPTIONS = ("multiline", "cycling", *formatting.OPTIONS, "completionsDebounce")
FORMATTING: FormattingOptions | None = None  # getInlineCompletions' options: none unless the caller passes them


class CopilotInputError(UsageError):
    """A model or version the copilot profile cannot work with (the whole run stops); a bad
    line is a BadInputLine (rejected on its own)."""


def check_input(inp: EditorInput, version: str | None, release: str = CHAT_LIB, client: str = "copilot profile models chat-lib",
                options: tuple[str, ...] = OPTIONS, editor_formatting: FormattingOptions | None = FORMATTING) -> None:
    if version not in (None, "", release):
        raise UnknownRelease(f"the {client} {release} only, not {version!r}")
    unknown = sorted(set(inp.options) - set(options))
    if unknown:
        raise BadInputLine(f"unknown copilot option(s) {', '.join(unknown)} (known: {', '.join(options)})")
    if not inp.language:
        raise BadInputLine("the copilot profile needs the document's 'language' (a VS Code language id)")
    formatting.options(inp, editor_formatting)


def context_blocks(inp: EditorInput, document: str, cursor: int) -> list[lay.Block]:
    """The stable context: the document marker, then the similar files (two blocks each, one
    chunk); the input's snippets stand for open tabs where it gives none (similar.SNIPPET_TABS)."""
    inp = detected(with_snippet_tabs(inp))
    language = inp.language or ""
    uri = uris.document_uri(inp.filepath, inp.workspace)
    marker = lay.document_marker(uris.relative_path(uri, inp.workspace), language, document)
    blocks = [b for b in [lay.context_block(marker, 0.7)] if b]
    chosen = neighbors([(uris.document_uri(f.filepath, inp.workspace), f) for f in inp.open_files], uri, language)
    files = [(uris.relative_path(at, inp.workspace) or "", f.text) for at, f in chosen]
    for chunk, snippet in enumerate(similar_snippets(document, cursor, files, options_for(language))):
        for text in (snippet.headline, snippet.text):
            block = lay.context_block(text, 0.8, chunk=chunk)
            if block:
                blocks.append(block)
    return blocks


PromptLayout = Callable[[list[lay.Block], str, str, str], lay.Layout]  # (context, before cursor, suffix, language)


def split_layout(context: list[lay.Block], before_cursor: str, suffix: str, language: str) -> lay.Layout:
    """chat-lib's prompt: the split-context layout (layout.py)."""
    return lay.layout(context, before_cursor, suffix)


@dataclass(frozen=True)
class Prompt:
    """What the client holds at a cursor once its prompt is built and before it looks for a
    local answer (ghostText.ts getGhostTextWithoutAbortHandling: extractPrompt, then
    `trimLastLine` and the strategy): `prefix`, the text before the cursor less its last line's
    trailing whitespace, keys the caches and the async manager with the prompt's suffix;
    `is_multiline` is the multiline decision (request.multiline), `accepted` current.ts
    hasAcceptedCurrentCompletion."""

    inp: EditorInput
    layout: lay.Layout
    prefix: str
    is_multiline: bool
    accepted: bool

    @property
    def suffix(self) -> str:
        return self.layout.suffix

    @property
    def multiline(self) -> bool:
        """The strategy's requestMultiline (ghostTextStrategy.ts: after an accept, always)."""
        return self.is_multiline or self.accepted

    def body(self) -> dict[str, Any]:
        inp = self.inp
        return request.body(self.layout, inp.language or "", inp.prefix + inp.suffix, len(inp.prefix), self.is_multiline,
                            bool(inp.options.get("cycling")), self.accepted)


def prompt(inp: EditorInput, state: ClientState, prompt_layout: PromptLayout = split_layout,
           short_ok: tuple[str, ...] = MIN_PROMPT_EXCLUDED_LANGUAGE_IDS) -> Prompt | None:
    """The prompt at this cursor (None: the client completes nothing here); building it keeps the
    suffix AfterCursor reuses in `state`, as every call does, whether it sends or not."""
    inp = detected(inp)
    document = inp.prefix + inp.suffix
    cursor = len(inp.prefix)
    # componentsCompletionsPromptFactory.ts `failFastPrompt`: the whole text counts (suffixPercent > 0).
    too_short = len(document) < MIN_PROMPT_CHARS and inp.language not in short_ok
    if too_short or request.inline_position(inp.suffix.split("\n")[0]) is None:
        return None
    suffix = state.suffix(lay.suffix_text(inp.suffix))
    result = prompt_layout(context_blocks(inp, document, cursor), inp.prefix, suffix, inp.language or "")
    is_multiline = inp.options.get("multiline")
    if is_multiline is None:
        is_multiline = request.multiline(inp.language or "", document, cursor, result.prefix, result.suffix)
    cache_prefix, _ = lay.trim_last_line(inp.prefix)
    accepted = state.accepted(cache_prefix, result.suffix)
    return Prompt(inp, result, cache_prefix, bool(is_multiline), accepted)


def request_body(inp: EditorInput, state: ClientState | None = None, prompt_layout: PromptLayout = split_layout,
                 short_ok: tuple[str, ...] = MIN_PROMPT_EXCLUDED_LANGUAGE_IDS) -> dict[str, Any] | None:
    """The body Copilot sends at this cursor (None: it sends none). `state` carries a session;
    `prompt_layout` is the client's (the language server's is replay.editors.copilot_ls.inline_layout's); `short_ok`
    the languages it completes in a document under MIN_PROMPT_CHARS."""
    state = state if state is not None else ClientState()
    asked = prompt(inp, state, prompt_layout, short_ok)
    if asked is None or state.cached(asked.prefix, asked.suffix, asked.multiline):
        return None
    return asked.body()


def engine_text(body: dict[str, Any]) -> tuple[str, str]:
    """(FIM prefix, suffix) for an open model: the context blocks, each on its own lines, then
    the prompt (this project's mapping; Copilot's server is closed)."""
    context = "".join(block + "\n" for block in body["extra"].get("context", ()) if block)
    return context + body["prompt"], body["suffix"]


def _family(model: str) -> Family:
    family = family_for_model(model)
    if family is None:
        raise CopilotInputError(f"no FIM template known for model {model!r}; name a registry model or a family")
    return family


def rendered(inp: EditorInput, model: str, body: dict[str, Any] | None, name: str = LABEL) -> RenderedPrompt:
    family = _family(model)
    if body is None:
        return RenderedPrompt(profile=name, family=family.name, text="", prefix_sent="", suffix_sent="",
                              request=None, item_id=inp.item_id, max_new_tokens=0)
    prefix, suffix = engine_text(body)
    text = family.render(prefix, suffix)
    tok = load_tokenizer(default_tokenizer_spec(family.name))
    bos = [tok.bos_id] if family.adds_bos and tok.bos_id is not None else []
    return RenderedPrompt(profile=name, family=family.name, text=text, prefix_sent=prefix, suffix_sent=suffix,
                          stop=tuple(body["stop"]), max_new_tokens=body["max_tokens"],
                          token_ids=tuple(bos + tok.encode(text)), request=body, item_id=inp.item_id)


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """One cursor on its own (a fresh client)."""
    check_input(inp, version)
    return rendered(inp, model, request_body(inp))


class Session:
    """One session's client: cursors rendered in order with its state carried (the suffix
    reuse, the completions cache). `render(inp, received)` takes, for the cache, the text the
    client received for this cursor's request (None: not known; nothing is cached)."""

    def __init__(self, model: str, version: str | None = None) -> None:
        self.model, self.version = model, version
        self.state = ClientState()

    name = LABEL
    editor_formatting = FORMATTING  # what the editor passes as formattingOptions when the input names none

    def _body(self, inp: EditorInput) -> dict[str, Any] | None:
        """This client's body at the cursor, with the session's state (a variant overrides it)."""
        check_input(inp, self.version)
        return request_body(inp, self.state)

    def render(self, inp: EditorInput, received: str | None = None) -> RenderedPrompt:
        inp = detected(inp)
        body = self._body(inp)
        self.state.answer(inp, body, received, model=self.model)
        return rendered(inp, self.model, body, self.name)

    def complete(self, inp: EditorInput, received: str, timing: Timing | None = None) -> Shown:
        """What the client showed at this cursor: of `received` when it sent a request, else
        from its cache (session.py); re-indented to the editor's formatting options."""
        inp = detected(inp)
        shown = self.state.answer(inp, self._body(inp), received, timing, self.model)
        return formatting.formatted(inp, received, shown, self.editor_formatting)


def session(model: str, version: str | None = None) -> Session:
    return Session(model, version)
