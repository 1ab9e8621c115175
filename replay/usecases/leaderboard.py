"""A leaderboard: several models replayed on the same items, scored on the shown text, ranked,
each compared with the best pair by pair. What `fimreplay leaderboard` prints."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.backends import GenParams
from replay.reports.compare import paired
from replay.errors import UsageError, WorkError
from replay.reports.leaderboard import RENDERERS, Leaderboard, Standing
from replay.run.runner import ProgressFn
from replay.scoring import HEADLINE, METRIC_NAMES, Lines
from replay.store import Store
from replay.usecases.base import Say, quiet

FORMATS = tuple(RENDERERS)

__all__ = ["FORMATS", "Leaderboard", "LeaderboardRequest", "leaderboard", "leaderboard_run_id", "render"]


@dataclass(frozen=True)
class LeaderboardRequest:
    """`items` a JSONL of benchmark items; `models` as `run --model` takes them (at least one);
    `editor` the profile (None: standard). `backend_options` are the backend's own (n_threads...)."""

    items: str
    models: Sequence[str]
    editor: str | None = None
    backend: str = "llamacpp"
    metric: str = HEADLINE
    lines: Lines = "auto"
    params: GenParams = field(default_factory=GenParams)
    endpoints: Sequence[str] = ()
    concurrency: int = 1
    backend_options: dict[str, Any] = field(default_factory=dict)
    cutoff: str | None = None
    seed: int = 0

    def check(self) -> None:
        if not self.models:
            raise UsageError("give at least one --model")
        if len(set(self.models)) != len(self.models):
            raise UsageError("a --model is given twice")
        if self.metric not in METRIC_NAMES:
            raise UsageError(f"unknown metric {self.metric!r} (one of {', '.join(METRIC_NAMES)})")
        if not Path(self.items).is_file():
            raise UsageError(f"{self.items}: no such file")


def leaderboard_run_id(req: LeaderboardRequest, model: str) -> str:
    """The run of one model on the items: the same request names the same run, so a leaderboard
    started again resumes each run where it stopped (and reads its completions from the cache)."""
    digest = hashlib.sha256(Path(req.items).read_bytes()).hexdigest()
    key = json.dumps([digest, model, req.editor, req.backend, list(req.endpoints), repr(req.params)])
    return "lb-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def leaderboard(store: Store, req: LeaderboardRequest, on_progress: ProgressFn | None = None, say: Say = quiet,
                warn: Say | None = None) -> Leaderboard:
    """Replay the items against each model (resumable runs, cached completions), score the shown
    text, rank by the mean over files and compare each model with the best, pair by pair. The
    items are kept in the store (once) as the references of the scores."""
    from replay.cutoffs import run_overlap
    from replay.reports.report import load_run
    from replay.usecases.replay import RunRequest, run

    from replay.usecases.score import file_items

    req.check()
    started = time.perf_counter()
    store.add_items(file_items(Path(req.items)))  # the references the runs are scored against
    runs = []
    for n, model in enumerate(req.models, 1):
        run_id = leaderboard_run_id(req, model)
        say(f"model {n}/{len(req.models)}: {model} (run {run_id})")
        t0 = time.perf_counter()
        result = run(store, RunRequest(req.items, req.backend, model, req.editor, None, req.params, run_id, req.endpoints,
                                       req.concurrency, True, req.backend_options, cutoff=req.cutoff),
                     on_progress=on_progress, warn=warn)
        if result.all_failed:
            raise WorkError(f"model {model}: every item failed (run {run_id}); see `fimreplay score {run_id}`")
        runs.append((model, result, time.perf_counter() - t0))
    reports = [(model, load_run(store, r.summary.run, lines=req.lines, seed=req.seed, cutoff=req.cutoff), wall)
               for model, r, wall in runs]
    reports.sort(key=lambda x: (-x[1].summary.mean.get(req.metric, 0.0), req.models.index(x[0])))
    best = reports[0][1]
    standings = []
    for rank, (model, rep, wall) in enumerate(reports, 1):
        stored = store.run(rep.run_id)
        name = str((stored.config if stored else {}).get("model_name") or rep.model)
        s = rep.summary
        standings.append(Standing(rank=rank, model=model, name=name, run_id=rep.run_id, mean=s.mean.get(req.metric, 0.0),
                                  ci95=s.ci95.get(req.metric, (0.0, 0.0)), n_items=s.n_items, n_files=s.n_files,
                                  vs_best=None if rep is best else paired(best.rows, rep.rows, req.metric, seed=req.seed),
                                  overlap=rep.overlap or run_overlap(store, rep.run_id, req.cutoff), wall_s=round(wall, 1)))
    n_items = sum(1 for line in Path(req.items).read_bytes().splitlines() if line.strip())
    return Leaderboard(items=req.items, n_items=n_items, editor=req.editor or "standard", metric=req.metric, lines=req.lines,
                       standings=standings, wall_s=round(time.perf_counter() - started, 1))


def render(board: Leaderboard, fmt: str = "text", output: Path | None = None) -> str:
    """The leaderboard in one of FORMATS, written to `output` when given."""
    if fmt not in RENDERERS:
        raise UsageError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    page = RENDERERS[fmt](board)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(page, encoding="utf-8")
    return page
