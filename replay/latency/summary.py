"""A run's latency figures: the median and 90th percentile of the time to the first token and to
the whole answer, the tokens read and generated, and the share of the judged answers the editor
would have shown in time, measured or at a stated speed."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import msgspec

from replay.latency.rules import rules_for
from replay.latency.speed import Speed
from replay.latency.verdict import IN_TIME, LATE, TIMED_OUT, UNKNOWN, verdict
from replay.reading import TimedCompletion


class LatencySummary(msgspec.Struct, frozen=True):
    """What `--json` adds as `latency`: `n` answers timed (errors, requests the editor never sent
    and completions stored without their time left out), seconds (p50/p90) to the first token and to the whole answer, the mean
    prompt and generated tokens, the verdict counts and `shown_in_time` = in_time over the
    judged ones (in time, late or timed out; None when none was judged), `speed` the stated
    speed the times were projected at ("" : measured), `unknown_reasons` each reason's count."""

    n: int
    ttft_p50_s: float | None
    ttft_p90_s: float | None
    total_p50_s: float | None
    total_p90_s: float | None
    prompt_tokens_mean: float | None
    gen_tokens_mean: float | None
    in_time: int
    late: int
    timed_out: int
    unknown: int
    shown_in_time: float | None
    speed: str = ""
    unknown_reasons: dict[str, int] = {}


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile by the nearest rank (a value that occurred, as latency reports give)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def summarize(timed: Sequence[TimedCompletion], speed: Speed | None = None) -> LatencySummary:
    """The figures of a run's timed completions, measured or projected at `speed`."""
    answered = [t for t in timed if t.answered and t.total_s > 0]
    times = [speed.project(t) if speed else (t.ttft_s, t.total_s) for t in answered]
    outcomes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for done, (first, total) in zip(answered, times):
        found = verdict(total, done.gap_s, rules_for(done.stage), first)
        outcomes[found.outcome] += 1
        if found.outcome == UNKNOWN:
            reasons[found.reason] += 1
    judged = outcomes[IN_TIME] + outcomes[LATE] + outcomes[TIMED_OUT]
    mean = (lambda xs: round(sum(xs) / len(xs), 1) if xs else None)  # noqa: E731
    rounded = (lambda x: None if x is None else round(x, 4))  # noqa: E731
    return LatencySummary(
        n=len(answered), ttft_p50_s=rounded(percentile([f for f, _ in times], 50)),
        ttft_p90_s=rounded(percentile([f for f, _ in times], 90)),
        total_p50_s=rounded(percentile([t for _, t in times], 50)), total_p90_s=rounded(percentile([t for _, t in times], 90)),
        prompt_tokens_mean=mean([t.prompt_tokens for t in answered]), gen_tokens_mean=mean([t.gen_tokens for t in answered]),
        in_time=outcomes[IN_TIME], late=outcomes[LATE], timed_out=outcomes[TIMED_OUT], unknown=outcomes[UNKNOWN],
        shown_in_time=round(outcomes[IN_TIME] / judged, 4) if judged else None, speed=speed.label() if speed else "",
        unknown_reasons=dict(reasons.most_common()))


def columns(summary: LatencySummary) -> dict[str, str]:
    """The figures as a table's cells: `p50 ms`, `p90 ms`, `in time` (the share, with how many were judged)."""
    ms = (lambda s: "-" if s is None else f"{s * 1000:.0f}")  # noqa: E731
    judged = summary.in_time + summary.late + summary.timed_out
    share = "-" if summary.shown_in_time is None else f"{summary.shown_in_time:.0%} of {judged}"
    return {"p50 ms": ms(summary.total_p50_s), "p90 ms": ms(summary.total_p90_s), "in time": share}
