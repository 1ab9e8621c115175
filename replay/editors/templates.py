"""The FIM template registry: one record per model family, shared by every editor profile.

A family is what decides how prefix and suffix are wrapped for a model: its sentinel strings,
their order (PSM = prefix, suffix, middle; SPM = suffix before prefix), the template string as
TabbyML/registry-tabby `models.json` has it (`{prefix}` / `{suffix}` placeholders, filled by
Tabby with strfmt), the family's own end/stop sentinels, and whether llama.cpp puts a BOS token
in front (`tokenizer.ggml.add_bos_token` of the family's GGUF vocabulary).

Sources (read 2026-11-22):
- TabbyML/registry-tabby models.json and meta/models.yaml: the `prompt_template` of every
  completion model. A family holds the template its models are trained on, whatever the day:
  what one registry entry had on a given day is that exact entry's, never its family's
  (replay/editors/tabby/registry.py).
- TabbyML/tabby crates/http-api-bindings/src/completion/mod.rs: FIM_TEMPLATE
  `{prefix}<|FIM|>{suffix}` for the HTTP kinds mistral/completion, openai/completion,
  openai/legacy_completion, deepseek/completion, split on the first `<|FIM|>`.
- continuedev/continue core/autocomplete/templating/AutocompleteTemplate.ts: the sentinels and
  stop lists of the families Tabby's registry lacks (Granite 4, Seed-Coder, CodeGeeX, Mercury)
  and each family's stop list (`completionOptions.stop`).
- BOS: `tokenizer.ggml.add_bos_token` in the llama.cpp vocab GGUFs (ggml-vocab-*.gguf from the
  llama-cpp-python 0.3.36 sdist) and the Qwen2.5-Coder demo GGUF; None where no source here
  settles it.

Editor-specific renderings (Continue's multi-file Qwen form, Codestral `+++++` snippet prefix,
the CodeGeeX header, the hole-filler chat text) live in continue_/templates.py, not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from replay.errors import UsageError

Order = Literal["PSM", "SPM", "PREFIX_ONLY"]

FIM_TOKEN = "<|FIM|>"  # TabbyML/tabby crates/http-api-bindings/src/completion/mod.rs FIM_TOKEN


class UnknownFamily(UsageError):
    """A family name that the registry does not hold."""


@dataclass(frozen=True)
class Family:
    """One FIM family: how a model of it wants prefix and suffix, and where its output ends.

    `template` uses Tabby's `{prefix}`/`{suffix}` placeholders. `adds_bos` says whether the engine
    (llama.cpp, from the GGUF's add_bos_token) puts `bos` before the rendered text: True, False,
    or None when not settled by a source available here (remote-only families).
    """

    name: str
    template: str | None
    order: Order
    prefix_token: str | None
    suffix_token: str | None
    middle_token: str | None
    stop: tuple[str, ...]
    eos: str | None
    bos: str | None
    adds_bos: bool | None
    source: str
    aliases: tuple[str, ...] = field(default=())

    def render(self, prefix: str, suffix: str) -> str:
        """Fill the template as Tabby's `strfmt!(template, prefix =>, suffix =>)` does.

        Values are substituted once, never re-read as placeholders, so a `{suffix}` inside user
        code stays literal (str.format has the same one-pass semantics as strfmt). No template:
        the prompt is the prefix (TabbyML/tabby completion_prompt.rs `build_prompt`).
        """
        if self.template is None:
            return prefix
        return self.template.format(prefix=prefix, suffix=suffix)

    def sentinels(self) -> tuple[str, ...]:
        return tuple(t for t in (self.prefix_token, self.suffix_token, self.middle_token) if t)


_REGISTRY = "TabbyML/registry-tabby models.json"
_CONTINUE = "continuedev/continue core/autocomplete/templating/AutocompleteTemplate.ts"

_FAMILIES: tuple[Family, ...] = (
    Family(
        name="starcoder",
        template="<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
        order="PSM", prefix_token="<fim_prefix>", suffix_token="<fim_suffix>", middle_token="<fim_middle>",
        stop=("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<|endoftext|>"),
        eos="<|endoftext|>", bos="<|endoftext|>", adds_bos=False,
        source=f"{_REGISTRY} (StarCoder-1B/3B/7B, StarCoder2-3B/7B); stops: {_CONTINUE} starcoder2FimTemplate; "
               "BOS: ggml-vocab-starcoder.gguf (llama_vocab_get_add_bos false)",
        aliases=("starcoder2",),
    ),
    Family(
        name="codeqwen",
        template="<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
        order="PSM", prefix_token="<fim_prefix>", suffix_token="<fim_suffix>", middle_token="<fim_middle>",
        stop=("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<|endoftext|>", "</fim_middle>", "</code>"),
        eos="<|endoftext|>", bos=None, adds_bos=None,
        source=f"{_REGISTRY} (CodeQwen-7B); stops: {_CONTINUE} stableCodeFimTemplate",
    ),
    Family(
        name="codellama",
        template="<PRE> {prefix} <SUF>{suffix} <MID>",
        order="PSM", prefix_token="<PRE>", suffix_token="<SUF>", middle_token="<MID>",
        stop=("<PRE>", "<SUF>", "<MID>", "<EOT>"),
        eos="</s>", bos="<s>", adds_bos=True,
        source=f"{_REGISTRY} (CodeLlama-7B/13B); stops: {_CONTINUE} codeLlamaFimTemplate; BOS: ggml-vocab-llama-spm.gguf",
    ),
    Family(
        name="deepseek-coder",
        template="<｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>",
        order="PSM", prefix_token="<｜fim▁begin｜>", suffix_token="<｜fim▁hole｜>", middle_token="<｜fim▁end｜>",
        stop=("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "//", "<｜end▁of▁sentence｜>"),
        eos="<｜end▁of▁sentence｜>", bos="<｜begin▁of▁sentence｜>", adds_bos=True,
        source=(f"{_REGISTRY} (DeepSeekCoder-1.3B/6.7B, DeepSeek-Coder-V2-Lite); stops: {_CONTINUE} "
                "deepseekFimTemplate; BOS: ggml-vocab-deepseek-coder.gguf"),
        aliases=("deepseek-coder-v2-lite",),
    ),
    Family(
        name="qwen2.5-coder",
        template="<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
        order="PSM", prefix_token="<|fim_prefix|>", suffix_token="<|fim_suffix|>", middle_token="<|fim_middle|>",
        stop=("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
              "<|repo_name|>", "<|file_sep|>", "<|im_start|>", "<|im_end|>"),
        eos="<|endoftext|>", bos=None, adds_bos=False,
        source=(f"{_REGISTRY} (Qwen2.5-Coder-0.5B..14B); stops: {_CONTINUE} qwenCoderFimTemplate; "
                "BOS: qwen2.5-coder-0.5b-instruct-q4_k_m.gguf add_bos_token=false"),
        aliases=("qwen2.5", "qwen-coder"),
    ),
    Family(
        name="codegemma",
        template="<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
        order="PSM", prefix_token="<|fim_prefix|>", suffix_token="<|fim_suffix|>", middle_token="<|fim_middle|>",
        stop=("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_separator|>", "<end_of_turn>", "<eos>"),
        eos="<eos>", bos="<bos>", adds_bos=True,
        source=f"{_REGISTRY} (CodeGemma-2B/7B); stops: {_CONTINUE} codegemmaFimTemplate; BOS: ggml-vocab-gemma-4.gguf add_bos_token (Gemma family)",
    ),
    Family(
        name="codestral",
        template="[SUFFIX]{suffix}[PREFIX]{prefix}",
        order="SPM", prefix_token="[PREFIX]", suffix_token="[SUFFIX]", middle_token=None,
        stop=("[PREFIX]", "[SUFFIX]"),
        eos="</s>", bos="<s>", adds_bos=True,
        source=f"{_REGISTRY} (Codestral-22B); stops: {_CONTINUE} codestralFimTemplate; BOS: mistral-common encode_fim",
    ),
    Family(
        name="granite-4",
        template="<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
        order="PSM", prefix_token="<|fim_prefix|>", suffix_token="<|fim_suffix|>", middle_token="<|fim_middle|>",
        stop=("<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>"),
        eos="<|end_of_text|>", bos=None, adds_bos=None,
        source=f"{_CONTINUE} granite4FimTemplate (not in Tabby's registry)",
        aliases=("granite4",),
    ),
    Family(
        name="seed-coder",
        template="<[fim-prefix]>{prefix}<[fim-suffix]>{suffix}<[fim-middle]>",
        order="PSM", prefix_token="<[fim-prefix]>", suffix_token="<[fim-suffix]>", middle_token="<[fim-middle]>",
        stop=("<[end▁of▁sentence]>", "<[fim-prefix]>", "<[fim-middle]>", "<[fim-suffix]>", "<[PAD▁TOKEN]>",
              "<[SEP▁TOKEN]>", "<[begin▁of▁sentence]>"),
        eos="<[end▁of▁sentence]>", bos="<[begin▁of▁sentence]>", adds_bos=None,
        source=f"{_CONTINUE} seedCoderFimTemplate (not in Tabby's registry)",
    ),
    Family(
        name="codegeex",
        template="<|code_suffix|>{suffix}<|code_prefix|>{prefix}<|code_middle|>",
        order="SPM", prefix_token="<|code_prefix|>", suffix_token="<|code_suffix|>", middle_token="<|code_middle|>",
        stop=("<|user|>", "<|code_suffix|>", "<|code_prefix|>", "<|code_middle|>", "<|assistant|>", "<|endoftext|>"),
        eos="<|endoftext|>", bos=None, adds_bos=None,
        source=f"{_CONTINUE} codegeexFimTemplate (the core; its ###PATH header is Continue's, in continue_/templates.py)",
    ),
    Family(
        name="mercury",
        template="{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
        order="PSM", prefix_token=None, suffix_token="<|fim_suffix|>", middle_token="<|fim_middle|>",
        stop=(),
        eos=None, bos=None, adds_bos=None,
        source=f"{_CONTINUE} mercuryMultifileFimTemplate (remote API model; no stop list there)",
    ),
    Family(
        name="tabby-http",
        template="{prefix}" + FIM_TOKEN + "{suffix}",
        order="PSM", prefix_token=None, suffix_token=FIM_TOKEN, middle_token=None,
        stop=(),
        eos=None, bos=None, adds_bos=None,
        source=("TabbyML/tabby crates/http-api-bindings/src/completion/mod.rs FIM_TEMPLATE (kinds mistral/completion, "
                "openai/completion, openai/legacy_completion, deepseek/completion)"),
    ),
    Family(
        name="none",
        template=None,
        order="PREFIX_ONLY", prefix_token=None, suffix_token=None, middle_token=None,
        stop=(), eos=None, bos=None, adds_bos=None,
        source="TabbyML/tabby crates/tabby/src/services/completion/completion_prompt.rs build_prompt: no template -> prefix",
    ),
)

_BY_NAME: dict[str, Family] = {}
for _family in _FAMILIES:
    for _key in (_family.name, *_family.aliases):
        _BY_NAME[_key] = _family

# Tabby HTTP model kinds that use FIM_TEMPLATE (crates/http-api-bindings/src/completion/mod.rs
# OPENAI_LEGACY_COMPLETION_FIM_ALIASES + "mistral/completion").
TABBY_HTTP_FIM_KINDS = ("mistral/completion", "openai/legacy_completion", "openai/completion", "deepseek/completion")

# Model name -> family. Exact Tabby registry ids first (TabbyML/registry-tabby models.json, with
# the "TabbyML/" prefix that Tabby's --model takes), then name patterns for GGUF general.name
# and HF names, tried in order on the lower-cased name with separators normalised.
REGISTRY_MODELS: dict[str, str] = {
    "StarCoder-1B": "starcoder", "StarCoder-3B": "starcoder", "StarCoder-7B": "starcoder",
    "StarCoder2-3B": "starcoder", "StarCoder2-7B": "starcoder",
    "CodeLlama-7B": "codellama", "CodeLlama-13B": "codellama",
    "DeepSeekCoder-1.3B": "deepseek-coder", "DeepSeekCoder-6.7B": "deepseek-coder",
    "DeepseekCoder-1.3B": "deepseek-coder", "DeepseekCoder-6.7B": "deepseek-coder",  # names before registry d57d6c6 (2025-02-06)
    "DeepSeek-Coder-V2-Lite": "deepseek-coder",
    "CodeGemma-2B": "codegemma", "CodeGemma-7B": "codegemma",
    "CodeQwen-7B": "codeqwen",
    "Qwen2.5-Coder-0.5B": "qwen2.5-coder", "Qwen2.5-Coder-1.5B": "qwen2.5-coder", "Qwen2.5-Coder-3B": "qwen2.5-coder",
    "Qwen2.5-Coder-7B": "qwen2.5-coder", "Qwen2.5-Coder-14B": "qwen2.5-coder",
    "Qwen2.5-Coder-7B-Instruct": "qwen2.5-coder",  # a completion entry 2024-10-29..2024-11-08 (registry-tabby merges 9fe0d5e, 750bec7)
    "Codestral-22B": "codestral",
}

_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"mercury", "mercury"),
    (r"codeqwen", "codeqwen"),
    (r"qwen.*coder", "qwen2.5-coder"),
    (r"granite.*4", "granite-4"),
    (r"seed.*coder", "seed-coder"),
    (r"codestral", "codestral"),
    (r"codegemma", "codegemma"),
    (r"code.?llama", "codellama"),
    (r"deepseek.*coder", "deepseek-coder"),
    (r"codegeex", "codegeex"),
    (r"star.?coder", "starcoder"),
)


def get_family(name: str) -> Family:
    """The family record by its name (or alias); raises UnknownFamily naming the known ones."""
    try:
        return _BY_NAME[name.lower()]
    except KeyError:
        raise UnknownFamily(f"unknown FIM family {name!r} (known: {', '.join(f.name for f in _FAMILIES)})") from None


def families() -> tuple[Family, ...]:
    return _FAMILIES


def model_family(model: str) -> Family | None:
    """The family `model` names: a family name or alias first (`qwen2.5-coder`), else the model's
    own name as family_for_model reads it; None when neither knows it."""
    try:
        return get_family(model)
    except UnknownFamily:
        return family_for_model(model)


def family_for_model(model_name: str) -> Family | None:
    """The family of a model named by Tabby registry id, GGUF general.name, HF name or path.

    `TabbyML/Qwen2.5-Coder-1.5B` and `Qwen2.5-Coder-1.5B` are registry ids; a Tabby HTTP kind
    (`openai/completion`) gives the `<|FIM|>` family; anything else is matched by pattern on the
    last path part, lower-cased (so `Qwen/Qwen2.5-Coder-1.5B`, `qwen2.5-coder-0.5b-instruct-
    q4_k_m.gguf` and the GGUF name `Qwen2.5 Coder 0.5B Instruct AWQ` all give qwen2.5-coder).
    """
    name = model_name.strip()
    if name.lower() in TABBY_HTTP_FIM_KINDS:
        return get_family("tabby-http")
    bare = name.removeprefix("TabbyML/")
    if bare in REGISTRY_MODELS:
        return get_family(REGISTRY_MODELS[bare])
    tail = re.split(r"[\\/]", name)[-1].lower()
    for pattern, family in _PATTERNS:
        if re.search(pattern, tail):
            return get_family(family)
    return None
