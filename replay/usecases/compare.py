"""Paired comparison of two runs (or two files of scored pairs) on the same items: what
`fimreplay compare A B` prints and `report A B` and the TUI's Runs screen show."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay.reports.compare import Paired, paired
from replay.reports.confidence_sequences import DEFAULT_METHOD, METHODS
from replay.reports.sequential import Sequential, sequential
from replay.errors import UsageError
from replay.latency import Speed
from replay.reports.timing import IN_TIME_MEANS, time_json
from replay.usecases.timing import RunTime, run_time
from replay.scoring import HEADLINE, METRIC_NAMES, Lines, ReferenceKind, ScoredItem, Text
from replay.store import Store
from replay.usecases.base import Say

__all__ = ["LOGGED", "METRIC_NAMES", "Comparison", "compare", "compare_sequential", "logged_rows"]


@dataclass(frozen=True)
class Comparison:
    """B against A: the sources, what was scored, and the figures — paired over every item
    (`compare`), or file by file until decided (`compare_sequential`) — with each run's time and
    in-time score beside them (`in_time_paired`: the figures are of the in-time scores)."""

    a: str
    b: str
    text: str  # "shown", "raw", or "given" for a file of pairs
    lines: Lines
    result: Paired | Sequential
    times: tuple[RunTime | None, RunTime | None] = (None, None)  # A's and B's time (runs only)
    in_time_paired: bool = False

    def to_json(self) -> dict[str, Any]:
        return {**self.result.to_json(), "a": self.a, "b": self.b, "text": self.text, "lines": self.lines,
                "in_time_paired": self.in_time_paired,
                "latency": {side: time_json(t.latency if t else None) for side, t in zip("ab", self.times)},
                "in_time": {side: t.in_time.to_json() if t and t.in_time else None for side, t in zip("ab", self.times)}}

    def summary(self) -> str:
        """The comparison's verdict, then each run's time and in-time score beside it."""
        head = f"in-time scores ({IN_TIME_MEANS}): " if self.in_time_paired else ""
        lines = [f"{name}: {text}" for name, t in zip((self.a, self.b), self.times) if t is not None for text in t.lines()]
        return head + self.result.summary(self.a, self.b) + "".join(f"\n{line}" for line in lines)


def run_times(store: Store, sides: tuple[tuple[str, SourceRows], tuple[str, SourceRows]], lines: Lines, seed: int,
              speed: Speed | None, budget_ms: float | None) -> tuple[RunTime | None, RunTime | None]:
    """A's and B's time, each when it is a run of the store (a file of pairs, or what the editor
    logged, has none)."""
    def one(source: str, side: SourceRows) -> RunTime | None:
        if side.text in ("given", "logged") or store.run(source) is None:
            return None
        return run_time(store, source, side.rows, lines, seed, speed, budget_ms)

    return one(*sides[0]), one(*sides[1])


def _in_time_sides(side_a: SourceRows, side_b: SourceRows, times: tuple[RunTime | None, RunTime | None],
                   asked: bool) -> tuple[SourceRows, SourceRows]:
    """The sides to pair: as scored, or (asked) each run's items as the user saw them in time."""
    if not asked:
        return side_a, side_b
    if any(t is None or t.in_time is None for t in times):
        raise UsageError("--in-time compares two runs whose answers were timed (a file of pairs or the logged "
                         "completions has no time)")
    seen = [SourceRows(t.in_time.rows, side.text, side.not_scored)  # type: ignore[union-attr]
            for side, t in zip((side_a, side_b), times)]
    return seen[0], seen[1]


@dataclass(frozen=True)
class SourceRows:
    """One side of a comparison: its scored items, which text they are of, and the items it
    could not score (a run's item id, or a file's file:line, each with its reason)."""

    rows: list[ScoredItem]
    text: str
    not_scored: dict[str, str]


def source_rows(store: Store, source: str, lines: Lines, text: Text, warn: Say | None = None,
                reference: ReferenceKind = "typed") -> SourceRows:
    """The scored items of a run in the store (its stored scores when complete, as `report`
    reads them), or of a `score` JSONL file (bad lines to its rejects file); and which text."""
    from replay.scoring import scored_run
    from replay.usecases.score import file_rows

    path = Path(source)
    if path.is_file():
        rows, _, _, found = file_rows(path, lines, warn)
        return SourceRows(rows, "given", {r.where: r.reason for r in found})
    if store.run(source) is not None:
        scores = scored_run(store, source, text, lines, reference=reference).scores
        return SourceRows(scores.rows, text, {r.where.partition(":")[2]: r.reason for r in scores.rejects})
    raise UsageError(f"{source}: neither a JSONL file nor a run in {store.path}")


def _both(store: Store, a: str, b: str, metric: str, lines: Lines, text: Text, warn: Say | None,
          reference: ReferenceKind = "typed") -> tuple[SourceRows, SourceRows, str]:
    """A's and B's scored items, and which text they are of (`b` "logged": the completions
    the editor logged of A's captures, scored against the same references)."""
    if metric not in METRIC_NAMES:
        raise UsageError(f"unknown metric {metric!r} (one of {', '.join(METRIC_NAMES)})")
    side_a = source_rows(store, a, lines, text, warn, reference)
    side_b = logged_rows(store, a, lines, reference) if b == LOGGED else source_rows(store, b, lines, text, warn, reference)
    return side_a, side_b, side_a.text if side_a.text == side_b.text else f"{side_a.text} vs {side_b.text}"


LOGGED = "logged"  # `compare RUN --against logged`: the completions the editor logged, as the other side


def compare(store: Store, a: str, b: str, metric: str = HEADLINE, lines: Lines = "auto", text: Text = "shown",
            seed: int = 0, warn: Say | None = None, reference: ReferenceKind = "typed", speed: Speed | None = None,
            budget_ms: float | None = None, in_time: bool = False) -> Comparison:
    """B − A on `metric`, items paired by id (see replay.reports.compare for the statistics).
    `b` LOGGED compares run `a` with the completions its captures' editor logged: the run is
    then the B side (the replay against what the user was shown). Each run's time and in-time
    score beside it (measured, or at `speed`; judged by `budget_ms` or the editor's rules);
    `in_time` pairs the in-time scores instead of the scores."""
    side_a, side_b, which = _both(store, a, b, metric, lines, text, warn, reference)
    if b == LOGGED:
        side_a, side_b, a, b = side_b, side_a, LOGGED, a
    times = run_times(store, ((a, side_a), (b, side_b)), lines, seed, speed, budget_ms)
    side_a, side_b = _in_time_sides(side_a, side_b, times, in_time)
    not_scored = {**{f"a:{k}": v for k, v in side_a.not_scored.items()}, **{f"b:{k}": v for k, v in side_b.not_scored.items()}}
    if b == a or a == LOGGED:  # the same items on both sides: one not scored is counted once
        not_scored = {k.partition(":")[2]: v for k, v in not_scored.items()}
    return Comparison(a, b, which, lines, paired(side_a.rows, side_b.rows, metric, seed=seed, not_scored=not_scored),
                      times, in_time)


def logged_rows(store: Store, run_id: str, lines: Lines, reference: ReferenceKind = "typed") -> SourceRows:
    """The completions the editor logged of the captures a run replayed, each scored against
    the reference the run's completion is scored against (replay.scoring.capture_reference):
    what the user was shown then, as the other side of a comparison with the replay. A
    capture whose log holds no completion, or that has no reference, is not scored."""
    from replay.scoring import CaptureReferences, score_rows

    if store.run(run_id) is None:
        raise UsageError(f"{run_id}: --against logged compares a run of the store ({store.path} holds none of that id)")
    pairs, not_scored = [], {}
    references = CaptureReferences(store, reference)
    for item_id, ref in store.run_references(run_id).items():
        if ref.kind != "capture":
            not_scored[item_id] = "a benchmark item: no editor logged a completion of it"
            continue
        rec = store.capture(ref.capture_id)
        found, why = references.of(ref.capture_id, rec)
        if found is None or rec is None:
            not_scored[item_id] = why
        elif rec.completion is None:
            not_scored[item_id] = f"the {rec.editor} log holds no completion of this capture"
        else:
            pairs.append((item_id, found[0], found[1], found[2].text, rec.completion))
    return SourceRows(score_rows(pairs, lines), "logged", not_scored)


def check_sequential(alpha: float, margin: float | None, method: str = DEFAULT_METHOD) -> None:
    """An alpha in (0, 1), a margin in (0, 1] and a known method."""
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must lie between 0 and 1, got {alpha}")
    if margin is not None and not 0 < margin <= 1:
        raise UsageError(f"--margin must lie in (0, 1], got {margin}")
    if method not in METHODS:
        raise UsageError(f"unknown --method {method!r} (one of {', '.join(METHODS)})")


def compare_sequential(store: Store, a: str, b: str, metric: str = HEADLINE, lines: Lines = "auto",
                       text: Text = "shown", alpha: float = 0.05, margin: float | None = None, seed: int = 0,
                       warn: Say | None = None, method: str = DEFAULT_METHOD, reference: ReferenceKind = "typed",
                       speed: Speed | None = None, budget_ms: float | None = None, in_time: bool = False) -> Comparison:
    """B − A on `metric` as an anytime-valid sequential comparison (replay.reports.sequential):
    the files in a seeded order, stopped at the first look that decides (`in_time`: of the
    in-time scores, as `compare`)."""
    check_sequential(alpha, margin, method)
    side_a, side_b, which = _both(store, a, b, metric, lines, text, warn, reference)
    if b == LOGGED:
        side_a, side_b, a, b = side_b, side_a, LOGGED, a
    times = run_times(store, ((a, side_a), (b, side_b)), lines, seed, speed, budget_ms)
    side_a, side_b = _in_time_sides(side_a, side_b, times, in_time)
    return Comparison(a, b, which, lines, sequential(side_a.rows, side_b.rows, metric, alpha, margin, seed, method),
                      times, in_time)

