"""Deterministic stores for the TUI tests and the bench: fixed timestamps, no clocks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from replay.records import CaptureRecord, Completion, Segments, Source
from replay.store import Store

MODELS = ("qwen2.5-coder-0.5b", "starcoder2-3b", "deepseek-coder-1.3b")
OUTCOMES = ("accepted", "dismissed", "viewed", "unknown")
T0 = 1_763_600_000.0  # 2025-11-20 00:53:20 UTC


def capture(i: int, *, source: str = "events/2025-11-20.json") -> CaptureRecord:
    prefix = f"contract C{i} {{\n    function f() public {{\n        uint x = "
    suffix = ";\n    }\n}\n"
    return CaptureRecord(
        source=Source(file=source, line=i + 1), editor="tabby" if i % 3 else "continue", format="tabby-events",
        completion_id=f"cmpl-{i:06d}", model=MODELS[i % 3], language="solidity", filepath=f"contracts/C{i % 50}.sol",
        segments=Segments(prefix=prefix, suffix=suffix),
        logged_prompt=f"<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>", completion=f"{i} + 1",
        outcome=OUTCOMES[i % 4], ts=T0 + 60 * i,  # type: ignore[arg-type]
    )


def captures(start: int, stop: int) -> Iterator[CaptureRecord]:
    return (capture(i) for i in range(start, stop))


def make_store(path: Path, n: int) -> Store:
    store = Store(path)
    store.add_captures(captures(0, n))
    return store


def add_runs(store: Store) -> None:
    """Two runs over the first three captures, with completions and scores."""
    for run_id, model, values in (("run-a", "qwen2.5-coder-0.5b", (1.0, 0.5, 0.75)), ("run-b", "starcoder2-3b", (0.25, 0.5, 1.0))):
        store.create_run(run_id, {"model": model, "backend": "llamacpp"})
        for i, value in enumerate(values):
            store.add_completion(run_id, Completion(item_id=f"cmpl-{i:06d}", text=f"{i} + 2", raw_text=f"{i} + 2",
                                                    backend="llamacpp", model=model))
        store.add_scores(run_id, [(f"cmpl-{i:06d}", f"contracts/C{i}.sol", "indel", v) for i, v in enumerate(values)]
                         + [(f"cmpl-{i:06d}", f"contracts/C{i}.sol", "exact", float(v == 1.0)) for i, v in enumerate(values)])
        store.set_run_status(run_id, "done")
