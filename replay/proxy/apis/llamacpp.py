"""The llama.cpp server's own API (llama-server).

Request and answer shapes: ggml-org/llama.cpp tools/server/README.md and
tools/server/server.cpp (`/completion`: prompt, n_predict, stop, temperature, stream; `/infill`:
input_prefix, input_suffix, input_extra — a list of `{filename, text}` chunks from other files —
and prompt, the text typed after the prefix on the cursor's line; answers `content`, a stream
of `data: {"content": ...}` server-sent events). llama.vscode posts `/infill` (ggml-org/llama.vscode
src/llama-server.ts `createRequestPayload`), as does llama.vim (ggml-org/llama.vim
autoload/llama.vim `llama#fim`); Continue's llama.cpp provider posts `/completion`
(continuedev/continue core/llm/llms/LlamaCpp.ts).
"""

from __future__ import annotations

from typing import Any

from replay.proxy.wire import Api, WireRequest, params, text
from replay.records import Snippet


def _extra(chunks: Any) -> tuple[Snippet, ...]:
    if not isinstance(chunks, list):
        return ()
    return tuple(Snippet(filepath=str(c.get("filename", "")), content=c["text"], kind="extra")
                 for c in chunks if isinstance(c, dict) and isinstance(c.get("text"), str))


def _parse(route: str, body: dict[str, Any]) -> WireRequest | None:
    prompt = body.get("prompt")
    opts = params(body, "stop", "n_predict")
    hints = frozenset(k for k in ("n_cmpl", "response_fields", "n_indent", "t_max_prompt_ms") if k in body)
    stream = body.get("stream") is True
    model = text(body.get("model"))
    if route.endswith("/infill"):
        return WireRequest("llama.cpp", "fim", model=model, prompt=text(prompt), prefix=text(body.get("input_prefix")),
                           suffix=text(body.get("input_suffix")), snippets=_extra(body.get("input_extra")), params=opts,
                           stream=stream, hints=hints)
    return WireRequest("llama.cpp", "raw", model=model, prompt=text(prompt), params=opts, stream=stream, hints=hints)


def _text_of(obj: dict[str, Any]) -> str:
    piece = obj.get("content")
    return piece if isinstance(piece, str) else ""


API = Api("llama.cpp", ("/completion", "/completions", "/infill"), _parse, _text_of)
