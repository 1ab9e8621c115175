"""Ollama's native API.

Request and answer shapes: ollama/ollama api/types.go (`GenerateRequest`: model, prompt,
suffix, raw, stream — a pointer, streaming unless false —, options with num_predict, stop,
temperature; `ChatRequest`: messages, options; `GenerateResponse.response`,
`ChatResponse.message.content`, `done`) and docs/api.md (a stream is NDJSON,
`application/x-ndjson`, one object per line). Continue's Ollama provider sends
`/api/generate` with `prompt` and `suffix` for its FIM route, or the templated prompt with
`raw: true` (continuedev/continue core/llm/llms/Ollama.ts `_streamFim`, `_streamComplete`).
"""

from __future__ import annotations

from typing import Any

from replay.proxy.wire import Api, WireRequest, last_user_message, params, text


def _parse(route: str, body: dict[str, Any]) -> WireRequest | None:
    stream = body.get("stream") is not False
    opts = params(body, "options.stop", "options.num_predict", "options.temperature")
    if route == "/api/chat":
        return WireRequest("ollama", "chat", model=text(body.get("model")), prompt=last_user_message(body.get("messages")),
                           params=opts, stream=stream)
    prompt, suffix = text(body.get("prompt")), text(body.get("suffix"))
    fim = suffix is not None
    return WireRequest("ollama", "fim" if fim else "raw", model=text(body.get("model")), prompt=prompt,
                       prefix=prompt if fim else None, suffix=suffix, params=opts, stream=stream)


def _text_of(obj: dict[str, Any]) -> str:
    piece = obj.get("response")
    if piece is None:
        piece = (obj.get("message") or {}).get("content")
    return piece if isinstance(piece, str) else ""


API = Api("ollama", ("/api/generate", "/api/chat"), _parse, _text_of)
