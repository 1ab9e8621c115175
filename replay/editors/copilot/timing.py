"""Copilot's timing rules for the modelled client, `@vscode/chat-lib` 0.66.0 (microsoft/
vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/, checked against the
package's compiled dist): what is the client's. VS Code's own scheduling of inline completion
calls (its InlineCompletionsModel) sits above it and is not part of chat-lib: not modelled. A
session runs them step by step in the client's own call (live.py), with the state it carries.

- Debounce: ghostText/ghostText.ts `getRemainingDebounceMs`: the `completionsDebounce` setting,
  else the `copilotcompletionsdebounce` experiment variable, else the caller's `debounceMs`;
  none of them set by default, so no debounce.
- Cancel: a request is issued with its own cancellation source (ghostText/asyncCompletions.ts);
  a later request cancels it only when it no longer matches (the text typed since is not a start
  of what it may complete, `cancelRequest`); a matching one is waited for, at most
  `asyncCompletionsTimeout` ms (experiments/features.ts: 200 by default), and its answer is
  served from the point the user has typed to (`getFirstMatchingRequest`). So an answer that
  comes after the user typed on is still shown when the typing matches its start. When it does
  not match, or the wait times out, the waiting call issues its own request then (ghostText.ts:
  the wait comes before the fetch); a document change meanwhile (VS Code cancels the call's token)
  leaves it unsent (`abortedBeforeIssued`).
- Hold: ghostText/ghostText.ts returns no choice (but one typed as suggested, or cycling) before
  `completionsDelay` ms (experiments/features.ts: 200 by default; the `completionsDelay` setting
  unset) after the call was issued, and drops it if the call is cancelled meanwhile.
- Timeout: none on the completion itself.
- Cache: the completions cache (a radix trie of past choices, ghostText/completionsCache.ts,
  modelled in completions_cache.py) and, after a shown item, a speculative request for the text
  after it is accepted (ghostText/speculativeRequestCache.ts, run from inlineCompletion.ts when
  the host reports the item shown).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.editors.copilot.profile import CHAT_LIB
from replay.editors.rulebook import UnknownRelease
from replay.editors.timing import Debounce, TimingRules

NAME = "copilot"
ASYNC_COMPLETIONS_TIMEOUT_MS = 200  # experiments/features.ts asyncCompletionsTimeout default
COMPLETIONS_DELAY_MS = 200  # experiments/features.ts completionsDelay default
_LIB = "microsoft/vscode-copilot-chat src/extension/completions-core/vscode-node/lib/src/"


def timing(version: str | None = None, options: Mapping[str, Any] | None = None) -> TimingRules:
    """chat-lib 0.66.0's timing (the one release the copilot profile models); `options` may set
    the client's `completionsDebounce` (ms)."""
    if version not in (None, "", CHAT_LIB):
        raise UnknownRelease(f"the copilot profile models chat-lib {CHAT_LIB} only, not {version!r}")
    ms = (options or {}).get("completionsDebounce")
    fixed = isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms > 0
    return TimingRules(
        editor=NAME, release=CHAT_LIB, debounce=Debounce("fixed", float(ms)) if fixed else Debounce("none"), cancels_in_flight=False, client_timeout_ms=None,
        shows_late=True,
        late_answer=(f"a later request waits up to {ASYNC_COMPLETIONS_TIMEOUT_MS} ms for one in flight whose answer may "
                     "still match, and shows it from where the user has typed to when its start matches"),
        cache="completions cache (radix trie of past choices); a speculative request for the text after a shown item",
        serves_typed=True, match_wait_ms=ASYNC_COMPLETIONS_TIMEOUT_MS, shown_after_ms=COMPLETIONS_DELAY_MS,
        sources=(_LIB + "ghostText/ghostText.ts (getRemainingDebounceMs)",
                 _LIB + "ghostText/asyncCompletions.ts (getFirstMatchingRequestWithTimeout, cancelRequest, isCandidate)",
                 _LIB + "ghostText/ghostText.ts (shouldWaitForAsyncCompletions before issuing; abortedBeforeIssued)",
                 _LIB + "ghostText/ghostText.ts (completionsDelay: remainingDelay before returning)",
                 _LIB + "experiments/features.ts (asyncCompletionsTimeout 200, completionsDelay 200)"))
