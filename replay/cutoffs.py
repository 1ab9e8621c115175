"""Models' training-data cutoffs, and whether a run's items are newer than its model's.

A benchmark item whose code was published before the model's training data was collected may be
in that data: the model may recall it rather than complete it. Known code models' cutoffs are a
small table (replay/data/model_cutoffs.json), each row with the model card or paper that states
it; a model is matched by the names it goes by (its id, the GGUF's `general.name`), compared on
letters and digits only ("Qwen2.5 Coder 0.5B Instruct" is "qwen2.5-coder-0.5b-instruct").
`--cutoff DATE` gives the date for any other model, and wins over the table.

An item knows when its code was written when it comes from a dated corpus: new code of a dated
version (`since_date`), or lines dated one by one by git blame (`middle_date`, the newest line
of the middle). Items without either are counted as undated, never guessed.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from replay.errors import UsageError
from replay.reading import RunConfig, RunReader

@dataclass(frozen=True)
class Cutoff:
    """A model's training-data cutoff: the last date its data can hold, and where that is stated."""

    model: str
    date: dt.date
    basis: str
    source: str

    def to_json(self) -> dict[str, str]:
        return {"model": self.model, "date": self.date.isoformat(), "basis": self.basis, "source": self.source}


def parse_date(text: str, what: str = "--cutoff") -> dt.date:
    """An ISO date (YYYY-MM-DD; a longer ISO timestamp is cut to its date)."""
    try:
        return dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        raise UsageError(f"{what}: {text!r} is not a date (YYYY-MM-DD)") from None


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@lru_cache(maxsize=1)
def known() -> tuple[tuple[tuple[str, ...], Cutoff], ...]:
    """The table's rows: (match keys, cutoff), in the table's order."""
    data = json.loads(resources.files("replay").joinpath("data/model_cutoffs.json").read_text(encoding="utf-8"))
    return tuple((tuple(_key(m) for m in row["match"]),
                  Cutoff(row["model"], dt.date.fromisoformat(row["cutoff"]), row["basis"], row["source"]))
                 for row in data["models"])


def find_cutoff(names: Iterable[str | None], given: str | dt.date | None = None) -> Cutoff | None:
    """The cutoff of a model known by any of `names` (first table row that matches one), or the
    `given` date (a `--cutoff`), which wins; None when neither."""
    if given is not None:
        date = given if isinstance(given, dt.date) else parse_date(given)
        return Cutoff("given", date, "given with --cutoff", "")
    keys = [_key(n) for n in names if n]
    for matches, cutoff in known():
        if any(m in k for m in matches for k in keys):
            return cutoff
    return None


def item_date(item: Any) -> dt.date | None:
    """The earliest day an item's middle can have been written, from its dated corpus (None:
    undated). Cut from new code only (`new_code`), the middle is absent from the older version,
    so it was written after `since_date`. Cut from a whole file, the version's publication day
    is no bound at all (the file may be years older than the version that ships it): any day,
    so such an item is always one that may be in the training data. Dated line by line (git
    blame), the middle is as new as its newest line: that line's day (UTC)."""
    if getattr(item, "middle_date", ""):
        try:
            return parse_date(item.middle_date)
        except UsageError:
            return None
    if getattr(item, "new_code", False) and getattr(item, "since_date", ""):
        try:
            return parse_date(item.since_date)
        except UsageError:
            return None
    return dt.date.min if getattr(item, "published", "") else None


@dataclass(frozen=True)
class Overlap:
    """How many of a run's items may be in its model's training data.

    `n_not_newer` counts dated items published on or before the cutoff; undated items are
    counted apart (`n_items - n_dated`): nobody knows, so they are neither flagged nor cleared."""

    cutoff: Cutoff | None
    n_items: int
    n_dated: int
    n_not_newer: int

    @property
    def flagged(self) -> bool:
        return self.n_not_newer > 0

    @property
    def message(self) -> str:
        if self.cutoff is None:
            return "model cutoff unknown (give --cutoff DATE)"
        if self.n_dated == 0:
            return f"item dates unknown (model cutoff {self.cutoff.date})"
        undated = f"; {self.n_items - self.n_dated} undated" if self.n_dated < self.n_items else ""
        if self.flagged:
            return f"items may be in the training data: {self.n_not_newer} of {self.n_items} (model cutoff {self.cutoff.date}{undated})"
        return f"all {self.n_dated} dated items are newer than the model cutoff {self.cutoff.date}{undated}"

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "flagged": self.flagged, "n_items": self.n_items, "n_dated": self.n_dated,
                "n_not_newer": self.n_not_newer, "cutoff": self.cutoff.to_json() if self.cutoff else None}


def overlap(dates: Sequence[dt.date | None], cutoff: Cutoff | None) -> Overlap:
    dated = [d for d in dates if d is not None]
    n_not_newer = sum(d <= cutoff.date for d in dated) if cutoff else 0
    return Overlap(cutoff, len(dates), len(dated), n_not_newer)


def run_overlap(store: RunReader, run_id: str, cutoff: str | dt.date | None = None) -> Overlap:
    """The overlap of a stored run's items with its model's training data. The cutoff is `cutoff`
    (a --cutoff now), else the one the run was started with, else the table's for its model."""
    run = store.run(run_id)
    config = run.config if run is not None else RunConfig()
    found = find_cutoff(config.model_names(), cutoff or config.cutoff)
    ids = sorted({c.item_id for c in store.completions(run_id)})
    items = {it.id: it for it in store.items(ids)}
    return overlap([item_date(items[i]) if i in items else None for i in ids], found)
