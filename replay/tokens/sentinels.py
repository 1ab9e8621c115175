"""The FIM template sentinels a prompt holds outside the user's code, and which of them a
vocabulary does not hold as one token.

A sentinel the target model does not know as one token is read as plain text: the model sees
`<`, `fim`, `_prefix`, `>` and answers a template it was never trained on (Qwen2.5-Coder given
StarCoder's `<fim_prefix>` answers "```"). The audit reports each such occurrence
(sentinel-not-special, tokens/audit.py); a replay checks every prompt against the target model
before it sends any (usecases/replay.py), both with `not_single`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from replay.tokens.base import Tokenizer

# FIM sentinel sets in the order a template writes them (first one opens the prompt). Facts from
# TabbyML/tabby crates/tabby/src/services/completion/completion_prompt.rs + registry-tabby
# models.json and continuedev/continue core/autocomplete/templating/AutocompleteTemplate.ts.
SENTINEL_SETS: tuple[tuple[str, ...], ...] = (
    ("<fim_prefix>", "<fim_suffix>", "<fim_middle>"),
    ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"),
    ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"),
    ("<PRE>", "<SUF>", "<MID>"),
    ("[SUFFIX]", "[PREFIX]"),
    ("<[fim-prefix]>", "<[fim-suffix]>", "<[fim-middle]>"),
)
# Other template tokens editors write as text (Continue's Qwen multi-file template, Tabby stop words).
TEMPLATE_TOKENS: tuple[str, ...] = ("<|repo_name|>", "<|file_sep|>", "<repo_name>", "<file_sep>", "<|fim_pad|>", "<fim_pad>")
_SENTINELS = sorted({s for group in SENTINEL_SETS for s in group} | set(TEMPLATE_TOKENS), key=len, reverse=True)
_SENTINEL_RE = re.compile("|".join(re.escape(s) for s in _SENTINELS))

Span = tuple[int, int]


def span_of(text: str, part: str | None, start: int = 0) -> Span | None:
    """Where the user's code sits in the prompt (LF-normalised as a fallback: Tabby logs
    segments with CRLF and the prompt with LF)."""
    if not part:
        return None
    for candidate in (part, part.replace("\r\n", "\n")):
        at = text.find(candidate, start)
        if at >= 0:
            return at, at + len(candidate)
    return None


def user_spans(text: str, prefix: str | None, suffix: str | None) -> tuple[Span | None, list[Span]]:
    """Where the prefix sits, and where the user's code (prefix, then suffix after it) sits."""
    pre = span_of(text, prefix)
    suf = span_of(text, suffix, pre[1] if pre else 0) or span_of(text, suffix)
    return pre, [span for span in (pre, suf) if span]


def in_spans(user: Sequence[Span], a: int, b: int) -> bool:
    """Whether characters a..b lie inside one of the user's code spans."""
    return any(ua <= a and b <= ub for ua, ub in user)


def template_hits(text: str, user: Sequence[Span]) -> list[re.Match[str]]:
    """The sentinels the template wrote: every one found outside the user's code."""
    return [m for m in _SENTINEL_RE.finditer(text) if not in_spans(user, m.start(), m.end())]


def not_single(tok: Tokenizer, hit: re.Match[str], ids: Sequence[int], spans: Sequence[Span]) -> tuple[list[int], list[str]] | None:
    """None when the sentinel `hit` is one token of the prompt's encoding (`ids`, `spans`: its
    characters); else the indices of the tokens covering it and their pieces."""
    a, b = hit.span()
    covering = [i for i, (x, y) in enumerate(spans) if x < b and y > a]
    pieces = tok.pieces([ids[i] for i in covering])
    if len(covering) == 1 and pieces[0].strip() == hit.group(0):
        return None
    return covering, pieces


def foreign_sentinels(tok: Tokenizer, text: str, prefix: str | None, suffix: str | None) -> list[str]:
    """The template sentinels of a prompt that `tok`'s vocabulary does not hold as one token,
    each once, in the order they first occur."""
    hits = template_hits(text, user_spans(text, prefix, suffix)[1])
    if not hits:
        return []
    ids, spans = tok.encode_with_offsets(text)
    return list(dict.fromkeys(hit.group(0) for hit in hits if not_single(tok, hit, ids, spans) is not None))
