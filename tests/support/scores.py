"""A stored run's score as the CLI prints it, for tests that compare it with JSON kept on disk;
a stored run for the whole-text judges to score."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from replay import scoring
from replay.reading import RunConfig
from replay.records import Completion, FimItem
from replay.rejects import Reject
from replay.store import Store


def score_json(store: Store, run_id: str, **kw: Any) -> tuple[dict[str, Any], list[Reject]]:
    """`fimreplay score RUN --json`'s object for a stored run, and the completions it could not score."""
    scored = scoring.scored_run(store, run_id, **kw)
    return scored.result().to_json(), scored.scores.rejects


def half_right_run(db: Path, items: Sequence[FimItem], wrong: str, run_id: str = "r") -> None:
    """A finished run of `items` in a new store at `db`, every second completion the item's own
    middle and the others `wrong`: what a whole-text judge (compiles, execution) must tell apart."""
    with Store(db) as store:
        store.add_items(list(items))
        store.create_run(run_id, RunConfig(backend="llamacpp", model="m", editor="standard"))
        for k, it in enumerate(items):
            text = it.middle if k % 2 else wrong
            store.add_completion(run_id, Completion(item_id=it.id, text=text, raw_text=text, backend="llamacpp", model="m"))
