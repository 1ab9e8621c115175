"""Which route a Continue autocomplete request takes: a provider whose llm.supportsFim() is true
gets prefix and suffix separately (continuedev/continue core/llm/llms/*.ts supportsFim); the
completion budget when the model entry sets none."""

from __future__ import annotations

from typing import Any

DEFAULT_MAX_TOKENS = 4096  # core/llm/constants.ts
FIM_PROVIDERS = frozenset({"deepseek", "inception", "llamastack", "mistral", "moonshot", "siliconflow"})


def supports_fim(provider: str | None, model: str, opts: dict[str, Any]) -> bool:
    """llm.supportsFim(): true for the providers above; Vertex AI for code-gecko/codestral
    models; Ollama when the model's template has `.Suffix` (asked from /api/show at run time:
    give `supportsFim` in the options); false for every other provider (BaseLLM)."""
    if "supportsFim" in opts:
        return bool(opts["supportsFim"])
    if provider in FIM_PROVIDERS:
        return True
    if provider == "vertexai":
        return "code-gecko" in model or "codestral" in model
    return False
