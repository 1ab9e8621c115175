"""The window of the document each client's request holds around its cursor, as the typed
reference (replay.references) reads it: the text before the cursor and after it, or why a
request holds none, and what a client may have left out of it. Each reader takes the capture's
request body as replay.references parsed it, once (request_body)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from replay.editors import capture_profile
from replay.jsonl import loads
from replay.records import CaptureRecord

__all__ = ["RequestBody", "Unsent", "Window", "copilot_body", "infill_body", "request_body", "unsent", "window_of"]

# What a client may have left out of the text after the cursor: nothing, the rest of the
# cursor's line when it holds only closing characters (Tabby), or everything up to the next
# line's first non-blank character (Copilot).
Unsent = Literal["", "line_rest", "next_line"]


class Window(msgspec.Struct, frozen=True):
    """The document around a request's cursor, as the request holds it."""

    before: str
    after: str


# A capture's request body as the readers take it: the JSON object of its raw line, or why there
# is none (UNREADABLE: not JSON; NOT_AN_OBJECT; NOT_READ: no reader reads this capture's body).
RequestBody = dict[str, Any] | str
UNREADABLE, NOT_AN_OBJECT, NOT_READ = "not JSON", "not a JSON object", "not read"


def request_body(rec: CaptureRecord) -> RequestBody:
    """The capture's request body, parsed from its raw line where a reader reads it: a body sent
    to /infill (window_of, the client's speculation budget) or one that may be Copilot's
    (copilot_body); any other capture's raw line is not parsed."""
    if not (infill_body(rec) or _may_be_copilot(rec)):
        return NOT_READ
    try:
        body = loads(rec.raw)
    except ValueError:
        return UNREADABLE
    return body if isinstance(body, dict) else NOT_AN_OBJECT


def window_of(rec: CaptureRecord, body: RequestBody) -> Window | str:
    """The window a capture holds, or why it holds none (`body`: request_body(rec))."""
    seg = rec.segments
    if seg is None:
        return "the capture holds no prefix and suffix"
    if seg.suffix is None:
        return "the log holds no suffix: the spot's end cannot be found again"
    if infill_body(rec):
        if body == UNREADABLE:
            return "the /infill body could not be read"
        prompt = body.get("prompt") if isinstance(body, dict) else None
        if not isinstance(prompt, str):
            return "the /infill body holds no prompt (the cursor's line)"
        return Window(seg.prefix + prompt, seg.suffix)
    return Window(seg.prefix, seg.suffix)


def _may_be_copilot(rec: CaptureRecord) -> bool:
    return rec.raw.startswith("{") and "trim_by_indentation" in rec.raw


def copilot_body(rec: CaptureRecord, body: RequestBody) -> bool:
    """Whether the capture is a GitHub Copilot completion body, told by the `extra` only its
    requests carry (microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/
    src/ghostText/completionsFromNetwork.ts: `next_indent`, `trim_by_indentation`). Its suffix is
    not the text after the cursor: currentFile.tsx `AfterCursor` starts it at the next line with
    its leading blanks trimmed (the rest of the cursor's line, the line break and the next
    line's indentation are not sent) and reuses the previous request's suffix while the two are
    close; its prompt leaves out the blanks of a blank last line (prompt.ts `trimLastLine`).
    `body`: request_body(rec)."""
    if not _may_be_copilot(rec):
        return False
    extra = body.get("extra") if isinstance(body, dict) else None
    return isinstance(extra, dict) and "next_indent" in extra and "trim_by_indentation" in extra


def infill_body(rec: CaptureRecord) -> bool:
    """Whether the capture is a body the proxy saw sent to llama-server's /infill (what the
    llama.cpp clients send: the cursor's line in `prompt`, the text before it in
    `input_prefix`), told by the route it was recorded on, not by the client's name."""
    wire = rec.extra.get("wire")
    route = wire.get("route") if isinstance(wire, dict) else None
    return isinstance(route, str) and route.rstrip("/").endswith("/infill")


def unsent(rec: CaptureRecord, window: Window | str, body: RequestBody) -> Unsent:
    """What the client may have left out after the cursor: `next_line` for a Copilot body
    (`copilot_body`); `line_rest` for a request whose suffix starts with a line break from a
    client that may leave out the rest of the cursor's line when it holds only closing
    characters (EditorProfile.may_leave_line_rest_out: Tabby's agent)."""
    if isinstance(window, str):
        return ""
    if copilot_body(rec, body):
        return "next_line"
    if window.after[:1] not in ("\n", "\r") or not capture_profile(rec).may_leave_line_rest_out(rec):
        return ""
    return "line_rest"
