"""Aggregation of per-item scores: the seed's per-file means and their sum, and the mean over
files with a seeded bootstrap 95% interval."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
import numpy as np

from replay.scoring.metrics import METRIC_NAMES


class ScoredItem(msgspec.Struct, frozen=True):
    """One scored completion: its item, file, metric values and the two texts compared, and the
    language it was scored as (a msgspec struct: a run's thousands of rows are made in a few
    milliseconds)."""

    item_id: str
    file: str
    values: dict[str, float]
    middle_len: int = 0
    reference: str = ""
    completion: str = ""
    language: str = ""


def _file_means(by_file: dict[str, list[dict[str, float]]], files: list[str]) -> dict[str, dict[str, float]]:
    """Each file's mean of each metric over its rows that have it (in row order), metrics sorted:
    numpy's mean of those values (the same sum, pairwise over a fresh float64 array, divided by
    the count), with no mean() wrapper per file and metric."""
    metrics = sorted({m for rows in by_file.values() for v in rows for m in v})
    per_file: dict[str, dict[str, float]] = {f: {} for f in files}
    add = np.add.reduce
    for m in metrics:
        for f in files:
            values = [v[m] for v in by_file[f] if m in v]
            if values:
                per_file[f][m] = float(add(np.array(values, dtype=np.float64))) / len(values)
    return per_file


AGGREGATE_RESAMPLES = 2000  # bootstrap resamples of the 95% interval


class Bootstrap(msgspec.Struct, frozen=True):
    """How a summary's 95% intervals were drawn: resamples, the seed, the unit resampled (files)."""

    resamples: int
    seed: int
    unit: str


class Summary(msgspec.Struct, frozen=True):
    """An aggregate: items and files counted, each file's mean of each metric, their sum
    (`total`), their mean (`mean`) and its 95% interval (`ci95`, low and high)."""

    n_items: int
    n_files: int
    per_file: dict[str, dict[str, float]]
    total: dict[str, float]
    mean: dict[str, float]
    ci95: dict[str, tuple[float, float]]
    bootstrap: Bootstrap

    def to_json(self) -> dict[str, Any]:
        """The record as `--json` prints it and the store keeps it: the fields in order, each
        value as JSON has it (an interval a list)."""
        return msgspec.json.decode(msgspec.json.encode(self))


def summary_of(aggregated: dict[str, Any]) -> Summary:
    """An aggregate the store kept, as a Summary; ValueError when it is not one."""
    try:
        return msgspec.convert(aggregated, Summary)
    except msgspec.ValidationError as exc:
        raise ValueError(f"not an aggregate: {exc}") from None


def aggregate(rows: Iterable[ScoredItem], seed: int = 0, n_boot: int = AGGREGATE_RESAMPLES) -> Summary:
    """Per-file means, their sum (`total`), their mean (`mean`) with a bootstrap 95% interval.

    The interval resamples files (the unit the seed averages over) with numpy's PCG64 seeded
    by `seed`, and takes the 2.5th and 97.5th percentiles of the resampled means.
    """
    rows = list(rows)
    by_file: dict[str, list[dict[str, float]]] = {}
    for r in rows:
        values = by_file.get(r.file)
        if values is None:
            values = by_file[r.file] = []
        values.append(r.values)
    files = sorted(by_file)
    per_file = _file_means(by_file, files)
    metrics = [m for m in METRIC_NAMES if any(m in per_file[f] for f in files)]
    total: dict[str, float] = {}
    mean: dict[str, float] = {}
    ci95: dict[str, tuple[float, float]] = {}
    rng = np.random.default_rng(seed)
    for m in metrics:
        values = np.array([per_file[f][m] for f in files if m in per_file[f]])
        total[m] = float(values.sum())
        mean[m] = float(values.mean())
        picks = rng.integers(0, len(values), size=(n_boot, len(values)))
        boot = values[picks].mean(axis=1)
        ci95[m] = (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5)))
    return Summary(n_items=len(rows), n_files=len(files), per_file=per_file, total=total, mean=mean, ci95=ci95,
                   bootstrap=Bootstrap(resamples=n_boot, seed=seed, unit="file"))

