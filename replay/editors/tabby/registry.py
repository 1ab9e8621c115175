"""Where the Tabby server got a completion model's prompt template, and what it was, by day.

- Up to 0.4.x the template was the `prompt_template` field of `tabby.json` in the model's own
  repository (huggingface.co/TabbyML/<name>, or its ModelScope mirror), downloaded with the
  model and read at start (crates/tabby/src/serve/completions.rs `read_metadata`, then
  crates/tabby/src/serve/engine.rs `EngineInfo`; first release 0.0.1, commit 2779da3cb,
  2023-06-02). No template: the prompt is the prefix.
- From 0.5.0 (commit 0e4a2d2a1, 2023-11-02, crates/tabby-common/src/registry.rs) the server
  fetches `https://raw.githubusercontent.com/TabbyML/registry-tabby/main/models.json` at every
  start (the cached copy when offline) and takes the `prompt_template` of the entry whose name
  equals the model id's name (`parse_model_id`: `Name` or `TabbyML/Name`; `get_model_info`:
  `x.name == name`, an exact, case-sensitive match, a panic when none; a model id that is a
  local path reads that folder's own tabby.json instead: crates/llama-cpp-server/src/lib.rs
  `resolve_prompt_info`). Which template a server used follows main's models.json on the day
  it started, whatever its release; an entry without a template gave a prompt that is the
  prefix (completion_prompt.rs `build_prompt`).
- From 0.22.0 (commit 0314db632, 2024-12-14, crates/tabby-download/src/lib.rs
  `validate_model_kind`) the server refuses, as the completion model, an entry that has no
  `prompt_template` ("is not a completion model").

A registry entry is a fact of that one model name: another model (a GGUF file, a Hugging Face
name, a family name) never takes an entry's template for sharing a word with it; it runs with
its own family's template (replay/editors/templates.py), as the server runs a model given by
path with the template of its own tabby.json.

The table is TabbyML/registry-tabby's main branch as the server read it: `git log
--first-parent main -- models.json`, each row dated by the main commit that brought it (UTC;
a pull request counts from its merge, so commits that lived only on a branch, such as b522d7e's
Qwen2.5-Coder-7B-Instruct with the StarCoder sentinels, fixed by f7a78a1 before the merge
9fe0d5e, never reached a server). The model repositories' tabby.json files are not in any source
read here; the registry's first models.json (commit 3790966) was written for the same
repositories and is taken for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from replay.editors.versions import Release
from replay.errors import UsageError

REGISTRY_SINCE = "0.5.0"  # crates/tabby-common/src/registry.rs, commit 0e4a2d2a1 (2023-11-02)
COMPLETION_CHECK_SINCE = "0.22.0"  # crates/tabby-download/src/lib.rs validate_model_kind, commit 0314db632 (2024-12-14)
FIRST_REGISTRY_DAY = "2023-11-02"  # registry-tabby 3790966, the first models.json

STARCODER = "<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>"
CODELLAMA = "<PRE> {prefix} <SUF>{suffix} <MID>"
DEEPSEEK = "<｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>"
PIPE_FIM = "<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>"
CODESTRAL = "[SUFFIX]{suffix}[PREFIX]{prefix}"


@dataclass(frozen=True)
class RegistryEntry:
    """A model of registry-tabby's main models.json from `since` until `until`, with its
    `prompt_template` (None: a chat or embedding entry, which has none)."""

    model: str
    template: str | None
    since: str  # the UTC day of the main commit that added or changed it
    until: str | None  # the UTC day of the main commit that changed or removed it
    commit: str  # that main commit (a merge names the pull request's commit in a comment)

    def why(self) -> str:
        return f"registry-tabby's TabbyML/{self.model} of {self.since} (commit {self.commit})"


# Completion-model templates of the model repositories (before 0.5.0), as in the registry's first
# models.json; the models the docs of 0.2.x-0.4.x list (website/docs/models/index.md), J-350M
# being marked there as without infilling.
MODEL_REPO_TEMPLATES: dict[str, str | None] = {
    "StarCoder-1B": STARCODER, "StarCoder-3B": STARCODER, "StarCoder-7B": STARCODER,
    "CodeLlama-7B": CODELLAMA, "CodeLlama-13B": CODELLAMA, "J-350M": None,
}

_E = RegistryEntry
REGISTRY: tuple[RegistryEntry, ...] = (
    *(_E(name, STARCODER, "2023-11-02", None, "3790966") for name in ("StarCoder-1B", "StarCoder-3B", "StarCoder-7B")),
    _E("CodeLlama-7B", CODELLAMA, "2023-11-02", None, "3790966"),
    _E("CodeLlama-13B", CODELLAMA, "2023-11-02", None, "3790966"),
    _E("Mistral-7B", None, "2023-11-02", None, "3790966"),
    _E("WizardCoder-3B", None, "2023-11-02", "2024-06-28", "3790966"),  # removed by 02aeddd
    _E("WizardCoder-34B", None, "2023-11-02", "2023-11-04", "3790966"),  # removed by 08dbe7a
    _E("OpenHermes-2.5-Mistral-7B", None, "2023-11-03", "2023-11-05", "ff96bec"),  # removed by 0a29ed1
    # OpenChat-3.5-Mistral-7B was in models.json for six minutes of 2023-11-04 (08dbe7a..07c1f2d)
    _E("DeepseekCoder-1.3B", DEEPSEEK, "2023-11-14", "2025-02-06", "2e387ce"),
    _E("DeepseekCoder-6.7B", DEEPSEEK, "2023-11-14", "2025-02-06", "2e387ce"),
    _E("StarCoder2-3B", STARCODER, "2024-04-08", None, "8893ac8"),
    _E("StarCoder2-7B", STARCODER, "2024-04-08", None, "8893ac8"),
    _E("CodeGemma-2B", PIPE_FIM, "2024-04-17", None, "43000c6"),  # merge of 852cbb2
    _E("CodeGemma-7B", PIPE_FIM, "2024-04-17", None, "43000c6"),
    _E("CodeGemma-7B-Instruct", None, "2024-04-17", None, "43000c6"),
    _E("CodeQwen-7B", STARCODER, "2024-04-17", None, "43000c6"),
    _E("CodeQwen-7B-Chat", None, "2024-04-17", None, "43000c6"),
    _E("Deepseek-V2-Lite-Chat", None, "2024-05-30", "2024-06-28", "403a3c3"),  # merge of 60f9c5c; removed by b5876d3
    _E("Nomic-Embed-Text", None, "2024-05-31", None, "51498a8"),  # an embedding model
    _E("Codestral-22B", CODESTRAL, "2024-05-31", None, "be5e2ed"),  # merge of b2c2815
    _E("Qwen2-1.5B-Instruct", None, "2024-06-24", None, "e725618"),
    _E("DeepSeek-Coder-V2-Lite", DEEPSEEK, "2024-07-15", None, "587754d"),
    _E("Jina-Embeddings-V2-Code", None, "2024-08-12", None, "6d56aee"),  # an embedding model
    _E("Yi-Coder-9B-Chat", None, "2024-09-06", None, "3f15918"),
    # merge 9fe0d5e of cee1907 .. 5282142 (the branch's StarCoder-sentinel state never reached main)
    _E("Qwen2.5-Coder-7B-Instruct", PIPE_FIM, "2024-10-29", "2024-11-08", "9fe0d5e"),
    _E("Qwen2.5-Coder-1.5B-Instruct", PIPE_FIM, "2024-10-29", "2024-11-08", "9fe0d5e"),
    _E("Qwen2.5-Coder-7B", PIPE_FIM, "2024-11-08", "2024-11-12", "750bec7"),  # merge of 683a33a
    _E("Qwen2.5-Coder-1.5B", PIPE_FIM, "2024-11-08", "2024-11-12", "750bec7"),
    _E("Qwen2.5-Coder-7B-Instruct", None, "2024-11-12", None, "c029427"),  # a chat entry from then on
    _E("Qwen2.5-Coder-1.5B-Instruct", None, "2024-11-12", None, "c029427"),
    *(_E(f"Qwen2.5-Coder-{size}-Instruct", None, "2024-11-14", None, "3c3b1f5")  # merge of 9d5f0d0
      for size in ("0.5B", "14B", "32B")),
    *(_E(f"Qwen2.5-Coder-{size}", PIPE_FIM, "2024-11-14", None, "01bdb3b") for size in ("0.5B", "1.5B", "3B", "7B", "14B")),
    _E("DeepSeekCoder-1.3B", DEEPSEEK, "2025-02-06", None, "d57d6c6"),
    _E("DeepSeekCoder-6.7B", DEEPSEEK, "2025-02-06", None, "d57d6c6"),
    *(_E(f"Qwen3-{size}", None, "2025-05-22", None, "7a9d54e")
      for size in ("0.6B", "1.7B", "4B", "8B", "14B", "32B", "30B-A3B", "235B-A22B")),
)


class NoTemplateKnown(UsageError):
    """The model was not in the registry (or the model repositories) on that day, or the
    server of that release would not run its entry as a completion model."""


def registry_name(model: str) -> str | None:
    """The name a model id gives in TabbyML's registry (registry.rs `parse_model_id`: `Name`
    or `TabbyML/Name`); None for another registry's id or a path."""
    parts = model.strip().split("/")
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2 and parts[0] == "TabbyML":
        return parts[1]
    return None


def entry_on(model: str, day: str) -> RegistryEntry | None:
    """The registry entry named exactly by `model` in main's models.json on `day` (ISO, UTC)."""
    name = registry_name(model)
    return next((e for e in REGISTRY if e.model == name and e.since <= day[:10] and (e.until is None or day[:10] < e.until)),
                None)


@dataclass(frozen=True)
class ServedTemplate:
    """The template a server used for a model, and where it came from (for `version_why`)."""

    template: str | None
    why: str


def served_template(model: str, day: str, release: Release | None = None) -> ServedTemplate:
    """The prompt template a Tabby server of `release` started on `day` used for registry model
    `model` ("TabbyML/StarCoder-1B" or "StarCoder-1B"); template None: the prompt is the prefix.
    Before 0.5.0 the model repository's tabby.json; from it the registry entry of that exact
    name that day (from 0.22.0 one with a template). NoTemplateKnown when there is none."""
    name = registry_name(model)
    shown = name if name is not None else model.replace("\\", "/").rsplit("/", 1)[-1]
    if release is not None and release < Release.parse(REGISTRY_SINCE):
        if name in MODEL_REPO_TEMPLATES:
            return ServedTemplate(MODEL_REPO_TEMPLATES[name], f"tabby.json of the model repository TabbyML/{name}")
        raise NoTemplateKnown(f"{shown} is not a TabbyML model repository with a known tabby.json")
    entry = entry_on(model, day)
    if entry is None:
        if day[:10] < FIRST_REGISTRY_DAY and name in MODEL_REPO_TEMPLATES:
            return ServedTemplate(MODEL_REPO_TEMPLATES[name], f"tabby.json of the model repository TabbyML/{name}")
        raise NoTemplateKnown(f"{shown} was not a model of registry-tabby on {day[:10]}")
    if entry.template is None and release is not None and release >= Release.parse(COMPLETION_CHECK_SINCE):
        raise NoTemplateKnown(f"Tabby {release} refuses {entry.why()} as a completion model: it has no prompt_template")
    return ServedTemplate(entry.template, entry.why())

