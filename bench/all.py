"""Every speed ratio in one run: scoring, item generation, import, replay overhead.

Run: python bench/all.py [--quick] [--skip replay,import,...]
(the bench extra: `pip install -e '.[bench]'`; the corpus solady 0.1.26 is made once with
`npm pack`; the replay part needs the demo model of `fimreplay assets install`)

Prints the date, the machine and its load, then, each measured in this run against the bare
library loop on the same input:
  score    all four metrics vs rapidfuzz + sacrebleu + the `codebleu` package (JavaScript
           grammar, as the seed scored), one-line and 4-line solady pairs, in process (wall and
           per CPU-second); `fimreplay score RUN` of the one-line pairs stored as a run, as a
           whole process with 1 and every-core workers, vs the bare loop's pairs/s; a second
           `score` of the run with another window vs the first (bench/bench_scoring.py);
  evalgen  `fimreplay evalgen` on solady as a whole process: items/s per mode and worker count;
  import   `fimreplay import` of a generated Tabby log as a whole process: MB/s vs a bare loop
           of stdlib json and one SQLite transaction (the log from bench/import_bench.py);
  replay   replay's own work per item vs the bare llama.cpp engine (bench/replay_overhead.py).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))

import bench_scoring  # noqa: E402
from scoring_pairs import SOLADY, pairs_of, solady_items  # noqa: E402

PARTS = ("score", "evalgen", "import", "replay")


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in _read("/proc/cpuinfo").splitlines() if line.startswith("model name")), "?")
    mem = next((int(line.split()[1]) / 2**20 for line in _read("/proc/meminfo").splitlines() if line.startswith("MemTotal")), 0)
    return f"{platform.node()}: {cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, Python {platform.python_version()}"


def load() -> str:
    return _read("/proc/loadavg").split(" ")[0] or "?"


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return ""


def fimreplay(*args: str, home: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run the command as a user does (a new process), timed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), FIMREPLAY_HOME=str(home))
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "replay", *args], capture_output=True, text=True, env=env, cwd=ROOT)
    elapsed = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"fimreplay {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return elapsed, done


def score_part(quick: bool) -> None:
    workers = bench_scoring.scoring.default_workers()
    multi = pairs_of(solady_items(4, per_file=20))[: 500 if quick else 2000]
    bench_scoring.report_all(solady_items(1), multi, workers, repeats=1 if quick else 3, label="score ")


def evalgen_part(quick: bool) -> None:
    from replay.corpus.sources import ensure_corpus

    root = ensure_corpus(SOLADY)
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("line", "span"):
            rates = {}
            for workers in (1, 2):
                elapsed, done = fimreplay("evalgen", str(root), "-o", f"{tmp}/items.jsonl", "--mode", mode, "--per-file", "20",
                                          "--workers", str(workers), "--json", home=Path(tmp) / "home")
                n = json.loads(done.stdout)["n_items"]
                rates[workers] = n / elapsed
                print(f"evalgen {mode:4} workers {workers}: {n:,} items in {elapsed:.2f} s (whole process): {n / elapsed:7,.0f} items/s")
            print(f"evalgen {mode:4} 2 workers vs 1: {rates[2] / rates[1]:.2f}x")


def bare_json_sqlite(log: Path, db: Path) -> float:
    """stdlib json of every line and the line inserted, in one SQLite transaction (WAL)."""
    t = time.perf_counter()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE lines (id INTEGER PRIMARY KEY, event TEXT, line BLOB NOT NULL)")
    con.execute("BEGIN")
    with open(log, "rb") as f:
        for line in f:
            obj = json.loads(line)
            con.execute("INSERT INTO lines (event, line) VALUES (?, ?)", (next(iter(obj["event"])), line))
    con.execute("COMMIT")
    con.close()
    return time.perf_counter() - t


def import_part(quick: bool) -> None:
    from import_bench import generate

    events = 9_000 if quick else 45_000
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "2024-09-30.json"
        mb = generate(log, events) / 1e6
        bare = min(bare_json_sqlite(log, Path(tmp) / f"bare{n}.db") for n in range(2))
        whole = min(fimreplay("import", str(log), "--db", f"{tmp}/s{n}.db", "--json", home=Path(tmp) / "home")[0]
                    for n in range(2))
        print(f"import {events:,} events ({mb:.0f} MB): bare json + SQLite {mb / bare:6.1f} MB/s | fimreplay import (whole"
              f" process) {mb / whole:6.1f} MB/s ({bare / whole:.2f}x bare)")


def replay_part(quick: bool) -> None:
    args = ["--items", "4" if quick else "6", "--new-tokens", "32", "--passes", "1" if quick else "2"]
    done = subprocess.run([sys.executable, str(BENCH / "replay_overhead.py"), *args], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        print(f"replay overhead: not measured ({(done.stderr.strip().splitlines() or ['failed'])[-1]})")
        return
    for line in done.stdout.strip().splitlines()[-2:]:
        print(f"replay {line}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller inputs, one pass each")
    ap.add_argument("--skip", default="", help=f"comma-separated parts to leave out ({', '.join(PARTS)})")
    args = ap.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {machine()}")
    for name, part in (("score", score_part), ("evalgen", evalgen_part), ("import", import_part), ("replay", replay_part)):
        if name in skip:
            continue
        before = load()
        part(args.quick)
        print(f"  ({name}: load average {before} before, {load()} after)")


if __name__ == "__main__":
    main()
