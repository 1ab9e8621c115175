"""The help screen: every key of every screen, in one place."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# fimreplay

Keyboard first; the mouse works too (click a row, click a column title to sort).

| key | where | does |
|---|---|---|
| `1` `2` `3` `4` | anywhere | Captures, Replay dashboard, Runs, Acceptance |
| `ctrl+p` | anywhere | command palette |
| `?` / `f1` | anywhere | this help |
| `q` | anywhere | quit (a running replay stops after the item in progress; it resumes later) |
| `/` | Captures | filter as you type (editor, model, file, outcome) |
| `s` / `r` | Captures | next sort column / reverse the order |
| `enter` | Captures | open the capture in the item view |
| `a` | Captures, item | audit findings of the capture; `A` of the whole set |
| `t` | item | token diff: logged vs rebuilt, editor vs standard, tokenizer A vs B |
| `n` | item | next run that replayed this capture (char diff with its Indel) |
| `y` / `Y` | item | copy the prompt / the diff (OSC 52) |
| `ctrl+r` | Replay | start one run per model (inputs, profile, backend, models in the form) |
| `x` / `u` | Replay | cancel the runs / resume the cancelled ones |
| `tab` / `escape` | Replay, Captures | into the form or filter / back to the table |
| `y` | Runs | copy the comparison as Markdown (OSC 52) |
| `space` `c` `e` | Runs | mark runs, compare them side by side, export JSONL/CSV/Markdown |
| `enter` | Audit | jump to the finding's token |
| `g` / `r` | Acceptance | group by editor, release, language, model / read the store again |
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP)
