"""The demo's two models on quality against latency, each beside the bare engine measured in the same run.

The items: one-line middles cut from real Solidity (the @openzeppelin/contracts asset, one item a
file, seed 0), rendered by the standard profile. The models: Qwen2.5-Coder 0.5B (`default`, the
demo's) and 1.5B (`qwen2.5-coder-1.5b`, the one the demo's closing lines suggest; `fimreplay assets
install qwen2.5-coder-1.5b` first), llama.cpp in process, greedy, the whole token budget. For each
model, each prompt goes to the bare engine and is replayed, one right after the other (the order
swapped every other prompt, the engine's prefix cache emptied before each call), so that both see
the same load on a shared machine: bare is llama-cpp-python's `create_completion` on the prompt's
token ids, timed; replay is `replay.run.runner.replay_prompts` into a throw-away store (cache off),
its time per completion the one the store keeps (what `score` and `report` read), and its wall
time per call. Prints, per model, the quality (Indel of the
shown text, the in-time Indel under `--budget`), the replay's p50 and p90 per completion and the
bare engine's, their ratio (replay / bare), and the quality-latency plot with the frontier, as the
leaderboard draws it.

    python -m bench.speed.quality_latency [--items 12] [--new-tokens 32] [--threads N] [--budget 1500]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from replay.assets import asset_path
from replay.backends.base import GenParams
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.models import resolve_model
from replay.corpus.evalgen import EvalgenOptions, collect_files, generate, iter_jsonl
from replay.latency.summary import percentile
from replay.rejects import Rejects
from replay.reports.frontier import Point, on_frontier, text_quality_latency
from replay.reports.report import load_run
from replay.run.inputs import load_inputs
from replay.run.runner import replay_prompts
from replay.store import Store

MODELS = ("default", "qwen2.5-coder-1.5b")


def measure(model: str, items_path: Path, store: Store, args: argparse.Namespace, tmp: Path) -> tuple[Point, str]:
    """One model: each prompt to the bare engine and replayed, one after the other (the order
    swapped every other prompt, the engine's prefix cache emptied before each call, so neither
    reuses the other's prompt); its point (Indel, replay p50/p90) and its line."""
    ref = resolve_model(model)
    backend = LlamaCppBackend(ref, ctx=1024, n_threads=args.threads)
    inputs = load_inputs(str(items_path), store, "standard", ref.editor_model, Rejects(tmp / f"rejects-{model}.jsonl"))
    params = GenParams(ctx=1024, max_new_tokens=args.new_tokens, cap_new_tokens=args.new_tokens)
    prompts = list(inputs.prompts)
    run_id = f"ql-{model}"
    bare: list[float] = []
    walls: list[float] = []

    def bare_call(token_ids: list[int]) -> None:
        backend.llm.reset()
        started = time.perf_counter()
        backend.llm.create_completion(token_ids, max_tokens=args.new_tokens, temperature=0.0, top_k=1, repeat_penalty=1.0)
        bare.append(time.perf_counter() - started)

    def replay_call(upto: int) -> None:  # the run resumed with one more prompt: only that one is replayed
        backend.llm.reset()
        started = time.perf_counter()
        replay_prompts(store, prompts[:upto], backend, params, run_id=run_id, use_cache=False, on_progress=lambda *a: None,
                       rendered_from=inputs.rendered_from, editor_model=ref.editor_model, early_stop=False,
                       references=inputs.references)
        walls.append(time.perf_counter() - started)

    for n, prompt in enumerate(prompts):
        ids = list(backend.token_ids(prompt))
        for call in ((lambda: bare_call(ids)), (lambda: replay_call(n + 1)))[:: 1 if n % 2 == 0 else -1]:
            call()
    backend.close()
    replayed = [c.latency_s for c in store.completions(run_id)]
    report = load_run(store, run_id, budget_ms=args.budget)
    quality = report.summary.mean.get("indel", 0.0)
    in_time = report.in_time.summary.mean.get("indel", 0.0) if report.in_time else float("nan")
    b50, b90 = percentile(bare, 50) or 0.0, percentile(bare, 90) or 0.0
    r50, r90 = percentile(replayed, 50) or 0.0, percentile(replayed, 90) or 0.0
    line = (f"{model:>20}: indel {quality:.3f}, in time within {args.budget:g} ms {in_time:.3f} "
            f"({report.in_time.n_not_shown if report.in_time else 0} of {report.summary.n_items} not shown) · "
            f"replay p50 {r50 * 1000:.0f} ms, p90 {r90 * 1000:.0f} ms (the latency the store keeps) · bare engine "
            f"p50 {b50 * 1000:.0f} ms, p90 {b90 * 1000:.0f} ms · ratio p50 {r50 / b50:.3f}x, p90 {r90 / b90:.3f}x, "
            f"replay wall / bare {sum(walls) / sum(bare):.3f}x")
    return Point(model, quality, r50, r90), line


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=12)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--budget", type=float, default=1500.0, help="latency budget (ms) of the in-time Indel")
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    args = ap.parse_args()
    root = asset_path("openzeppelin-contracts")
    items = generate(collect_files([root], ("sol",)), EvalgenOptions(per_file=1, seed=0)).items[: args.items]
    print(f"{len(items)} items from {root.name}, standard profile, {args.new_tokens} new tokens (the whole budget), "
          f"{args.threads or 'default'} thread(s); load average before {os.getloadavg()[0]:.1f}")
    points, lines = [], []
    with tempfile.TemporaryDirectory() as tmp:
        items_path = Path(tmp) / "items.jsonl"
        items_path.write_bytes(b"".join(iter_jsonl(items)))
        with Store(Path(tmp) / "bench.db") as store:
            store.add_items(items)
            for model in args.models:
                point, line = measure(model, items_path, store, args, Path(tmp))
                points.append(point)
                lines.append(line)
                print(line, flush=True)
    best = on_frontier(points)
    print("not beaten on both quality and p50 latency: " + ", ".join(points[i].label for i in best))
    print(text_quality_latency(points, "indel"), end="")
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
