"""Continue's snippets: which fit the budget, recently opened files, and the comment header.

continuedev/continue core/autocomplete/templating/filtering.ts getSnippets, validation.ts,
formatOpenedFilesContext.ts, formatting.ts.
"""

from __future__ import annotations

import math
from typing import Any

from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.releases import Era
from replay.editors.continue_.uri import last_n_uri_relative_path_parts
from replay.editors.js import js_length, js_trim
from replay.records import Snippet

TOKEN_BUFFER = 10  # filtering.ts: extra tokens per snippet for its description
_GROUPS = (  # (key, option enabling it, default priority), filtering.ts snippetConfigs
    ("clipboard", "experimental_includeClipboard", 1),
    ("recentlyOpenedFiles", "useRecentlyOpened", 2),
    ("recentlyVisitedRanges", "experimental_includeRecentlyVisitedRanges", 3),
    ("recentlyEditedRanges", "experimental_includeRecentlyEditedRanges", 4),
    ("diff", "experimental_includeDiff", 5),
    ("base", None, 99),
)
_KIND_GROUP = {"clipboard": "clipboard", "opened": "recentlyOpenedFiles", "visited": "recentlyVisitedRanges",
               "edited": "recentlyEditedRanges", "changed": "recentlyEditedRanges", "diff": "diff"}


def select_snippets(snippets: tuple[Snippet, ...], caret_window: str, model: str, opts: dict[str, Any], era: Era) -> tuple[Snippet, ...]:
    """getSnippets: groups by priority, each snippet costs tokens(content) + 10 and is skipped
    (not stopped at) when it does not fit what is left of maxPromptTokens after the caret window;
    a code snippet of a file an earlier group already gave is dropped. Releases before 1.1.48
    (0a632b5401 and 398730364f, 2025-06-04..09) had neither the recently-opened-files group nor
    the per-file deduplication.

    Snippet kinds map to Continue's payload groups: clipboard, opened (recently opened files,
    first fitted by format_opened_files), visited, edited or changed (recently edited ranges),
    diff; everything else (declarations, root-path and import-definition context) is a "base"
    snippet, dropped when blank or already inside the caret window. Clipboard snippets count as
    fresh (their copiedAt is not known).
    """
    enabled_default = {"experimental_includeClipboard": era.include_clipboard}
    order = []
    for key, option, prio in _GROUPS:
        value = True if option is None else opts.get(option, enabled_default.get(option, True))
        if value:
            order.append((value if isinstance(value, (int, float)) and not isinstance(value, bool) else prio, key))
    order.sort(key=lambda x: x[0])  # stable, like Array.prototype.sort
    grouped: dict[str, list[Snippet]] = {key: [] for key, _, _ in _GROUPS}
    for s in snippets:
        grouped[_KIND_GROUP.get(s.kind, "base")].append(s)
    grouped["base"] = [s for s in grouped["base"] if js_trim(s.content) != "" and js_trim(s.content) not in caret_window]
    remaining = opts["maxPromptTokens"] - ct.count_tokens(caret_window, model, era.multipliers)
    chosen: list[Snippet] = []
    added: set[str] = set()
    for _, key in order:
        group = grouped[key]
        if key == "recentlyOpenedFiles":
            group = format_opened_files(group, remaining, model, chosen, era) if era.snippet_dedup else []
        elif era.snippet_dedup:
            group = [s for s in group if s.kind in ("diff", "clipboard", "static") or s.filepath not in added]
        for s in group:
            if js_trim(s.content) == "" or s.filepath.startswith("output:extension-output-Continue.continue"):
                continue  # validation.ts isValidSnippet
            size = ct.count_tokens(s.content, model, era.multipliers) + TOKEN_BUFFER
            if remaining >= size:
                chosen.append(s)
                if s.filepath and s.kind not in ("diff",):
                    added.add(s.filepath)
                remaining -= size
        if remaining <= 0:
            break
    return tuple(chosen)



def format_opened_files(snippets: list[Snippet], remaining: int, model: str, already: list[Snippet], era: Era) -> list[Snippet]:
    """formatOpenedFilesContext (templating/formatOpenedFilesContext.ts): recently opened files
    (most recent first) are kept whole while they fit and at least min(5, n) of them fit;
    otherwise the 10 most recent are ranked by 0.6 x 1.15^-index + 0.4 x (1 - normalised log
    size), the best 5 kept, fewer while each cannot get 125 tokens, and each is cut from the
    bottom to floor(125 + 2/(N+1) x (remaining - 10 - N x 125)) tokens in rank order."""
    if not snippets:
        return []
    done = {s.filepath for s in already if s.kind not in ("diff", "clipboard", "static")}
    snippets = [s for s in snippets if s.filepath not in done]
    fit = total = 0
    for s in snippets:
        n = ct.count_tokens(s.content, model, era.multipliers)
        if total + n < remaining - TOKEN_BUFFER:
            total += n
            fit += 1
        else:
            break
    if fit >= min(5, len(snippets)):
        return snippets[:fit]
    sizes = [js_length(s.content) for s in snippets[:10]]
    log_min, log_max = math.log(max(min(sizes), 10)), math.log(max(max(sizes), 10))

    def score(index: int, s: Snippet) -> float:
        size = 0.5 if log_max == log_min else 1 - (math.log(max(js_length(s.content), 10)) - log_min) / (log_max - log_min)
        return 0.6 * math.pow(1.15, -index) + 0.4 * size

    ranked = sorted(enumerate(snippets[:10]), key=lambda p: -score(*p))  # stable, like Array.sort
    top = [s for _, s in ranked[:5]]
    while top and remaining - TOKEN_BUFFER < len(top) * 125:
        top.pop()
    out: list[Snippet] = []
    while top:
        n = len(top)
        limit = math.floor(125 + (2 / (n + 1)) * (remaining - TOKEN_BUFFER - n * 125))
        s = top.pop(0)
        tokens = ct.count_tokens(s.content, model, era.multipliers)
        if tokens > limit:
            s = Snippet(filepath=s.filepath, content=ct.prune_string_from_bottom(model, limit, s.content), kind=s.kind)
            tokens = ct.count_tokens(s.content, model, era.multipliers)
        out.append(s)
        remaining -= tokens
    return out


def format_snippets(snippets: tuple[Snippet, ...], filepath: str, comment: str, workspaces: list[str]) -> str:
    """formatSnippets: code snippets get a `Path: <last 2 parts>` line, every snippet is trimmed
    and commented line by line, joined by "\\n", then the current file's last two path parts."""

    def commented(text: str) -> str:
        return "\n".join(f"{comment} {line}" for line in js_trim(text).split("\n"))

    items = []
    for s in snippets:
        if s.kind in ("diff", "static"):
            content = s.content
        else:
            uri = "file:///Untitled.txt" if s.kind == "clipboard" else s.filepath
            content = f"Path: {last_n_uri_relative_path_parts(workspaces, uri, 2)}\n{s.content}"
        items.append(commented(content))
    return "\n".join(items) + f"\n{commented(last_n_uri_relative_path_parts(workspaces, filepath, 2))}"

