"""The exact ids an inference engine receives for a rendered prompt (raw-prompt route).

Engines differ in two choices only, and each is taken from the engine's source:
- whether BOS is put in front, and by which rule;
- whether sentinel text in the prompt is parsed as special tokens.
Everything else (the SentencePiece space after a special token that gives CodeLlama's
"▁<PRE>", the Codestral `[SUFFIX]…[PREFIX]…` order) is the tokenizer's own behaviour and comes
out of `Tokenizer.encode`.
"""

from __future__ import annotations

from dataclasses import dataclass

from replay.errors import UsageError
from replay.tokens.tokenizer import Tokenizer


@dataclass(frozen=True)
class EngineRule:
    name: str
    bos: str  # "model": the tokenizer's own add_bos (GGUF add_bos_token / HF config); "always"; "never"
    parse_special: bool
    source: str


ENGINES: dict[str, EngineRule] = {
    "llama.cpp": EngineRule(
        "llama.cpp", "model", True,
        "llama-cpp-python 0.3.36 llama_cpp/llama.py Llama._create_completion: bos_tokens = [bos] only when "
        "self._model.add_bos_token() (GGUF tokenizer.ggml.add_bos_token, else llama.cpp's vocab default), prompt "
        "tokenized with special=True; llama.cpp tools/server tokenizes prompts with add_special=true, parse_special=true"),
    "ollama": EngineRule(
        "ollama", "model", True,
        "Ollama runs the GGUF through llama.cpp's tokenizer (llama_tokenize with add_special/parse_special): same rule as llama.cpp"),
    "transformers": EngineRule(
        "transformers", "model", True,
        "transformers tokenizer(prompt) uses add_special_tokens=True: BOS as the tokenizer's post-processor / "
        "add_bos_token config says; added tokens (sentinels) are matched in the text"),
    "vllm": EngineRule(
        "vllm", "model", True,
        "vLLM /v1/completions tokenizes the prompt with the HF tokenizer, add_special_tokens=True (as transformers)"),
    "tgi": EngineRule(
        "tgi", "model", True,
        "TGI tokenizes with the model's tokenizer.json and its post-processor (add_special_tokens=True)"),
    "mistral": EngineRule(
        "mistral", "always", True,
        "mistral-common InstructTokenizerV3.encode_fim: [BOS, SUFFIX, …, PREFIX, …] (Codestral FIM endpoint)"),
}


class EngineError(UsageError):
    """An unknown engine name."""


@dataclass(frozen=True)
class EngineIds:
    engine: str
    ids: list[int]
    bos_added: bool
    parse_special: bool
    source: str


def engine_rule(engine: str) -> EngineRule:
    try:
        return ENGINES[engine.lower()]
    except KeyError:
        raise EngineError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}") from None


def engine_ids(tokenizer: Tokenizer, text: str, engine: str) -> EngineIds:
    """The ids `engine` would feed the model for the raw prompt `text` with this tokenizer."""
    rule = engine_rule(engine)
    add = rule.bos == "always" or (rule.bos == "model" and tokenizer.add_bos)
    if add and tokenizer.bos_id is None:
        add = False
    body = tokenizer.encode(text, special=rule.parse_special)
    ids = ([tokenizer.bos_id] if add else []) + body  # type: ignore[list-item]
    return EngineIds(rule.name, ids, add, rule.parse_special, rule.source)


def fim_route_ids(tokenizer: Tokenizer, prefix: str, suffix: str, engine: str) -> EngineIds:
    """The ids an engine builds itself when prefix and suffix are sent apart (the FIM route).

    - "mistral": mistral-common `InstructTokenizerV3.encode_fim`: [BOS, [SUFFIX]] + suffix without
      the SentencePiece dummy prefix + [[PREFIX]] + prefix (mistral_common/tokens/tokenizers/instruct.py).
    - "llama.cpp" (llama-cpp-python 0.3.36 `Llama._create_completion(prompt, suffix=...)`,
      llama_cpp/llama.py): the FIM token ids are hard-coded to 0 there ("# TODO: Fix"), so the
      model gets [BOS if add_bos] + [0] + tokenize(prefix, special=False) + [0] + suffix (the
      "☺" trick drops the dummy prefix when add_space_prefix) + [0]: token 0, not the sentinels.
    """
    name = engine.lower()
    if name == "mistral":
        text = f"[SUFFIX]{suffix}[PREFIX]{prefix}" if suffix else f"[SUFFIX][PREFIX]{prefix}"
        got = engine_ids(tokenizer, text, "mistral")
        return EngineIds("mistral", got.ids, got.bos_added, True, ENGINES["mistral"].source)
    if name == "llama.cpp":
        fim = 0
        bos = [tokenizer.bos_id] if tokenizer.add_bos and tokenizer.bos_id is not None else []
        pre = tokenizer.encode(prefix, special=False) if prefix else []
        if suffix and tokenizer.spm:
            suf = tokenizer.encode("☺" + suffix, special=False)[2:]
        else:
            suf = tokenizer.encode(suffix, special=False) if suffix else []
        return EngineIds("llama.cpp", [*bos, fim, *pre, fim, *suf, fim], bool(bos), False,
                         "llama-cpp-python 0.3.36 llama_cpp/llama.py Llama._create_completion with suffix: "
                         "prefix/suffix/middle token ids are 0 (hard-coded, '# TODO: Fix')")
    raise EngineError(f"no FIM-route rule for engine {engine!r} (known: llama.cpp, mistral)")
