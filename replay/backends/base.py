"""The one interface every engine implements, and what they share: parameters, errors, stops.

A backend turns one RenderedPrompt into one Completion. Engines that can do several prompts at
once (transformers' batched generate) also implement `complete_batch`; the runner uses it when
present. `max_concurrency` tells the runner how many calls may be in flight at once: 1 for an
in-process engine that is not thread-safe (a llama.cpp context), more for HTTP servers.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

from replay.editors.stage import apply_stop
from replay.errors import WorkError
from replay.records import Completion, RenderedPrompt


class GenParams(msgspec.Struct, frozen=True, omit_defaults=True):
    """Generation settings of a run. Greedy always: replay must be repeatable.

    `max_new_tokens` None means: the prompt's own (the editor profile's limit, e.g. Tabby's 64).
    `cap_new_tokens` bounds that whatever it is: Continue's own limit is its maxTokens (4096 by
    default), which a local 1024-token context turns into "until the context is full".
    """

    ctx: int = 1024
    max_new_tokens: int | None = None
    temperature: float = 0.0
    cap_new_tokens: int | None = None

    def new_tokens(self, prompt: RenderedPrompt) -> int:
        n = self.max_new_tokens if self.max_new_tokens is not None else prompt.max_new_tokens
        return min(n, self.cap_new_tokens) if self.cap_new_tokens is not None else n


class BackendError(WorkError):
    """One prompt failed. `retryable` errors (5xx, 429, connection, timeout) are retried with
    backoff before they become the item's error; the run goes on either way. `truncated`: the
    answer was cut at the response cap (the completion records it)."""

    truncated = False

    def __init__(self, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class Backend:
    """One engine and one model. Subclasses set `name` and implement `complete`."""

    name: str = ""
    max_concurrency: int = 1

    def __init__(self, model: str, model_id: str) -> None:
        self.model = model  # what the user named (shown in results)
        self.model_id = model_id  # what identifies the weights in the cache key (sha256 or name@revision)

    def complete(self, prompt: RenderedPrompt, params: GenParams) -> Completion:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """The backend part of a run's config. Never holds a secret."""
        return {"backend": self.name, "model": self.model, "model_id": self.model_id}

    def close(self) -> None:
        """Free the engine (model memory, HTTP connections)."""

    def finish(self, prompt: RenderedPrompt, raw_text: str, n_tokens: int, finish_reason: str, started: float,
               stop_applied: bool = True, prompt_tokens: int = 0, ttft_s: float = 0.0) -> Completion:
        """Build the Completion: the raw engine output and the editor-processed text beside it,
        with the time it took. `prompt_tokens` is the engine's count of the prompt (else the
        prompt's own ids, when it was rendered to ids); `ttft_s` the seconds to the first token
        where the engine measured them (0: the completion's `first_token_s` falls back)."""
        text = apply_stop(raw_text, prompt.stop) if stop_applied else raw_text
        return Completion(item_id=prompt.item_id or "", text=text, raw_text=raw_text, backend=self.name,
                          model=self.model, n_tokens=n_tokens, finish_reason=finish_reason,
                          latency_s=time.perf_counter() - started, prompt_tokens=prompt_tokens or len(prompt.token_ids),
                          ttft_s=round(ttft_s, 6))


# Why a streaming backend stopped before the engine did: the editor stopped reading at a stop
# word (its server or LLM call stops there), or cancelled the stream (replay.run.runner.editor_stops).
STOP_WORD = "stop_word"
EDITOR_CANCEL = "editor_cancel"
EARLY_STOPS = frozenset({STOP_WORD, EDITOR_CANCEL})

