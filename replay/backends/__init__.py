"""One module per engine behind one small interface (base.Backend); cache.py keys completions.

`open_backend` builds a backend by its CLI name. Engines are imported only when chosen, so the
HTTP backends work without llama-cpp-python or torch installed.
"""

from __future__ import annotations

from typing import Any

from replay.backends.base import Backend, BackendError, GenParams
from replay.backends.models import ModelRef

BACKENDS = ("llamacpp", "hf", "openai", "ollama", "tabby", "chat", "anthropic")
HTTP_BACKENDS = ("openai", "ollama", "tabby", "chat", "anthropic")


def open_backend(kind: str, ref: ModelRef, ctx: int = 1024, endpoints: list[str] | None = None,
                 **options: Any) -> Backend:
    """The backend `kind` for the model `ref`. HTTP backends need `endpoints`; `options` are the
    backend's own (timeout, retries, api_key_env, send_ids, extra_body, n_threads, device)."""
    if kind == "llamacpp":
        from replay.backends.llamacpp import LlamaCppBackend

        return LlamaCppBackend(ref, ctx=ctx, n_threads=options.get("n_threads"))
    if kind == "hf":
        from replay.backends.hf import HFBackend

        return HFBackend(ref, device=options.get("device") or "cpu")
    if kind not in HTTP_BACKENDS:
        raise BackendError(f"unknown backend {kind!r} (known: {', '.join(BACKENDS)})")
    http = {k: options[k] for k in ("timeout", "retries", "backoff", "api_key_env") if options.get(k) is not None}
    if kind == "openai":
        from replay.backends.openai_compat import OpenAICompatBackend

        return OpenAICompatBackend(ref.name, ref.model_id, endpoints or [], send_ids=bool(options.get("send_ids")),
                                   extra_body=options.get("extra_body"), **http)
    if kind == "ollama":
        from replay.backends.ollama import OllamaBackend

        return OllamaBackend(ref.name, ref.model_id, endpoints or [], **http)
    if kind == "tabby":
        from replay.backends.tabby_server import TabbyServerBackend

        return TabbyServerBackend(ref.name, ref.model_id, endpoints or [], **http)
    from replay.backends.chat import AnthropicBackend, ChatBackend

    cls = ChatBackend if kind == "chat" else AnthropicBackend
    return cls(ref.name, ref.model_id, endpoints or [], **http)


__all__ = ["BACKENDS", "Backend", "BackendError", "GenParams", "ModelRef", "open_backend"]
