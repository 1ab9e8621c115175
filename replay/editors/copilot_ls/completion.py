"""What the Copilot language server shows of the text it received: chat-lib's rules
(replay.editors.copilot.completion), with this client's own request and the editor's
formatting options (profile.py)."""

from __future__ import annotations

from replay.editors.copilot import completion
from replay.editors.copilot.formatting import formatted
from replay.editors.copilot_ls.profile import FORMATTING, check_input, request_body
from replay.editors.stage import Shown, StreamStop, Timing
from replay.records import EditorInput


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What the language server shows of `raw`: chat-lib's rules (completion.py), the item's
    indentation normalised to the editor's formatting options; the multiline flag is that of
    this client's own request (`request_of`)."""
    check_input(inp, version)
    shown = completion.received(inp, raw, model=model, timing=timing, request_of=request_body)
    return formatted(inp, raw, shown, FORMATTING)


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    return completion.stream_stop(inp, model=model, version=version)
