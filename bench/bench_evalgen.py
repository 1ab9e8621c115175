"""evalgen throughput on a real corpus: files/s and items/s, 1 worker and N workers.

Run: python bench/bench_evalgen.py [--corpus PATH_OR_NAME] [--workers N] [--mode line|span]
Default corpus: npm:@openzeppelin/contracts@5.7.0 (made with `npm pack` on first use).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from replay.corpus.evalgen import EvalgenOptions, collect_files, generate  # noqa: E402
from replay.corpus.sources import ensure_corpus, resolve_corpus_arg  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--per-file", type=int, default=3)
    args = ap.parse_args()
    root = resolve_corpus_arg(args.corpus) if args.corpus else ensure_corpus("npm:@openzeppelin/contracts@5.7.0")
    files = collect_files([root], ["sol"])
    size = sum(f.path.stat().st_size for f in files)
    print(f"corpus {root}: {len(files)} files, {size / 1e6:.2f} MB")
    for mode in ("line", "span"):
        opts = EvalgenOptions(per_file=args.per_file, mode=mode)  # type: ignore[arg-type]
        for workers in sorted({1, args.workers}):
            t = time.perf_counter()
            result = generate(files, opts, workers=workers)
            dt = time.perf_counter() - t
            print(f"mode {mode:4} workers {workers}: {len(files) / dt:8,.0f} files/s, {len(result.items) / dt:8,.0f} items/s"
                  f" ({len(result.items)} items in {dt:.2f} s)")


if __name__ == "__main__":
    main()
