"""Scoring throughput: Indel pairs/s through replay.scoring against a bare rapidfuzz loop.

Run: python bench/bench_scoring.py [--pairs N] [--corpus PATH_OR_NAME]
Prints pairs/s of (a) a bare `Indel.normalized_similarity` loop, (b) the `replay.scoring.indel`
metric in the same loop, (c) `replay.scoring.indel_many` (rapidfuzz's cpdist), and the ratio of
each to (a), measured in this run. Targets: >= 1M Indel pairs/s, >= 0.8x bare. The pairs are
real benchmark items (middle vs a shifted middle) cut by evalgen from a corpus (default: the
demo corpus, or a generated one if it cannot be made). Also times BLEU and CodeBLEU per pair.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rapidfuzz.distance import Indel  # noqa: E402

from replay import scoring  # noqa: E402
from replay.corpus.evalgen import EvalgenOptions, collect_files, generate  # noqa: E402


def pairs_from(corpus: str, n: int) -> list[tuple[str, str]]:
    from replay.corpus.sources import resolve_corpus_arg

    root = resolve_corpus_arg(corpus)
    items = generate(collect_files([root], ["sol"]), EvalgenOptions(per_file=20, mode="span", max_middle=200)).items
    base = [(it.middle, it.middle[1:] + it.suffix[:1]) for it in items]
    return [base[i % len(base)] for i in range(n)]


def best_of(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=200_000)
    ap.add_argument("--corpus", default=None, help="folder or corpus name (default: the demo corpus)")
    args = ap.parse_args()
    if args.corpus is None:
        from replay.corpus.sources import DEMO_CORPUS, ensure_corpus

        args.corpus = str(ensure_corpus(DEMO_CORPUS))
    pairs = pairs_from(args.corpus, args.pairs)
    refs = [a for a, _ in pairs]
    comps = [b for _, b in pairs]
    mean_len = sum(map(len, refs)) / len(refs)
    sim = Indel.normalized_similarity
    metric = scoring.indel

    def bare() -> None:
        for a, b in pairs:
            sim(a, b)

    def ours() -> None:
        for a, b in pairs:
            metric(a, b)

    def many() -> None:
        scoring.indel_many(refs, comps)

    t_bare, t_ours, t_many = best_of(bare), best_of(ours), best_of(many)
    n = len(pairs)
    print(f"pairs: {n}, mean reference length {mean_len:.1f} chars, corpus {args.corpus}")
    print(f"bare rapidfuzz loop     : {n / t_bare:12,.0f} pairs/s")
    print(f"replay.scoring.indel    : {n / t_ours:12,.0f} pairs/s  ratio {t_bare / t_ours:.2f}x bare")
    print(f"replay.scoring.indel_many: {n / t_many:11,.0f} pairs/s  ratio {t_bare / t_many:.2f}x bare")
    few = pairs[:300]
    t = time.perf_counter()
    for a, b in few:
        scoring.bleu(a, b)
    print(f"bleu (sacrebleu)        : {len(few) / (time.perf_counter() - t):12,.0f} pairs/s")
    t = time.perf_counter()
    for a, b in few:
        scoring.codebleu(a, b)
    print(f"codebleu (solidity)     : {len(few) / (time.perf_counter() - t):12,.0f} pairs/s")


if __name__ == "__main__":
    main()
