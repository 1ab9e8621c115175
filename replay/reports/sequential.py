"""An anytime-valid paired comparison: look at the files one at a time, stop as soon as it is decided.

Peeking at a fixed-size interval (replay.reports.compare's bootstrap) after every item and stopping
when it excludes zero is not valid: every look is another chance of a false verdict. A confidence
sequence is an interval valid at every look at once (time-uniform), so a comparison may stop at
the first look where it decides, whenever that is. Two are offered (`METHODS`, in
replay.reports.confidence_sequences):

- "asymptotic" (the default): `AsymptoticSequence`, the asymptotic confidence sequence of
  Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas (Annals of Statistics 2024), valid as the number
  of files grows (a time-uniform central limit theorem) and as wide as the differences' spread, not
  their range: on per-file differences spread far less than their range it decides with about
  half the files or fewer, which is what decides at the few dozen files comparisons have (and
  agrees there with the fixed-size bootstrap). Its error rate at a few dozen files is measured by
  simulation in the tests, not proved.
- "betting", valid at every number of files with nothing assumed but that the differences are
  bounded: `ConfidenceSequence`, a betting confidence sequence of Waudby-Smith and Ramdas (JRSS B
  2024). Its price is the bound itself: no method that assumes only boundedness can decide much
  faster (see the class), some 27 files for a difference of 0.12 at alpha 0.05, 35 for 0.09.

The unit treated as independent is the file: items of one file share its code and are
correlated, so each file's mean difference B − A over its paired items (in [-1, 1] for metrics in
[0, 1]) is one observation, X = (D + 1) / 2, and a file is used whole (a comparison stops between
files, never inside one). The files are visited in a seeded random order (numpy's PCG64 seeded by
`seed`, a permutation of the sorted file names), so that the order carries no information (files
sorted by name are sorted by folder, and folders differ). The mean estimated is that of per-file
differences over the population the files are drawn from: the quantity the fixed-size bootstrap
interval is about too.

Verdicts, at the first look where one holds: "B better" (the interval lies above 0), "A better"
(below), "no difference beyond ±M" (it lies inside (−M, M); only with a margin); else, when the
files run out, "undecided". All verdicts are read off the one sequence, so together they are
wrong with probability at most alpha (for "asymptotic": about alpha, as the files grow many). An
undecided comparison says why by its method's bound (`Shortfall`): how many files would decide a
difference of the size it saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from replay.reports.compare import paired_files
from replay.reports.confidence_sequences import DEFAULT_METHOD, METHODS, Shortfall, describe
from replay.scoring import HEADLINE, ScoredItem

UNIT = "file"
VERDICTS = ("A better", "B better", "no difference beyond ±M", "undecided")


def decide(interval: tuple[float, float], margin: float | None) -> str | None:
    """The verdict an interval of B − A gives, or None while it gives none."""
    lo, hi = interval
    if lo > 0:
        return "B better"
    if hi < 0:
        return "A better"
    if margin is not None and -margin < lo and hi < margin:
        return "no difference beyond ±M"
    return None


def file_order(files: Iterable[str], seed: int) -> list[str]:
    """The files in the seeded random order a sequential comparison visits them in."""
    names = sorted(set(files))
    return [names[i] for i in np.random.default_rng(seed).permutation(len(names))]


@dataclass(frozen=True)
class Sequential:
    """A sequential comparison of B against A: its verdict, the interval when it stopped, and how
    much of the paired items it used."""

    metric: str
    verdict: str
    interval: tuple[float, float]
    mean_diff: float  # mean of the per-file differences used
    items_used: int
    n_items: int
    units_used: int
    n_units: int
    alpha: float
    margin: float | None
    seed: int
    n_only_a: int = 0
    n_only_b: int = 0
    method: str = DEFAULT_METHOD
    unit: str = UNIT
    shortfall: Shortfall | None = None  # undecided: why, by the method's bound

    def verdict_text(self, a: str = "A", b: str = "B") -> str:
        if self.verdict == "no difference beyond ±M":
            return f"no difference beyond ±{self.margin:g}"
        return {"A better": f"{a} better", "B better": f"{b} better"}.get(self.verdict, self.verdict)

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "items_used": self.items_used, "n_items": self.n_items,
                "units_used": self.units_used, "n_units": self.n_units, "interval": list(self.interval),
                "mean_diff": self.mean_diff, "metric": self.metric, "method": self.method,
                "method_reference": describe(self.method), "unit": self.unit,
                "alpha": self.alpha, "margin": self.margin, "seed": self.seed, "n_only_a": self.n_only_a,
                "n_only_b": self.n_only_b, "why_undecided": self.shortfall.to_json() if self.shortfall else None}

    def summary(self, a: str = "A", b: str = "B") -> str:
        line = (f"{self.metric} {b} − {a}: {self.mean_diff:+.4f}, {1 - self.alpha:.0%} confidence sequence "
                f"[{self.interval[0]:+.4f}, {self.interval[1]:+.4f}] after {self.units_used} of {self.n_units} "
                f"{self.unit}s ({self.items_used} of {self.n_items} items, seed {self.seed}): "
                f"{self.verdict_text(a, b)}; {describe(self.method)}")
        if self.n_only_a or self.n_only_b:
            line += f"; unpaired: {self.n_only_a} only in {a}, {self.n_only_b} only in {b}"
        if self.shortfall is not None:
            line += f"\nundecided: {self.shortfall.reason}"
        return line


class SequentialTest:
    """A sequential comparison fed one file at a time (its per-file mean difference and its item
    count), as a leaderboard replays them; `verdict` is None until decided."""

    def __init__(self, alpha: float = 0.05, margin: float | None = None, method: str = DEFAULT_METHOD) -> None:
        self.cs = METHODS[method](alpha)
        self.method = method
        self.margin = margin
        self.items = 0
        self.diffs: list[float] = []
        self.verdict: str | None = None

    def look(self, difference: float, items: int) -> str | None:
        """Add one file; the verdict once decided (later files are refused)."""
        if self.verdict is not None:
            raise ValueError("the comparison is decided already")
        self.diffs.append(difference)
        self.items += items
        self.verdict = decide(self.cs.update(max(-1.0, min(1.0, difference))), self.margin)
        return self.verdict

    def result(self, metric: str, n_items: int, n_units: int, seed: int, only: tuple[int, int] = (0, 0)) -> Sequential:
        """The comparison as it stands ("undecided" while no verdict holds)."""
        mean = float(np.mean(self.diffs)) if self.diffs else 0.0
        return Sequential(metric=metric, verdict=self.verdict or "undecided", interval=self.cs.interval, mean_diff=mean,
                          items_used=self.items, n_items=n_items, units_used=len(self.diffs), n_units=n_units,
                          alpha=self.cs.alpha, margin=self.margin, seed=seed, n_only_a=only[0], n_only_b=only[1],
                          method=self.method, shortfall=None if self.verdict else self.cs.shortfall(mean))


def sequential(a: Iterable[ScoredItem], b: Iterable[ScoredItem], metric: str = HEADLINE, alpha: float = 0.05,
               margin: float | None = None, seed: int = 0, method: str = DEFAULT_METHOD) -> Sequential:
    """Pair A's and B's scored items by id (as compare.paired does) and compare them file by file in
    the seeded order, stopping at the first decided look."""
    files, only_a, only_b, _ = paired_files(a, b, metric)
    test = SequentialTest(alpha, margin, method)
    order = file_order(files, seed)
    for name in order:
        pairs = files[name]
        if test.look(file_difference(pairs), len(pairs)) is not None:
            break
    n_items = sum(len(p) for p in files.values())
    return test.result(metric, n_items, len(order), seed, (len(only_a), len(only_b)))


def file_difference(pairs: Sequence[tuple[float, float]]) -> float:
    """A file's mean difference B − A over its paired (a, b) values."""
    return float(np.mean([vb - va for va, vb in pairs]))
