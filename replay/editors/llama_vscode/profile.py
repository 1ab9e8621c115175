"""The llama.vscode profile: the /infill body the extension sends at a cursor, llama-server's
prompt from it (the server half, replay.editors.llama_server), and what the extension shows of
the answer.

A version is a tag (`v0.0.40`), optionally with the server's release: `v0.0.40,server=2025-03-01`.
A render line with `request` (a body as sent, e.g. from a proxy capture) runs the server half
only. Otherwise the body is built from the document and cursor (request.py) with the ring
buffer from `extra` (as held) or replayed from `events` (ring.py), or, for a line with neither
that gives `snippets` (a public benchmark's cross-file context), from a session of those files
entered (ring.SNIPPET_POLICY). A line with none of them (a benchmark item cut from raw code)
sends an empty ring: an item carries only its own file, no other file nor the session before
the cursor, and the extension's ring starts empty and takes a picked chunk only after 3 s
without a completion request (ring.py). When the extension sends
nothing (automatic trigger with a rest of line over max_line_suffix, or `auto` off), the
rendered line has `request` null, an empty prompt and the reason in `version_why`, as Tabby's
profile renders a cursor its agent sends nothing for; the completion stage then shows nothing.
A line built from a document is assembled by the server the extension starts (4 slots, unless
`server.n_parallel` is given: STARTED_SERVER); a request-only line by llama-server's defaults.
"""

from __future__ import annotations

from typing import Any

import msgspec

from replay.editors.llama_server import answer_text, render_body, server_stop, split_version
from replay.editors.llama_vscode import releases as r
from replay.editors.llama_vscode import request as req
from replay.editors.llama_vscode.completion import candidates, one, source
from replay.editors.llama_vscode.document import Document
from replay.editors.llama_vscode.ring import SNIPPET_POLICY, held, simulate, snippet_events
from replay.editors.llama_vscode.settings import Settings, settings
from replay.editors.inputs import BadInputLine
from replay.editors.js import js_trim
from replay.editors.stage import Shown, Steps, StreamStop, Timing
from replay.records import EditorInput, RenderedPrompt, TraceStep

_SERVER = "ggml-org/llama.cpp tools/server (process_token: n_indent, t_max_predict_ms)"


def _extra(inp: EditorInput, conf: Settings, rel: r.Release) -> tuple[list[dict[str, Any]], str]:
    """input_extra and how it was obtained."""
    if inp.extra and inp.events:
        raise BadInputLine("give the ring buffer as 'extra' or the session as 'events', not both")
    if inp.extra:
        return held(inp.extra), f"{len(inp.extra)} chunk(s) as held"
    if inp.events:
        chunks = simulate(inp.events, conf, rel)
        return chunks, f"{len(chunks)} chunk(s) from {len(inp.events)} session event(s)"
    if inp.snippets:
        events, at = snippet_events(inp.snippets, conf)
        chunks = simulate(events, conf, rel, at)
        return chunks, f"{len(chunks)} chunk(s) from the {len(inp.snippets)} snippet(s): {SNIPPET_POLICY}"
    return [], "empty ring (no extra, no events, no snippets)"


# The server the extension starts for a completion model: `llama serve --fim-qwen-1.5b-default
# --port 8012` (ggml-org/llama.vscode src/lists.ts, v0.0.63), the llama-server command without
# `-np`, which runs 4 slots over a unified cache; the default body's n_cmpl 3 needs more than
# the one slot of llama-server's library defaults.
STARTED_SERVER = {"server.n_parallel": 4, "server.kv_unified": True}


def server_options(options: dict[str, Any]) -> dict[str, Any]:
    """A document line's options, with the slots of the server the extension starts unless the
    line names the server's slots itself."""
    if "server.n_parallel" in options:
        return options
    return {**STARTED_SERVER, **options}


def render(inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The prompt llama-server evaluates for llama.vscode's request at this cursor."""
    client, server = split_version(version)
    rel = r.release(client)
    profile = f"llama.vscode@{rel.tag}"
    if inp.request is not None:
        rendered = render_body(inp.request, model, inp.options, server, profile=profile, item_id=inp.item_id)
        return msgspec.structs.replace(rendered, version_why=f"llama.vscode {rel.tag} ({rel.day}), the body as sent; "
                                       f"{rendered.version_why}")
    conf = settings(inp.options, rel)
    why = req.skipped(Document.at(inp.prefix, inp.suffix), inp.trigger, conf)
    if why is not None:
        return RenderedPrompt(profile=profile, family="none", text="", prefix_sent="", suffix_sent="", route="raw",
                              max_new_tokens=0, request=None, item_id=inp.item_id,
                              version_why=f"llama.vscode {rel.tag}: sends nothing ({why}, {source(rel)} getCompletionItems)")
    chunks, ring = _extra(inp, conf, rel)
    body = req.build(inp, chunks, conf, rel)
    assert body is not None
    rendered = render_body(body, model, server_options(inp.options), server, profile=profile, item_id=inp.item_id)
    return msgspec.structs.replace(rendered, version_why=f"llama.vscode {rel.tag} ({rel.day}), {ring}; "
                                   f"{rendered.version_why}")


def _body(inp: EditorInput, version: str | None) -> tuple[dict[str, Any] | None, Document, int, r.Release]:
    """The body (None: nothing sent), the document the stage compares with, the leading
    characters to remove, and the tag. A request-only line has no document: it is rebuilt from
    the body's window (input_prefix + prompt | input_suffix without its last "\\n"), and a blank
    prompt stands for a line of n_indent spaces before the cursor."""
    rel = r.release(split_version(version)[0])
    if inp.request is not None:
        body = inp.request
        prefix, prompt = str(body.get("input_prefix", "")), str(body.get("prompt", ""))
        indent = body.get("n_indent", 0) if rel.has(r.BLANK_LINE_PROMPT) and prompt == "" else 0
        indent = indent if isinstance(indent, int) and not isinstance(indent, bool) else 0
        doc = Document.at(prefix + " " * indent + prompt, str(body.get("input_suffix", "\n"))[:-1])
        return body, doc, indent, rel
    conf = settings(inp.options, rel)
    doc = Document.at(inp.prefix, inp.suffix)
    if req.skipped(doc, inp.trigger, conf) is not None:
        return None, doc, 0, rel
    local = req.local_context(doc, conf, rel)
    return req.body(local, [], conf, rel), doc, local.spaces_to_remove, rel


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What llama.vscode `version` shows of the model's `raw` text at this cursor (None: nothing):
    the server's own cut of the answer, then the extension's rules (client_shown)."""
    body = _body(inp, version)[0]
    received = raw if body is None else answer_text(body, raw, timing)
    shown = client_shown(inp, received, version)
    # The step is traced whenever the text ends where the server stops, so that an answer the
    # replay already stopped there (stream_stop) shows the same trace as the whole answer.
    stopped_here = body is not None and answer_text(body, received + "xx") == received  # the server checks a line a token late
    if received == raw and not stopped_here:
        return msgspec.structs.replace(shown, timing_applied=bool(timing))
    cut = TraceStep(step="server stop (n_indent, t_max_predict_ms)", source=_SERVER, text=received)
    return msgspec.structs.replace(shown, trace=(cut, *shown.trace), timing_applied=bool(timing))


def client_shown(inp: EditorInput, received: str, version: str | None = None) -> Shown:
    """What the extension shows of the server's answer `received` (getCompletionItems)."""
    body, doc, spaces, rel = _body(inp, version)
    if body is None:
        step = TraceStep(step="getCompletionItems (no request sent)", source=source(rel), text=None)
        return Shown(text=None, multiline=False, trace=(step,))
    multiline = not (rel.has(r.UPDATE_SUGGESTION) and js_trim(doc.line_suffix) != "")
    answers = candidates(received, body, rel)
    if answers == [received]:
        steps = Steps(received)
        one(received, doc, spaces, rel, steps)
        return Shown(text=steps.text, multiline=multiline, trace=tuple(steps.trace))
    for answer in answers:  # v0.0.40: the first character that is not discarded, through its own rules
        steps = Steps(answer)
        if one(answer, doc, spaces, rel, steps) is not None:
            split = TraceStep(step="getComplFromContent (a single answer read character by character)",
                              source=source(rel), text=answer)
            return Shown(text=steps.text, multiline=multiline, trace=(split, *steps.trace))
    nothing = TraceStep(step="getComplFromContent (no character kept)", source=source(rel), text=None)
    return Shown(text=None, multiline=multiline, trace=(nothing,))


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    """The server's n_indent cut (the extension itself reads one JSON answer, `stream: false`)."""
    return server_stop(_body(inp, version)[0])
