"""Where the Tabby server got a completion model's prompt template, and what it was, by day.

- Up to 0.4.x the template was the `prompt_template` field of `tabby.json` in the model's own
  repository (huggingface.co/TabbyML/<name>, or its ModelScope mirror), downloaded with the
  model and read at start (crates/tabby/src/serve/completions.rs `read_metadata`, then
  crates/tabby/src/serve/engine.rs `EngineInfo`; first release 0.0.1, commit 2779da3cb,
  2023-06-02). No template: the prompt is the prefix.
- From 0.5.0 (commit 0e4a2d2a1, 2023-11-02, crates/tabby-common/src/registry.rs) the server
  fetches TabbyML/registry-tabby `models.json` from its main branch at every start (the cached
  copy when offline) and takes the model's `prompt_template` from it: which template a server
  used follows the registry on the day it started, whatever its release.

The model repositories' tabby.json files are not in any source read here; the registry's first
models.json (commit 3790966, 2023-11-01) was written for the same repositories and is taken for
them. TabbyML/registry-tabby's history (`git log -- models.json`) gives the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from replay.editors.versions import Release
from replay.errors import UsageError

REGISTRY_SINCE = "0.5.0"  # crates/tabby-common/src/registry.rs, commit 0e4a2d2a1 (2023-11-02)

STARCODER = "<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>"
CODELLAMA = "<PRE> {prefix} <SUF>{suffix} <MID>"
DEEPSEEK = "<｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>"
PIPE_FIM = "<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>"
CODESTRAL = "[SUFFIX]{suffix}[PREFIX]{prefix}"


@dataclass(frozen=True)
class RegistryEntry:
    """A completion model's template in registry-tabby models.json from `since` until `until`."""

    model: str
    template: str | None
    since: str  # the registry commit's day that added or changed it
    until: str | None  # the day a later commit changed or removed it
    commit: str


# Completion-model templates of the model repositories (before 0.5.0), as in the registry's first
# models.json; the models the docs of 0.2.x-0.4.x list (website/docs/models/index.md), J-350M
# being marked there as without infilling.
MODEL_REPO_TEMPLATES: dict[str, str | None] = {
    "StarCoder-1B": STARCODER, "StarCoder-3B": STARCODER, "StarCoder-7B": STARCODER,
    "CodeLlama-7B": CODELLAMA, "CodeLlama-13B": CODELLAMA, "J-350M": None,
}

_E = RegistryEntry
REGISTRY: tuple[RegistryEntry, ...] = (
    _E("StarCoder-1B", STARCODER, "2023-11-01", None, "3790966"),
    _E("StarCoder-3B", STARCODER, "2023-11-01", None, "3790966"),
    _E("StarCoder-7B", STARCODER, "2023-11-01", None, "3790966"),
    _E("CodeLlama-7B", CODELLAMA, "2023-11-01", None, "3790966"),
    _E("CodeLlama-13B", CODELLAMA, "2023-11-01", None, "3790966"),
    _E("DeepseekCoder-1.3B", DEEPSEEK, "2023-11-14", "2025-02-06", "2e387ce"),
    _E("DeepseekCoder-6.7B", DEEPSEEK, "2023-11-14", "2025-02-06", "2e387ce"),
    _E("StarCoder2-3B", STARCODER, "2024-04-08", None, "8893ac8"),
    _E("StarCoder2-7B", STARCODER, "2024-04-08", None, "8893ac8"),
    _E("CodeGemma-2B", PIPE_FIM, "2024-04-17", None, "852cbb2"),
    _E("CodeGemma-7B", PIPE_FIM, "2024-04-17", None, "852cbb2"),
    _E("CodeQwen-7B", STARCODER, "2024-04-17", None, "852cbb2"),
    _E("Codestral-22B", CODESTRAL, "2024-05-31", None, "b2c2815"),
    _E("DeepSeek-Coder-V2-Lite", DEEPSEEK, "2024-07-15", None, "587754d"),
    _E("Qwen2.5-Coder-7B-Instruct-GGUF", PIPE_FIM, "2024-09-29", "2024-10-26", "cee1907"),
    # b522d7e brought this entry with the StarCoder sentinels; f7a78a1 fixed them three days on.
    _E("Qwen2.5-Coder-7B-Instruct", STARCODER, "2024-10-26", "2024-10-29", "b522d7e"),
    _E("Qwen2.5-Coder-7B-Instruct", PIPE_FIM, "2024-10-29", "2024-11-08", "f7a78a1"),
    _E("Qwen2.5-Coder-1.5B-Instruct", PIPE_FIM, "2024-10-29", "2024-11-08", "5282142"),
    _E("Qwen2.5-Coder-7B", PIPE_FIM, "2024-11-08", "2024-11-12", "683a33a"),
    _E("Qwen2.5-Coder-1.5B", PIPE_FIM, "2024-11-08", "2024-11-12", "683a33a"),
    _E("Qwen2.5-Coder-7B-Instruct", None, "2024-11-12", None, "c029427"),  # a chat entry from then on
    _E("Qwen2.5-Coder-1.5B-Instruct", None, "2024-11-12", None, "c029427"),
    *(_E(f"Qwen2.5-Coder-{size}", PIPE_FIM, "2024-11-14", None, "01bdb3b") for size in ("0.5B", "1.5B", "3B", "7B", "14B")),
    _E("DeepSeekCoder-1.3B", DEEPSEEK, "2025-02-06", None, "d57d6c6"),
    _E("DeepSeekCoder-6.7B", DEEPSEEK, "2025-02-06", None, "d57d6c6"),
)


class NoTemplateKnown(UsageError):
    """The model was not in the registry (or the model repositories) on that day."""


def template_for(model: str, day: str, release: Release | None = None) -> str | None:
    """The prompt template a Tabby server of `release` started on `day` used for registry model
    `model` ("TabbyML/StarCoder-1B" or "StarCoder-1B"); None: no template (prompt = prefix).
    Before 0.5.0 the model repository's tabby.json; from it the registry of that day."""
    name = model.strip().removeprefix("TabbyML/")
    if release is not None and release < Release.parse(REGISTRY_SINCE):
        if name in MODEL_REPO_TEMPLATES:
            return MODEL_REPO_TEMPLATES[name]
        raise NoTemplateKnown(f"no tabby.json known for model repository TabbyML/{name}")
    for entry in REGISTRY:
        if entry.model == name and entry.since <= day[:10] and (entry.until is None or day[:10] < entry.until):
            return entry.template
    if day[:10] < "2023-11-01" and name in MODEL_REPO_TEMPLATES:
        return MODEL_REPO_TEMPLATES[name]
    raise NoTemplateKnown(f"TabbyML/{name} was not a completion model of registry-tabby on {day[:10]}")
