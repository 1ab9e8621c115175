"""llama-server's half of the llama.cpp editor clients (llama.vscode, llama.vim): what the
server assembles from an /infill body, what it refuses, and where it ends the answer.

Both clients send a body to llama-server's `/infill`; the server, not the client, builds the
prompt (assemble.py) from the body and its own settings (settings.py: `server.*` options and
presets), refuses what does not fit (refusal.py), and cuts the answer by the body's n_indent
(answer.py). The rules are kept per llama.cpp release (releases.py). The client profiles
import only this module: `render_body` for their prompt side (all of it when the input carries
the body as sent), `server_stop` as their stream stop and `answer_text` as the first step of
their completion stage (what the server sent them of the model's text).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

import msgspec

from replay.editors.llama_server.answer import indent_stop, server_text
from replay.editors.llama_server.assemble import assemble
from replay.editors.llama_server.refusal import (
    InfillRefused,
    check_body,
    check_fields,
    fit_to_context,
    infill_prompt,
)
from replay.editors.llama_server.releases import history as server_history
from replay.editors.llama_server.releases import server_rules, split_version
from replay.editors.llama_server.settings import PRESETS, ServerSettings, answered_settings, server_settings
from replay.editors.llama_server.vocab import NoInfill, infill_vocab
from replay.editors.interface import CaptureNotReplayable
from replay.editors.interface import capture_input as editor_capture_input
from replay.editors.stage import StreamStop
from replay.jsonl import loads
from replay.records import CaptureRecord, EditorInput, RenderedPrompt

__all__ = ["PRESETS", "InfillRefused", "ServerSettings", "answer_text", "answered_settings", "capture_input", "capture_request",
           "capture_spec", "render_body", "server_history", "server_settings", "server_stop", "split_version"]


def render_body(body: dict[str, Any], model: str, options: dict[str, Any], server_version: str | None = None,
                profile: str = "llama-server", item_id: str | None = None) -> RenderedPrompt:
    """What llama-server assembles from this /infill body for `model` (a GGUF path or a model
    name) under the `server.*` options: `text` the prompt as the server reports it, `token_ids`
    exactly the ids it evaluates, `request` the body; InfillRefused when the server would refuse it.

    `max_new_tokens` is the body's n_predict (else the server's, else what the slot has left),
    `stop` the body's stop words; `profile` names the client (with its version) for the record.
    """
    settings = server_settings(options)
    rules = server_rules(server_version)
    chunks = check_body(body)
    check_fields(body, settings.n_parallel, rules)
    try:
        vocab = infill_vocab(model)
    except NoInfill as exc:
        raise InfillRefused(str(exc), kind="not_supported_error", status=501) from None
    n_ctx = settings.slot_n_ctx(vocab.n_ctx_train)
    try:
        built = assemble(vocab, body["input_prefix"], body["input_suffix"], chunks, infill_prompt(body),
                         n_batch=settings.n_batch, n_predict=settings.n_predict, n_ctx=n_ctx,
                         spm_infill=settings.spm_infill, prompt_bos=rules.prompt_bos)
    except TypeError as exc:
        raise InfillRefused(f"input_prefix/input_suffix {exc}") from None
    ids = fit_to_context(built.ids, n_ctx, rules, _int(body, "n_keep", 0))
    tok = vocab.tokenizer
    return RenderedPrompt(profile=profile, family=vocab.family, text=tok.decode(ids),
                          prefix_sent=tok.decode(built.prefix_ids + built.prompt_ids),
                          suffix_sent=tok.decode(built.suffix_ids), route="raw", stop=_stop_words(body),
                          max_new_tokens=_max_new(body, settings, n_ctx - len(ids)),
                          token_ids=tuple(ids), request=body, item_id=item_id,
                          version_why=f"llama-server rules {rules.label}: {rules.why}")


def server_stop(body: dict[str, Any] | None) -> StreamStop | None:
    """The server's own stop over a streamed answer (the n_indent cut), one call per token;
    None when the body sets no n_indent. t_max_predict_ms needs the stream's clock: it is
    applied by `answer_text` from the timing."""
    return indent_stop(body)


def answer_text(body: dict[str, Any] | None, raw: str, timing: Sequence[tuple[int, float]] | None = None) -> str:
    """The text the server sent the client of the model's `raw` (n_indent, t_max_predict_ms)."""
    return server_text(body, raw, timing)


def capture_spec(client: str | None, day: datetime.date | None) -> str | None:
    """The version a proxy capture of a llama.cpp client replays under: the client's own
    version (`client`, as its profile reads the capture) and llama-server's rules of the day it
    was captured (`v0.0.40,server=2025-06-01`); None when neither is known (the newest)."""
    parts = [p for p in (client, f"server={day.isoformat()}" if day is not None else None) if p]
    return ",".join(parts) or None


def capture_input(record: CaptureRecord, item_id: str) -> EditorInput:
    """A llama.cpp client's capture: its /infill body as the input's `request` (the profile then
    runs only the server half on it), replayed with the server slots its answer proves
    (`answered_settings`) when the proxy saw the server answer it."""
    inp = editor_capture_input(record, item_id)  # its segments first: CaptureNotReplayable without them
    request = capture_request(record)
    options = answered_settings(request) if _answered(record) else {}
    return msgspec.structs.replace(inp, options=options, request=request)


def capture_request(record: CaptureRecord) -> dict[str, Any]:
    """The /infill body a llama.cpp client sent, as the proxy kept it (`raw`). A body cut at
    the proxy's size limit cannot be replayed."""
    wire = record.extra.get("wire")
    if isinstance(wire, dict) and wire.get("truncated"):
        raise CaptureNotReplayable("the request body was cut at the proxy's size limit (raise `fimreplay proxy --max-body`)")
    body = loads(record.raw)
    if not isinstance(body, dict) or "input_prefix" not in body:
        raise CaptureNotReplayable("the capture holds no /infill body (no input_prefix)")
    return body


def _answered(record: CaptureRecord) -> bool:
    """The proxy saw the server answer the request (a 2xx status)."""
    wire = record.extra.get("wire")
    status = wire.get("http_status") if isinstance(wire, dict) else None
    return isinstance(status, int) and 200 <= status < 300


def _stop_words(body: dict[str, Any]) -> tuple[str, ...]:
    stop = body.get("stop")
    return tuple(s for s in stop if isinstance(s, str)) if isinstance(stop, list) else ()


def _int(body: dict[str, Any], key: str, default: int) -> int:
    value = body.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _max_new(body: dict[str, Any], settings: ServerSettings, room: int) -> int:
    """The body's n_predict, capped by the server's `-n` when that is set (the slot then takes
    the server's), and by what the slot's context has left (without context shift generation
    stops when it is full)."""
    n = _int(body, "n_predict", -1)
    if settings.n_predict > 0 and (n < 0 or n > settings.n_predict):
        n = settings.n_predict
    return room if n < 0 else min(n, room)
