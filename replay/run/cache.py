"""The completion cache: the same request to the same weights is generated once.

Key = sha256 over (engine, model identity, prompt, parameters). The model identity is the
weights' sha256 for a local file (a renamed copy still hits; a re-quantised file with the same
name does not) and name@revision for a server-side model. The prompt is the token ids when the
engine receives ids (what the model really sees), else the exact text sent, with the route and,
for the FIM route, the separate prefix and suffix. Everything in the key is what changes the
engine's output; nothing else (run id, time, item id) is, so two runs share their results. An
engine that keeps another's keys names it (`cache_engine`): llama-cpp-python's backend keeps
the keys it had as the `llamacpp` engine.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from replay.backends.base import Backend, GenParams
from replay.records import Completion, RenderedPrompt
from replay.store import Store


def prompt_part(prompt: RenderedPrompt, sends_ids: bool) -> dict[str, Any]:
    """What of the prompt reaches the engine: ids, or text (+ prefix/suffix on the FIM route)."""
    if sends_ids and prompt.token_ids:
        return {"ids": list(prompt.token_ids)}
    part: dict[str, Any] = {"route": prompt.route, "text": prompt.text}
    if prompt.route == "fim":
        part.update(prefix=prompt.prefix_sent, suffix=prompt.suffix_sent)
    if prompt.request is not None:
        part["request"] = prompt.request
    return part


def cache_key(backend: Backend, prompt: RenderedPrompt, params: GenParams, extra: dict[str, Any] | None = None,
              early_stop: dict[str, Any] | None = None) -> str:
    """The cache key of one request. `extra` holds backend settings that change the output;
    `early_stop` what decided where a stream was stopped early (its text is a prefix of the
    whole generation, so it is only the same answer under the same stops)."""
    body: dict[str, Any] = {
        "engine": getattr(backend, "cache_engine", backend.name),
        "model": backend.model_id,
        "prompt": prompt_part(prompt, getattr(backend, "sends_ids", False)),
        "params": {"ctx": params.ctx, "max_new_tokens": params.new_tokens(prompt), "temperature": params.temperature},
        "extra": extra if extra is not None else backend_cache_extra(backend),
    }
    if early_stop is not None:
        body["early_stop"] = early_stop
    return hashlib.sha256(msgspec.json.encode(body, order="sorted")).hexdigest()


def backend_cache_extra(backend: Backend) -> dict[str, Any]:
    extra = getattr(backend, "cache_extra", None)
    return extra() if callable(extra) else {}


def remember(store: Store, key: str, completion: Completion) -> None:
    """Keep a good completion (never an error, nor an answer cut at the response cap: those are
    asked again next time)."""
    if completion.error is None and not completion.truncated:
        store.cache_put(key, completion)
