"""What Copilot's client carries from one completion request to the next, within one session.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/; checked
against chat-lib 0.66.0's compiled dist):
- lib/src/prompt/components/currentFile.tsx `AfterCursor`: the suffix of the previous request is
  reused when the new one differs little: their first tokens (o200k, of the first 50) are equal
  and the edit distance of those tokens (prompt/src/suffixMatchCriteria.ts
  `findEditDistanceScore`) is under 10% (DEFAULT_SUFFIX_MATCH_THRESHOLD) of the new suffix's
  token count (since 0836ed053, 2026-02-16: before it, no first-token check).
- lib/src/ghostText/completionsCache.ts + ghostText.ts `getLocalInlineSuggestion`: every
  choice received is kept (completionsFromNetwork.ts: as `postProcessChoices` leaves it, after
  the stream's block-end cut) under the request's prefix (the text before the cursor, trailing
  blanks of a blank last line removed) and sent suffix; a later request whose prefix extends a
  kept one by text the kept choice starts with (and goes beyond), with the same suffix, is
  answered from it and sends nothing. current.ts `getCompletionsForUserTyping`: the item on
  screen (the post-processed choices of the last request answered from the network or the
  cache, `setGhostText`), typed as suggested, answers first. The item such a line shows:
  answer.py `local`. The cache is an LRU trie of 100 prefixes (helpers/radix.ts): sessions
  here are shorter, nothing is evicted.
- current.ts `hasAcceptedCurrentCompletion`: what was typed since the item on screen is its
  first choice, whole: the next request is made as after an accept (request.py `after_accept`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rapidfuzz.distance import Levenshtein

from replay.editors.copilot import answer, request, tokens
from replay.editors.copilot import layout as lay
from replay.editors.copilot.answer import Choice
from replay.editors.stage import Shown, Timing
from replay.records import EditorInput

MAX_EDIT_DISTANCE_LENGTH = 50
SUFFIX_MATCH_THRESHOLD = 10


def edit_distance(a: list[int], b: list[int]) -> int:
    """Levenshtein distance between two token lists: suffixMatchCriteria.ts
    `findEditDistanceScore` fills its table without the empty row and column, with the same
    result as rapidfuzz's (checked against it under node)."""
    return Levenshtein.distance(a, b)


def _less_typed(choices: list[Choice], typed: str) -> list[Choice]:
    """The choices that start with what was typed and go beyond it, less it."""
    return [Choice(c.text[len(typed):], c.chunks) for c in choices if c.text.startswith(typed) and len(c.text) > len(typed)]


@dataclass
class ClientState:
    """One session's state: the suffix AfterCursor holds, the completions cache (prefix -> the
    (suffix, choice) pairs kept under it, in order), the item on screen (prefix, suffix,
    choices), and the cache lookup that answered the current request locally."""

    cached_suffix: str = ""
    cache: dict[str, list[tuple[str, Choice]]] = field(default_factory=dict)
    current: tuple[str, str, list[Choice]] | None = None
    lookup: tuple[str, bool] | None = None

    def suffix(self, trimmed: str) -> str:
        """The suffix the prompt uses for this document's suffix `trimmed` (and remember it)."""
        if not trimmed:
            return ""
        use = trimmed
        if self.cached_suffix and self.cached_suffix != trimmed:
            _, new_ids = tokens.take_first(trimmed, MAX_EDIT_DISTANCE_LENGTH)
            _, old_ids = tokens.take_first(self.cached_suffix, MAX_EDIT_DISTANCE_LENGTH)
            if new_ids and old_ids and new_ids[0] == old_ids[0]:
                if 100 * edit_distance(new_ids, old_ids) < SUFFIX_MATCH_THRESHOLD * len(new_ids):
                    use = self.cached_suffix
        self.cached_suffix = use
        return use

    def from_cache(self, prefix: str, suffix: str) -> list[Choice]:
        """completionsCache.ts findAll: the longest kept prefix first."""
        found: list[Choice] = []
        for key in sorted((k for k in self.cache if prefix.startswith(k)), key=len, reverse=True):
            found += _less_typed([c for kept, c in self.cache[key] if kept == suffix], prefix[len(key):])
        return found

    def _typed(self, prefix: str, suffix: str) -> tuple[str, list[Choice]] | None:
        """What was typed since the item on screen was shown, and its choices (None: no item on
        screen, or the cursor left it: another suffix, or a prefix that does not extend its own)."""
        if self.current is None or not self.current[2] or self.current[1] != suffix or not prefix.startswith(self.current[0]):
            return None
        return prefix[len(self.current[0]):], self.current[2]

    def from_typing(self, prefix: str, suffix: str) -> list[Choice]:
        """current.ts getCompletionsForUserTyping: none unless the first choice on screen was typed as suggested."""
        if (on_screen := self._typed(prefix, suffix)) is None:
            return []
        typed, choices = on_screen
        return _less_typed(choices, typed) if _less_typed(choices[:1], typed) else []

    def accepted(self, prefix: str, suffix: str) -> bool:
        """current.ts hasAcceptedCurrentCompletion: the user typed the first item on screen
        whole (its stream ended with finish_reason "stop", as a replayed one does)."""
        on_screen = self._typed(prefix, suffix)
        return on_screen is not None and on_screen[0] == on_screen[1][0].text

    def cached(self, prefix: str, suffix: str, multiline: bool = False) -> bool:
        """Would the client answer this request locally (and send nothing)? `multiline` is the
        request's decision (a cached choice is cut to one line for a single-line one)."""
        found = bool(self.from_typing(prefix, suffix) or self.from_cache(prefix, suffix))
        self.lookup = (suffix, multiline) if found else None
        return found

    def answer(self, inp: EditorInput, body: dict[str, Any] | None, received: str | None, timing: Timing | None = None,
               model: str | None = None) -> Shown:
        """What the client shows at this cursor, whose request body is `body` (None: it sent
        none), given the text `received` for a sent request; keeps the state for the next."""
        prefix, _ = lay.trim_last_line(inp.prefix)
        lookup, self.lookup = self.lookup, None
        if body is not None:
            multiline = body["stop"] != ["\n"]
            if received is None:
                self.current = None
                return Shown(text=None, multiline=multiline)
            steps, choice, parts = answer.received(inp, received, request.stream_cut(body, inp.language or ""), timing, model)
            processed = None
            if choice is not None:
                self.cache.setdefault(prefix, []).append((body["suffix"], choice))
                processed = answer.in_context(inp, steps, choice.chunks_on_arrival)
            for added, part in parts:  # the statement splitter's later parts
                self.cache.setdefault(prefix + added, []).append((body["suffix"], part))
            self.current = (prefix, body["suffix"], [Choice(processed, choice.chunks)] if choice and processed else [])
            return answer.item(inp, steps, multiline)
        if lookup is None:
            return Shown(text=None, multiline=False)
        suffix, multiline = lookup
        typing = self.from_typing(prefix, suffix)
        cache = [c if multiline else Choice(answer.force_single_line(c.text), c.chunks) for c in self.from_cache(prefix, suffix)]
        candidates = [("getCompletionsForUserTyping", c) for c in typing]
        candidates += [("getCompletionsFromCache", c) for c in cache if all(c.text != t.text for t in typing)]
        shown, processed = answer.local(inp, candidates, multiline)
        if processed and not typing:
            self.current = (prefix, suffix, processed)
        return shown
