"""Copilot's split-context prompt: the blocks, the token budget, elision, and what is sent.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/; checked
against chat-lib 0.66.0's compiled dist):
- lib/src/prompt/prompt.ts `extractPrompt`: `separateContext = true` always, so the prompt is
  components/splitContextPrompt.tsx: a stable context (document marker 0.7, traits 0.6,
  diagnostics 0.65, code snippets 0.9, similar files 0.8), the document suffix (1), an additional
  context (recent edits 0.99), the document prefix (1).
- components/marker.tsx + prompt/src/languageMarker.ts: `Path: <relative path>` when the
  document has one, else `Language: <id>` or the language's shebang line (none for php and
  plaintext, nor when the document already starts with `#!` or `<!DOCTYPE`).
- components/currentFile.tsx: the prefix is the text before the cursor, the suffix the text
  after it from the next line on (`replace(/^.*/, '').trimStart()`), each cut to
  floor(limit × 4.4) characters; the suffix reuse (`AfterCursor`'s cached suffix) is in
  replay.editors.copilot.session.
- components/completionsPromptRenderer.ts `getPromptLimits`: limit 8192 − 500 tokens
  (prompt/src/prompt.ts DEFAULT_MAX_PROMPT_LENGTH); with a suffix, 5 tokens reserved and the
  suffix gets ceil(15%) of the rest (featuresService suffixPercent default 15).
- components/elision.ts `WishlistElision`: context and prefix blocks split into lines, the
  lightest blocks dropped (a chunk's blocks together) until they fit, then whole lines kept from
  the end; `makePrefixPrompt` / `makeContextPrompt` (one string per context group, trimmed).
- lib/src/prompt/prompt.ts `trimLastLine`: trailing blanks of a blank last line leave the prompt.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from replay.editors.copilot import tokens

MAX_PROMPT_TOKENS = 8192 - 500  # prompt/src/prompt.ts
SUFFIX_PERCENT = 15
TOKENS_RESERVED_FOR_SUFFIX_ENCODING = 5
_NO_LANGUAGE_MARKER = ("php", "plaintext")
SHEBANG_LINES = {"html": "<!DOCTYPE html>", "python": "#!/usr/bin/env python3", "ruby": "#!/usr/bin/env ruby",
                 "shellscript": "#!/bin/sh", "yaml": "# YAML data"}


@dataclass
class Block:
    """One rendered text node: its type (context | prefix), weight, context group and chunk."""

    value: str
    weight: float
    kind: str = "context"
    group: int | None = 0
    chunk: int | None = None
    lines: list[tuple[str, int]] = field(default_factory=list)  # (line, tokens)
    tokens: int = 0
    removed: bool = False
    elided: str = ""
    elided_tokens: int = 0


@dataclass(frozen=True)
class Cut:
    """Where the budget cut one part of the prompt: the part's whole text (the prefix: the text
    before the cursor, EOLs normalised; the suffix; a context block), the offset of the cut in
    it, and the side the prompt kept ("tail": from the cut on; "head": up to it). A context
    block dropped whole is cut at its end with its tail kept (nothing)."""

    part: str  # "prefix" | "suffix" | "context"
    text: str
    at: int
    kept: str


@dataclass(frozen=True)
class Layout:
    prefix: str  # after trimLastLine
    trailing_ws: str
    suffix: str
    context: tuple[str, ...]
    prefix_tokens: int
    suffix_tokens: int
    cuts: tuple[Cut, ...] = ()  # what the character limit and elision cut (read by the audit)


def max_characters(limit: int = MAX_PROMPT_TOKENS) -> int:
    """currentFile.tsx approximateMaxCharacters."""
    return math.floor(limit * 4 + limit * 0.1)


def document_marker(relative_path: str | None, language: str, document: str) -> str:
    if relative_path:
        return f"Path: {relative_path}"
    if language in _NO_LANGUAGE_MARKER or document.startswith(("#!", "<!DOCTYPE")):
        return ""
    return SHEBANG_LINES.get(language, f"Language: {language}")


def suffix_text(after_cursor: str) -> str:
    """currentFile.tsx AfterCursor: from the next line on, leading blanks trimmed."""
    cut = after_cursor[:max_characters()]
    return re.sub(r"^[^\n\r\u2028\u2029]*", "", cut, count=1).lstrip()


def prefix_text(before_cursor: str) -> str:
    limit = max_characters()
    return before_cursor[-limit:] if len(before_cursor) > limit else before_cursor


def normalize_eol(text: str) -> str:
    return re.sub(r"\r\n?", "\n", text)


def context_block(text: str, weight: float, group: int = 0, chunk: int | None = None) -> Block | None:
    """A context node's block: its text ended by the delimiter "\\n" (None: an empty node)."""
    if not text:
        return None
    return Block(normalize_eol(text if text.endswith("\n") else text + "\n"), weight, group=group, chunk=chunk)


def limits(suffix: str, limit: int = MAX_PROMPT_TOKENS) -> tuple[int, int]:
    """(prefix limit, suffix limit): getPromptLimits."""
    if not suffix:
        return limit, 0
    available = limit - TOKENS_RESERVED_FOR_SUFFIX_ENCODING
    suffix_limit = math.ceil(available * (SUFFIX_PERCENT / 100))
    return available - suffix_limit, suffix_limit


def _prepare(blocks: list[Block]) -> int:
    total = 0
    for block in blocks:
        pieces = [p for p in re.split(r"([^\n]*\n+)", block.value) if p]
        block.lines = [(p, tokens.count(p)) for p in pieces]
        block.tokens = sum(n for _, n in block.lines)
        total += block.tokens
    return total


def _remove_light_blocks(blocks: list[Block], limit: int, total: int) -> None:
    """removeLowWeightPrefixBlocks: lightest first (stable), never weight 1, a chunk as a whole."""
    for block in sorted(blocks, key=lambda b: b.weight):
        if total <= limit:
            break
        if block.weight == 1 or (block.chunk is not None and block.removed):
            continue
        if block.chunk is not None:
            for other in blocks:
                if not other.removed and other.chunk == block.chunk:
                    other.removed = True
                    total -= other.tokens
        else:
            block.removed = True
            total -= block.tokens


def _trim_lines(lines: list[tuple[str, int, int]], limit: int) -> tuple[list[tuple[str, int, int]], int]:
    """trimPrefixLinesToFit: whole lines from the end while they fit; (line, tokens, block index)."""
    kept: list[tuple[str, int, int]] = []
    used = 0
    for line in reversed(lines):
        if used + line[1] > limit:
            break
        kept.insert(0, line)
        used += line[1]
    if not kept:
        last = lines[-1]
        text, ids = tokens.take_last(last[0], limit)
        return [(text, len(ids), last[2])], len(ids)
    return kept, used


def elide(blocks: list[Block], suffix: str, prefix_limit: int, suffix_limit: int) -> tuple[str, int, int]:
    """WishlistElision.elide: fills each block's `elided`; returns (suffix sent, its tokens, the
    prefix blocks' tokens)."""
    most = _prepare(blocks)
    if not suffix or suffix_limit <= 0:
        sent_suffix, suffix_tokens = "", 0
        prefix_limit += max(0, suffix_limit)
    else:
        if most < prefix_limit:
            suffix_limit += prefix_limit - most
            prefix_limit = most
        sent_suffix, ids = tokens.take_first(suffix, suffix_limit)
        suffix_tokens = len(ids)
        prefix_limit += max(0, suffix_limit - suffix_tokens)
    _remove_light_blocks(blocks, prefix_limit, most)
    lines = [(line, n, i) for i, b in enumerate(blocks) if not b.removed for line, n in b.lines]
    if not lines:
        return sent_suffix, suffix_tokens, 0
    kept, used = _trim_lines(lines, prefix_limit)
    for i, block in enumerate(blocks):
        if block.removed:
            if used + block.tokens <= prefix_limit and block.chunk is None:
                used += block.tokens
                block.elided, block.elided_tokens = block.value, block.tokens
            continue
        block.elided = "".join(line for line, _, owner in kept if owner == i and line)
        block.elided_tokens = block.tokens if block.elided == block.value else (tokens.count(block.elided) if block.elided else 0)
    return sent_suffix, suffix_tokens, sum(b.elided_tokens for b in blocks)


def context_groups(blocks: list[Block]) -> tuple[str, ...]:
    """elision.ts makeContextPrompt."""
    groups: dict[int, list[str]] = {}
    for block in blocks:
        if block.kind == "context" and block.group is not None:
            trimmed = block.elided.strip()
            groups.setdefault(block.group, [])
            if trimmed:
                groups[block.group].append(trimmed)
    if not groups:
        return ()
    return tuple("\n".join(groups.get(i, [])).strip() for i in range(max(groups) + 1))


def _cuts(blocks: list[Block], before_cursor: str, suffix: str, sent_suffix: str) -> tuple[Cut, ...]:
    """Where `layout` cut: the prefix (character limit, then lines), each context block, the suffix."""
    cuts = []
    for block in blocks:
        whole = normalize_eol(before_cursor) if block.kind == "prefix" else block.value
        if block.elided != whole and whole.endswith(block.elided):
            cuts.append(Cut(block.kind, whole, len(whole) - len(block.elided), "tail"))
    if sent_suffix != suffix and suffix.startswith(sent_suffix):
        cuts.append(Cut("suffix", suffix, len(sent_suffix), "head"))
    return tuple(cuts)


def trim_last_line(source: str) -> tuple[str, str]:
    """prompt.ts trimLastLine: (prompt, trailing whitespace)."""
    last = source.split("\n")[-1]
    extra = len(last) - len(last.rstrip())
    trimmed = source[: len(source) - extra]
    return (trimmed if len(last) == extra else source), source[len(trimmed):]


def layout(context: list[Block], before_cursor: str, suffix: str) -> Layout:
    """The split-context prompt from its context blocks (in order), the text before the cursor
    and the suffix to use (session.py decides it)."""
    prefix_block = Block(normalize_eol(prefix_text(before_cursor)), 1.0, kind="prefix", group=None)
    blocks = [replace(b) for b in context] + ([prefix_block] if prefix_block.value else [])
    suffix = normalize_eol(suffix)
    prefix_limit, suffix_limit = limits(suffix)
    sent_suffix, suffix_tokens, prefix_tokens = elide(blocks, suffix, prefix_limit, suffix_limit)
    prefix = "".join(b.elided for b in blocks if b.kind == "prefix")
    prompt, trailing = trim_last_line(prefix)
    return Layout(prefix=prompt, trailing_ws=trailing, suffix=sent_suffix, context=context_groups(blocks),
                  prefix_tokens=prefix_tokens, suffix_tokens=suffix_tokens,
                  cuts=_cuts(blocks, before_cursor, suffix, sent_suffix))
