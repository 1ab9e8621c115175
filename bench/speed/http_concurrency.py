"""Concurrent HTTP replay against a bare concurrent httpx client, same server, same bodies.

The server (a real ThreadingHTTPServer on 127.0.0.1) answers every `/v1/completions` after a
fixed delay, standing in for an engine. Bare: a thread pool of `--concurrency` posting the
bodies with one httpx.Client. Replay: `replay_prompts` through the openai backend with the same
concurrency into a throw-away store (cache off: every item is a request, committed as it
arrives). Throughput ratio = bare time / replay time. Target: >= 0.9.

    python -m bench.speed.http_concurrency [--items 400] [--concurrency 16] [--delay 0.02]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from replay.backends.base import GenParams
from replay.backends.openai_compat import OpenAICompatBackend, completion_body
from replay.records import RenderedPrompt
from replay.run.runner import replay_prompts
from replay.store import Store
from tests.support.backend_stubs import Reply, StubServer, openai_reply


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--delay", type=float, default=0.02)
    ap.add_argument("--passes", type=int, default=2)
    args = ap.parse_args()
    prompts = [RenderedPrompt(profile="standard", family="qwen2.5-coder", text=f"<|fim_prefix|>x{n} = <|fim_suffix|>\n<|fim_middle|>",
                              prefix_sent="", suffix_sent="", item_id=f"h{n}", stop=("\n\n",)) for n in range(args.items)]
    params = GenParams(max_new_tokens=16)
    reply = openai_reply("value\n\nrest")
    with StubServer(lambda r: Reply(body=reply.body, delay=args.delay)) as srv, tempfile.TemporaryDirectory() as tmp, \
            Store(Path(tmp) / "bench.db") as store:
        bodies = [completion_body("m", p, params) for p in prompts]
        bare_total = replay_total = 0.0
        for p in range(args.passes):
            with httpx.Client(limits=httpx.Limits(max_connections=args.concurrency)) as client:
                t = time.perf_counter()
                with ThreadPoolExecutor(args.concurrency) as pool:
                    for r in pool.map(lambda b: client.post(srv.url + "/v1/completions", json=b), bodies):
                        r.json()
                bare = time.perf_counter() - t
            backend = OpenAICompatBackend("m", "m@bench", [srv.url])
            t = time.perf_counter()
            summary = replay_prompts(store, prompts, backend, params, run_id=f"pass{p}", concurrency=args.concurrency,
                                     use_cache=False, early_stop=False)  # plain POSTs, as the bare client sends
            rep = time.perf_counter() - t
            backend.close()
            assert summary.completed == args.items
            bare_total += bare
            replay_total += rep
            print(f"pass {p}: bare {args.items / bare:.0f} req/s, replay {args.items / rep:.0f} req/s, ratio {bare / rep:.3f}")
    print(f"replay/bare throughput, {args.items} requests x {args.passes} passes at concurrency {args.concurrency}: "
          f"{bare_total / replay_total:.3f} (target >= 0.9)")


if __name__ == "__main__":
    main()
