"""A stored run's score as the CLI prints it, for tests that compare it with JSON kept on disk."""

from __future__ import annotations

from typing import Any

from replay import scoring
from replay.rejects import Reject
from replay.store import Store


def score_json(store: Store, run_id: str, **kw: Any) -> tuple[dict[str, Any], list[Reject]]:
    """`fimreplay score RUN --json`'s object for a stored run, and the completions it could not score."""
    scored = scoring.scored_run(store, run_id, **kw)
    return scored.result().to_json(), scored.scores.rejects
