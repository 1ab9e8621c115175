"""tabby-agent's adaptive debounce through a session: the CompletionDebouncer and the
LatencyTracker it reads (TabbyML/tabby clients/tabby-agent/src/codeCompletion/debouncer.ts and
latencyTracker.ts; src/CompletionDebounce.ts from 1c1cf4463 with the same rules), fed by the
keystrokes and answers of the session (replay/editors/timed_client.py's Debouncer).

- Every automatic call is debounced, a cached answer too (codeCompletion/index.ts: "Debounce
  before continue processing cached solution"), but only a call that fetches passes the
  estimated response time: the mean of the last 10 answers' latencies (a timeout counts as NaN,
  left out of the mean). With no answer yet the mean is 0/0, NaN, and so is the delay; Node's
  setTimeout runs a NaN delay after 1 ms: the first request goes out at once.
- The base interval: 200 ms until more than 20 intervals between calls of at most 400 ms are
  known (the last 100), then their mean clamped to 100..400; the delay
  clamp(100, 1000, rate x base - response time), rate by the context (timing.adaptive_delay_ms):
  the last character of the line before the cursor, whether the rest of the line is a line end
  (the release's completion context, context.py), whether the rest of the document has no word
  character (/^\\W*$/ on the context's suffix).
- `completion.debounce.mode: "fixed"` sleeps `completion.debounce.interval` instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from replay.editors.live import Doc
from replay.editors.tabby.context import CompletionContext
from replay.editors.tabby.releases import AgentState
from replay.editors.tabby.timing import BASE_INTERVAL_MS, adaptive_delay_ms, debounce

NODE_NAN_DELAY_MS = 1.0  # setTimeout with a NaN delay (Node: "set to 1")
LATENCY_WINDOW = 10  # LatencyTracker windowSize
INTERVALS_MIN, INTERVALS_MAX, INTERVAL_LONGEST = 20, 100, 400.0  # baseIntervalSlideWindowAvg minSize, maxSize, max
BASE_MIN, BASE_MAX = 100.0, 400.0  # baseIntervalSlideWindowAvg min, max
_NON_WORD = re.compile(r"[^A-Za-z0-9_]*")  # JavaScript's /^\W*$/ (no u flag: ASCII word characters)


class AdaptiveDebouncer:
    """One agent's debouncer and latency tracker across the keystrokes of a session."""

    def __init__(self, state: AgentState, options: Mapping[str, Any] | None = None) -> None:
        self.state = state
        self.rule = debounce(options)
        self.base = BASE_INTERVAL_MS
        self.last_call: float | None = None
        self.intervals: list[float] = []
        self.latencies: list[float] = []

    def delay(self, doc: Doc, now_ms: float, cached: bool, last_sent_ms: float | None) -> float:
        """`debounce(context)` for the call at `now_ms`; a call that fetches (not `cached`) passes
        the estimated response time."""
        if self.rule.mode == "fixed":
            return self.rule.min_ms
        if self.last_call is not None:  # lastTimestamp starts at 0: the first interval is too long to count
            self._interval(now_ms - self.last_call)
        self.last_call = now_ms
        context = CompletionContext.of(doc.prefix, doc.suffix, state=self.state)
        response = 0.0 if cached else self._mean_latency()
        if math.isnan(response):
            return NODE_NAN_DELAY_MS
        return adaptive_delay_ms(context.current_line_prefix[-1:], context.mode == "default",
                                 _NON_WORD.fullmatch(context.suffix) is not None, self.base, response)

    def answered(self, latency_ms: float | None) -> None:
        """LatencyTracker.add: the answer's latency, NaN for a timeout, the last 10 kept."""
        self.latencies.append(math.nan if latency_ms is None else latency_ms)
        del self.latencies[:-LATENCY_WINDOW]

    def _mean_latency(self) -> float:
        answers = [v for v in self.latencies if not math.isnan(v)]
        return sum(answers) / len(answers) if answers else math.nan

    def _interval(self, interval: float) -> None:
        """updateBaseInterval."""
        if interval > INTERVAL_LONGEST:
            return
        self.intervals.append(interval)
        del self.intervals[:-INTERVALS_MAX]
        if len(self.intervals) > INTERVALS_MIN:
            self.base = max(BASE_MIN, min(BASE_MAX, sum(self.intervals) / len(self.intervals)))
