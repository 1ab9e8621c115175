"""The Continue hole-filler for chat models: one user message through `/v1/chat/completions`
(OpenAI and compatibles) or Anthropic's `/v1/messages`.

The message is the rendered prompt text (route "chat"; continuedev/continue
core/autocomplete/templating/AutocompleteTemplate.ts holeFillerTemplate), or the messages of
the editor's own request when the profile kept them. The `</COMPLETION>` stop is applied
afterwards like every editor stop (raw output kept). Keys from the environment only:
$OPENAI_API_KEY as Bearer, $ANTHROPIC_API_KEY as `x-api-key` with `anthropic-version:
2023-06-01` (docs.anthropic.com Messages API).
"""

from __future__ import annotations

import time
from typing import Any

from replay.backends.base import GenParams
from replay.backends.http import HttpBackend, field, prompt_count, token_count
from replay.records import Completion, RenderedPrompt

ANTHROPIC_VERSION = "2023-06-01"


def messages(prompt: RenderedPrompt) -> list[dict[str, Any]]:
    if prompt.request and isinstance(prompt.request.get("messages"), list):
        return list(prompt.request["messages"])
    return [{"role": "user", "content": prompt.text}]


class ChatBackend(HttpBackend):
    """OpenAI-style chat completions."""

    name = "chat"
    api_key_env = "OPENAI_API_KEY"

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        started = time.perf_counter()
        data = self.post("/v1/chat/completions", {"model": self.model, "messages": messages(prompt),
                                                  "max_tokens": params.new_tokens(prompt), "temperature": params.temperature})
        text = field(data, "choices", 0, "message", "content")
        choice = data["choices"][0]
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        return self.finish(prompt, str(text or ""), token_count(data, "usage", "completion_tokens"), str(finish or ""), started,
                           prompt_tokens=prompt_count(data))


class AnthropicBackend(HttpBackend):
    """Anthropic messages (the same hole-filler prompt)."""

    name = "anthropic"
    api_key_env = "ANTHROPIC_API_KEY"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-api-key": key}

    def headers(self) -> dict[str, str]:
        return {**super().headers(), "anthropic-version": ANTHROPIC_VERSION}

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        started = time.perf_counter()
        data = self.post("/v1/messages", {"model": self.model, "messages": messages(prompt),
                                          "max_tokens": params.new_tokens(prompt), "temperature": params.temperature})
        blocks = field(data, "content")
        blocks = blocks if isinstance(blocks, list) else []
        text = "".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        return self.finish(prompt, text, token_count(data, "usage", "output_tokens"), str(data.get("stop_reason") or ""), started,
                           prompt_tokens=prompt_count(data))
