"""The `copilot` profile's answer side for a fresh client: what Copilot's client shows of the
text it received (the rules and their sources: answer.py; a session's client: session.py)."""

from __future__ import annotations

from typing import Any, Callable

from replay.editors.copilot import answer, request
from replay.editors.copilot.formatting import formatted
from replay.editors.copilot.languages import detected
from replay.editors.copilot.profile import FORMATTING, request_body
from replay.editors.stage import Shown, Steps, StreamStop, Timing
from replay.records import EditorInput


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What Copilot shows of `raw`, the text its client received for this cursor, re-indented
    to the formatting options the editor passes (formatting.py)."""
    return formatted(inp, raw, received(inp, raw, model=model, timing=timing), FORMATTING)


def received(inp: EditorInput, raw: str, *, model: str | None = None, timing: Timing | None = None,
             request_of: Callable[[EditorInput], dict[str, Any] | None] = request_body) -> Shown:
    """What a fresh client makes of `raw` before the editor's formatting options apply (the
    client reads the document in the language it detects, languages.py); `request_of` gives
    the client's body at the cursor (the language server's differs)."""
    inp = detected(inp)
    body = request_of(inp)
    if body is None:  # the client sends no request here (request_body says why): nothing to show
        steps = Steps(raw)
        steps.set("getGhostText", answer.SRC + "ghostText/ghostText.ts", None)
        return steps.shown(multiline=False)
    multiline = body["stop"] != ["\n"]
    steps, choice, _ = answer.received(inp, raw, request.stream_cut(body, inp.language or ""), timing, model)
    if choice is not None:
        answer.in_context(inp, steps, choice.chunks_on_arrival)
    return answer.item(inp, steps, multiline)


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    """None: the replay reads the whole stream (the server stops at the request's stop); where
    the client stops reading earlier, at a block's end, `complete` cuts the received text there."""
    return None
