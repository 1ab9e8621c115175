"""tabby-agent's timing rules, read in TabbyML/tabby clients/tabby-agent.

- Debounce: adaptive since 1c1cf4463 (2023-09-01, src/CompletionDebounce.ts; moved to
  src/codeCompletion/debouncer.ts by 60037fcd7, 2025-04-21, with the same rules), so for every
  modelled release (1.3.0 on): the delay is clamp(100, 1000, rate * base - estimated response
  time), rate = 3.0 - 1.5 * context score (0.5 for a trigger character that is no word
  character, 0.4 at the line's end, 0.1 when the rest of the document is non-word characters),
  base 200 ms until more than 20 typing intervals of at most 400 ms are known, then their mean
  clamped to 100..400; the estimated response time is the mean of the last 10 answers
  (codeCompletion/latencyTracker.ts). `completion.debounce.mode: "fixed"` sleeps
  `completion.debounce.interval` instead (AgentConfig.ts / config/default.ts: adaptive, 250 ms).
  A manual trigger is not debounced.
- Cancel: each new completion request aborts the one in flight (the agent's mutexAbortController
  in TabbyAgent.ts `provideCompletions`, later codeCompletion/index.ts); VS Code's inline
  completion provider also cancels the request's token on the next keystroke, which the agent
  turns into the same abort. An aborted request's answer is never shown.
- Timeout: completion.timeout (4 s) until 84f27ce67, then server.requestTimeout (2 min): the
  rule is replay/editors/tabby/rules.py's `completion_timeout`.
- Cache: a CompletionCache of answers by context hash, with forwarding contexts (the text the
  user types into a shown answer is served from it without a request; codeCompletion/cache.ts).
- Extra context: from 7205b788b the agent waits for the editor's answers to its questions
  before it fetches (in turn, then from 309edd172 at once for at most 500 ms):
  replay/editors/tabby/extra_context.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from replay.editors.tabby.rules import completion_timeout, timeout_defaults
from replay.editors.tabby.version import tabby_version
from replay.editors.timing import Debounce, TimingRules

NAME = "tabby"
_SRC = "TabbyML/tabby clients/tabby-agent/src/"

# The adaptive debouncer's constants (codeCompletion/debouncer.ts `rules`), unchanged since 1c1cf4463.
BASE_INTERVAL_MS = 200.0
RATE_MIN, RATE_MAX = 1.5, 3.0
DELAY_MIN_MS, DELAY_MAX_MS = 100.0, 1000.0
WEIGHT_TRIGGER, WEIGHT_LINE_END, WEIGHT_DOC_END = 0.5, 0.4, 0.1
_WORD = re.compile(r"\w", re.ASCII)


def _clamp(low: float, high: float, value: float) -> float:
    return max(low, min(high, value))


def adaptive_delay_ms(trigger_character: str, line_end: bool, document_end: bool,
                      base_interval_ms: float = BASE_INTERVAL_MS, estimated_response_ms: float = 0.0) -> float:
    """The adaptive debouncer's delay for one keystroke (debouncer.ts `debounce`,
    `calcContextScore`): `trigger_character` is the last character of the line before the
    cursor ("" at its start; JavaScript's /^\\W*$/ holds for it, as for any non-word character)."""
    score = (WEIGHT_TRIGGER if not _WORD.search(trigger_character) else 0.0)
    score += WEIGHT_LINE_END if line_end else 0.0
    score += WEIGHT_DOC_END if document_end else 0.0
    rate = RATE_MAX - (RATE_MAX - RATE_MIN) * _clamp(0.0, 1.0, score)
    return _clamp(DELAY_MIN_MS, DELAY_MAX_MS, rate * base_interval_ms - estimated_response_ms)


def debounce(options: Mapping[str, Any] | None = None) -> Debounce:
    """The debounce the agent's config gives (`completion.debounce.mode` / `.interval`, dotted keys)."""
    opts = options or {}
    if opts.get("completion.debounce.mode") == "fixed":
        return Debounce("fixed", float(opts.get("completion.debounce.interval", 250)))
    return Debounce("adaptive", DELAY_MIN_MS, DELAY_MAX_MS)


def timing(version: str | None = None, options: Mapping[str, Any] | None = None) -> TimingRules:
    """tabby-agent's timing at `version` (a Tabby version spec, tabby/version.py), under the
    agent config `options` (dotted keys) over its defaults."""
    state = tabby_version(version).agent
    timeouts = {**timeout_defaults(state), **{k: v for k, v in (options or {}).items() if k in timeout_defaults(state)}}
    return TimingRules(
        editor=NAME, release=state.label, debounce=debounce(options), cancels_in_flight=True,
        client_timeout_ms=completion_timeout(state, timeouts) * 1000, shows_late=False,
        late_answer="never: the next request aborts the one in flight (mutexAbortController)",
        cache="answers by context hash, and the text typed into a shown answer (forwarding contexts)",
        serves_typed=True,
        sources=(_SRC + "codeCompletion/debouncer.ts @1c1cf4463 (adaptive debounce)",
                 _SRC + "codeCompletion/index.ts (mutexAbortController, CompletionCache)",
                 _SRC + "TabbyAgent.ts, AgentConfig.ts @84f27ce67 (completion.timeout -> server.requestTimeout)"))
