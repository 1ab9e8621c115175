"""A stored run's time beside its score, as `score` and `compare` give it: its latency figures
(replay.latency: measured or at a stated speed, judged by the editor's rules or a latency budget)
and its in-time score (replay.reports.timing.in_time: an answer not shown in time counted as
nothing shown), from the scored items the command already holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from replay.errors import UsageError
from replay.latency import LatencySummary, Speed, summarize
from replay.latency.summary import line
from replay.reports.timing import InTime, in_time
from replay.scoring import Lines, ReferenceKind, ScoredItem, Text
from replay.store import Store


@dataclass(frozen=True)
class RunTime:
    """A run's latency and, when it was timed, its in-time score."""

    latency: LatencySummary
    in_time: InTime | None

    def to_json(self) -> dict[str, Any]:
        """The `latency` and `in_time` fields of a command's --json."""
        return {"latency": msgspec.to_builtins(self.latency), "in_time": self.in_time.to_json() if self.in_time else None}

    def lines(self) -> list[str]:
        """What a command prints under the run's figures ([] for a run with no timed answer)."""
        if not self.latency.n:
            return []
        return [line(self.latency), *([self.in_time.line()] if self.in_time else [])]


def check_budget(budget_ms: float | None) -> None:
    """A latency budget is a positive number of milliseconds (None: the editor's rules judge)."""
    if budget_ms is not None and not budget_ms > 0:
        raise UsageError(f"--latency-budget must be above 0 ms, got {budget_ms:g}")


def run_time(store: Store, run_id: str, rows: Sequence[ScoredItem], lines: Lines, seed: int = 0, speed: Speed | None = None,
             budget_ms: float | None = None) -> RunTime:
    """The time of a stored run whose scored items are `rows` (scored over the `lines` window)."""
    check_budget(budget_ms)
    timed = store.timed_completions(run_id)
    latency = summarize(timed, speed, budget_ms)
    return RunTime(latency, in_time(rows, timed, latency, lines, seed, speed) if latency.n else None)


def scored_run_time(store: Store, run_id: str, lines: Lines = "auto", text: Text = "shown", seed: int = 0,
                    reference: ReferenceKind = "typed", speed: Speed | None = None, budget_ms: float | None = None) -> RunTime:
    """run_time of a stored run scored as `score` scored it (its scores read back from the store)."""
    from replay.scoring import scored_run

    rows = scored_run(store, run_id, text, lines, seed, reference=reference).scores.rows
    return run_time(store, run_id, rows, lines, seed, speed, budget_ms)
