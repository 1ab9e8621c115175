"""`fimreplay postprocess`: model outputs a user already has, turned into what the editor showed.

Each input line is a `render` input (document+cursor or prefix+suffix, filepath, workspace,
language, options keyed by the editor's own setting names, id) plus `raw`, the model's text, and
optionally `timing` ([[characters received, seconds since the request], ...] per streamed
chunk, read only with `editor_timing`). The line is rendered with the profile first, because
the editor's model call stops at the prompt's stop words before its completion stage sees the
text; then the profile's completion stage runs. Each output line, in input order: `id`,
`shown_text` (null when the editor shows nothing), `replace_after`, `multiline`, `trace` (one
`{"step", "source"}` per rule that changed the text), for an editor whose item also replaces text
before the cursor (Copilot) `replace_before`, with `editor_timing` `timing_applied`, and where the
line's options hold settings of another release that this one leaves unread (Tabby's agent config)
`ignored_options`, their dotted keys.

With `received`, `raw` is the text the editor's client received from its server (a Tabby event
log's `choices` text, already cut by the server's stop words; a stream as it arrived): the line is
not rendered and no stop word is applied again, only the client's own stage runs (for Continue,
its client-side stop handling is part of that stage). Tabby's client stage needs no model.
For a profile that keeps client state (Copilot), lines that share a `session` go, in file
order, through one session's client, which also gives what it showed for a line it answered
from its cache (that line's `raw` is not read).

Bad lines are handled as `render` handles them (replay.usecases.render_file): stop with file:line
and the reason, or with keep_going count them and keep them in a rejects file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from replay.editors.stage import apply_stop
from replay.editors import profile
from replay.editors.inputs import BadInputLine
from replay.errors import UsageError
from replay.usecases.render_file import LineFileSummary, RenderFailure, decode_line, map_file

_OWN_KEYS = frozenset({"raw", "timing"})


def postprocess_line(line: str, editor: str, model: str | None, version: str | None, editor_timing: bool,
                     received: bool = False, sessions: dict[str, Any] | None = None) -> dict[str, Any]:
    """One input line -> its output row (BadInputLine / ValueError for a bad line); `sessions`
    holds the session clients of the lines read so far (with `received`)."""
    got = decode_line(line, _OWN_KEYS, "the model's text")  # a bad `timing` rejects the line, read or not
    inp, raw = got.input, got.raw
    if raw is None:
        raise BadInputLine("missing 'raw' (the model's text, a string)")
    timing = got.timing if editor_timing else None
    prof, _ = profile(editor)
    if received and sessions is not None and inp.session is not None and prof.keeps_sessions:
        if inp.session not in sessions:
            sessions[inp.session] = prof.session(model or "", version)
        shown = sessions[inp.session].complete(inp, raw, timing)
    elif received:
        shown = prof.complete(inp, raw, model, version, timing)
    else:
        prompt = prof.render(inp, model or "", version)
        shown = prof.shown(inp, raw, apply_stop(raw, prompt.stop), model or "", version, timing)
    row: dict[str, Any] = {"id": inp.item_id, "shown_text": shown.text, "replace_after": shown.replace_after,
                           "multiline": shown.multiline,
                           "trace": [{"step": s.step, "source": s.source} for s in shown.trace]}
    if prof.replaces_before:
        row["replace_before"] = shown.replace_before
    if editor_timing:
        row["timing_applied"] = shown.timing_applied
    if shown.ignored_options:
        row["ignored_options"] = list(shown.ignored_options)
    return row


def postprocess_file(input_path: Path, editor: str, model: str | None, version: str | None, output: Path | None,
                     keep_going: bool, editor_timing: bool = False, received: bool = False,
                     echo: Callable[[str], None] | None = None) -> LineFileSummary:
    """Post-process every line of `input_path`; returns the summary (done, shown, rejected, files)."""
    try:
        prof, _ = profile(editor)
    except UsageError as exc:
        raise RenderFailure(str(exc), usage=True) from exc
    if model is None and not (received and not prof.stage_needs_model):
        why = "" if received else " (without --received the line is rendered first, for the prompt's stop words)"
        raise RenderFailure(f"--model is needed to post-process for {editor}{why}", usage=True)
    shown = 0
    sessions: dict[str, Any] = {}

    def convert(line: str, number: int) -> dict[str, Any]:
        nonlocal shown
        row = postprocess_line(line, editor, model, version, editor_timing, received, sessions)
        shown += row["shown_text"] is not None
        return row

    summary = map_file(input_path, output, keep_going, "postprocess", "postprocessed", convert, echo)
    return dataclasses.replace(summary, shown=shown)
