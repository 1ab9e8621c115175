"""Mistral's fill-in-the-middle API (Codestral).

Request and answer shapes: mistralai/client-python src/mistralai/models/fimcompletionrequest.py
(model, prompt, suffix, max_tokens, stop, temperature, stream) and fimcompletionresponse.py
(`choices[].message.content`; a stream's events carry `choices[].delta.content`, as
completionevent.py / completionchunk.py, ending with `data: [DONE]`). Continue's Mistral
provider posts it for Codestral (continuedev/continue core/llm/llms/Mistral.ts `_streamFim`).
"""

from __future__ import annotations

from typing import Any

from replay.proxy.apis.openai import API as OPENAI
from replay.proxy.wire import Api, WireRequest, params, text


def _parse(route: str, body: dict[str, Any]) -> WireRequest | None:
    prompt = text(body.get("prompt"))
    return WireRequest("mistral", "fim", model=text(body.get("model")), prompt=prompt, prefix=prompt,
                       suffix=text(body.get("suffix")), params=params(body, "stop", "max_tokens"),
                       stream=body.get("stream") is True)


# The answers are OpenAI chat completions (message / delta content): the same reading.
API = Api("mistral", ("/v1/fim/completions", "/fim/completions"), _parse, OPENAI.text_of, OPENAI.id_of)
