"""The item view of one capture: its prompt as tokens, the completion against the accepted
text or a replayed completion as a character diff with its Indel score, and token diffs."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from replay.records import CaptureRecord
from replay.store import Store
from replay.usecases import inspect
from replay.usecases.inspect import DIFF_MODES
from tui.widgets.capture_table import format_ts
from tui.widgets.char_diff import render_char_diff, render_stage_diff
from tui.widgets.token_view import render_text, render_token_diff, render_tokens
from tui.errors import WorkerErrors



def cursor_offset(capture: CaptureRecord) -> int | None:
    """Where the cursor is in the logged prompt: the end of the logged prefix segment inside it
    (editors put snippets and a template before the prefix, never after it)."""
    prompt, segments = capture.logged_prompt, capture.segments
    if not prompt or segments is None or not segments.prefix:
        return None
    at = prompt.rfind(segments.prefix.replace("\r\n", "\n"))
    if at < 0:
        at = prompt.rfind(segments.prefix)
    return None if at < 0 else at + len(segments.prefix.replace("\r\n", "\n"))


class ItemScreen(WorkerErrors, Screen):
    """`t` switches the token diff, `n` the replayed completion compared, `y` copies the prompt,
    `Y` the diff (OSC 52), `a` opens the capture's audit findings."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("t", "next_diff", "Token diff"),
        Binding("n", "next_completion", "Next completion"),
        Binding("y", "copy_prompt", "Copy prompt"),
        Binding("Y", "copy_diff", "Copy diff"),
        Binding("a", "audit", "Audit"),
    ]

    class Tokenized(Message):
        def __init__(self, tokens: inspect.PromptTokens) -> None:
            self.tokens = tokens
            super().__init__()

    class TokenDiffReady(Message):
        def __init__(self, view: inspect.TokenDiffView) -> None:
            self.view = view
            super().__init__()

    def __init__(self, store: Store, capture_id: int, marked_token: int | None = None) -> None:
        super().__init__(name=f"item-{capture_id}")
        self.store = store
        self.capture_id = capture_id
        self.marked_token = marked_token
        capture = store.capture(capture_id)
        if capture is None:
            raise KeyError(f"no capture {capture_id} in {store.path}")
        self.capture = capture
        self.cursor = cursor_offset(capture)
        self.replays = inspect.replays_of(store, capture_id)
        self.replay_index = 0
        self.diff_mode = 0
        self.diff_text = ""
        self.tokens: inspect.PromptTokens | None = None

    def compose(self) -> ComposeResult:
        c = self.capture
        meta = (f"capture {self.capture_id} · {format_ts(c.ts)} · {c.editor} {c.editor_version or ''} · "
                f"{c.model or '-'} · {c.filepath or '-'} · {c.outcome} · {c.source.where()}")
        yield Static(meta, id="item-meta", classes="status")
        with VerticalScroll(id="item-body"):
            yield Static("Prompt (tokenizing…)", id="item-prompt-title", classes="section-title")
            yield Static(render_text(c.logged_prompt or "", self.cursor), id="item-prompt")
            yield Static("Completion vs reference", classes="section-title")
            yield Static("", id="item-diff")
            yield Static("Raw → shown (the editor's completion stage)", id="item-stage-title", classes="section-title")
            yield Static("", id="item-stage")
            yield Static("Token diff", id="item-token-diff-title", classes="section-title")
            yield Static("", id="item-token-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.show_completion()
        if self.capture.logged_prompt:
            self.tokenize()
        else:  # e.g. llama.vscode and llama.vim: the server builds the prompt, nothing is logged
            self.query_one("#item-prompt-title", Static).update(f"Prompt: none logged by {self.capture.editor}")

    # -- prompt tokens ----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="tokenize", exit_on_error=False)
    def tokenize(self) -> None:
        self.post_message(self.Tokenized(inspect.prompt_tokens(self.capture, self.app.tokenizer_spec)))

    def on_item_screen_tokenized(self, message: Tokenized) -> None:
        tokens = message.tokens
        self.tokens = tokens
        self.query_one("#item-prompt-title", Static).update(
            f"Prompt: {len(tokens.ids)} tokens ({tokens.spec}) · ▮ cursor · special tokens highlighted")
        self.query_one("#item-prompt", Static).update(render_tokens(tokens.pieces, tokens.special, self.cursor, self.marked_token))

    # -- completion diff --------------------------------------------------------------------
    def show_completion(self) -> None:
        """The editor's completion against the replayed one (when a run replayed the capture);
        without a replay, the completion the editor got, as it was accepted or not."""
        editor_text = self.capture.completion or ""
        target = self.query_one("#item-diff", Static)
        if not self.replays:
            self.diff_text = editor_text
            target.update(Text.assemble(f"editor's completion ({self.capture.outcome}); no replay yet\n",
                                        render_char_diff(editor_text, editor_text)))
            return
        run_id, completion = self.replays[self.replay_index % len(self.replays)]
        shown = completion.scored_text("shown")
        score = inspect.similarity(editor_text, shown)
        self.diff_text = f"--- {run_id}\n+++ editor\n{shown}\n{editor_text}"
        if not completion.stage:
            what = "received (no editor stage applied)"
        else:
            what = f"shown by {completion.stage}" if completion.shown_text is not None else f"nothing shown by {completion.stage}"
        target.update(Text.assemble(f"run {run_id} ({completion.model}), {what}, vs editor's completion · Indel {score:.3f}\n",
                                    render_char_diff(shown, editor_text)))
        stage = completion.stage or "no editor stage applied"
        self.query_one("#item-stage-title", Static).update(
            f"Raw → shown: {stage} · {len(completion.raw_text)} → {len(completion.shown_text or '')} characters")
        self.query_one("#item-stage", Static).update(render_stage_diff(completion.raw_text, completion.trace))

    def action_next_completion(self) -> None:
        self.replay_index += 1
        self.show_completion()

    # -- token diffs --------------------------------------------------------------------------
    def action_next_diff(self) -> None:
        mode = DIFF_MODES[self.diff_mode % len(DIFF_MODES)]
        self.diff_mode += 1
        self.query_one("#item-token-diff-title", Static).update(f"Token diff: {mode} (t: next) …")
        self.token_diff(mode)

    @work(thread=True, exclusive=True, group="token-diff", exit_on_error=False)
    def token_diff(self, mode: str) -> None:
        view = inspect.token_diff(self.capture_id, self.capture, mode, self.app.tokenizer_spec,
                                  self.app.compare_tokenizer_spec)
        self.post_message(self.TokenDiffReady(view))

    def on_item_screen_token_diff_ready(self, message: TokenDiffReady) -> None:
        view = message.view
        self.diff_text = view.text
        self.query_one("#item-token-diff-title", Static).update(f"Token diff: {view.mode} (t: next)")
        self.query_one("#item-token-diff", Static).update(render_token_diff(view.diff))

    # -- copy, audit ------------------------------------------------------------------------------
    def action_copy_prompt(self) -> None:
        self.app.copy_to_clipboard(self.capture.logged_prompt or "")
        self.notify("Prompt copied to the clipboard (OSC 52)", title="Copy")

    def action_copy_diff(self) -> None:
        self.app.copy_to_clipboard(self.diff_text)
        self.notify("Diff copied to the clipboard (OSC 52)", title="Copy")

    def action_audit(self) -> None:
        self.app.open_audit(self.capture_id)
