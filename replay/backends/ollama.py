"""Ollama's native `/api/generate`.

Raw route: `raw: true`, so Ollama applies no template and the model sees the rendered prompt.
FIM route: `prompt` = prefix and `suffix` = suffix without `raw`, so the model's own template
(its `.Suffix` block) builds the FIM prompt, which is what Continue does for Ollama models whose
template has `.Suffix` (continuedev/continue core/llm/llms/Ollama.ts `supportsFim`, `_streamFim`).
Options: temperature 0, seed 0, repeat_penalty 1.0 (Ollama defaults to 1.1), `num_predict` = max new tokens, `num_ctx` = the run's context
(Tabby sets num_ctx from its limits too: TabbyML/tabby crates/ollama-api-bindings/src/completion.rs). Ollama takes no
token ids. Response: `response`, `done_reason`, `eval_count` (ollama/ollama docs/api.md).
"""

from __future__ import annotations

import time
from typing import Any

from replay.backends.base import GenParams
from replay.backends.http import HttpBackend, field, first_token_after, prompt_count, token_count
from replay.records import Completion, RenderedPrompt


class OllamaBackend(HttpBackend):
    name = "ollama"
    api_key_env = "OLLAMA_API_KEY"

    def body(self, prompt: RenderedPrompt, params: GenParams) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "stream": False,
                                "options": {"temperature": params.temperature, "seed": 0,
                                            "num_predict": params.new_tokens(prompt), "num_ctx": params.ctx,
                                            "repeat_penalty": 1.0}}
        if prompt.route == "fim":
            body.update(prompt=prompt.prefix_sent, suffix=prompt.suffix_sent)
        else:
            body.update(prompt=prompt.text, raw=True)
        return body

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        started = time.perf_counter()
        data = self.post("/api/generate", self.body(prompt, params))
        return self.finish(prompt, str(field(data, "response")), token_count(data, "eval_count"),
                           str(data.get("done_reason") or ""), started, prompt_tokens=prompt_count(data),
                           ttft_s=first_token_after(data, started))
