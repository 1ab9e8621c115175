"""Continue's timing rules, read in continuedev/continue.

- Debounce: `debounceDelay` (core/util/parameters.ts DEFAULT_AUTOCOMPLETE_OPTS, 350 ms since
  7d50efe8a9, 2024-02-01, before every modelled release). Until 42cdb7f845 (2025-05-12) a
  leading one (CompletionProvider.ts, from 176c50210d core/autocomplete/util/
  AutocompleteDebouncer.ts): a keystroke after a quiet debounceDelay asks at once and opens a
  window that each later keystroke extends; one inside it waits debounceDelay and asks only if
  no keystroke came meanwhile. From then on a fixed wait after each keystroke, a later one
  superseding it (AutocompleteDebouncer.ts @b238c1f11f).
- Cancel: the VS Code extension aborts the call's signal when VS Code cancels the provider's
  token on the next keystroke (extensions/vscode/src/autocomplete/completionProvider.ts,
  `token.onCancellationRequested(() => abortController.abort())`, since 805e002fc7, 2024-03-12),
  and that call shows nothing. The request itself belongs to core's GeneratorReuseManager
  (core/autocomplete/generation/GeneratorReuseManager.ts): it goes on until a later call that
  cannot reuse it sends its own (then it is aborted), and a call whose text before the cursor
  its answer goes on from reads it instead of asking (replay/editors/continue_/live.py).
- Timeout: none that drops the answer; what bounds time is in the completion stage and modelled
  there (replay/editors/continue_/rules.py): showWhateverWeHaveAtXMs stops reading the stream
  after the first line read past its limit once a non-blank line was read (`shown_by_ms`: 250
  ms, then the option, 300 by default, then modelTimeout, 150; none before 2024-10-31 and under
  the 2025-01..03 PostHog flag, whose value is not known), stopAfterMaxProcessingTime
  (2025-05-19) cuts the stream at modelTimeout x 2.5 (checked every 10 chunks: not modelled).
- JetBrains releases: their client (extensions/intellij) schedules and cancels on its own; not
  modelled, so their verdicts say unknown.
- Cache: an LRU of answers by the pruned prefix (core/autocomplete/util/AutocompleteLruCache.ts,
  `useCache`, default true), served after the debounce instead of a request, also the rest of an
  answer the user typed into (the longest cached prefix the text before the cursor starts with).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.editors.continue_.completion import DEFAULT_MODEL_TIMEOUT_MS, DEFAULT_SHOW_WHATEVER_MS
from replay.editors.continue_.releases import ContinueError, era_for
from replay.editors.continue_.rules import REPO, rules_for
from replay.editors.timing import Debounce, TimingRules

NAME = "continue"
DEBOUNCE_DELAY_MS = 350.0  # core/util/parameters.ts debounceDelay


def timing(version: str | None = None, options: Mapping[str, Any] | None = None) -> TimingRules:
    """Continue's timing at `version` (a release or a day, releases.era_for) under its
    tabAutocompleteOptions `options` (debounceDelay)."""
    era = era_for(version)
    if era.label.endswith("-jetbrains"):
        raise ContinueError(f"Continue {era.label}: the JetBrains client's cancel and display timing are not modelled")
    stage = rules_for(version)
    opts = options or {}
    delay = _ms(opts.get("debounceDelay"), DEBOUNCE_DELAY_MS)
    shown_by = {"250": 250.0, "option": _ms(opts.get("showWhateverWeHaveAtXMs"), DEFAULT_SHOW_WHATEVER_MS),
                "modelTimeout": _ms(opts.get("modelTimeout"), DEFAULT_MODEL_TIMEOUT_MS)}.get(stage.show_whatever)
    cut = {"": "", "250": "the stream is read up to the first line past 250 ms (showWhateverWeHaveAtXMs)"}.get(
        stage.show_whatever, f"the stream is read up to the first line past showWhateverWeHaveAtXMs ({stage.show_whatever})")
    if stage.max_processing_time:
        cut += "; the stream is cut at modelTimeout x 2.5 (stopAfterMaxProcessingTime)"
    return TimingRules(
        editor=NAME, release=era.label or str(era.since),
        debounce=Debounce("leading" if stage.leading_debounce else "fixed", delay), cancels_in_flight=True,
        client_timeout_ms=None, shows_late=True, serves_typed=True,
        late_answer="by a later call reading the same stream, when its answer goes on from what was typed",
        cache="LRU of answers by the pruned prefix (useCache), served instead of a request, also typed into",
        sources=(f"{REPO} core/util/parameters.ts @7d50efe8a9 (debounceDelay 350)",
                 f"{REPO} core/autocomplete/util/AutocompleteDebouncer.ts @42cdb7f845 (trailing; leading before)",
                 f"{REPO} core/autocomplete/generation/GeneratorReuseManager.ts (a stream outlives its call)",
                 f"{REPO} extensions/vscode/src/autocomplete/completionProvider.ts @805e002fc7 (abort on cancel)"),
        server_cut=cut.removeprefix("; "), shown_by_ms=shown_by)


def _ms(value: Any, default: float) -> float:
    """A millisecond option of tabAutocompleteOptions, its default when unset or not a number."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float(default)
