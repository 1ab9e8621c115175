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
Headers are never kept, except the User-Agent (scrubbed; bytes that are not UTF-8, which
aiohttp hands over as surrogate escapes, replaced by U+FFFD: the store keeps only text UTF-8 can
hold).

The credentials an exchange carried (its authenticating headers, and the values of
credential-named fields of its body: replay.secrets.is_secret_key) are taken out of everything
its capture or reject keeps, wherever the client or the upstream repeats them (a prompt, the
User-Agent, an error). The first REMEMBERED distinct ones are also registered for the process
(replay.secrets.register), so that a key seen once is kept out of every later exchange too; past
that many (a client sending a new key with each request) they stay the exchange's own, or every
later body would be scanned for each of thousands of keys.

A body that a completion route cannot read is forwarded as it came (the upstream answers it as
it will) and becomes a reject, not a capture: `Recorded.reject` says why in one line (not UTF-8,
not JSON, a lone UTF-16 surrogate, which JSON's own readers refuse too, a JSON value that is not
an object, an object no API of the route takes). Its bytes go to the rejects file, scrubbed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from replay import secrets
from replay.proxy import apis
from replay.proxy.clients import detect, named
from replay.proxy.prompt_parts import split_prompt
from replay.proxy.wire import MAX_DECODED, WireRequest, answer_objects, body_fault, decoded_body
from replay.records import CaptureRecord, OutcomeEvent, Segments, Source

FORMAT = "proxy"
DEFAULT_MAX_BODY = 1 << 20  # bytes of a request or answer body kept; the rest is forwarded, not kept


@dataclass
class Exchange:
    """What the forwarding path collected: filled in as the answer streams through."""

    number: int  # the request's number since the proxy started (named by its reject)
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
    """What one exchange becomes: a capture, an outcome event, a reject (why its body cannot
    be recorded), or nothing (an event the upstream refused). `credentials` are the values the
    exchange authenticated with, to be taken out of whatever is kept of it."""

    capture: CaptureRecord | None = None
    event: OutcomeEvent | None = None
    reject: str | None = None
    credentials: tuple[str, ...] = ()


def to_recorded(ex: Exchange, source_name: str, editor: str | None = None, max_body: int = DEFAULT_MAX_BODY,
                editor_version: str | None = None) -> Recorded:
    """The capture, outcome event or reject an exchange stands for. `editor` (and
    `editor_version`), when given, name the client of every capture (`fimreplay proxy --editor
    NAME[@VERSION]`) over what the wire tells (replay.proxy.clients.named)."""
    creds = credentials(ex.headers)
    data = decoded_body([ex.body], ex.headers.get("Content-Encoding", ""))
    if data is None:
        return Recorded(reject=f"Content-Encoding {ex.headers.get('Content-Encoding', '')!r}: the body cannot be read "
                               f"(not that encoding, or over {MAX_DECODED >> 20} MiB decoded)", credentials=creds)
    body, fault = body_fault(data)
    if fault is not None:
        return Recorded(reject=fault, credentials=creds)
    if not isinstance(body, dict):
        return Recorded(reject=f"the body is a JSON {type(body).__name__ if body is not None else 'null'}, "
                               "not an object", credentials=creds)
    creds = (*creds, *_field_credentials(body))
    _remember(creds)
    source = Source(file=source_name, line=ex.number)
    if ex.route == apis.EVENTS_ROUTE:
        if not 200 <= ex.status < 300:
            return Recorded(credentials=creds)  # the server refused the event: it did not happen
        event = apis.tabby.outcome_event(body, ex.query, source, ex.started)
        if event is None:
            return Recorded(reject="not a view, select or dismiss event of a completion", credentials=creds)
        return Recorded(event=event, credentials=creds)
    found = apis.recognise(ex.route, body)
    if found is None:
        names = ", ".join(api.name for api in apis.APIS if ex.route in api.routes)
        return Recorded(reject=f"not a completion request of the APIs of {ex.route} ({names})", credentials=creds)
    api, wire = found
    user_agent = as_text(ex.headers.get("User-Agent", ""))
    detected, version = named(detect({"User-Agent": user_agent}, wire), editor, editor_version)
    text, completion_id = _answer(ex, api)
    truncated = len(ex.body) > max_body
    wire_info: dict[str, Any] = {
        "route": ex.route, "path": as_text(ex.path), "api": api.name, "kind": wire.kind, "http_status": ex.status,
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
    capture = CaptureRecord(
        source=source,
        editor=detected,  # type: ignore[arg-type]
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
        raw=secrets.scrub_text(data[:max_body].decode("utf-8", errors="replace")),
    )
    return Recorded(capture=without(capture, creds), credentials=creds)


REMEMBERED = 64
_remembered: set[str] = set()


def _remember(creds: tuple[str, ...]) -> None:
    for value in creds:
        if len(_remembered) >= REMEMBERED:
            return
        if value not in _remembered:
            _remembered.add(value)
            secrets.register(value)


def credentials(headers: Mapping[str, str]) -> tuple[str, ...]:
    """The values of a request's authenticating headers, and the credential of an
    `Authorization: Scheme credential` alone, longest first."""
    found: set[str] = set()
    for name, value in headers.items():
        if secrets.is_secret_key(name):
            value = as_text(value)
            found.add(value)
            scheme, _, credential = value.partition(" ")
            if credential and scheme.isalpha():
                found.add(credential.strip())
    return tuple(sorted((v for v in found if len(v) >= 4), key=len, reverse=True))


def _field_credentials(body: dict[str, Any]) -> tuple[str, ...]:
    """The string values of credential-named fields anywhere in a request body."""
    found: list[str] = []
    stack: list[Any] = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, sub in value.items():
                if isinstance(sub, str) and len(sub) >= 4 and secrets.is_secret_key(str(key)):
                    found.append(sub)
                elif isinstance(sub, (dict, list)):
                    stack.append(sub)
        elif isinstance(value, list):
            stack.extend(v for v in value if isinstance(v, (dict, list)))
    return tuple(sorted(set(found), key=len, reverse=True))


def scrub(text: str, creds: tuple[str, ...]) -> str:
    """`text` with the exchange's credentials and everything replay.secrets knows taken out."""
    for value in creds:
        if value in text:
            text = text.replace(value, secrets.REDACTED)
    return secrets.scrub_text(text)


def without(capture: CaptureRecord, creds: tuple[str, ...]) -> CaptureRecord:
    """`capture` with the exchange's credentials replaced in every text it holds (field names
    and structure untouched, whatever a hostile credential looks like)."""
    if not creds:
        return capture

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            for cred in creds:
                if cred in value:
                    value = value.replace(cred, secrets.REDACTED)
            return value
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return msgspec.convert(clean(msgspec.to_builtins(capture)), CaptureRecord)


def as_text(value: str) -> str:
    """A header value or path as text the store can keep: aiohttp hands bytes that are not UTF-8 over as
    surrogate escapes (a lone surrogate, which UTF-8 cannot encode); they become U+FFFD."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


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
