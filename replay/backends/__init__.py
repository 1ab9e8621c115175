"""One module per engine behind one small interface (base.Backend); cache.py keys completions.

Every backend is registered once in REGISTRY, and every name list (the CLI's `--backend`
choices, the TUI's backend menu, which backends need `--endpoint`) is derived from it. Engines
are imported only when chosen, so the HTTP backends work without xllamacpp and nothing needs torch but `hf`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from replay.backends.base import Backend, BackendError, GenParams
from replay.backends.models import ModelRef
from replay.errors import UsageError

Opener = Callable[[ModelRef, int, list[str], dict[str, Any]], Backend]


@dataclass(frozen=True)
class BackendKind:
    """A backend as the user names it: `http` ones talk to a server at `--endpoint`, the
    others load the model in this process."""

    name: str
    description: str
    http: bool
    open: Opener  # (model, context length, endpoints, options) -> Backend


def _needs(*modules: str, extra: str) -> None:
    """A usage error naming the extra to install when an engine's library is missing."""
    from importlib.util import find_spec

    missing = [m for m in modules if find_spec(m) is None]
    if missing:
        raise UsageError(f"this backend needs {', '.join(missing)}: install the `{extra}` extra (pip install -e '.[{extra}]')")


def _http_options(options: dict[str, Any]) -> dict[str, Any]:
    return {k: options[k] for k in ("timeout", "retries", "backoff", "api_key_env", "max_response_bytes") if options.get(k) is not None}


def _llamacpp(ref: ModelRef, ctx: int, endpoints: list[str], options: dict[str, Any]) -> Backend:
    from replay.backends.llamacpp import LlamaCppBackend

    return LlamaCppBackend(ref, ctx=ctx, n_threads=options.get("n_threads"), slots=options.get("slots") or 1)


def _llama_cpp_python(ref: ModelRef, ctx: int, endpoints: list[str], options: dict[str, Any]) -> Backend:
    from replay.backends.llama_cpp_python import LlamaCppPythonBackend

    _needs("llama_cpp", extra="llama-cpp-python")

    return LlamaCppPythonBackend(ref, ctx=ctx, n_threads=options.get("n_threads"))


def _hf(ref: ModelRef, ctx: int, endpoints: list[str], options: dict[str, Any]) -> Backend:
    from replay.backends.hf import HFBackend

    _needs("torch", "transformers", extra="hf")

    return HFBackend(ref, device=options.get("device") or "cpu")


def _openai(ref: ModelRef, ctx: int, endpoints: list[str], options: dict[str, Any]) -> Backend:
    from replay.backends.openai_compat import OpenAICompatBackend

    return OpenAICompatBackend(ref.name, ref.model_id, endpoints, send_ids=bool(options.get("send_ids")),
                               extra_body=options.get("extra_body"), **_http_options(options))


def _ollama(ref: ModelRef, ctx: int, endpoints: list[str], options: dict[str, Any]) -> Backend:
    from replay.backends.ollama import OllamaBackend

    return OllamaBackend(ref.name, ref.model_id, endpoints, **_http_options(options))


def _tabby(ref: ModelRef, ctx: int, endpoints: list[str], options: dict[str, Any]) -> Backend:
    from replay.backends.tabby_server import TabbyServerBackend

    return TabbyServerBackend(ref.name, ref.model_id, endpoints, **_http_options(options))


def _chat(ref: ModelRef, ctx: int, endpoints: list[str], options: dict[str, Any]) -> Backend:
    from replay.backends.chat import ChatBackend

    return ChatBackend(ref.name, ref.model_id, endpoints, **_http_options(options))


def _anthropic(ref: ModelRef, ctx: int, endpoints: list[str], options: dict[str, Any]) -> Backend:
    from replay.backends.chat import AnthropicBackend

    return AnthropicBackend(ref.name, ref.model_id, endpoints, **_http_options(options))


REGISTRY: dict[str, BackendKind] = {k.name: k for k in (
    BackendKind("llamacpp", "llama.cpp in this process (a GGUF file; llama.cpp's server from the xllamacpp wheel)", False, _llamacpp),
    BackendKind("llama-cpp-python", "llama.cpp in this process through llama-cpp-python (the optional extra)", False,
                _llama_cpp_python),
    BackendKind("hf", "transformers in this process (an HF folder or name)", False, _hf),
    BackendKind("openai", "an OpenAI-compatible /v1/completions server (vLLM, llama-server, TGI)", True, _openai),
    BackendKind("ollama", "an Ollama server's /api/generate", True, _ollama),
    BackendKind("tabby", "a Tabby server's /v1/completions", True, _tabby),
    BackendKind("chat", "/v1/chat/completions (OpenAI and compatibles), the prompt as one user message", True, _chat),
    BackendKind("anthropic", "Anthropic's /v1/messages, the prompt as one user message", True, _anthropic),
)}
BACKENDS = tuple(REGISTRY)
HTTP_BACKENDS = tuple(name for name, kind in REGISTRY.items() if kind.http)


def backend_kind(name: str) -> BackendKind:
    try:
        return REGISTRY[name]
    except KeyError:
        raise UsageError(f"unknown backend {name!r} (known: {', '.join(BACKENDS)})") from None


def open_backend(kind: str, ref: ModelRef, ctx: int = 1024, endpoints: list[str] | None = None,
                 **options: Any) -> Backend:
    """The backend `kind` for the model `ref`. HTTP backends need `endpoints`; `options` are the
    backend's own (timeout, retries, api_key_env, send_ids, extra_body, n_threads, slots, device)."""
    found = backend_kind(kind)
    if found.http and not endpoints:
        raise UsageError(f"--backend {kind} needs --endpoint URL")
    return found.open(ref, ctx, list(endpoints or []), options)


__all__ = ["BACKENDS", "HTTP_BACKENDS", "REGISTRY", "Backend", "BackendError", "BackendKind", "GenParams", "ModelRef",
           "backend_kind", "open_backend"]
