"""A leaderboard: several models replayed on the same items, scored on the shown text, ranked,
each compared with the best pair by pair. What `fimreplay leaderboard` prints.

With `until_decided` the models are replayed file by file in a seeded order and each is compared
with the current best by an anytime-valid sequential comparison (replay.reports.sequential): a
model's replay stops as soon as its comparison is decided, and a model found better becomes the
best the next one is compared with. The replay is the same resumable run with the same cache:
its items are replayed from a copy of the items in that order, and the runner is stopped (from its
progress callback) once the model holds every item of the files the comparison has reached. Each
model's engine is opened once for the whole comparison and kept open from file to file
(replay.usecases.replay.OpenBackends), not loaded again for each short run."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from replay.backends import GenParams
from replay.reports.compare import paired
from replay.reports.confidence_sequences import DEFAULT_METHOD, describe
from replay.reports.sequential import Sequential, SequentialTest, file_difference, file_order
from replay.errors import UsageError, WorkError
from replay.reports.leaderboard import RENDERERS, Leaderboard, Standing
from replay.run.runner import ProgressFn
from replay.scoring import HEADLINE, METRIC_NAMES, Lines
from replay.store import Store
from replay.usecases.base import Say, quiet
from replay.usecases.compare import check_sequential
from replay.usecases.replay import OpenBackends, RunRequest, run
from replay.usecases.timing import check_budget

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
    until_decided: bool = False
    alpha: float = 0.05
    margin: float | None = None
    method: str = DEFAULT_METHOD
    budget_ms: float | None = None  # judge each answer by this latency budget instead of the editor's rules

    def check(self) -> None:
        if not self.models:
            raise UsageError("give at least one --model")
        if len(set(self.models)) != len(self.models):
            raise UsageError("a --model is given twice")
        if self.metric not in METRIC_NAMES:
            raise UsageError(f"unknown metric {self.metric!r} (one of {', '.join(METRIC_NAMES)})")
        if not Path(self.items).is_file():
            raise UsageError(f"{self.items}: no such file")
        if self.until_decided:
            check_sequential(self.alpha, self.margin, self.method)
        check_budget(self.budget_ms)

    @cached_property
    def items_digest(self) -> str:
        """The items file's sha256, read once per request (every run id and the ordered copy name it)."""
        return hashlib.sha256(Path(self.items).read_bytes()).hexdigest()


def leaderboard_run_id(req: LeaderboardRequest, model: str) -> str:
    """The run of one model on the items: the same request names the same run, so a leaderboard
    started again resumes each run where it stopped (and reads its completions from the cache)."""
    key = json.dumps([req.items_digest, model, req.editor, req.backend, list(req.endpoints), repr(req.params)])
    return "lb-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def leaderboard(store: Store, req: LeaderboardRequest, on_progress: ProgressFn | None = None, say: Say = quiet,
                warn: Say | None = None) -> Leaderboard:
    """Replay the items against each model (resumable runs, cached completions), score the shown
    text, rank by the mean over files and compare each model with the best, pair by pair. The
    items are kept in the store (once) as the references of the scores."""
    from replay.reports.report import load_run
    from replay.usecases.score import file_items

    req.check()
    started = time.perf_counter()
    items = file_items(Path(req.items))
    store.add_items(items)  # the references the runs are scored against
    if req.until_decided:
        return until_decided(store, req, items, started, on_progress, say, warn)
    runs = []
    for n, model in enumerate(req.models, 1):
        run_id = leaderboard_run_id(req, model)
        say(f"model {n}/{len(req.models)}: {model} (run {run_id})")
        t0 = time.perf_counter()
        replay_model(store, req, model, req.items, on_progress, warn)
        runs.append((model, run_id, time.perf_counter() - t0))
    reports = [(model, load_run(store, run_id, lines=req.lines, seed=req.seed, cutoff=req.cutoff, budget_ms=req.budget_ms), wall)
               for model, run_id, wall in runs]
    reports.sort(key=lambda x: (-x[1].summary.mean.get(req.metric, 0.0), req.models.index(x[0])))
    best = reports[0][1]
    standings = [standing(store, req, rank, model, rep, wall,
                          vs_best=None if rep is best else paired(best.rows, rep.rows, req.metric, seed=req.seed))
                 for rank, (model, rep, wall) in enumerate(reports, 1)]
    return board(req, standings, started)


def board(req: LeaderboardRequest, standings: list[Standing], started: float) -> Leaderboard:
    n_items = sum(1 for line in Path(req.items).read_bytes().splitlines() if line.strip())
    return Leaderboard(items=req.items, n_items=n_items, editor=req.editor or "standard", metric=req.metric, lines=req.lines,
                       standings=standings, wall_s=round(time.perf_counter() - started, 1),
                       method=describe(req.method) if req.until_decided else None)


def standing(store: Store, req: LeaderboardRequest, rank: int, model: str, rep: Any, wall: float, **vs: Any) -> Standing:
    """One model's place from its scored run (`rep`, a RunReport) and its comparison (`vs`)."""
    from replay.cutoffs import run_overlap

    stored = store.run(rep.run_id)
    name = str((stored.config.model_name if stored else None) or rep.model)
    s = rep.summary
    return Standing(rank=rank, model=model, name=name, run_id=rep.run_id, mean=s.mean.get(req.metric, 0.0),
                    ci95=s.ci95.get(req.metric, (0.0, 0.0)), n_items=s.n_items, n_files=s.n_files,
                    overlap=rep.overlap or run_overlap(store, rep.run_id, req.cutoff), wall_s=round(wall, 1),
                    n_replayed=len(store.done_item_ids(rep.run_id)), latency=rep.latency,
                    in_time=rep.in_time, **vs)


def replay_model(store: Store, req: LeaderboardRequest, model: str, source: str, on_progress: ProgressFn | None,
                 warn: Say | None, backends: OpenBackends | None = None) -> None:
    """Replay the items of `source` against one model into its leaderboard run (resumed, cached),
    on an engine of `backends` when given (else one opened for this run)."""
    run_id = leaderboard_run_id(req, model)
    result = run(store, RunRequest(source, req.backend, model, req.editor, None, req.params, run_id, req.endpoints,
                                   req.concurrency, True, req.backend_options, cutoff=req.cutoff),
                 on_progress=on_progress, warn=warn, backends=backends)
    if result.all_failed:
        raise WorkError(f"model {model}: every item failed (run {run_id}); see `fimreplay score {run_id}`")


class Enough(Exception):
    """The signal that stops a model's replay once it holds the items its comparison needs (raised
    from the runner's progress callback; caught here, never shown)."""


@dataclass
class Sequenced:
    """The items in the seeded file order: the files in that order, each file's item ids, and the
    copy of the items file the runs replay (in that order); the engines held open across them."""

    order: list[str]
    items_of: dict[str, list[str]]
    source: str
    backends: OpenBackends = field(default_factory=OpenBackends)
    walls: dict[str, float] = field(default_factory=dict)  # model -> seconds spent replaying it

    def advance(self, store: Store, req: LeaderboardRequest, model: str, upto: int, on_progress: ProgressFn | None,
                warn: Say | None) -> None:
        """Replay `model` until it holds every item of the first `upto` files (no call if it does)."""
        run_id = leaderboard_run_id(req, model)
        needed = {i for f in self.order[:upto] for i in self.items_of[f]}
        done = store.done_item_ids(run_id)
        if needed <= done:
            return

        def progress(n: int, total: int, completion: Any) -> None:
            if on_progress is not None:
                on_progress(n, total, completion)
            if completion is not None:
                done.add(completion.item_id)
                if needed <= done:
                    raise Enough()

        t0 = time.perf_counter()
        try:
            replay_model(store, req, model, self.source, progress, warn, self.backends)
        except Enough:
            pass
        finally:
            self.walls[model] = self.walls.get(model, 0.0) + time.perf_counter() - t0

    def items_of_all(self) -> list[str]:
        return [i for f in self.order for i in self.items_of[f]]


def sequenced(req: LeaderboardRequest, items: Sequence[Any]) -> Sequenced:
    """The items' files in the seeded order (replay.reports.sequential.file_order) and a copy of the
    items file in that order, kept in the data dir under the items' hash and the seed (the same
    request finds it again: its runs resume from it)."""
    from replay.paths import data_dir

    order = file_order((it.file for it in items), req.seed)
    items_of: dict[str, list[str]] = {f: [] for f in order}
    for it in items:
        items_of[it.file].append(it.id)
    lines = [line for line in Path(req.items).read_bytes().splitlines(keepends=True) if line.strip()]
    by_id = {it.id: n for n, it in enumerate(items)}
    if len(lines) != len(items):
        raise UsageError(f"{req.items}: --until-decided needs a file of benchmark items only")
    ordered = [lines[by_id[i]] for f in order for i in items_of[f]]
    path = data_dir() / "leaderboard" / f"{req.items_digest[:16]}-seed{req.seed}.jsonl"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(".part")
        part.write_bytes(b"".join(line if line.endswith(b"\n") else line + b"\n" for line in ordered))
        part.replace(path)
    return Sequenced(order, items_of, str(path))


def until_decided(store: Store, req: LeaderboardRequest, items: Sequence[Any], started: float,
                  on_progress: ProgressFn | None, say: Say, warn: Say | None) -> Leaderboard:
    """The leaderboard replayed until decided: each model after the first compared with the current
    best file by file (the module docstring), then every run that stopped early marked "decided"."""
    from replay.reports.report import load_run

    seq = sequenced(req, items)
    best, results = req.models[0], {}
    with seq.backends:
        for n, model in enumerate(req.models[1:], 2):
            say(f"model {n}/{len(req.models)}: {model} against {best}, until decided")
            result = compare_until_decided(store, req, seq, best, model, on_progress, warn)
            why = f" ({result.shortfall.reason})" if result.shortfall else ""
            say(f"{model} − {best}: {result.verdict_text(best, model)} after {result.items_used} items{why}")
            results[model] = (best, result)
            if result.verdict == "B better":
                best = model
        if len(req.models) == 1:
            seq.advance(store, req, best, len(seq.order), on_progress, warn)
    for model in req.models:
        settle(store, leaderboard_run_id(req, model), set(seq.items_of_all()))
    reports = {m: load_run(store, leaderboard_run_id(req, m), lines=req.lines, seed=req.seed, cutoff=req.cutoff,
                           budget_ms=req.budget_ms)
               for m in req.models}
    rest = sorted((m for m in req.models if m != best), key=lambda m: -reports[m].summary.mean.get(req.metric, 0.0))
    standings = [standing(store, req, rank, m, reports[m], seq.walls.get(m, 0.0), vs_model=results.get(m, (None,))[0],
                          sequential=results.get(m, (None, None))[1]) for rank, m in enumerate([best, *rest], 1)]
    return board(req, standings, started)


def settle(store: Store, run_id: str, every: set[str]) -> None:
    """The status of a run this leaderboard stopped (the runner marked it "interrupted"): "decided"
    while it lacks items, else what the runner says of a finished run."""
    stored = store.run(run_id)
    if stored is None or stored.status != "interrupted":
        return
    if store.done_item_ids(run_id) < every:
        store.set_run_status(run_id, "decided")
    else:
        errors = any(c.error is not None for c in store.completions(run_id))
        store.set_run_status(run_id, "done_with_errors" if errors else "done")


def compare_until_decided(store: Store, req: LeaderboardRequest, seq: Sequenced, best: str, model: str,
                          on_progress: ProgressFn | None, warn: Say | None) -> Sequential:
    """`model` (B) against `best` (A), one file at a time in the seeded order: both replayed until
    they hold the file, its mean difference looked at, stopped at the first decided look."""
    from replay.scoring import run_scores

    test = SequentialTest(req.alpha, req.margin, req.method)
    text = "shown"
    for upto, file in enumerate(seq.order, 1):
        seq.advance(store, req, best, upto, on_progress, warn)
        seq.advance(store, req, model, upto, on_progress, warn)
        values = [{r.item_id: r.values.get(req.metric) for r in run_scores(store, leaderboard_run_id(req, m), text, req.lines).rows}
                  for m in (best, model)]
        pairs = [(va, vb) for i in seq.items_of[file]
                 if (va := values[0].get(i)) is not None and (vb := values[1].get(i)) is not None]
        if pairs and test.look(file_difference(pairs), len(pairs)) is not None:
            break
    return test.result(req.metric, len(seq.items_of_all()), len(seq.order), req.seed)


def render(board: Leaderboard, fmt: str = "text", output: Path | None = None) -> str:
    """The leaderboard in one of FORMATS, written to `output` when given."""
    if fmt not in RENDERERS:
        raise UsageError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    page = RENDERERS[fmt](board)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(page, encoding="utf-8")
    return page
