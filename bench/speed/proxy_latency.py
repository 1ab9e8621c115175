"""What the recording proxy adds to an editor's requests: the same requests sent to the upstream
directly and through `fimreplay proxy` (a separate process, recording into a throw-away store
as a user runs it), measured by the same client.

The upstream (tests/proxy_upstream.py, its own process) answers OpenAI `/v1/completions` after
`--first-byte` seconds, streamed as `--pieces` server-sent events `--gap` seconds apart, or as
one JSON body, `--slots` answers at a time: a stand-in for an engine with a fixed speed, so that
what differs between the two paths is the proxy. For each of streaming / not and 1 / 32 concurrent clients: p50 and p99 of
time to first byte and of total time, direct and proxied, the added p50, and the throughput
ratio (proxied requests per second / direct). Goal: under 2 ms added at p50, >= 0.95x.

    python -m bench.speed.proxy_latency [--requests 300] [--passes 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.support import ROOT
from tests.conftest import free_port, wait_listening

UPSTREAM = """
import sys, time
from tests.support.proxy_upstream import Behaviour, ShapeUpstream
up = ShapeUpstream(Behaviour(pieces=[f"tok{{i}} " for i in range({pieces})], gap={gap}, first_byte_delay={first_byte},
                             slots={slots}))
with up:
    print(up.url, flush=True)
    sys.stdin.read()
"""


async def _one(session: aiohttp.ClientSession, url: str, body: bytes) -> tuple[float, float]:
    t0 = time.perf_counter()
    async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as r:
        ttfb = None
        async for _ in r.content.iter_any():
            if ttfb is None:
                ttfb = time.perf_counter() - t0
        if r.status != 200:
            raise SystemExit(f"{url}: HTTP {r.status}")
    return ttfb or 0.0, time.perf_counter() - t0


async def _batch(url: str, bodies: list[bytes], concurrency: int) -> tuple[list[tuple[float, float]], float]:
    """Each request's (ttfb, total), and the wall time of the whole batch."""
    sem = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        await _one(session, url, bodies[0])  # warm the connection pool

        async def guarded(body: bytes) -> tuple[float, float]:
            async with sem:
                return await _one(session, url, body)

        t = time.perf_counter()
        times = await asyncio.gather(*(guarded(b) for b in bodies))
        return list(times), time.perf_counter() - t


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=300, help="requests per mode and path in each pass")
    ap.add_argument("--passes", type=int, default=2)
    # An engine-like upstream by default (a small model on a GPU with 4 parallel slots: 30 ms to
    # the first token, then 5 ms a token); `--first-byte 0 --gap 0 --slots 0` measures the proxy
    # against an instant upstream that serves any number at once (the proxy's own ceiling).
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--pieces", type=int, default=16)
    ap.add_argument("--gap", type=float, default=0.005)
    ap.add_argument("--first-byte", type=float, default=0.03)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    up = subprocess.Popen([sys.executable, "-c", UPSTREAM.format(pieces=args.pieces, gap=args.gap,
                                                                  first_byte=args.first_byte, slots=args.slots)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    upstream = up.stdout.readline().strip()  # type: ignore[union-attr]
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proxy = subprocess.Popen([sys.executable, "-m", "replay", "proxy", "--upstream", upstream, "--listen", f"127.0.0.1:{port}",
                                  "--db", str(Path(tmp) / "bench.db")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env={**os.environ, "FIMREPLAY_HOME": tmp}, cwd=ROOT)
        try:
            wait_listening(port)
            rows = []
            for stream in (False, True):
                for concurrency in (1, 32):
                    bodies = [json.dumps({"model": "m", "prompt": f"<|fim_prefix|>x{n} = <|fim_suffix|>\n<|fim_middle|>",
                                          "max_tokens": 16, "stream": stream}).encode() for n in range(args.requests)]
                    got: dict[str, list[tuple[float, float]]] = {"direct": [], "proxy": []}
                    wall = {"direct": 0.0, "proxy": 0.0}
                    for _ in range(args.passes):  # alternate, so that drift of the machine hits both alike
                        for name, base in (("direct", upstream), ("proxy", f"http://127.0.0.1:{port}")):
                            times, w = asyncio.run(_batch(base + "/v1/completions", bodies, concurrency))
                            got[name] += times
                            wall[name] += w
                    row = {"stream": stream, "clients": concurrency}
                    for name in ("direct", "proxy"):
                        ttfb = [t[0] for t in got[name]]
                        total = [t[1] for t in got[name]]
                        row[name] = {"ttfb_p50_ms": _pct(ttfb, 0.5) * 1e3, "ttfb_p99_ms": _pct(ttfb, 0.99) * 1e3,
                                     "total_p50_ms": _pct(total, 0.5) * 1e3, "total_p99_ms": _pct(total, 0.99) * 1e3}
                    row["added_ttfb_p50_ms"] = row["proxy"]["ttfb_p50_ms"] - row["direct"]["ttfb_p50_ms"]
                    row["added_total_p50_ms"] = row["proxy"]["total_p50_ms"] - row["direct"]["total_p50_ms"]
                    row["throughput_ratio"] = wall["direct"] / wall["proxy"]
                    rows.append(row)
        finally:
            proxy.terminate()
            proxy.wait(timeout=60)
            up.communicate("")
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'mode':<16} {'ttfb p50 d/p':>15} {'ttfb p99 d/p':>15} {'total p50 d/p':>15} {'total p99 d/p':>15} "
          f"{'added p50 ttfb/total':>21} {'thrpt':>6}")
    for r in rows:
        d, p = r["direct"], r["proxy"]
        mode = f"{'stream' if r['stream'] else 'json'} x{r['clients']}"
        print(f"{mode:<16} {d['ttfb_p50_ms']:6.2f}/{p['ttfb_p50_ms']:6.2f}ms {d['ttfb_p99_ms']:6.2f}/{p['ttfb_p99_ms']:6.2f}ms "
              f"{d['total_p50_ms']:6.2f}/{p['total_p50_ms']:6.2f}ms {d['total_p99_ms']:6.2f}/{p['total_p99_ms']:6.2f}ms "
              f"{r['added_ttfb_p50_ms']:8.2f}/{r['added_total_p50_ms']:.2f}ms {r['throughput_ratio']:5.2f}x")


if __name__ == "__main__":
    main()
