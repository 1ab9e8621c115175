"""Paired comparison of two sets of scores on the same items: is B better than A, and by how much?

Two runs scored on the same items are not independent samples: an item that is hard for A is
usually hard for B. Comparing their two separate intervals throws that away and needs far more
items to tell two models apart. Here every item is paired by id and the difference B − A is
taken item by item, then aggregated as the scores themselves are (replay.scoring.aggregate):

- per file, the mean of its items' differences (= B's per-file mean − A's, on the paired items);
- `mean_diff`, the mean of those per-file differences (= `mean_b` − `mean_a`);
- `ci95`, a paired bootstrap over files: files are resampled with replacement (numpy's PCG64
  seeded by `seed`, as aggregate does) and the mean per-file difference taken each time; the
  2.5th and 97.5th percentiles bound the interval;
- `wins` / `ties` / `losses`, counted per item from B's side (B scored higher / the same / lower);
- `verdict`: "B better" when the whole interval is above zero, "A better" when below, else
  "within noise"; "nothing to compare" when no item is scored on both sides (`nothing_scored`
  then says why, from the reasons each side could not score its items).

Items found on one side only are never dropped silently: they are counted (`n_only_a`,
`n_only_b`) and listed, and left out of every figure above. `items_needed` estimates, from the
observed spread of per-file differences, how many items a comparison needs before an interval
of this width excludes zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from replay.scoring import HEADLINE, ScoredItem

VERDICTS = ("A better", "B better", "within noise", "nothing to compare")
Z95 = 1.959963984540054  # two-sided 95%
Z80 = 0.8416212335729143  # one-sided, for 80% power


@dataclass(frozen=True)
class Paired:
    """The comparison of B against A on the items both have (see the module docstring)."""

    metric: str
    mean_a: float
    mean_b: float
    mean_diff: float
    ci95: tuple[float, float]
    wins: int
    ties: int
    losses: int
    n_items: int
    n_files: int
    verdict: str
    per_file: dict[str, float] = field(default_factory=dict)  # file -> mean difference B − A
    only_a: tuple[str, ...] = ()  # item ids scored in A only
    only_b: tuple[str, ...] = ()
    n_unscored: int = 0  # items not scored on a side, or paired without a value of `metric` (left out)
    unscored: dict[str, int] = field(default_factory=dict)  # why: each reason and its count
    seed: int = 0
    n_boot: int = 2000

    @property
    def items_needed(self) -> int | None:
        """Items a comparison of this kind needs to tell the two apart (80% power, 95% two-sided),
        from the spread of the per-file differences and the items per file seen here; None when
        the observed difference is zero (no finite number) or there are fewer than two files."""
        diffs = list(self.per_file.values())
        if len(diffs) < 2 or self.mean_diff == 0:
            return None
        sd = float(np.std(diffs, ddof=1))
        files = math.ceil(((Z95 + Z80) * sd / abs(self.mean_diff)) ** 2)
        return max(files, 2) * math.ceil(self.n_items / self.n_files)

    @property
    def nothing_scored(self) -> str | None:
        """Why there is no verdict: no item scored on both sides (None when one was)."""
        if self.n_items:
            return None
        why = "; ".join(f"{count}: {reason}" for reason, count in self.unscored.items())
        return f"nothing to compare: no item is scored on both sides ({why or 'neither side holds an item'})"

    def to_json(self) -> dict[str, Any]:
        """The keys `compare --json` prints: the headline figures first, then what was left out."""
        return {"mean_a": self.mean_a, "mean_b": self.mean_b, "mean_diff": self.mean_diff, "ci95": list(self.ci95),
                "wins": self.wins, "ties": self.ties, "losses": self.losses, "n_items": self.n_items,
                "n_files": self.n_files, "verdict": self.verdict, "metric": self.metric,
                "n_only_a": len(self.only_a), "n_only_b": len(self.only_b), "only_a": list(self.only_a),
                "only_b": list(self.only_b), "n_unscored": self.n_unscored, "unscored": self.unscored,
                "nothing_scored": self.nothing_scored, "items_needed": self.items_needed,
                "per_file_diff": self.per_file, "bootstrap": {"resamples": self.n_boot, "seed": self.seed, "unit": "file"}}

    def summary(self, a: str = "A", b: str = "B") -> str:
        """One line for people: the difference, its interval, the item counts and the verdict."""
        if self.nothing_scored:
            return f"{self.metric} {b} − {a}: {self.nothing_scored}"
        verdict = {"A better": f"{a} better", "B better": f"{b} better"}.get(self.verdict, self.verdict)
        line = (f"{self.metric} {b} − {a}: {self.mean_diff:+.4f} [{self.ci95[0]:+.4f}, {self.ci95[1]:+.4f}] "
                f"({self.mean_b:.4f} vs {self.mean_a:.4f}); {b} wins {self.wins}, ties {self.ties}, loses {self.losses} "
                f"of {self.n_items} items in {self.n_files} files: {verdict}")
        if self.only_a or self.only_b:
            line += f"; unpaired: {len(self.only_a)} only in {a}, {len(self.only_b)} only in {b}"
        if self.n_unscored:
            line += f"; {self.n_unscored} items not scored"
        if self.verdict == "within noise" and self.items_needed is not None:
            line += f"; about {self.items_needed} items would tell them apart"
        return line


def verdict(ci95: tuple[float, float]) -> str:
    """B better when the interval of B − A lies above zero, A better when below, else noise."""
    if ci95[0] > 0:
        return "B better"
    if ci95[1] < 0:
        return "A better"
    return "within noise"


def paired_files(a: Iterable[ScoredItem], b: Iterable[ScoredItem], metric: str = HEADLINE
                 ) -> tuple[dict[str, list[tuple[float, float]]], tuple[str, ...], tuple[str, ...], int]:
    """A's and B's items paired by id: per file its (a, b) values of `metric` in A's order, the
    item ids found only in A and only in B, and the paired items without a value on one side."""
    by_a = {r.item_id: r for r in a}
    by_b = {r.item_id: r for r in b}
    only_a = tuple(sorted(set(by_a) - set(by_b)))
    only_b = tuple(sorted(set(by_b) - set(by_a)))
    files: dict[str, list[tuple[float, float]]] = {}
    unscored = 0
    for item_id in (i for i in by_a if i in by_b):
        va, vb = by_a[item_id].values.get(metric), by_b[item_id].values.get(metric)
        if va is None or vb is None:
            unscored += 1
            continue
        files.setdefault(by_a[item_id].file, []).append((va, vb))
    return files, only_a, only_b, unscored


def paired(a: Iterable[ScoredItem], b: Iterable[ScoredItem], metric: str = HEADLINE, seed: int = 0,
           n_boot: int = 2000, not_scored: dict[str, str] | None = None) -> Paired:
    """Pair A's and B's scored items by id and compare them on `metric` (B − A); `not_scored`
    holds the items a side could not score (an id, or a side's file:line, each with its
    reason), counted with the paired items that lack a value in `n_unscored`."""
    files, only_a, only_b, unscored = paired_files(a, b, metric)
    reasons: dict[str, int] = {}
    for reason in (not_scored or {}).values():
        reasons[reason] = reasons.get(reason, 0) + 1
    if unscored:
        reasons[f"no {metric} value on one side"] = unscored
    pairs = [p for f in sorted(files) for p in files[f]]
    wins = sum(vb > va for va, vb in pairs)
    losses = sum(vb < va for va, vb in pairs)
    names = sorted(files)
    mean_a_f = np.array([np.mean([p[0] for p in files[f]]) for f in names])
    mean_b_f = np.array([np.mean([p[1] for p in files[f]]) for f in names])
    diffs = mean_b_f - mean_a_f
    if len(names):
        rng = np.random.default_rng(seed)
        picks = rng.integers(0, len(diffs), size=(n_boot, len(diffs)))
        boot = diffs[picks].mean(axis=1)
        ci = (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5)))
        mean_a, mean_b, mean_diff = float(mean_a_f.mean()), float(mean_b_f.mean()), float(diffs.mean())
    else:
        ci, mean_a, mean_b, mean_diff = (0.0, 0.0), 0.0, 0.0, 0.0
    return Paired(metric=metric, mean_a=mean_a, mean_b=mean_b, mean_diff=mean_diff, ci95=ci, wins=wins,
                  ties=len(pairs) - wins - losses, losses=losses, n_items=len(pairs), n_files=len(names),
                  verdict=verdict(ci) if names else "nothing to compare",
                  per_file={f: float(d) for f, d in zip(names, diffs)}, only_a=only_a, only_b=only_b,
                  n_unscored=unscored + len(not_scored or {}), unscored=reasons, seed=seed, n_boot=n_boot)
