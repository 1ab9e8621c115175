"""A run's latency figures: the median and 90th percentile of the time to the first token and to
the whole answer, the tokens read and generated, and the share of the judged answers the editor
would have shown in time, measured or at a stated speed; and which answers were not shown in
time (late or timed out), which the in-time score counts as nothing shown.

Under a latency budget (`--latency-budget MS`) the budget judges every answer instead of the
editor's timing rules: an answer whose whole text took longer than the budget was not shown, one
within it was. The budget is a what-if on the user's patience, so it needs no later keystroke
and judges a benchmark item too, where the editor's rules leave every answer unknown."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import msgspec

from replay.latency.rules import rules_for
from replay.latency.speed import Speed
from replay.latency.verdict import IN_TIME, LATE, TIMED_OUT, UNKNOWN, Verdict, verdict
from replay.reading import TimedCompletion


class LatencySummary(msgspec.Struct, frozen=True):
    """What `--json` adds as `latency`: `n` answers timed (errors, requests the editor never sent
    and completions stored without their time left out), seconds (p50/p90) to the first token and to the whole answer, the mean
    prompt and generated tokens, the verdict counts and `shown_in_time` = in_time over the
    judged ones (in time, late or timed out; None when none was judged), `speed` the stated
    speed the times were projected at ("" : measured), `unknown_reasons` each reason's count,
    `budget_ms` the latency budget the verdicts were judged by (None: the editor's rules)."""

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
    budget_ms: float | None = None

    @property
    def judged_by(self) -> str:
        """What the in-time verdicts were judged by, as the reports say it."""
        if self.budget_ms is not None:
            return f"a {self.budget_ms:g} ms budget on the whole answer (instead of the editor's timing rules)"
        return "the editor's timing rules against the user's next keystroke"


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile by the nearest rank (a value that occurred, as latency reports give)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def budget_verdict(total_s: float, budget_ms: float) -> Verdict:
    """An answer judged by a latency budget alone: in time when its whole text came within it."""
    if total_s * 1000 <= budget_ms:
        return Verdict(IN_TIME)
    return Verdict(LATE, f"over the {budget_ms:g} ms budget")


def judgements(timed: Sequence[TimedCompletion], speed: Speed | None = None, budget_ms: float | None = None
           ) -> list[tuple[TimedCompletion, tuple[float, float], Verdict]]:
    """Each answered completion with its (first token, whole answer) seconds, measured or at
    `speed`, and its verdict: by the budget when given, else by its editor release's rules.
    Errors, requests never sent and completions stored without their time are left out."""
    answered = [t for t in timed if t.answered and t.total_s > 0]
    out = []
    for done in answered:
        first, total = speed.project(done) if speed else (done.ttft_s, done.total_s)
        found = (budget_verdict(total, budget_ms) if budget_ms is not None
                 else verdict(total, done.gap_s, rules_for(done.stage), first))
        out.append((done, (first, total), found))
    return out


def not_shown(timed: Sequence[TimedCompletion], speed: Speed | None = None, budget_ms: float | None = None) -> frozenset[str]:
    """The items whose answer the editor would not have shown in time (late or timed out): what
    the in-time score counts as nothing shown. An unknown verdict is not counted against a model."""
    return frozenset(done.item_id for done, _, found in judgements(timed, speed, budget_ms) if found.outcome in (LATE, TIMED_OUT))


def summarize(timed: Sequence[TimedCompletion], speed: Speed | None = None, budget_ms: float | None = None) -> LatencySummary:
    """The figures of a run's timed completions, measured or projected at `speed`, judged by the
    editor's timing rules or by `budget_ms`."""
    found_all = judgements(timed, speed, budget_ms)
    answered = [done for done, _, _ in found_all]
    times = [t for _, t, _ in found_all]
    outcomes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for _, _, found in found_all:
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
        unknown_reasons=dict(reasons.most_common()), budget_ms=budget_ms)


def columns(summary: LatencySummary) -> dict[str, str]:
    """The figures as a table's cells: `p50 ms`, `p90 ms`, `in time` (the share, with how many were judged)."""
    ms = (lambda s: "-" if s is None else f"{s * 1000:.0f}")  # noqa: E731
    judged = summary.in_time + summary.late + summary.timed_out
    share = "-" if summary.shown_in_time is None else f"{summary.shown_in_time:.0%} of {judged}"
    return {"p50 ms": ms(summary.total_p50_s), "p90 ms": ms(summary.total_p90_s), "in time": share}


def line(summary: LatencySummary) -> str:
    """A run's time in one line, as every command prints it under its figures: the median and p90
    to the whole answer, where they come from, and the share shown in time with what judged it."""
    cells = columns(summary)
    where = f"at {summary.speed}" if summary.speed else "measured"
    budget = "" if summary.budget_ms is None else f" within {summary.budget_ms:g} ms"
    return (f"latency: p50 {cells['p50 ms']} ms, p90 {cells['p90 ms']} ms ({where}, {summary.n} answers);"
            f" shown in time{budget}: {'none' if summary.shown_in_time is None else cells['in time']} judged"
            f" ({summary.unknown} unknown)")
