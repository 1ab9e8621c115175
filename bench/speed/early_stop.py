"""Stopping the engine where the editor stops reading, against generating the whole budget.

The same benchmark items (cut from real Solidity: the @openzeppelin/contracts asset), rendered
by each editor profile, replayed twice through the llamacpp backend into throw-away stores with
the cache off: once with early stop (the stream ends at the first stop word, or where the
editor cancels it: Continue's single-line mode and line filters) and once generating the whole
budget (128 new tokens, cut afterwards). Prints, per profile, the wall-time ratio and the
decoded-token ratio (early / full), and checks that the shown text of every item is the same
both ways (greedy decoding: stopping early must not change what the user sees). On a ~1,000-token
prompt on CPU, prefill is a large fixed part of each item, so the wall ratio is closer to 1 than
the token ratio.

    python -m bench.speed.early_stop [--items 8] [--profiles continue tabby standard] [--threads N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from replay.assets import asset_path
from replay.backends.base import GenParams
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.models import resolve_model
from replay.corpus.evalgen import EvalgenOptions, collect_files, generate, iter_jsonl
from replay.rejects import Rejects
from replay.run.inputs import load_inputs
from replay.run.runner import replay_prompts
from replay.store import Store


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=8)
    ap.add_argument("--profiles", nargs="+", default=["continue", "tabby", "standard"])
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    ref = resolve_model("default")
    backend = LlamaCppBackend(ref, ctx=1024, n_threads=args.threads)
    root = asset_path("openzeppelin-contracts")
    gen = generate(collect_files([root], ("sol",)), EvalgenOptions(per_file=1, seed=0))
    items = gen.items[: args.items]
    params = GenParams(ctx=1024, max_new_tokens=args.new_tokens, cap_new_tokens=args.new_tokens)
    print(f"{len(items)} items from {root.name}, {args.new_tokens} new tokens at most, model {ref.name}")
    with tempfile.TemporaryDirectory() as tmp:
        items_path = Path(tmp) / "items.jsonl"
        items_path.write_bytes(b"".join(iter_jsonl(items)))
        for editor in args.profiles:
            results = {}
            for early in (False, True, False, True):  # alternate to spread machine noise
                with Store(Path(tmp) / f"{editor}-{early}-{time.perf_counter_ns()}.db") as store:
                    store.add_items(items)
                    inputs = load_inputs(str(items_path), store, editor, ref.editor_model,
                                         Rejects(Path(tmp) / "rejects.jsonl"))
                    started = time.perf_counter()
                    summary = replay_prompts(store, inputs.prompts, backend, params, use_cache=False,
                                             rendered_from=inputs.rendered_from, editor_model=ref.editor_model,
                                             early_stop=early)
                    wall = time.perf_counter() - started
                    comps = {c.item_id: c for c in store.completions(summary.run)}
                prev = results.get(early, (0.0, 0, comps))
                results[early] = (prev[0] + wall, prev[1] + sum(c.n_tokens for c in comps.values()), comps)
            full_wall, full_tokens, full = results[False]
            early_wall, early_tokens, stopped = results[True]
            same = sum(full[i].shown_text == stopped[i].shown_text for i in full)
            n_early = sum(c.stopped_early for c in stopped.values())
            print(f"{editor:>9}: wall {early_wall / 2:.1f} s vs {full_wall / 2:.1f} s  ratio {early_wall / full_wall:.2f}x · "
                  f"decoded tokens {early_tokens // 2} vs {full_tokens // 2}  ratio {early_tokens / max(full_tokens, 1):.2f}x · "
                  f"stopped early {n_early}/{len(stopped)} · shown text identical {same}/{len(full)}")
    backend.close()


if __name__ == "__main__":
    main()
