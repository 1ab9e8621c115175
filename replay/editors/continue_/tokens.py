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

We reproduce the LLaMA side with the project's exact SPM tokenizer over the Llama-2 vocabulary
(`replay.tokens` "llama-spm", `<cache>/vocab/ggml-vocab-llama-spm.gguf`, which adds the same
leading space) with special=False (llama-tokenizer-js never parses special tokens: "<s>" in text
is plain characters), and put BOS in front. js-tiktoken is called with `encode(text, "all",
[])`: special token text such as "<|endoftext|>" counts as one token. Both are checked id for
id against the npm packages under node (tests/editors/continue_/test_tokens.py).

The count is then multiplied (core/llm/getAdjustedTokenCount.ts, in core since 2026-01-28) by
1.23 for "claude", 1.18 for "gemini", 1.26 for "stral"/"mixtral" names and rounded up.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import re

from replay.assets import asset_path
from replay.errors import WorkError
from replay.tokens.tokenizer import load_tokenizer

# The sha256 OpenAI publishes for cl100k_base.tiktoken (tiktoken_ext/openai_public.py): the ranks
# converted from js-tiktoken (the npm asset "js-tiktoken", the package Continue itself uses,
# core/package.json) must give this exact file, which proves them complete and correct.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
JS_TIKTOKEN_RANKS = "package/dist/ranks/cl100k_base.js"

# core/llm/getAdjustedTokenCount.ts
ANTHROPIC_TOKEN_MULTIPLIER = 1.23
GEMINI_TOKEN_MULTIPLIER = 1.18
MISTRAL_TOKEN_MULTIPLIER = 1.26


class BadRanks(WorkError):
    """The ranks read from js-tiktoken are not OpenAI's."""


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


def cl100k_from_js(source: str) -> tuple[dict[bytes, int], str, dict[str, int]]:
    """(mergeable ranks, pat_str, special tokens) from js-tiktoken's ranks/cl100k_base.js."""
    return ranks_from_js(source, CL100K_SHA256, "cl100k_base")


def ranks_from_js(source: str, sha256: str, name: str) -> tuple[dict[bytes, int], str, dict[str, int]]:
    """(mergeable ranks, pat_str, special tokens) from one of js-tiktoken's ranks/<name>.js.

    Each row of its bpe_ranks is "<key> <first rank> <base64 token> <base64 token> ...". The
    ranks are written out in tiktoken's file format to check OpenAI's published `sha256`."""
    obj = json.loads(source[source.index("{") : source.rindex("}") + 1])
    ranks: dict[bytes, int] = {}
    lines = []
    for row in obj["bpe_ranks"].split("\n"):
        if not row:
            continue
        _, offset, *tokens = row.split(" ")
        for i, tok in enumerate(tokens):
            ranks[base64.b64decode(tok)] = int(offset) + i
            lines.append(f"{tok} {int(offset) + i}\n")
    if hashlib.sha256("".join(lines).encode()).hexdigest() != sha256:
        raise BadRanks(f"js-tiktoken's {name} ranks do not have OpenAI's sha256 {sha256}")
    return ranks, obj["pat_str"], obj["special_tokens"]


@functools.lru_cache(maxsize=1)
def cl100k():  # -> tiktoken.Encoding
    """js-tiktoken's cl100k_base (its own regex and ranks) as a tiktoken.Encoding, offline.

    Raises MissingAsset naming `fimreplay assets install js-tiktoken` when it is not installed."""
    import tiktoken

    ranks, pat_str, special = cl100k_from_js((asset_path("js-tiktoken") / JS_TIKTOKEN_RANKS).read_text(encoding="utf-8"))
    return tiktoken.Encoding(name="cl100k_base", pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special)


def encode(text: str, model: str) -> list[int]:
    """The ids Continue's counting tokenizer gives for `text` (LLaMA: with BOS and leading space)."""
    return encode_many([text], model)[0]


def encode_many(texts: list[str], model: str) -> list[list[int]]:
    """encode() of each text, in one batch."""
    if counting_tokenizer(model) == "cl100k_base":
        return cl100k().encode_batch(texts, allowed_special="all", disallowed_special=())
    tok = load_tokenizer("llama-spm")
    ids = tok.encode_batch([t for t in texts if t], special=False)
    it = iter(ids)
    return [[tok.bos_id, *next(it)] if t else [] for t in texts]


def count_tokens(text: str, model: str, multipliers: bool = True) -> int:
    """countTokens(content, modelName): base count times the model's multiplier, rounded up."""
    return count_many([text], model, multipliers)[0]


def count_many(texts: list[str], model: str, multipliers: bool = True) -> list[int]:
    """count_tokens() of each text, encoded in one batch (pruning counts every line)."""
    factor = token_multiplier(model, multipliers)
    return [math.ceil(len(ids) * factor) for ids in encode_many(texts, model)]


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
    counts = count_many(lines, model, multipliers)
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
    counts = count_many(lines, model, multipliers)
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


def decode(ids: list[int], model: str) -> str:
    """The text Continue's counting tokenizer decodes `ids` to.

    llama-tokenizer-js `decode(ids)` (defaults add_bos_token, add_preceding_space): skips the
    first id whatever it is, turns `<0xNN>` pieces into bytes and other pieces into their UTF-8,
    decodes with replacement characters, turns "▁" into spaces and drops the first character.
    js-tiktoken decodes the bytes of the ids with a TextDecoder (replacement characters too).
    """
    if counting_tokenizer(model) == "cl100k_base":
        return cl100k().decode(ids, errors="replace")
    tok = load_tokenizer("llama-spm")
    data = b"".join(tok.token_bytes(token) for token in ids[1:])  # "▁" already a space
    text = data.decode("utf-8", errors="replace").replace("\u2581", " ")
    return _js_slice_from(text, 1)


def _js_slice_from(text: str, start: int) -> str:
    """JavaScript `text.slice(start)`: counted in UTF-16 code units, not code points."""
    units = text.encode("utf-16-le", errors="surrogatepass")
    return units[2 * start :].decode("utf-16-le", errors="replace")


def prune_string_from_bottom(model: str, max_tokens: int, text: str) -> str:
    """pruneStringFromBottom (core/llm/countTokens.ts): the text of the first `max_tokens` ids
    (the raw encoding, no multiplier), or the text itself when it fits."""
    ids = encode(text, model)
    if len(ids) <= max_tokens:
        return text
    return decode(ids[:max_tokens], model)
