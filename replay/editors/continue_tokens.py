"""Token counting and line pruning exactly as Continue does them for autocomplete.

Continue never uses the target model's tokenizer to budget an autocomplete prompt. It counts
with one of two bundled tokenizers (continuedev/continue core/llm/countTokens.ts,
`encodingForModel`):

- js-tiktoken `encodingForModel("gpt-4")` (cl100k_base) when `autodetectTemplateType(model)`
  (core/llm/autodetect.ts) gives no template type or "none" (gpt, claude, codestral, mercury,
  gemini, grok, o1..., kimi, glm, ... names);
- otherwise its bundled llama-tokenizer-js (core/llm/llamaTokenizer.js, belladore.ai, the
  LLaMA-1/2 SentencePiece vocabulary of 32000 pieces), called as `encode(text)`, whose defaults
  are `add_bos_token = true, add_preceding_space = true`: every non-empty count includes the
  BOS id 1 and a leading "▁"; an empty string counts 0 (`if (prompt.length === 0) return []`).

We reproduce the LLaMA side with llama.cpp's own SPM tokenizer over the Llama-2 vocabulary
(`<cache>/vocab/ggml-vocab-llama-spm.gguf`, which adds the same leading space) with
`add_bos=True, special=False` (llama-tokenizer-js never parses special tokens: "<s>" in text is
plain characters). js-tiktoken is called with `encode(text, "all", [])`: special token text
such as "<|endoftext|>" counts as one token.

The count is then multiplied (core/llm/getAdjustedTokenCount.ts, in core since 2026-01-28) by
1.23 for "claude", 1.18 for "gemini", 1.26 for "stral"/"mixtral" names and rounded up.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import json
import math
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from replay.paths import cache_dir

# -- cl100k_base ranks, from the npm package Continue itself uses (core/package.json: js-tiktoken).
JS_TIKTOKEN = "js-tiktoken@1.0.21"
JS_TIKTOKEN_TGZ_SHA256 = "3b1f24b185565ca9a8d8f51466dfc4f99d67f1f05bc009258710ddb7a8d810fa"
# The sha256 OpenAI publishes for cl100k_base.tiktoken (tiktoken_ext/openai_public.py): the ranks
# converted from js-tiktoken must give this exact file, which proves them complete and correct.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_FILE = "tiktoken/cl100k_base.tiktoken"
CL100K_META = "tiktoken/cl100k_base.json"  # js-tiktoken's pat_str and special tokens
LLAMA_VOCAB = "vocab/ggml-vocab-llama-spm.gguf"

# core/llm/getAdjustedTokenCount.ts
ANTHROPIC_TOKEN_MULTIPLIER = 1.23
GEMINI_TOKEN_MULTIPLIER = 1.18
MISTRAL_TOKEN_MULTIPLIER = 1.26


class AssetMissing(RuntimeError):
    """A tokenizer file Continue's counting needs is absent and cannot be installed here."""


def autodetect_template_type(model: str) -> str | None:
    """Continue's chat template type for a model name (core/llm/autodetect.ts
    autodetectTemplateType, same order); only used here to choose the counting tokenizer."""
    lower = model.lower()
    if "codellama" in lower and "70b" in lower:
        return "codellama-70b"
    # isProviderHandlesTemplatingOrNoTemplateTypeRequired
    if any(k in lower for k in ("gpt", "command", "aya", "chat-bison", "pplx", "gemini", "grok", "moonshot", "kimi", "mercury", "glm")) or re.match(r"o\d", lower):
        return None
    ordered: tuple[tuple[tuple[str, ...], str], ...] = (
        (("llama3", "llama-3"), "llama3"),
        (("llava",), "llava"),
        (("tinyllama",), "zephyr"),
        (("xwin",), "xwin-coder"),
        (("dolphin",), "chatml"),
        (("gemma",), "gemma"),
        (("phi2",), "phi2"),
        (("phind",), "phind"),
        (("llama",), "llama2"),
        (("zephyr",), "zephyr"),
        (("claude",), "none"),
        (("nova",), "none"),
        (("codestral",), "none"),
        (("alpaca", "wizard"), "alpaca"),
        (("mistral", "mixtral"), "llama2"),
        (("deepseek",), "deepseek"),
        (("hermes",), "chatml"),
        (("ninja", "openchat"), "openchat"),
        (("neural-chat",), "neural-chat"),
        (("granite",), "granite"),
    )
    for keys, kind in ordered:
        if any(k in lower for k in keys):
            return kind
    return "chatml"


def counting_tokenizer(model: str) -> str:
    """"cl100k_base" or "llama" (countTokens.ts encodingForModel)."""
    kind = autodetect_template_type(model)
    return "cl100k_base" if kind is None or kind == "none" else "llama"


def token_multiplier(model: str, multipliers: bool = True) -> float:
    """core/llm/getAdjustedTokenCount.ts; `multipliers=False` for eras before 2026-01-28."""
    if not multipliers:
        return 1.0
    lower = (model or "").lower()
    if "claude" in lower:
        return ANTHROPIC_TOKEN_MULTIPLIER
    if "gemini" in lower:
        return GEMINI_TOKEN_MULTIPLIER
    if "stral" in lower or "mixtral" in lower:
        return MISTRAL_TOKEN_MULTIPLIER
    return 1.0


def _verified_js_tiktoken(tgz: Path) -> tuple[bytes, dict]:
    """The cl100k ranks file (tiktoken format) and js-tiktoken's metadata from the npm tarball."""
    if hashlib.sha256(tgz.read_bytes()).hexdigest() != JS_TIKTOKEN_TGZ_SHA256:
        raise AssetMissing(f"{tgz}: sha256 differs from the pinned {JS_TIKTOKEN}")
    with tarfile.open(tgz) as tar:
        member = tar.extractfile("package/dist/ranks/cl100k_base.js")
        assert member is not None
        src = member.read().decode()
    obj = json.loads(src[src.index("{") : src.rindex("}") + 1])
    out = io.StringIO()
    # Each row of js-tiktoken's bpe_ranks: "<key> <first rank> <base64 token> <base64 token> ..."
    for row in obj["bpe_ranks"].split("\n"):
        if not row:
            continue
        _, offset, *tokens = row.split(" ")
        for i, tok in enumerate(tokens):
            out.write(f"{tok} {int(offset) + i}\n")
    data = out.getvalue().encode()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise AssetMissing(f"{tgz}: converted cl100k_base ranks do not have sha256 {CL100K_SHA256}")
    return data, {"pat_str": obj["pat_str"], "special_tokens": obj["special_tokens"]}


def install_cl100k(tgz: Path | None = None) -> Path:
    """Put the verified cl100k_base ranks into the asset cache, from `tgz` or `npm pack`.

    The Python tiktoken package downloads its ranks from a blob store at run time, which these
    machines cannot reach; npm ships them inside js-tiktoken, the very package Continue uses.
    """
    target = cache_dir() / CL100K_FILE
    if tgz is None:
        npm = shutil.which("npm")
        if npm is None:
            raise AssetMissing(f"{target} is missing and npm is not installed to fetch {JS_TIKTOKEN}")
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([npm, "pack", JS_TIKTOKEN, "--silent"], cwd=tmp, capture_output=True, text=True)
            if done.returncode != 0:
                raise AssetMissing(f"npm pack {JS_TIKTOKEN} failed: {done.stderr.strip().splitlines()[-1:]}")
            data, meta = _verified_js_tiktoken(next(Path(tmp).glob("*.tgz")))
    else:
        data, meta = _verified_js_tiktoken(tgz)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_target = target.with_suffix(".part")
    tmp_target.write_bytes(data)
    tmp_target.replace(target)
    (cache_dir() / CL100K_META).write_text(json.dumps(meta, ensure_ascii=False))
    return target


@functools.lru_cache(maxsize=1)
def cl100k():  # -> tiktoken.Encoding
    """js-tiktoken's cl100k_base (its own regex and ranks) as a tiktoken.Encoding, offline."""
    import tiktoken

    path, meta_path = cache_dir() / CL100K_FILE, cache_dir() / CL100K_META
    if not path.exists() or not meta_path.exists():
        install_cl100k()
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise AssetMissing(f"{path}: sha256 is not {CL100K_SHA256}; delete it to re-install")
    ranks = {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in data.splitlines() if line)}
    meta = json.loads(meta_path.read_text())
    return tiktoken.Encoding(name="cl100k_base", pat_str=meta["pat_str"], mergeable_ranks=ranks, special_tokens=meta["special_tokens"])


@functools.lru_cache(maxsize=1)
def llama_vocab():  # -> llama_cpp.Llama (vocab only)
    """The Llama-2 SentencePiece vocabulary, tokenized by llama.cpp itself."""
    import llama_cpp

    path = cache_dir() / LLAMA_VOCAB
    if not path.exists():
        raise AssetMissing(f"{path} is missing (the llama-spm vocabulary of the llama-cpp-python sdist)")
    return llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)


def encode(text: str, model: str) -> list[int]:
    """The ids Continue's counting tokenizer gives for `text` (LLaMA: with BOS and leading space)."""
    if counting_tokenizer(model) == "cl100k_base":
        return cl100k().encode(text, allowed_special="all", disallowed_special=())
    if text == "":
        return []
    return llama_vocab().tokenize(text.encode("utf-8"), add_bos=True, special=False)


@functools.lru_cache(maxsize=65536)
def _base_count(text: str, tokenizer: str) -> int:
    return len(encode(text, "gpt-4" if tokenizer == "cl100k_base" else "llama2"))


def count_tokens(text: str, model: str, multipliers: bool = True) -> int:
    """countTokens(content, modelName): base count times the model's multiplier, rounded up."""
    base = _base_count(text, counting_tokenizer(model))
    return math.ceil(base * token_multiplier(model, multipliers))


def prune_lines_from_top(text: str, max_tokens: float, model: str, *, per_line: bool = True, multipliers: bool = True) -> str:
    """pruneLinesFromTop (core/llm/countTokens.ts): drop whole lines from the top until it fits.

    Since 2025-04-23 (`per_line`) the total is the sum of each line's count plus one token per
    joining newline; before, it was the count of the whole text, minus each dropped line's count
    (no newline accounting).
    """
    lines = text.split("\n")
    if not per_line:
        total = count_tokens(text, model, multipliers)
        start = 0
        while total > max_tokens and start < len(lines):
            total -= count_tokens(lines[start], model, multipliers)
            start += 1
        return "\n".join(lines[start:])
    counts = [count_tokens(line, model, multipliers) for line in lines]
    total = sum(counts) + max(0, len(lines) - 1)
    start = 0
    while total > max_tokens and start < len(lines):
        total -= counts[start]
        if len(lines) - start > 1:
            total -= 1
        start += 1
    return "\n".join(lines[start:])


def prune_lines_from_bottom(text: str, max_tokens: float, model: str, *, per_line: bool = True, multipliers: bool = True) -> str:
    """pruneLinesFromBottom (core/llm/countTokens.ts): drop whole lines from the bottom."""
    lines = text.split("\n")
    end = len(lines)
    if not per_line:
        total = count_tokens(text, model, multipliers)
        while total > max_tokens and end > 0:
            end -= 1
            total -= count_tokens(lines[end], model, multipliers)
        return "\n".join(lines[:end])
    counts = [count_tokens(line, model, multipliers) for line in lines]
    total = sum(counts) + max(0, end - 1)
    while total > max_tokens and end > 0:
        end -= 1
        total -= counts[end]
        if end > 0:
            total -= 1
    return "\n".join(lines[:end])


def token_counting_buffer_safety(context_length: float) -> float:
    """getTokenCountingBufferSafety: min(1000, 2% of the context length)."""
    return min(1000, context_length * 0.02)
