"""What the proxy reads off the wire: a recognised completion request, and the response text
assembled from whatever framing the upstream answered in.

A recogniser (replay.proxy.apis) turns a request body into a `WireRequest` and each JSON object
of the answer (the whole body, or one server-sent event / NDJSON line of a stream) into its
piece of text. The framing is told by the answer's Content-Type, not by the request's `stream`
flag: a server may ignore the flag, and the bytes are what the editor got.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from replay.jsonl import first_invalid_utf8
from replay.records import Route, Snippet

_decode = msgspec.json.Decoder()


@dataclass(frozen=True)
class WireRequest:
    """One completion request as an editor sent it: the prompt side and the sampling parameters
    the capture keeps (`stop`, `max_tokens`, `temperature`, under the API's own names mapped to
    these three). `prompt` is the text the prompt field carried (raw and FIM routes; the chat
    route: the last user message); `prefix`/`suffix` where the API sends them apart."""

    api: str
    kind: Route
    model: str | None = None
    prompt: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    snippets: tuple[Snippet, ...] = ()
    filepath: str | None = None
    language: str | None = None
    git_url: str | None = None
    clipboard: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    stream: bool = False
    hints: frozenset[str] = frozenset()  # body fields that tell an editor apart (replay.proxy.clients)


@dataclass(frozen=True)
class Api:
    """One API family's recogniser: the routes it serves, how a body of one of them becomes a
    WireRequest (None: the body is not this API's, another recogniser of the route may take it),
    the text of one answer object, and the completion id it answers with, where it has one."""

    name: str
    routes: tuple[str, ...]
    parse: Callable[[str, dict[str, Any]], WireRequest | None]
    text_of: Callable[[dict[str, Any]], str]
    id_of: Callable[[dict[str, Any]], str | None] = lambda obj: None


def params(body: dict[str, Any], stop: str, max_tokens: str, temperature: str = "temperature") -> dict[str, Any]:
    """The three recorded parameters, under the recorded names, from an API's own field names
    (only those the body sets)."""
    out: dict[str, Any] = {}
    for name, key in (("stop", stop), ("max_tokens", max_tokens), ("temperature", temperature)):
        value = _dig(body, key)
        if value is not None:
            out[name] = [value] if name == "stop" and isinstance(value, str) else value
    return out


def _dig(body: dict[str, Any], dotted: str) -> Any:
    value: Any = body
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def last_user_message(messages: Any) -> str | None:
    """The chat route's prompt: the content of the last user message (a string, or the text
    parts of a content list)."""
    if not isinstance(messages, list):
        return None
    for msg in reversed(messages):
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, list):
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return text(content)
    return None


def decode_json(data: bytes) -> Any:
    """A JSON document, or None when it is not one."""
    return body_fault(data)[0]


def body_fault(data: bytes) -> tuple[Any, str | None]:
    """(the JSON document, None), or (None, why the bytes are not one) in one line: not UTF-8
    (where), or msgspec's word on the JSON (a lone UTF-16 surrogate escape, `"\\ud83d"` without
    its pair, is malformed JSON to msgspec, as to serde_json and Go's decoder: it is refused, not
    decoded into text the store could not keep)."""
    try:
        return _decode.decode(data), None
    except UnicodeDecodeError:
        at = first_invalid_utf8(data) or 0  # msgspec's own offset is within the string it was reading
        return None, f"not UTF-8: byte 0x{data[at]:02x} at offset {at} is invalid there"
    except msgspec.DecodeError as exc:
        return None, f"not JSON: {str(exc).splitlines()[0] if str(exc) else 'malformed'}"


def answer_objects(content_type: str, body: bytes) -> Iterator[dict[str, Any]]:
    """The JSON objects of an answer: each `data:` event of a server-sent-event stream (the
    `[DONE]` marker skipped), each line of an NDJSON stream, or the one body (of a list, its
    first object: the first of several completions). A stream sent under a JSON content type
    is still read as the stream it is."""
    ctype = content_type.split(";", 1)[0].strip().lower()
    if ctype == "text/event-stream" or body.lstrip().startswith(b"data:"):
        pieces: Iterable[bytes] = (line[5:].strip() for line in body.splitlines() if line.startswith(b"data:"))
    elif ctype in ("application/x-ndjson", "application/jsonl", "application/x-jsonlines"):
        pieces = body.splitlines()
    else:
        whole = decode_json(body)
        if isinstance(whole, list):
            whole = next((item for item in whole if isinstance(item, dict)), None)
        if isinstance(whole, dict):
            yield whole
            return
        pieces = body.splitlines()  # NDJSON under another name
    for piece in pieces:
        if not piece.strip() or piece == b"[DONE]":
            continue
        obj = decode_json(piece)
        if isinstance(obj, dict):
            yield obj


MAX_DECODED = 64 << 20  # the most bytes a compressed body is undone to (a compression bomb is not)


def decoded_body(chunks: list[bytes], encoding: str, limit: int = MAX_DECODED) -> bytes | None:
    """A body's bytes with its Content-Encoding undone (gzip, deflate); None for an encoding the
    proxy does not read, bytes that are not of that encoding, or more than `limit` bytes once
    undone (a compression bomb). The body is forwarded as it came whatever this says."""
    data = b"".join(chunks)
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return data
    if encoding in ("gzip", "x-gzip", "deflate"):
        inflate = zlib.decompressobj(zlib.MAX_WBITS | 32)
        try:
            out = inflate.decompress(data, limit)
        except zlib.error:
            return None
        return None if inflate.unconsumed_tail else out
    return None
