"""evalgen throughput on a real corpus: items/s per mode and worker count, in process and as a
whole `fimreplay evalgen` process, with the ratios that matter: span vs line mode, N workers vs 1.

Run: python -m bench.speed.evalgen [--corpus PATH_OR_NAME] [--workers 1 2] [--per-file 20] [--repeat 3]
Default corpus: npm:solady@0.1.26 (107 Solidity files; made with `npm pack` on first use).
Each figure is the best of --repeat runs (the machine is shared: the best run is the least disturbed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench.support import ROOT
from replay.corpus.evalgen import EvalgenOptions, collect_files, generate
from replay.corpus.sources import ensure_corpus, resolve_corpus_arg


def best(repeat: int, fn) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """(fastest wall time, items) of `repeat` calls of fn() -> items."""
    times, n = [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        n = fn()
        times.append(time.perf_counter() - t)
    return min(times), n


def whole_process(root: Path, mode: str, workers: int, per_file: int, work: Path) -> int:
    """One `fimreplay evalgen` process (interpreter start, imports, JSONL and store writes)."""
    db, out = work / "bench.db", work / "items.jsonl"
    db.unlink(missing_ok=True)
    env = dict(os.environ, FIMREPLAY_HOME=str(work / "home"))
    subprocess.run([sys.executable, "-m", "replay", "evalgen", str(root), "-o", str(out), "--mode", mode,
                    "--per-file", str(per_file), "--workers", str(workers), "--db", str(db)],
                   check=True, capture_output=True, cwd=ROOT, env=env)
    return sum(1 for _ in out.open("rb"))


def phases(files: list, opts: EvalgenOptions, work: Path) -> dict[str, float]:  # type: ignore[type-arg]
    """Where one process's time goes, in seconds: importing numpy (span mode's spot counting
    needs it), reading and keying the files, planning the middles, cutting the items, encoding
    the JSONL, storing the items; and starting a `fimreplay` process (interpreter and imports)."""
    from replay.corpus import evalgen
    from replay.store import Store

    def run(*args: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True, cwd=ROOT)
        return time.perf_counter() - t

    out: dict[str, float] = {"process start (evalgen --help)": run("-m", "replay", "evalgen", "--help"),
                             "numpy import (span)": run("-c", "import numpy") - run("-c", "pass")}
    t = time.perf_counter()
    texts = [evalgen._read(f.path) for f in files]
    keys = [evalgen.hashlib.sha256(evalgen._squeeze(x).encode("utf-8", "surrogatepass")).hexdigest() for x in texts]
    out["read + duplicate keys"] = time.perf_counter() - t
    t = time.perf_counter()
    plans = [evalgen._plan(x, opts, f.allowed) for x, f in zip(texts, files)]
    out["plan middles"] = time.perf_counter() - t
    t = time.perf_counter()
    items = [it for x, f, p in zip(texts, files, plans) for it in evalgen._build(x, f.rel, opts, p, f.stamp).items]
    out["cut items"] = time.perf_counter() - t
    t = time.perf_counter()
    data = b"".join(evalgen.iter_jsonl(items))
    out["encode JSONL"] = time.perf_counter() - t
    db = work / f"phases-{time.monotonic_ns()}.db"
    with Store(db) as store:
        t = time.perf_counter()
        store.add_items(items)
        out["store items"] = time.perf_counter() - t
    assert len(keys) == len(files) and data
    return out


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def bare_pool_scaling(workers: int, repeat: int) -> float:
    """How much faster N processes do a pure CPU loop than one, on this machine now: the ceiling
    any worker count can reach here (a shared 2-core machine gives far less than N)."""
    jobs = [300_000] * 16
    one, _ = best(repeat, lambda: len([_spin(n) for n in jobs]))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        many, _ = best(repeat, lambda: len(list(pool.map(_spin, jobs))))
    return one / many


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--per-file", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    root = resolve_corpus_arg(args.corpus) if args.corpus else ensure_corpus("npm:solady@0.1.26")
    files = collect_files([root], ["sol"])
    size = sum(f.path.stat().st_size for f in files)
    print(f"corpus {root}: {len(files)} files, {size / 1e6:.2f} MB; {args.per_file} items per file, best of {args.repeat}")
    rates: dict[tuple[str, str, int], float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("line", "span"):
            opts = EvalgenOptions(per_file=args.per_file, mode=mode)  # type: ignore[arg-type]
            generate(files, opts, workers=1)  # warm: numpy and the corpus's pages
            spent = min((phases(files, opts, Path(tmp)) for _ in range(args.repeat)), key=lambda p: sum(p.values()))
            print(f"mode {mode:4} one process, where the time goes: "
                  + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in spent.items() if mode == "span" or "numpy" not in k))
            for workers in args.workers:
                dt, n = best(args.repeat, lambda: len(generate(files, opts, workers=workers).items))  # noqa: B023
                rates["generate", mode, workers] = n / dt
                wt, _ = best(args.repeat, lambda: whole_process(root, mode, workers, args.per_file, Path(tmp)))  # noqa: B023
                rates["process", mode, workers] = n / wt
                print(f"mode {mode:4} workers {workers}: generate {n / dt:7,.0f} items/s ({n} in {dt:.3f} s);"
                      f" whole process {n / wt:7,.0f} items/s ({wt:.2f} s)")
    one = args.workers[0]
    for w in args.workers[1:]:
        print(f"bare process pool, pure CPU loop: {w} vs 1 workers {bare_pool_scaling(w, args.repeat):.2f}x (the machine's ceiling now)")
    for where in ("generate", "process"):
        print(f"{where}: span/line {rates[where, 'span', one] / rates[where, 'line', one]:.2f}x at {one} worker(s)", end="")
        for w in args.workers[1:]:
            print(f"; {w} vs {one} workers: line {rates[where, 'line', w] / rates[where, 'line', one]:.2f}x,"
                  f" span {rates[where, 'span', w] / rates[where, 'span', one]:.2f}x", end="")
        print()


if __name__ == "__main__":
    main()
