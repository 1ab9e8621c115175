"""What Copilot's client carries from one completion request to the next, within one session.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/; checked
against chat-lib 0.66.0's compiled dist):
- lib/src/prompt/components/currentFile.tsx `AfterCursor`: the suffix of the previous request is
  reused when the new one differs little: their first tokens (o200k, of the first 50) are equal
  and the edit distance of those tokens (prompt/src/suffixMatchCriteria.ts
  `findEditDistanceScore`) is under 10% (DEFAULT_SUFFIX_MATCH_THRESHOLD) of the new suffix's
  token count (since 0836ed053, 2026-02-16: before it, no first-token check).
- lib/src/ghostText/completionsCache.ts + ghostText.ts `getLocalInlineSuggestion`: every
  choice received is kept under the request's prefix (the text before the cursor, trailing
  blanks of a blank last line removed) and sent suffix; a later request whose prefix extends a
  kept one by text the kept choice starts with (and goes beyond), with the same suffix, is
  answered from it and sends nothing. current.ts `getCompletionsForUserTyping` (the item on
  screen, typed as suggested) answers the same requests, so it is not modelled separately.
- ghostText/completionsFromNetwork.ts `postProcessChoices`: a choice is kept with its trailing
  whitespace trimmed, not at all when that leaves nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from replay.editors.copilot import tokens

MAX_EDIT_DISTANCE_LENGTH = 50
SUFFIX_MATCH_THRESHOLD = 10


def edit_distance(a: list[int], b: list[int]) -> int:
    """Levenshtein distance between two token lists: suffixMatchCriteria.ts
    `findEditDistanceScore` fills its table without the empty row and column, with the same
    result (checked against it under node)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


@dataclass
class ClientState:
    """One session's state: the suffix AfterCursor holds, and the completions cache."""

    cached_suffix: str = ""
    cache: list[tuple[str, str, str]] = field(default_factory=list)  # (prefix, suffix, completion text)

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

    def cached(self, prefix: str, suffix: str) -> bool:
        """Would the client answer this request from its cache (and send nothing)?"""
        for key, kept_suffix, text in self.cache:
            if kept_suffix == suffix and prefix.startswith(key):
                typed = prefix[len(key):]
                if text.startswith(typed) and len(text) > len(typed):
                    return True
        return False

    def remember(self, prefix: str, suffix: str, received: str) -> None:
        text = received.rstrip()
        if text:
            self.cache.append((prefix, suffix, text))
