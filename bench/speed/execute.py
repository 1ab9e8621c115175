"""pass@1 by execution on HumanEval single-line infilling: the 1,033 canonical middles run, each
program contained (replay.scoring.sandbox), two at a time, with an empty results cache; against
the same programs run bare (`python -c PROGRAM`, no containment, no guards, no limits), two at a
time, in the same run: what the containment costs beyond the interpreter. Target: 180 s.

Run: python -m bench.speed.execute [HumanEval-SingleLineInfilling.jsonl.gz] [--workers 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from replay.scoring import execute
from replay.scoring.sandbox import isolation
from tests.support.humaneval import SINGLE_LINE, cases


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path, nargs="?", default=SINGLE_LINE)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    programs = [("python", execute.program("python", c["prefix"], c["completion"], c["suffix"], c["test"], c["entry_point"]))
                for c in cases(lambda r: r["canonical_solution"], args.data)]
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        outcomes = execute.execute_many(programs, workers=args.workers, cache=Path(tmp) / "executions.sqlite")
        contained = time.perf_counter() - t
        t = time.perf_counter()
        execute.execute_many(programs, workers=args.workers, cache=Path(tmp) / "executions.sqlite")
        again = time.perf_counter() - t
    bare = {flags: _bare(programs, flags, args.workers) for flags in ((), ("-I", "-S"))}
    passed = sum(o.passed for o in outcomes)
    print(f"{len(programs)} executions on {args.workers} workers, contained by {isolation()}: {contained:.1f} s"
          f" ({len(programs) / contained:.1f}/s), pass@1 {passed / len(programs):.4f}; again from the cache {again:.2f} s")
    for flags, (seconds, ok) in bare.items():
        print(f"bare `python {' '.join(flags) + ' ' if flags else ''}-c` {seconds:.1f} s ({ok} exit 0):"
              f" contained is {contained / seconds:.2f}x bare")


def _bare(programs: list[tuple[str, str]], flags: tuple[str, ...], workers: int) -> tuple[float, int]:
    """Seconds to run every program as `python FLAGS -c PROGRAM`, `workers` at a time, and how many exited 0.
    `-I -S` is how the sandbox starts Python (no site-packages): the difference is the containment."""
    t = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        codes = list(pool.map(lambda p: subprocess.run([sys.executable, *flags, "-c", p[1]], capture_output=True).returncode,
                              programs))
    return time.perf_counter() - t, sum(c == 0 for c in codes)


if __name__ == "__main__":
    main()
