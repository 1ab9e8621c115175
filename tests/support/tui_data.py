"""Deterministic stores for the TUI tests and the bench (fixed timestamps, no clocks), and the
wait the TUI tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from replay.reading import RunConfig
from replay.records import CaptureRecord, Completion, FimItem, Reference, Segments, Source, TraceStep
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


ITEMS = (("item-0", "contracts/A.sol", "x = 1;"), ("item-1", "contracts/A.sol", "return y;"),
         ("item-2", "contracts/B.sol", "emit E();"))


def add_runs(store: Store) -> None:
    """Two runs over three benchmark items (scored by replay.reports.report) and one run that replayed
    the first three captures (item ids `capture-N` with their capture references, as replay.run.inputs
    names them and the runner keeps them)."""
    store.add_items(FimItem(id=i, file=f, prefix="contract A {\n", middle=m, suffix="\n}\n", mode="line")
                    for i, f, m in ITEMS)
    answers = {"run-a": ("x = 1;", "return x;", "emit E();"), "run-b": ("x = 2;", "return y;", "")}
    for run_id, model in (("run-a", "qwen2.5-coder-0.5b"), ("run-b", "starcoder2-3b")):
        store.create_run(run_id, RunConfig(model=model, backend="llamacpp", editor="standard"))
        for (item_id, _, _), text in zip(ITEMS, answers[run_id]):
            store.add_completion(run_id, Completion(item_id=item_id, text=text, raw_text=text, backend="llamacpp", model=model))
        store.set_run_status(run_id, "done")
    store.create_run("run-cap", RunConfig(model="qwen2.5-coder-0.5b", backend="llamacpp", editor="tabby"))
    store.add_run_references("run-cap", [(f"capture-{i}", Reference(kind="capture", capture_id=i)) for i in (1, 2, 3)])
    trim = "TabbyML/tabby clients/tabby-agent/src/postprocess/trimMultiLineInSingleLineMode.ts"
    for i in range(3):
        raw = f"{i} + 2\n    emit Sum({i});\n}}"
        store.add_completion("run-cap", Completion(
            item_id=f"capture-{i + 1}", text=raw, raw_text=raw, backend="llamacpp", model="qwen2.5-coder-0.5b",
            stage="tabby", shown_text=f"{i} + 2", multiline=False,
            trace=(TraceStep(step="trimMultiLineInSingleLineMode", source=trim, text=f"{i} + 2"),)))
    store.set_run_status("run-cap", "done")


async def settle(pilot) -> None:  # noqa: ANN001 - Textual's Pilot, not imported here (the bench needs no Textual types)
    """Wait until no worker runs (counts, prompt-token stats) and the screen has repainted:
    painting can start a stats worker, so loop until a paint starts none."""
    for _ in range(100):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)
        if not any(w.is_running for w in pilot.app.workers):
            return
