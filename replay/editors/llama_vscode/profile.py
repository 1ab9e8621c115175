"""The llama.vscode profile: the /infill body the extension sends at a cursor, llama-server's
prompt from it (the server half, replay.editors.llama_server); what the extension shows of the
answer is completion.py's.

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

from replay.editors.llama_server import render_body, split_version
from replay.editors.llama_vscode import releases as r
from replay.editors.llama_vscode import request as req
from replay.editors.llama_vscode.completion import source
from replay.editors.llama_vscode.document import Document
from replay.editors.llama_vscode.ring import SNIPPET_POLICY, held, simulate, snippet_events
from replay.editors.llama_vscode.settings import Settings, settings
from replay.editors.inputs import BadInputLine
from replay.records import EditorInput, RenderedPrompt

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
