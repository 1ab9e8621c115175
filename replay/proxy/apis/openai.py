"""OpenAI's completion APIs, as editors speak them to OpenAI-compatible servers (vLLM, llama.cpp
server, LM Studio, Ollama's /v1, llama-cpp-python).

Request and answer shapes: openai/openai-python src/openai/types/completion_create_params.py
(`/v1/completions`: model, prompt, suffix, max_tokens, stop, temperature, stream) and
src/openai/types/chat/completion_create_params.py (`/v1/chat/completions`: messages,
max_tokens / max_completion_tokens); answers src/openai/types/completion.py
(`choices[].text`), src/openai/types/chat/chat_completion.py (`choices[].message.content`) and
chat_completion_chunk.py (a stream's `choices[].delta.content`), streamed as server-sent events
ending with `data: [DONE]`. Continue's OpenAI provider sends these (continuedev/continue
core/llm/llms/OpenAI.ts: `_legacystreamComplete` to completions, `_streamFim` with `suffix`).
"""

from __future__ import annotations

from typing import Any

from replay.proxy.wire import Api, WireRequest, last_user_message, params, text


def _parse(route: str, body: dict[str, Any]) -> WireRequest | None:
    if route.endswith("/chat/completions"):
        limit = "max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"
        return WireRequest("openai", "chat", model=text(body.get("model")), prompt=last_user_message(body.get("messages")),
                           params=params(body, "stop", limit), stream=body.get("stream") is True)
    if "segments" in body:  # the Tabby client's API on the same path (replay.proxy.apis.tabby)
        return None
    if "n_predict" in body and "max_tokens" not in body:  # llama.cpp's `/completions` alias
        return None
    prompt = body.get("prompt")
    if isinstance(prompt, list):  # a batch of prompts: the first is the editor's one
        prompt = prompt[0] if prompt and isinstance(prompt[0], str) else None
    suffix = text(body.get("suffix"))
    return WireRequest("openai", "fim" if suffix is not None else "raw", model=text(body.get("model")),
                       prompt=text(prompt), prefix=text(prompt) if suffix is not None else None, suffix=suffix,
                       params=params(body, "stop", "max_tokens"), stream=body.get("stream") is True)


def _text_of(obj: dict[str, Any]) -> str:
    out = []
    for choice in obj.get("choices") or ():
        if not isinstance(choice, dict) or choice.get("index", 0) != 0:
            continue
        piece = choice.get("text")
        if piece is None:
            piece = (choice.get("delta") or choice.get("message") or {}).get("content")
        if isinstance(piece, str):
            out.append(piece)
    return "".join(out)


API = Api("openai", ("/v1/completions", "/v1/chat/completions", "/completions", "/chat/completions"),
          _parse, _text_of, lambda obj: text(obj.get("id")))
