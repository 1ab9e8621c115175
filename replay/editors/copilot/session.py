"""What Copilot's client carries from one completion request to the next, within one session.
A `render` session takes each cursor's answer as known when the next cursor comes (ClientState
.answer); a typing session in time (live.py) runs the calls themselves on the same state, with
the async manager's pending requests and the speculative request on top.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/; checked
against chat-lib 0.66.0's compiled dist):
- lib/src/prompt/components/currentFile.tsx `AfterCursor`: the suffix of the previous request is
  reused when the new one differs little: their first tokens (o200k, of the first 50) are equal
  and the edit distance of those tokens (prompt/src/suffixMatchCriteria.ts
  `findEditDistanceScore`) is under 10% (DEFAULT_SUFFIX_MATCH_THRESHOLD) of the new suffix's
  token count (since 0836ed053, 2026-02-16: before it, no first-token check).
- ghostText/ghostText.ts `getLocalInlineSuggestion`: a request is answered locally, and sends
  nothing, by the item on screen typed as suggested (current.ts `getCompletionsForUserTyping`:
  the post-processed choices of the last request answered from the network, the cache or the
  async manager, `setGhostText`; its first choice must start with what was typed since and go
  beyond it), then by the completions cache (completions_cache.py: every choice received, as
  completionsFromNetwork.ts `postProcessChoices` leaves it after the stream's cut, and the
  statement splitter's later parts, by prefix and prompt suffix, found along one path of a radix
  trie, the longest kept prefix first); when neither has a choice, by the first completed
  request whose choice goes on from here (asyncCompletions.ts). A cache or async choice is cut
  to one line for a single-line request. The item such a line shows: answer.py `local`. So
  after an item, each line typed as it was shown (Enter, the next line's indentation, its first
  characters) is answered by the item on screen, or, once another item has replaced it, by the
  cached choice that goes on from there.
- current.ts `hasAcceptedCurrentCompletion`: what was typed since the item on screen is its
  first choice, whole: the next request is made as after an accept (request.py `after_accept`).
  ghostText.ts calls `setGhostText` only for a result with a choice: a request whose stream
  gave none (nothing left once trimmed) leaves the item on screen as it was, so asking again at
  the end of an accepted item is again a request after an accept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rapidfuzz.distance import Levenshtein

from replay.editors.copilot import answer, request, tokens
from replay.editors.copilot import layout as lay
from replay.editors.copilot.answer import Choice
from replay.editors.copilot.completions_cache import CompletedRequests, CompletionsCache
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
    return [c.rest(c.text[len(typed):]) for c in choices if c.text.startswith(typed) and len(c.text) > len(typed)]


def one_line(choice: Choice, multiline: bool) -> Choice:
    """A cache or async choice as a single-line request takes it (completionsFromNetwork.ts
    makeGhostAPIChoice with forceSingleLine)."""
    return choice if multiline else choice.rest(answer.force_single_line(choice.text))


@dataclass
class ClientState:
    """One session's state: the suffix AfterCursor holds, the completions cache, the completed
    requests the async manager holds, the item on screen (prefix, suffix, choices), and the
    lookup that answered the current request locally."""

    cached_suffix: str = ""
    cache: CompletionsCache = field(default_factory=CompletionsCache)
    completed: CompletedRequests = field(default_factory=CompletedRequests)
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
        """completionsCache.ts findAll (completions_cache.py)."""
        return self.cache.find(prefix, suffix)

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

    def from_async(self, prefix: str, suffix: str) -> list[Choice]:
        """asyncCompletions.ts: the first completed request's choice that goes on from here."""
        found = self.completed.first_match(prefix, suffix)
        return [found] if found is not None else []

    def local_choices(self, prefix: str, suffix: str, multiline: bool) -> list[tuple[str, Choice]]:
        """ghostText.ts getLocalInlineSuggestion: (where from, choice) for the choices typed as
        suggested, then the cache's not among them, cut to one line for a single-line request
        (none typed as suggested: the cache's are the result, ResultType.Cache)."""
        typing = self.from_typing(prefix, suffix)
        cache = [one_line(c, multiline) for c in self.from_cache(prefix, suffix)]
        return ([("getCompletionsForUserTyping", c) for c in typing]
                + [("getCompletionsFromCache", c) for c in cache if all(c.text != t.text for t in typing)])

    def cached(self, prefix: str, suffix: str, multiline: bool = False) -> bool:
        """Would the client answer this request locally (and send nothing)? `multiline` is the
        request's decision (a cached choice is cut to one line for a single-line one)."""
        found = bool(self.from_typing(prefix, suffix) or self.from_cache(prefix, suffix) or self.from_async(prefix, suffix))
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
                self.cache.append(prefix, body["suffix"], choice)
                if body["n"] == 1:  # ghostText.ts queues only a request that is not cycling
                    self.completed.add(prefix, body["suffix"], choice)
                processed = answer.in_context(inp, steps, choice.chunks_on_arrival)
            for added, part in parts:  # the statement splitter's later parts
                self.cache.append(prefix + added, body["suffix"], part)
            if choice is not None:  # a stream that gave no choice is an empty result: the item on screen stays
                self.current = (prefix, body["suffix"], [choice.rest(processed)] if processed else [])
            return answer.item(inp, steps, multiline)
        if lookup is None:
            return Shown(text=None, multiline=False)
        suffix, multiline = lookup
        candidates = self.local_choices(prefix, suffix, multiline)
        typing = any(source == "getCompletionsForUserTyping" for source, _ in candidates)
        if not candidates:
            candidates = [("AsyncCompletionManager", one_line(c, multiline)) for c in self.from_async(prefix, suffix)]
        shown, processed = answer.local(inp, candidates, multiline)
        if processed and not typing:
            self.current = (prefix, suffix, processed)
        return shown
