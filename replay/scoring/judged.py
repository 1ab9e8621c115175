"""Whole-text judgements of a run's completions, kept per text beside its pair scores: the
whole file compiled (replay.scoring.compiles) and the benchmark's tests run with the text in
place (replay.scoring.execute: pass@1). A judgement the store holds for the same text is added
to the rows whether asked for or not; one asked for is made for the texts it lacks."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import msgspec

from replay.reading import ScoreKeeper, ScoreSet
from replay.scoring.aggregate import ScoredItem
from replay.scoring.metrics import Lines, Text

Judge = Callable[[ScoreKeeper, list[ScoredItem], Lines, "int | None"], None]


def compiles_key(text: Text) -> str:
    """The name a run's compiles judgements of one text are kept under, e.g. `shown:compiles`:
    a judgement is of the whole text in its file, whatever the window."""
    return f"{text}:compiles"


def execute_key(text: Text, lines: Lines) -> str:
    """The name a run's test executions of one text and line window are kept under, e.g.
    `shown:execute:lines=auto` (the text run is cut to the window: replay.scoring.execute)."""
    return f"{text}:execute:lines={lines}"


def value_digest(value: Any) -> bytes:
    """16 bytes of SHA-256 over the value's msgpack encoding (self-delimiting: no two values
    share one; encoded in C, so a run's texts cost less to encode than to hash)."""
    return hashlib.sha256(msgspec.msgpack.encode(value)).digest()[:16]


def _compiles(store: ScoreKeeper, rows: list[ScoredItem], lines: Lines, workers: int | None) -> None:
    from replay.scoring.compiles import add_compiles

    add_compiles(store, rows)  # the whole text in its file, whatever the window


def _executions(store: ScoreKeeper, rows: list[ScoredItem], lines: Lines, workers: int | None) -> None:
    from replay.scoring.execute import add_execution

    add_execution(store, rows, lines, workers)


def _add_judged(store: ScoreKeeper, run_id: str, rows: list[ScoredItem], key: str, judged: ScoreSet,
                judge: Judge | None, lines: Lines,
                workers: int | None) -> None:
    """Add a whole-text judgement (compiles, pass@1) to the rows whose text the store holds one
    of under `key`; with `judge`, judge the other rows' texts and keep every judgement, n/a ones
    as an entry without a value (captures, items without a judge get none)."""
    missing = []
    for row in rows:
        digest = value_digest(row.completion)
        entry = judged.entries.get(row.item_id)
        if entry is not None and entry[0] == digest:
            row.values.update(entry[1])
        elif judge is not None:
            missing.append((row, digest, set(row.values)))
    if missing:
        judge(store, [row for row, *_ in missing], lines, workers)
        store.merge_scores(run_id, key, {row.item_id: (digest, {m: v for m, v in row.values.items() if m not in before})
                                         for row, digest, before in missing})


def add_judgements(store: ScoreKeeper, run_id: str, rows: list[ScoredItem], text: Text, lines: Lines,
                   sets: dict[str, ScoreSet], compiles: bool, execute: bool, workers: int | None) -> bool:
    """The compiles and execution judgements of the rows: those the store holds (`sets`), and
    those asked for; True when any kind was added (the rows are then more than their pair scores)."""
    added = False
    for name, asked, judge in ((compiles_key(text), compiles, _compiles), (execute_key(text, lines), execute, _executions)):
        if asked or name in sets:
            _add_judged(store, run_id, rows, name, sets.get(name) or ScoreSet(), judge if asked else None, lines, workers)
            added = True
    return added
