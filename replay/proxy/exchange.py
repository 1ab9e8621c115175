"""One request/answer pair the proxy forwarded, and what the store keeps of it.

The forwarding path only collects bytes and clock readings into an `Exchange`; everything else
(decoding JSON, recognising the API, assembling the streamed text, scrubbing) happens here, on
the recorder's thread, so that the editor never waits for it.

A capture from the proxy (format "proxy") keeps:
- `raw`: the request body as sent, secrets scrubbed (replay.secrets), cut at the size limit;
- `logged_prompt`: the prompt field as sent (the wire prompt), `segments` where the API sends
  prefix and suffix apart (FIM routes, llama.cpp's `/infill` with its `input_extra`, Tabby's
  segments), `completion`: the text the editor received, assembled from the stream;
- `extra["wire"]`: route, API, HTTP status, the recorded parameters (stop, max_tokens,
  temperature), streamed or not, timings (time to first byte and total, seconds from the
  request's arrival), and flags: `truncated` (a body over the limit), `client_disconnected`,
  `error` (the upstream could not be reached).
Headers are never kept, except the User-Agent (scrubbed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from replay import secrets
from replay.proxy import apis
from replay.proxy.clients import detect
from replay.proxy.prompt_parts import split_prompt
from replay.proxy.wire import WireRequest, answer_objects, decode_json, decoded_body
from replay.records import CaptureRecord, OutcomeEvent, Segments, Source

FORMAT = "proxy"
DEFAULT_MAX_BODY = 1 << 20  # bytes of a request or answer body kept; the rest is forwarded, not kept


@dataclass
class Exchange:
    """What the forwarding path collected: filled in as the answer streams through."""

    method: str
    route: str
    path: str
    query: dict[str, str]
    headers: Mapping[str, str]  # in memory only: read for the User-Agent and the credentials to scrub
    body: bytes
    started: float  # wall clock (seconds since the epoch) at the request's arrival
    status: int = 0
    content_type: str = ""
    content_encoding: str = ""
    chunks: list[bytes] = field(default_factory=list)
    answer_size: int = 0
    ttfb_s: float | None = None
    total_s: float | None = None
    error: str | None = None
    client_disconnected: bool = False
    answer_truncated: bool = False


@dataclass
class Recorded:
    """What one exchange becomes in the store: a capture, an outcome event, or nothing."""

    capture: CaptureRecord | None = None
    event: OutcomeEvent | None = None


def to_recorded(ex: Exchange, source_name: str, editor: str | None = None, max_body: int = DEFAULT_MAX_BODY) -> Recorded:
    """The capture or outcome event an exchange stands for (nothing: a body no recogniser takes)."""
    _register_credentials(ex.headers)
    body = decode_json(ex.body)
    source = Source(file=source_name, line=0)
    if not isinstance(body, dict):
        return Recorded()
    if ex.route == apis.EVENTS_ROUTE:
        if not 200 <= ex.status < 300:
            return Recorded()
        return Recorded(event=apis.tabby.outcome_event(body, ex.query, source, ex.started))
    found = apis.recognise(ex.route, body)
    if found is None:
        return Recorded()
    api, wire = found
    user_agent = ex.headers.get("User-Agent", "")
    detected, version = detect({"User-Agent": user_agent}, wire)
    text, completion_id = _answer(ex, api)
    truncated = len(ex.body) > max_body
    wire_info: dict[str, Any] = {
        "route": ex.route, "path": ex.path, "api": api.name, "kind": wire.kind, "http_status": ex.status,
        "params": secrets.scrub_obj(wire.params), "stream": wire.stream,
        "timings": {"ttfb_s": ex.ttfb_s, "total_s": ex.total_s},
    }
    if wire.hints:
        wire_info["hints"] = sorted(wire.hints)
    for flag, on in (("truncated", truncated or ex.answer_truncated), ("client_disconnected", ex.client_disconnected)):
        if on:
            wire_info[flag] = True
    if ex.error:
        wire_info["error"] = secrets.scrub_text(ex.error)
    return Recorded(capture=CaptureRecord(
        source=source,
        editor=(editor or detected),  # type: ignore[arg-type]
        format=FORMAT,
        completion_id=completion_id,
        editor_version=version,
        model=wire.model,
        language=wire.language,
        filepath=wire.filepath,
        segments=_segments(wire, max_body),
        # A FIM route's prompt field is the prefix (in segments): only raw and chat prompts
        # are prompts as the model reads them.
        logged_prompt=_cut(wire.prompt, max_body) if wire.kind != "fim" else None,
        completion=text,
        ts=ex.started,
        user_agent=secrets.scrub_text(user_agent) or None,
        extra={"wire": wire_info},
        raw=secrets.scrub_text(ex.body[:max_body].decode("utf-8", errors="replace")),
    ))


def _register_credentials(headers: Mapping[str, str]) -> None:
    """The values of the request's authenticating headers become secrets (replay.secrets): a
    client or upstream that repeats its key anywhere else (a body field, the User-Agent, an
    error message) cannot get it stored."""
    for name, value in headers.items():
        if secrets.is_secret_key(name):
            secrets.register(value)
            scheme, _, credential = value.partition(" ")
            if credential and scheme.isalpha():
                secrets.register(credential)


def _answer(ex: Exchange, api: apis.Api) -> tuple[str | None, str | None]:
    """The text the editor received (None: no answer, an error status, or an encoding the
    proxy does not read) and the completion id the answer carried."""
    if not ex.chunks or not 200 <= ex.status < 300:
        return None, None
    data = decoded_body(ex.chunks, ex.content_encoding)
    if data is None:
        return None, None
    pieces, completion_id = [], None
    for obj in answer_objects(ex.content_type, data):
        pieces.append(api.text_of(obj))
        completion_id = completion_id or api.id_of(obj)
    return "".join(pieces), completion_id


def _segments(wire: WireRequest, max_body: int) -> Segments | None:
    """The parts the editor sent apart, or found inside a raw-route prompt (prompt_parts)."""
    prefix, suffix = wire.prefix, wire.suffix
    if prefix is None and wire.kind == "raw" and (wire.prompt is None or len(wire.prompt) <= max_body):
        parts = split_prompt(wire.model, wire.prompt)
        if parts is None:
            return None
        prefix, suffix = parts
    if prefix is None:
        return None
    return Segments(prefix=_cut(prefix, max_body) or "", suffix=_cut(suffix, max_body), snippets=wire.snippets,
                    clipboard=wire.clipboard, git_url=wire.git_url, filepath=wire.filepath)


def _cut(value: str | None, limit: int) -> str | None:
    return value if value is None or len(value) <= limit else value[:limit]
