"""Aggregation of per-item scores: the seed's per-file means and their sum, and the mean over
files with a seeded bootstrap 95% interval."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from replay.scoring.metrics import METRIC_NAMES



@dataclass(frozen=True)
class ScoredItem:
    item_id: str
    file: str
    values: dict[str, float]
    middle_len: int = 0
    reference: str = ""
    completion: str = ""


def aggregate(rows: Iterable[ScoredItem], seed: int = 0, n_boot: int = 2000) -> dict[str, Any]:
    """Per-file means, their sum (`total`), their mean (`mean`) with a bootstrap 95% interval.

    The interval resamples files (the unit the seed averages over) with numpy's PCG64 seeded
    by `seed`, and takes the 2.5th and 97.5th percentiles of the resampled means.
    """
    rows = list(rows)
    by_file: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        slot = by_file.setdefault(r.file, {})
        for metric, value in r.values.items():
            slot.setdefault(metric, []).append(value)
    files = sorted(by_file)
    per_file = {f: {m: float(np.mean(v)) for m, v in sorted(by_file[f].items())} for f in files}
    metrics = [m for m in METRIC_NAMES if any(m in per_file[f] for f in files)]
    total: dict[str, float] = {}
    mean: dict[str, float] = {}
    ci95: dict[str, list[float]] = {}
    rng = np.random.default_rng(seed)
    for m in metrics:
        values = np.array([per_file[f][m] for f in files if m in per_file[f]])
        total[m] = float(values.sum())
        mean[m] = float(values.mean())
        picks = rng.integers(0, len(values), size=(n_boot, len(values)))
        boot = values[picks].mean(axis=1)
        ci95[m] = [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))]
    return {"n_items": len(rows), "n_files": len(files), "per_file": per_file, "total": total, "mean": mean,
            "ci95": ci95, "bootstrap": {"resamples": n_boot, "seed": seed, "unit": "file"}}

