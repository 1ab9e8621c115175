"""Scoring throughput: all four metrics through replay.scoring against the bare reference
libraries on the same pairs, and a second `score` of a run with another line window.

Run: python -m bench.speed.scoring [--pairs N] [--multi-pairs N] [--workers N] [--corpus PATH_OR_NAME]
(the `codebleu` package's JavaScript grammar is one of the project's dependencies)

Pairs: solady 0.1.26 line-mode items (7,000+ one-line middles; 4-line middles for the
multi-line figure) with model-like completions (bench/speed/scoring_pairs.py), cut to the reference's
line window (`--lines auto`) as `fimreplay score` cuts them. Per pair:
  bare: rapidfuzz `Indel.normalized_similarity`, `==`, sacrebleu `BLEU.sentence_score` and
        `codebleu.calc_codebleu(..., lang="javascript")` (the seed's scorer: the package has no
        Solidity and was given its JavaScript grammar), in a loop;
  ours: `replay.scoring.score_rows` (indel, exact, bleu, Solidity CodeBLEU with data flow), one
        process, then `--workers` processes; caches emptied before every pass. Also pairs per
        CPU-second (this process and its workers): on a machine shared with other work the
        wall figures follow the load, the CPU figure much less.
Whole process: the one-line pairs as a finished run in a store, `fimreplay score bench
--workers N --json` as a new process (start-up, reading the run, scoring, storing the scores,
the aggregate), with 1 and `--workers` workers, against the bare loop's pairs/s.
Re-score: the same stored run, `score_result(run, lines="auto")` then `score_result(run, lines=1)` (the same
cut texts for one-line references) in this process, and a report of the scored run; the best of
3 passes, each on a fresh copy of the store.
Targets: >= 3x bare, >= 3,000 pairs/s on 2 cores one-line, >= 1,000 multi-line, re-score >= 10x.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.speed.scoring_pairs import Pair, pairs_of, solady_items
from bench.support import ROOT
from replay import scoring
from replay.cores import usable_cores
from replay.reading import RunConfig


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and of the worker processes it waited for)."""
    def cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    t, c = time.perf_counter(), cpu()
    fn()
    return time.perf_counter() - t, cpu() - c


def _clear_caches() -> None:
    from replay.scoring.codebleu_engine import analyse
    from replay.scoring.sentence_bleu import ngram_counts

    analyse.cache_clear()
    ngram_counts.cache_clear()


def bare_loop(pairs: list[Pair], lines: scoring.Lines = "auto") -> Callable[[], object]:
    """The reference libraries pair by pair on the same cut texts."""
    from codebleu import calc_codebleu
    from rapidfuzz.distance import Indel
    from sacrebleu.metrics import BLEU

    logging.getLogger().setLevel(logging.ERROR)  # the package warns on every pair without data flow
    sacre = BLEU(tokenize="13a", smooth_method="exp", effective_order=True)
    cut = [scoring.windowed(ref, comp, lines) for _, _, _, ref, comp in pairs]

    def run() -> None:
        for ref, comp in cut:
            Indel.normalized_similarity(ref, comp)
            _ = ref == comp
            sacre.sentence_score(comp, [ref])
            calc_codebleu([ref], [comp], lang="javascript", weights=(0.5, 0.0, 0.5, 0.0))

    return run


def throughput(pairs: list[Pair], workers: int, repeats: int = 3, lines: scoring.Lines = "auto") -> dict[str, float]:
    """pairs/s of the bare loop, of ours in one process and in `workers` processes."""
    bare, bare_cpu = timed(bare_loop(pairs, lines))

    def ours(n: int) -> Callable[[], object]:
        def run() -> None:
            _clear_caches()
            scoring.score_rows(pairs, lines, workers=n)
        return run

    one = min((timed(ours(1)) for _ in range(repeats)), key=lambda r: r[0])
    many = min((timed(ours(workers)) for _ in range(repeats)), key=lambda r: r[0])
    n = len(pairs)
    return {"pairs": n, "bare": n / bare, "one": n / one[0], "many": n / many[0], "workers": workers,
            "bare_cpu": n / bare_cpu, "one_cpu": n / one[1], "many_cpu": n / many[1]}


def stored_run(path: Path, pairs: list[Pair], items: list) -> Path:
    """A store at `path` holding the items and a finished run "bench" of their completions."""
    from replay.records import Completion
    from replay.store import Store

    comps = {p[0]: p[4] for p in pairs}
    with Store(path) as store:
        store.add_items(items)
        store.create_run("bench", RunConfig(backend="llamacpp", model="m", editor="standard"))
        with store.transaction():
            for it in items:
                store.add_completion("bench", Completion(item_id=it.id, text=comps[it.id], raw_text=comps[it.id],
                                                         backend="llamacpp", model="m"))
        store.set_run_status("bench", "done")
    return path


def _fresh_copy(db: Path, name: str) -> Path:
    """A copy of the store (no scores yet: each pass scores from nothing)."""
    copy = db.with_name(name)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(db, copy)
    return copy


def rescore(db: Path, workers: int, repeats: int = 3) -> dict[str, float]:
    """Seconds of a first `score` of a stored run (in this process, parse caches emptied), of a
    second with another window, of a report of the scored run: the best of `repeats` passes,
    each on a fresh copy of the store."""
    from replay.store import Store
    from replay.usecases.score import report, score_result

    best = {"first": math.inf, "second": math.inf, "report": math.inf}
    for n in range(repeats):
        with Store(_fresh_copy(db, f"rescore{n}.db")) as store:
            _clear_caches()
            times = {}
            t = time.perf_counter()
            first = score_result(store, "bench", lines="auto", workers=workers)
            times["first"] = time.perf_counter() - t
            t = time.perf_counter()
            second = score_result(store, "bench", lines=1, workers=workers)
            times["second"] = time.perf_counter() - t
            t = time.perf_counter()
            report(store, ["bench"], "json", lines=1)
            times["report"] = time.perf_counter() - t
        best = {k: min(v, times[k]) for k, v in best.items()}
    return {**best, "scored": first.n_scored, "reused": second.n_reused}


def whole_score(db: Path, workers: int, repeats: int = 3) -> dict[str, float]:
    """`fimreplay score bench --workers N` as a user runs it (a new process: start-up, reading the
    run, scoring, storing the scores, the aggregate), on a fresh copy of the store each time:
    the best of `repeats`, with the process start alone (`fimreplay --help`) for scale."""
    root = ROOT
    env = dict(os.environ, PYTHONPATH=str(root))

    def run(*args: str) -> tuple[float, str]:
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "replay", *args], capture_output=True, text=True, env=env, cwd=root)
        elapsed = time.perf_counter() - t
        if done.returncode != 0:
            raise SystemExit(f"fimreplay {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
        return elapsed, done.stdout

    start = min(run("--help")[0] for _ in range(repeats))
    best, n = math.inf, 0
    for k in range(repeats):
        elapsed, out = run("score", "bench", "--db", str(_fresh_copy(db, f"whole{k}.db")), "--workers", str(workers), "--json")
        best, n = min(best, elapsed), json.loads(out)["n_scored"]
    return {"workers": workers, "pairs": n, "seconds": best, "start": start}


def print_throughput(label: str, r: dict[str, float]) -> None:
    print(f"{label}: {r['pairs']:,} pairs; bare libraries {r['bare']:7,.0f} pairs/s | ours 1 process {r['one']:7,.0f}"
          f" pairs/s ({r['one'] / r['bare']:.1f}x) | {r['workers']} processes {r['many']:7,.0f} pairs/s"
          f" ({r['many'] / r['bare']:.1f}x)\n{'':{len(label)}}  per CPU-second: bare {r['bare_cpu']:,.0f} | ours"
          f" {r['one_cpu']:,.0f} in 1 process ({r['one_cpu'] / r['bare_cpu']:.1f}x), {r['many_cpu']:,.0f} in {r['workers']}")


def print_whole(r: dict[str, float], bare_rate: float, label: str = "") -> None:
    print(f"{label}fimreplay score RUN --workers {r['workers']} (whole process): {r['pairs']:,} pairs in {r['seconds']:.2f} s,"
          f" {r['pairs'] / r['seconds']:7,.0f} pairs/s ({r['pairs'] / r['seconds'] / bare_rate:.1f}x the bare loop's pairs/s;"
          f" the process start alone {r['start']:.2f} s)")


def print_rescore(r: dict[str, float], label: str = "") -> None:
    print(f"{label}re-score: first score {r['first']:.2f} s ({r['scored']:,} scored), second with --lines 1 {r['second']:.2f} s"
          f" ({r['reused']:,} reused): {r['first'] / r['second']:.1f}x faster; report of the scored run {r['report']:.2f} s")


def report_all(items: list, multi: list[Pair], workers: int, repeats: int = 3, label: str = "") -> None:
    """Every scoring figure, printed: throughput one-line and multi-line (in process), whole
    `fimreplay score` processes with 1 and `workers` workers, and the re-score."""
    one_line = pairs_of(items)
    one = throughput(one_line, workers, repeats)
    print_throughput(f"{label}one-line", one)
    print_throughput(f"{label}4-line  ", throughput(multi, workers, repeats))
    with tempfile.TemporaryDirectory() as tmp:
        db = stored_run(Path(tmp) / "bench.db", one_line, items)
        for n in sorted({1, workers}):
            print_whole(whole_score(db, n, repeats), one["bare"], label)
        print_rescore(rescore(db, workers, repeats), label)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=0, help="one-line pairs (default: every item, 7,000+)")
    ap.add_argument("--multi-pairs", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=usable_cores())
    ap.add_argument("--corpus", default=None, help="folder or corpus name (default: solady 0.1.26 via npm pack)")
    args = ap.parse_args()
    items = solady_items(1, corpus=args.corpus)
    items = items[: args.pairs or len(items)]
    multi = pairs_of(solady_items(4, per_file=20, corpus=args.corpus))[: args.multi_pairs]
    report_all(items, multi, args.workers)


if __name__ == "__main__":
    main()
