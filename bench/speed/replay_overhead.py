"""Replay wall time over the bare engine, same prompts, same process, same loaded model.

Bare: the engine's own loop, the llama.cpp server of the llamacpp backend called directly in
process (xllamacpp's `Server.handle_completions`, no HTTP) on the token ids with the same request
settings. Replay: `replay.run.runner.replay_prompts` through the llamacpp backend into a throw-away
store (cache off), so the figure includes the loopback HTTP hop, cache keys, per-item commits,
post-processing and progress callbacks.
Passes alternate (bare, replay, bare, replay, ...) to spread machine noise; the ratio is the
sum of replay times over the sum of bare times. Target: <= 1.05. On a shared, loaded machine the
engine's own speed swings between passes; the line "replay's own work" is robust to that: the
replay wall time minus the engine time measured inside it (each completion's latency), per item.

    python -m bench.speed.replay_overhead [--items 6] [--new-tokens 32] [--passes 2] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from replay.backends.base import GenParams
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.models import resolve_model
from replay.records import RenderedPrompt
from replay.run.runner import replay_prompts
from replay.store import Store

SNIPPETS = [
    ("def mean(xs):\n    ", "\n    return total / len(xs)\n"),
    ("contract Token {\n    mapping(address => uint256) public balanceOf;\n    function transfer(address to, uint256 v) public {\n        ",
     "\n    }\n}\n"),
    ("import os\n\ndef list_py(root):\n    out = []\n    for d, _, files in os.walk(root):\n        ", "\n    return out\n"),
    ("class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n        ", "\n\n    def pop(self):\n"),
    ("function max(uint a, uint b) pure returns (uint) {\n    ", "\n}\n"),
    ("fn main() {\n    let v = vec![1, 2, 3];\n    ", "\n    println!(\"{}\", s);\n}\n"),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=6)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    backend = LlamaCppBackend(resolve_model("default"), ctx=1024, n_threads=args.threads)
    prompts = []
    for n in range(args.items):
        prefix, suffix = SNIPPETS[n % len(SNIPPETS)]
        text = f"<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>"
        prompts.append(RenderedPrompt(profile="standard", family="qwen2.5-coder", text=text, prefix_sent=prefix,
                                      suffix_sent=suffix, item_id=f"b{n}", stop=("\n\n",), max_new_tokens=args.new_tokens,
                                      token_ids=tuple(backend.token_ids(RenderedPrompt(profile="", family="", text=text,
                                                                                       prefix_sent="", suffix_sent="")))))
    params = GenParams(ctx=1024, max_new_tokens=args.new_tokens)
    bare_total = replay_total = own_total = 0.0
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
        for p in range(args.passes):
            t = time.perf_counter()
            for prompt in prompts:
                body = {**backend.body(list(prompt.token_ids), params, args.new_tokens, stream=False), "max_tokens": args.new_tokens}
                backend.server.handle_completions(json.dumps(body), lambda answer: None)
            bare = time.perf_counter() - t
            t = time.perf_counter()
            replay_prompts(store, prompts, backend, params, run_id=f"pass{p}", use_cache=False, on_progress=lambda *a: None,
                           early_stop=False)  # the same work as the bare loop: the whole budget
            rep = time.perf_counter() - t
            own_total += rep - sum(c.latency_s for c in store.completions(f"pass{p}"))
            bare_total += bare
            replay_total += rep
            print(f"pass {p}: bare {bare:.2f} s, replay {rep:.2f} s, ratio {rep / bare:.3f}")
    print(f"replay/bare wall time over {args.passes} passes x {args.items} prompts x {args.new_tokens} tokens: "
          f"{replay_total / bare_total:.3f} (target <= 1.05)")
    engine_total = replay_total - own_total
    print(f"replay's own work (wall minus engine time): {own_total / (args.items * args.passes) * 1000:.2f} ms per item, "
          f"{own_total / engine_total * 100:.3f}% of the engine time")
    backend.close()


if __name__ == "__main__":
    main()
