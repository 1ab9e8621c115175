"""o200k_base as Copilot's completion client counts it (the counts its request body carries).

The client counts every prompt with `getTokenizer()` = o200k_base (microsoft/vscode-copilot-chat
src/extension/completions-core/vscode-node/prompt/src/tokenization/tokenizer.ts, `TTokenizer`):
`@microsoft/tiktokenizer` 1.0.10's `createTokenizer(ranks, getSpecialTokensByEncoder,
getRegexByEncoder)` over the compressed o200k_base.tiktoken file, `encode(text)` with no allowed
special token (so "<|endoftext|>" in a document is plain text). The ranks are OpenAI's
o200k_base (chat-lib 0.66.0 ships the very file, sha256 446a9538…, and so does js-tiktoken, the
npm asset "js-tiktoken"); the split pattern is tiktokenizer's own REGEX_PATTERN_3
(src/tokenizerBuilder.ts), which differs from OpenAI's in one contraction alternative (`'eR`
where OpenAI has `'rE`, and no case-insensitive group).

`take_first` / `take_last` are TTokenizer.takeFirstTokens / takeLastTokens: they tokenize a
growing slice of characters (4 per token, then 1 more per token), not the whole text, so a cut
can differ from a cut of the whole text's ids.
"""

from __future__ import annotations

import functools

from replay.assets import asset_path
from replay.editors.continue_.tokens import ranks_from_js

# OpenAI's published sha256 of o200k_base.tiktoken (tiktoken_ext/openai_public.py).
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
JS_TIKTOKEN_O200K = "package/dist/ranks/o200k_base.js"
_CONTRACTIONS = "(?:'s|'S|'t|'T|'re|'RE|'Re|'eR|'ve|'VE|'vE|'Ve|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?"
# @microsoft/tiktokenizer src/tokenizerBuilder.ts REGEX_PATTERN_3 (o200k_base)
O200K_PATTERN = "|".join((
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+" + _CONTRACTIONS,
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*" + _CONTRACTIONS,
    r"\p{N}{1,3}",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"\s*[\r\n]+",
    r"\s+(?!\S)",
    r"\s+",
))
SPECIAL = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
CHARS_PER_TOKEN_START = 4  # tokenizer.ts takeFirstTokens / takeLastTokens
CHARS_PER_TOKEN_ADD = 1


@functools.lru_cache(maxsize=1)
def o200k():  # -> tiktoken.Encoding
    """o200k_base with tiktokenizer's pattern, offline (MissingAsset names the asset to install)."""
    import tiktoken

    source = (asset_path("js-tiktoken") / JS_TIKTOKEN_O200K).read_text(encoding="utf-8")
    ranks, _, _ = ranks_from_js(source, O200K_SHA256, "o200k_base")
    return tiktoken.Encoding(name="copilot-o200k", pat_str=O200K_PATTERN, mergeable_ranks=ranks, special_tokens=SPECIAL)


def encode(text: str) -> list[int]:
    return o200k().encode_ordinary(text)


def count(text: str) -> int:
    return len(encode(text))


def decode(ids: list[int]) -> str:
    return o200k().decode(ids)


def take_first(text: str, n: int) -> tuple[str, list[int]]:
    """TTokenizer.takeFirstTokens: some prefix of `text` of at most `n` tokens, and its ids."""
    if n <= 0:
        return "", []
    chars = min(len(text), n * CHARS_PER_TOKEN_START)
    ids = encode(text[:chars])
    while len(ids) < n + 2 and chars < len(text):
        chars = min(len(text), chars + n * CHARS_PER_TOKEN_ADD)
        ids = encode(text[:chars])
    if len(ids) < n:
        return text, ids
    ids = ids[:n]
    return decode(ids), ids


def take_last(text: str, n: int) -> tuple[str, list[int]]:
    """TTokenizer.takeLastTokens: some suffix of `text` of at most `n` tokens, and its ids."""
    if n <= 0:
        return "", []
    chars = min(len(text), n * CHARS_PER_TOKEN_START)
    ids = encode(text[len(text) - chars:])
    while len(ids) < n + 2 and chars < len(text):
        chars = min(len(text), chars + n * CHARS_PER_TOKEN_ADD)
        ids = encode(text[len(text) - chars:])
    if len(ids) < n:
        return text, ids
    ids = ids[-n:]
    return decode(ids), ids
