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
from replay.latency import LatencySummary, Speed, summarize
from replay.reports.timing import time_json
from replay.scoring import HEADLINE, METRIC_NAMES, Lines, ScoredItem, Text
from replay.store import Store
from replay.usecases.base import Say

__all__ = ["METRIC_NAMES", "Comparison", "compare", "compare_sequential"]


@dataclass(frozen=True)
class Comparison:
    """B against A: the sources, what was scored, and the figures — paired over every item
    (`compare`), or file by file until decided (`compare_sequential`)."""

    a: str
    b: str
    text: str  # "shown", "raw", or "given" for a file of pairs
    lines: Lines
    result: Paired | Sequential
    latency: tuple[LatencySummary | None, LatencySummary | None] = (None, None)  # A's and B's time (runs only)

    def to_json(self) -> dict[str, Any]:
        return {**self.result.to_json(), "a": self.a, "b": self.b, "text": self.text, "lines": self.lines,
                "latency": {"a": time_json(self.latency[0]), "b": time_json(self.latency[1])}}

    def summary(self) -> str:
        """The comparison's verdict, then each run's time beside it."""
        times = [f"{name}: {time_text(s)}" for name, s in zip((self.a, self.b), self.latency) if s is not None and s.n]
        return self.result.summary(self.a, self.b) + "".join(f"\ntime of {t}" for t in times)


def time_text(s: LatencySummary) -> str:
    """One run's time in a line: the median and p90 to the whole answer, the share shown in time."""
    from replay.latency.summary import columns

    cells = columns(s)
    where = f"at {s.speed}" if s.speed else "measured"
    return f"p50 {cells['p50 ms']} ms, p90 {cells['p90 ms']} ms ({where}); shown in time {cells['in time']} judged"


def run_times(store: Store, a: str, b: str, speed: Speed | None) -> tuple[LatencySummary | None, LatencySummary | None]:
    """A's and B's time, each when it is a run of the store (a file of pairs has none)."""
    def one(source: str) -> LatencySummary | None:
        if Path(source).is_file() or store.run(source) is None:
            return None
        return summarize(store.timed_completions(source), speed)

    return one(a), one(b)


def source_rows(store: Store, source: str, lines: Lines, text: Text, warn: Say | None = None) -> tuple[list[ScoredItem], str]:
    """The scored items of a run in the store (its stored scores when complete, as `report`
    reads them), or of a `score` JSONL file (bad lines to its rejects file); and which text."""
    from replay.reports.report import load_run
    from replay.usecases.score import file_rows

    path = Path(source)
    if path.is_file():
        rows, _, _ = file_rows(path, lines, warn)
        return rows, "given"
    if store.run(source) is not None:
        return load_run(store, source, lines=lines, text=text).rows, text
    raise UsageError(f"{source}: neither a JSONL file nor a run in {store.path}")


def _both(store: Store, a: str, b: str, metric: str, lines: Lines, text: Text, warn: Say | None
          ) -> tuple[list[ScoredItem], list[ScoredItem], str]:
    """A's and B's scored items, and which text they are of."""
    if metric not in METRIC_NAMES:
        raise UsageError(f"unknown metric {metric!r} (one of {', '.join(METRIC_NAMES)})")
    rows_a, text_a = source_rows(store, a, lines, text, warn)
    rows_b, text_b = source_rows(store, b, lines, text, warn)
    return rows_a, rows_b, text_a if text_a == text_b else f"{text_a} vs {text_b}"


def compare(store: Store, a: str, b: str, metric: str = HEADLINE, lines: Lines = "auto", text: Text = "shown",
            seed: int = 0, warn: Say | None = None, speed: Speed | None = None) -> Comparison:
    """B − A on `metric`, items paired by id (see replay.reports.compare for the statistics), with
    each run's time (measured, or at `speed`)."""
    rows_a, rows_b, which = _both(store, a, b, metric, lines, text, warn)
    return Comparison(a, b, which, lines, paired(rows_a, rows_b, metric, seed=seed), run_times(store, a, b, speed))


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
                       warn: Say | None = None, method: str = DEFAULT_METHOD, speed: Speed | None = None) -> Comparison:
    """B − A on `metric` as an anytime-valid sequential comparison (replay.reports.sequential):
    the files in a seeded order, stopped at the first look that decides."""
    check_sequential(alpha, margin, method)
    rows_a, rows_b, which = _both(store, a, b, metric, lines, text, warn)
    return Comparison(a, b, which, lines, sequential(rows_a, rows_b, metric, alpha, margin, seed, method),
                      run_times(store, a, b, speed))

