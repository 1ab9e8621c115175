"""Snippet ranking of Continue's pre-rewrite autocomplete (releases up to 0.8.56 / 0.9.226):
which snippets of other files go into the prompt, and in which order.

Source: continuedev/continue core/autocomplete/ranking.ts at the release tags (the file did not
change in what it computes from v0.8.24-vscode to v0.8.56-vscode: 1eafa16bcd, 2024-09-30, only
returns a single snippet early, with the same result) and constructPrompt.ts, which calls
rankSnippets then fillPromptWithSnippets; after the rewrite, until 0.9.234 (fec4b21f7b,
2024-11-21), core/autocomplete/context/ranking/index.ts (rankAndOrderSnippets, the same
functions) called from constructPrompt.ts / aggregateSnippets.ts, with the same options.

0. The snippets outside the workspace are dropped (onlyMyCode, default on), then blank ones and
   ones whose trimmed text is inside the pruned prefix + suffix.

1. rankSnippets scores each snippet by Jaccard similarity of its symbols with the window
   around the cursor, then deduplicateSnippets groups them by file (first-seen order of the
   files) and mergeSnippetsByRange merges, within a file, the snippets sorted by first line
   whose ranges overlap or touch (the previous one ends at or after the next one's first line):
   the merged snippet keeps the higher score, ends where the later one ends (even when that is
   before its own end), and its text is the last (end - first) lines of the earlier text, a
   newline and the later text (mergeOverlappingRangeContents reads the range after it was
   extended: the line count is the later snippet's own span, not the overlap).
2. All snippets sorted by ascending score (a stable sort, as Array.prototype.sort in V8).
3. fillPromptWithSnippets keeps each snippet, in that order, that still fits the budget.

Snippets without a line range (a capture that did not record it) are taken as not overlapping
anything, in the order given.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.releases import Era
from replay.editors.js import js_trim, utf16
from replay.records import Snippet

SLIDING_WINDOW_SIZE = 500  # core/util/parameters.ts DEFAULT_AUTOCOMPLETE_OPTS.slidingWindowSize
SLIDING_WINDOW_PREFIX_PERCENTAGE = 0.75  # slidingWindowPrefixPercentage
MAX_SNIPPET_PERCENTAGE = 0.6  # maxSnippetPercentage (0.5 from 1adbd9a456: era.snippet_share_half)

# ranking.ts getSymbolsForSnippet: JavaScript's \s and the punctuation list
_SYMBOL_SPLIT = re.compile(r"[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
                           r".,/#!$%^&*;:{}=\-_`~()\[\]]")


def symbols(text: str) -> set[str]:
    """getSymbolsForSnippet: the text split on whitespace and punctuation, without empties."""
    return {s for s in (js_trim(p) for p in _SYMBOL_SPLIT.split(utf16(text))) if s}


def jaccard(a: str, b: str) -> float:
    """jaccardSimilarity: shared symbols over all distinct symbols (0 when there are none)."""
    sa, sb = symbols(a), symbols(b)
    union = len(sa | sb)
    return len(sa & sb) / union if union else 0.0


def merge_by_range(group: list[tuple[float, Snippet]]) -> list[tuple[float, Snippet]]:
    """mergeSnippetsByRange over the (score, snippet) pairs of one file (step 1 above)."""
    ranged = [(score, s, s.lines) for score, s in group if not isinstance(s.lines, msgspec.UnsetType)]
    if len(group) <= 1 or len(ranged) < len(group):
        return group
    merged: list[tuple[float, Snippet, tuple[int, int]]] = []
    for score, nxt, (start, end) in sorted(ranged, key=lambda p: p[2][0]):
        if merged and merged[-1][2][1] >= start:
            last_score, last, (last_start, _) = merged[-1]
            keep = end - start  # first.range.end (already the later end) - second.range.start
            lines = last.content.split("\n")
            head = lines[-keep:] if keep > 0 else lines  # JavaScript slice(-0) is slice(0)
            content = "\n".join(head) + "\n" + nxt.content
            merged[-1] = (max(last_score, score),
                          Snippet(filepath=last.filepath, content=content, kind=last.kind, lines=(last_start, end)),
                          (last_start, end))
        else:
            merged.append((score, nxt, (start, end)))
    return [(score, s) for score, s, _ in merged]


def rank_and_fill(snippets: list[Snippet], window: str, budget: float, model: str, era: Era) -> list[Snippet]:
    """rankSnippets then fillPromptWithSnippets (steps 1-3 above)."""
    by_file: dict[str, list[tuple[float, Snippet]]] = {}
    for s in snippets:
        by_file.setdefault(s.filepath, []).append((jaccard(s.content, window), s))
    scored = [pair for group in by_file.values() for pair in merge_by_range(group)]
    scored.sort(key=lambda p: p[0])  # stable, like Array.prototype.sort
    kept, remaining = [], budget
    for _, s in scored:
        n = ct.count_tokens(s.content, model, era.multipliers)
        if remaining - n >= 0:
            remaining -= n
            kept.append(s)
    return kept


def _js_slice(text: str, start: float) -> str:
    """`text.slice(start)` on UTF-16 units (a float start is truncated, as JavaScript does)."""
    units = text.encode("utf-16-le", "surrogatepass")
    n = len(units) // 2
    i = int(start)
    i = max(n + i, 0) if i < 0 else min(i, n)
    return units[2 * i:].decode("utf-16-le", "surrogatepass")


def choose_snippets(snippets: list[Snippet], full_prefix: str, full_suffix: str, caret_window: str, workspace: str | None,
                    max_prompt_tokens: float, model: str, opts: dict[str, Any], era: Era) -> list[Snippet]:
    """Steps 0-3: the snippets that go into the prompt, in order. The window around the cursor
    is the last 375 UTF-16 units of the whole prefix + the whole suffix after its first 125;
    the budget is maxPromptTokens x 0.6 (0.5 in 0.9.232..0.9.234). `workspace` is in the
    snippets' path form."""
    if opts.get("onlyMyCode", True):
        snippets = [s for s in snippets if workspace is not None and s.filepath.startswith(workspace)]
    snippets = [s for s in snippets if js_trim(s.content) != "" and js_trim(s.content) not in caret_window]
    window = (_js_slice(full_prefix, -SLIDING_WINDOW_SIZE * SLIDING_WINDOW_PREFIX_PERCENTAGE)
              + _js_slice(full_suffix, SLIDING_WINDOW_SIZE * (1 - SLIDING_WINDOW_PREFIX_PERCENTAGE)))
    share = 0.5 if era.snippet_share_half else MAX_SNIPPET_PERCENTAGE
    return rank_and_fill(snippets, window, max_prompt_tokens * share, model, era)
