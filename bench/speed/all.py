"""Every speed ratio in one run: scoring, item generation, import, replay overhead.

Run: python -m bench.speed.all [--quick] [--skip replay,import,...]
(the corpus solady 0.1.26 is made once with `npm pack`; the replay part needs the demo model of
`fimreplay assets install`)

Prints the date, the machine and its load, then, each measured in this run against the bare
library loop on the same input:
  score    all four metrics vs rapidfuzz + sacrebleu + the `codebleu` package (JavaScript
           grammar, as the seed scored), one-line and 4-line solady pairs, in process (wall and
           per CPU-second); `fimreplay score RUN` of the one-line pairs stored as a run, as a
           whole process with 1 and every-core workers, vs the bare loop's pairs/s; a second
           `score` of the run with another window vs the first (bench/speed/scoring.py);
  evalgen  `fimreplay evalgen` on solady as a whole process: items/s per mode and worker count
           (1, 2 and the default), and the process start alone;
  import   `fimreplay import` of a generated Tabby log as a whole process: MB/s vs a bare loop
           of stdlib json and one SQLite transaction (the log from bench/speed/import_log.py);
Every command runs in a session of its own, and a process of it still running once it has
returned fails the bench.
  replay   replay's own work per item vs the bare llama.cpp engine (bench/speed/replay_overhead.py).
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

from bench.speed import scoring as bench_scoring
from bench.speed.scoring_pairs import SOLADY, pairs_of, solady_items
from bench.support import ROOT
from replay.cores import usable_cores

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
    """Run the command as a user does (a new process, in a session of its own), timed; fail if
    any process of its session is still running once it has returned."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), FIMREPLAY_HOME=str(home))
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "replay", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT, start_new_session=True)
    stdout, stderr = proc.communicate()
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"fimreplay {' '.join(args)} failed: {stderr.strip()[-500:]}")
    left = left_behind(proc.pid)
    if left:
        raise SystemExit(f"fimreplay {' '.join(args)} left {len(left)} process(es) running after it returned: {left}")
    return elapsed, subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def left_behind(session: int) -> list[str]:
    """The command lines of the processes of a session (Linux /proc; none elsewhere)."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()) if os.path.isdir("/proc") else ():
        try:
            if os.getsid(int(pid)) == session:
                found.append(_read(f"/proc/{pid}/cmdline").replace("\0", " ").strip() or pid)
        except OSError:
            continue
    return found


def score_part(quick: bool) -> None:
    workers = usable_cores()
    multi = pairs_of(solady_items(4, per_file=20))[: 500 if quick else 2000]
    bench_scoring.report_all(solady_items(1), multi, workers, repeats=1 if quick else 3, label="score ")


def evalgen_part(quick: bool) -> None:
    """Whole `fimreplay evalgen` processes on solady, 20 items a file, best of 3 (1 with
    --quick): 1 and 2 workers and the default (one process below 8 MB of source), each mode;
    and what starting the process costs (interpreter and imports), measured the same way."""
    from replay.corpus.sources import ensure_corpus

    root = ensure_corpus(SOLADY)
    repeats = 1 if quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        start = min(fimreplay("evalgen", "--help", home=Path(tmp) / "home")[0] for _ in range(repeats))
        print(f"evalgen: starting the process (interpreter, imports, --help) {start:.2f} s")
        rates: dict[tuple[str, str], float] = {}
        for mode in ("line", "span"):
            for workers in ("1", "2", "default"):
                args = ["evalgen", str(root), "-o", f"{tmp}/items.jsonl", "--mode", mode, "--per-file", "20", "--json"]
                if workers != "default":
                    args += ["--workers", workers]
                runs = [fimreplay(*args, "--db", f"{tmp}/e{k}.db", home=Path(tmp) / "home") for k in range(repeats)]
                elapsed, done = min(runs, key=lambda r: r[0])
                n = json.loads(done.stdout)["n_items"]
                rates[mode, workers] = n / elapsed
                print(f"evalgen {mode:4} workers {workers:7}: {n:,} items in {elapsed:.2f} s (whole process): {n / elapsed:7,.0f} items/s")
            print(f"evalgen {mode:4} 2 workers vs 1: {rates[mode, '2'] / rates[mode, '1']:.2f}x;"
                  f" default vs 1: {rates[mode, 'default'] / rates[mode, '1']:.2f}x")
        print(f"evalgen span vs line (1 worker): {rates['span', '1'] / rates['line', '1']:.2f}x")


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
    from bench.speed.import_log import generate

    events = 9_000 if quick else 45_000
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "2024-09-30.json"
        mb = generate(log, events) / 1e6
        repeats = 1 if quick else 3
        bare = min(bare_json_sqlite(log, Path(tmp) / f"bare{n}.db") for n in range(repeats))
        whole = min(fimreplay("import", str(log), "--db", f"{tmp}/s{n}.db", "--json", home=Path(tmp) / "home")[0]
                    for n in range(repeats))
        print(f"import {events:,} events ({mb:.0f} MB): bare json + SQLite {mb / bare:6.1f} MB/s | fimreplay import (whole"
              f" process, best of {repeats}) {mb / whole:6.1f} MB/s ({bare / whole:.2f}x bare; target >= 50 MB/s);"
              " no process left after it returned")


def replay_part(quick: bool) -> None:
    args = ["--items", "4" if quick else "6", "--new-tokens", "32", "--passes", "1" if quick else "2"]
    done = subprocess.run([sys.executable, "-m", "bench.speed.replay_overhead", *args], capture_output=True, text=True, cwd=ROOT)
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
