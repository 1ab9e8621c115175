"""Scoring many pairs: each distinct (language, reference, completion) once, across processes.

A pair's scores depend only on its two texts and language, so the pairs are scored in
contiguous chunks by forked worker processes and put back in order: the numbers are the serial
ones (no number depends on the process: not even on its string hash seed, see
replay.scoring.codebleu_engine.first_seen). Forked workers start with the parent's modules, grammars
and parser already loaded, where a spawned one would import them again. The pool forks only
where a fork is sound (replay.cores.fork_is_safe: Linux, one thread); otherwise, and for small
batches, it scores here.

Scoring allocates hundreds of thousands of small containers (n-gram tuples, tree nodes, data-flow
edges) and makes no reference cycles: the cyclic garbage collector, run every few hundred
allocations, would walk every object the process holds (the caches, the run's items) again and
again, about a third of the time. It is paused for a batch (and frozen before forking, so
that a worker neither walks nor copies the parent's objects); what a batch leaves is collected
when it ends.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager

import msgspec

from replay.cores import fork_is_safe, usable_cores
from replay.scoring.aggregate import ScoredItem
from replay.scoring.metrics import METRICS, Lines, metric_values, windowed

Triple = tuple[str, str, str]  # language, reference, completion (cut to the window)

# Fewer distinct pairs than this are scored here: forking and collecting costs more than it saves.
MIN_PARALLEL = 1500
CHUNKS_PER_WORKER = 4

_WORK: list[Triple] = []  # what the forked workers score (inherited, never sent)


def score_many(pairs: Sequence[Triple], workers: int | None = None) -> list[dict[str, float]]:
    """The metric values of each (language, reference, completion), in order; `workers`
    processes (None: every core) when the batch is large enough."""
    index: dict[Triple, int] = {}
    distinct: list[Triple] = []
    for pair in pairs:
        if pair not in index:
            index[pair] = len(distinct)
            distinct.append(pair)
    with collector_paused():
        values = _score_distinct(distinct, usable_cores() if workers is None else workers)
    return [dict(values[index[pair]]) for pair in pairs]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while the block runs (as it was after): scoring and
    reading a run back make many small containers, and each collection they trigger walks the
    parse caches, which hold no cycles to free. Nested uses keep it off until the outermost ends."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _score_distinct(pairs: list[Triple], workers: int) -> list[dict[str, float]]:
    workers = min(workers, len(pairs) // (MIN_PARALLEL // 2) or 1)
    if workers <= 1 or len(pairs) < MIN_PARALLEL or not fork_is_safe():
        return [metric_values(ref, comp, language) for language, ref, comp in pairs]
    global _WORK
    size = -(-len(pairs) // (workers * CHUNKS_PER_WORKER))
    chunks = [(start, min(start + size, len(pairs))) for start in range(0, len(pairs), size)]
    _WORK = pairs
    gc.freeze()  # the workers' objects as they are now: neither walked nor copied by a worker's collector
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_score_chunk, chunks, chunksize=1)
            pool.close()
            pool.join()
    finally:
        gc.unfreeze()
        _WORK = []
    return [values for part in parts for values in part]


def _score_chunk(span: tuple[int, int]) -> list[dict[str, float]]:
    return [metric_values(ref, comp, language) for language, ref, comp in _WORK[span[0]:span[1]]]


def score_rows(pairs: Iterable[tuple[str, str, str, str, str]], lines: Lines = "all",
               workers: int | None = None) -> list[ScoredItem]:
    """Score (item_id, file, language, reference, completion) tuples, both texts cut to the
    line window."""
    pairs = list(pairs)
    cut = [(language, *windowed(reference, completion, lines)) for _, _, language, reference, completion in pairs]
    values = score_many(cut, workers)  # type: ignore[arg-type]
    return [ScoredItem(item_id=item_id, file=file, values=v, middle_len=len(reference), reference=reference,
                       completion=completion, language=language)
            for (item_id, file, language, reference, completion), v in zip(pairs, values)]


def nothing_shown(rows: Sequence[ScoredItem], hidden: Collection[str], lines: Lines = "auto",
                  workers: int | None = None) -> list[ScoredItem]:
    """The rows as the user saw them in time: each item of `hidden` (an answer the editor would
    not have shown in time) scored as if the editor had shown nothing, its empty text scored
    against its reference by the same scorers as any text (score_many), the others as they are.
    Only the metrics of a pair are kept: a whole-file judgement (compiles, pass@1) is of the text
    the engine gave, not of the empty text, and is left out of every row alike."""
    pair_names = {m.name for m in METRICS if m.score is not None}
    todo = [n for n, row in enumerate(rows) if row.item_id in hidden]
    values = score_many([(rows[n].language, *windowed(rows[n].reference, "", lines)) for n in todo], workers)
    out = [msgspec.structs.replace(row, values={k: v for k, v in row.values.items() if k in pair_names}) for row in rows]
    for n, v in zip(todo, values):
        out[n] = msgspec.structs.replace(rows[n], values=v, completion="")
    return out
