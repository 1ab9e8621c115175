"""Hostile requests against `fimreplay proxy`: thousands of requests written byte by byte on raw
sockets (bad JSON, invalid UTF-8 and lone surrogates in bodies, huge and truncated chunked
bodies, trickles and slowloris, odd methods and headers, HTTP that is not HTTP, clients leaving
mid-stream, keys planted in headers and bodies) mixed with valid completion exchanges, each valid
one carrying a nonce of its own, through the proxy run as a user runs it (its own process) in
front of a loopback upstream (tests/support/proxy_upstream.py).

Then it counts: every valid exchange in the store exactly once (lost, duplicated), every bad body
in the rejects file and not in the store, no request refused on the wire in either, tracebacks
and exception names on the proxy's stderr, planted keys in any file the proxy wrote (store
with its WAL, rejects) or in its output, and whether the proxy still forwards and records after.

    .venv/bin/python -m bench.faults.proxy_hostile [--requests 6000] [--concurrency 16] [--seed 7]

Prints one JSON line per kind of request and the totals. Exits 1 when anything did not hold.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.support import ROOT
from tests.conftest import files_holding, free_port, wait_listening
from tests.support.proxy_upstream import Behaviour, ShapeUpstream

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
NONCE = re.compile(rb"nonce-[0-9]+-[0-9a-f]{8}")
EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception|Warning)\b|Traceback")


@dataclass
class Plan:
    """One request: the bytes sent (with a pause before each part), how its answer is read, and
    what must become of it: "capture" (in the store once), "reject" (forwarded, in the rejects
    file, not in the store) or "none" (in neither)."""

    kind: str
    expect: str
    nonce: str
    parts: list[tuple[float, bytes]]
    read: str = "all"  # all: to the end; first: a few bytes, then leave; none: leave after `hold` s
    hold: float = 0.0


@dataclass
class Secrets:
    header: str
    xkey: str
    body: str
    cookie: str

    def all(self) -> list[str]:
        return [self.header, self.xkey, self.body, self.cookie]


@dataclass
class Outcome:
    status: int | None = None
    error: str | None = None


@dataclass
class Builder:
    rng: random.Random
    secrets: Secrets
    n: int = 0
    sent: Counter[str] = field(default_factory=Counter)

    def nonce(self) -> str:
        self.n += 1
        return f"nonce-{self.n}-{self.rng.getrandbits(32):08x}"

    # -- bodies and requests --------------------------------------------------------------
    def completion(self, nonce: str, route: str = "/v1/completions", stream: bool = True) -> tuple[str, dict]:
        code = f"# {nonce}\ndef add(a, b):\n    "
        bodies: dict[str, dict] = {
            "/v1/completions": {"model": "qwen2.5-coder", "prompt": code, "suffix": "\n", "max_tokens": 16, "stream": stream},
            "/v1/chat/completions": {"model": "m", "messages": [{"role": "user", "content": code}], "stream": stream},
            "/api/generate": {"model": "qwen2.5-coder:1.5b", "prompt": code, "suffix": "\n", "stream": stream,
                              "options": {"num_predict": 16}},
            "/infill": {"input_prefix": code, "input_suffix": "\n", "input_extra": [], "n_predict": 16, "stream": stream},
            "tabby": {"language": "python", "segments": {"prefix": code, "suffix": "\n", "filepath": "a.py"}},
        }
        body = bodies[route]
        return ("/v1/completions" if route == "tabby" else route), body

    def request(self, method: str, path: str, body: bytes, headers: list[tuple[str, str]] | None = None,
                chunked: bool = False) -> bytes:
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
        for k, v in headers or [("Content-Type", "application/json")]:
            head.append(f"{k}: {v}")
        if chunked:
            head.append("Transfer-Encoding: chunked")
        else:
            head.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1", "replace") + (_chunked(body, self.rng) if chunked else body)

    def keyed(self) -> list[tuple[str, str]]:
        s = self.secrets
        return [("Content-Type", "application/json"), ("Authorization", f"Bearer {s.header}"), ("X-Api-Key", s.xkey),
                ("Cookie", f"session={s.cookie}"), ("User-Agent", f"Continue/1.0.0 (key {s.header})")]

    # -- the kinds ------------------------------------------------------------------------------
    def plan(self, kind: str) -> Plan:
        self.sent[kind] += 1
        nonce = self.nonce()
        rng = self.rng
        route = rng.choice(["/v1/completions", "/v1/chat/completions", "/api/generate", "/infill", "tabby"])
        path, body = self.completion(nonce, route, stream=rng.random() < 0.7)
        raw = json.dumps(body).encode()
        one = lambda data: [(0.0, data)]  # noqa: E731
        if kind == "valid":
            return Plan(kind, "capture", nonce, one(self.request("POST", path, raw)))
        if kind == "valid_keys_planted":
            body = {**body, "api_key": self.secrets.body, "options": {**body.get("options", {}), "token": self.secrets.body}}
            return Plan(kind, "capture", nonce, one(self.request("POST", path, json.dumps(body).encode(), self.keyed())))
        if kind == "valid_chunked":
            return Plan(kind, "capture", nonce, one(self.request("POST", path, raw, chunked=True)))
        if kind == "valid_trickle":
            data = self.request("POST", path, raw)
            cuts = sorted(rng.sample(range(1, len(data)), 8))
            pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
            return Plan(kind, "capture", nonce, [(rng.uniform(0.005, 0.04), p) for p in pieces])
        if kind == "valid_odd_headers":
            headers = [("Content-Type", "application/json"), ("x-WEIRD-case", "1"), ("X-Dup", "a"), ("X-Dup", "b"),
                       ("User-Agent", "agent/\udcff\udcfe" + "u" * 2000), ("X-Empty", ""),
                       *((f"X-Many-{i}", "v") for i in range(60))]
            data = self.request("POST", path, raw, headers)
            return Plan(kind, "capture", nonce, one(data.replace(b"agent/??", b"agent/\xff\xfe")))
        if kind == "valid_expect_continue":
            data = self.request("POST", path, raw, [("Content-Type", "application/json"), ("Expect", "100-continue")])
            head, _, rest = data.partition(b"\r\n\r\n")
            return Plan(kind, "capture", nonce, [(0.0, head + b"\r\n\r\n"), (0.05, rest)])
        if kind == "valid_gzip":
            return Plan(kind, "capture", nonce, one(self.request("POST", path, gzip.compress(raw),
                                                                   [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])))
        if kind == "valid_huge":
            big = {**body}
            pad = "x" * rng.randint(1_200_000, 2_500_000)
            if "prompt" in big:
                big["prompt"] = big["prompt"] + pad
            big["pad"] = pad
            return Plan(kind, "capture", nonce, one(self.request("POST", path, json.dumps(big).encode(), chunked=rng.random() < 0.5)))
        if kind == "valid_client_leaves":
            path, body = self.completion(nonce, "/v1/completions", stream=True)
            return Plan(kind, "capture", nonce, one(self.request("POST", path, json.dumps(body).encode())), read="first")
        if kind == "valid_query_odd":
            return Plan(kind, "capture", nonce, one(self.request("POST", path + "?x=%ff%fe&api_key=" + self.secrets.header, raw)))
        # bad bodies: forwarded, rejected, never stored
        if kind == "bad_json":
            return Plan(kind, "reject", nonce, one(self.request("POST", path, raw[: rng.randint(5, len(raw) - 2)])))
        if kind == "bad_utf8":
            return Plan(kind, "reject", nonce, one(self.request("POST", path, raw.replace(b"def add", b"def \xff\xfe\xc3("))))
        if kind == "bad_surrogate":
            lone = rng.choice([b"\\ud83d", b"\\udc00", b"\\ud83dx", b"\\udfff\\ud800"])
            return Plan(kind, "reject", nonce, one(self.request("POST", path, raw.replace(b"def add", b"def " + lone))))
        if kind == "bad_not_object":
            data = rng.choice([json.dumps([nonce]).encode(), f'"{nonce}"'.encode(), f'[1, {{"n": "{nonce}"}}]'.encode()])
            return Plan(kind, "reject", nonce, one(self.request("POST", path, data)))
        if kind == "bad_gzip":
            return Plan(kind, "reject", nonce, one(self.request("POST", path, raw, [("Content-Type", "application/json"),
                                                                                    ("Content-Encoding", "gzip")])))
        if kind == "bad_event":
            event = json.dumps({"type": "nonsense", "nonce": nonce, "token": self.secrets.body}).encode()
            return Plan(kind, "reject", nonce, one(self.request("POST", "/v1/events", event, self.keyed())))
        # refused on the wire (never forwarded) or forwarded and not recorded
        if kind == "wire_bad_method":
            return Plan(kind, "none", nonce, one(b"F\x01O /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"))
        if kind == "wire_lowercase_post":
            return Plan(kind, "none", nonce, one(self.request("POST", path, raw).replace(b"POST", b"post", 1)))
        if kind == "wire_garbage":
            return Plan(kind, "none", nonce, one(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 400))) + b"\r\n\r\n"))
        if kind == "wire_tls":
            return Plan(kind, "none", nonce, one(b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + os.urandom(64)))
        if kind == "wire_http2":
            return Plan(kind, "none", nonce, one(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + os.urandom(30)))
        if kind == "wire_header_no_colon":
            return Plan(kind, "none", nonce, one(self.request("POST", path, raw).replace(b"Host: 127.0.0.1", b"Host 127.0.0.1")))
        if kind == "wire_header_nul":
            return Plan(kind, "none", nonce, one(self.request("POST", path, raw, [("X-Bad", "a\x00b"),
                                                                                 ("Authorization", f"Bearer {self.secrets.header}")])))
        if kind == "wire_long_header":
            return Plan(kind, "none", nonce, one(self.request("POST", path, raw, [("X-Long", "y" * rng.randint(9000, 70000)),
                                                                                 ("X-Api-Key", self.secrets.xkey)])))
        if kind == "wire_cl_and_te":
            data = self.request("POST", path, raw, chunked=True).replace(b"Transfer-Encoding", b"Content-Length: 5\r\nTransfer-Encoding")
            return Plan(kind, "none", nonce, one(data))
        if kind == "wire_two_lengths":
            data = self.request("POST", path, raw).replace(b"Content-Length", b"Content-Length: 3\r\nContent-Length", 1)
            return Plan(kind, "none", nonce, one(data))
        if kind == "wire_bad_chunk":
            head = self.request("POST", path, b"", chunked=True)[:-5]
            return Plan(kind, "none", nonce, one(head + b"zz\r\n" + raw + b"\r\n0\r\n\r\n"))
        if kind == "wire_truncated_chunked":
            data = self.request("POST", path, raw, chunked=True)
            return Plan(kind, "none", nonce, one(data[: rng.randint(len(data) - len(raw), len(data) - 6)]), read="none", hold=0.05)
        if kind == "wire_truncated_length":
            data = self.request("POST", path, raw + b" " * 1000)
            return Plan(kind, "none", nonce, one(data[: len(data) - rng.randint(10, 900)]), read="none", hold=0.05)
        if kind == "wire_huge_chunked_cut":
            head = self.request("POST", path, b"", chunked=True)[:-5]
            block = b"%x\r\n" % (1 << 16) + b"z" * (1 << 16) + b"\r\n"
            return Plan(kind, "none", nonce, [(0.0, head)] + [(0.0, block)] * rng.randint(8, 40), read="none", hold=0.05)
        if kind == "wire_slowloris":
            data = self.request("POST", path, raw)
            cut = rng.randint(5, data.index(b"\r\n\r\n"))
            return Plan(kind, "none", nonce, [(0.05 * i, data[i:i + 1]) for i in range(min(cut, 30))], read="none", hold=1.0)
        if kind == "odd_method":
            method = rng.choice(["PURGE", "PROPFIND", "DELETE", "PATCH", "PUT", "OPTIONS", "GET"])
            return Plan(kind, "none", nonce, one(self.request(method, path, raw)))
        if kind == "other_route":
            return Plan(kind, "none", nonce, one(self.request("POST", rng.choice(["/v1/models", "/health", "/x/../v1"]), raw)))
        raise ValueError(kind)


KINDS: dict[str, float] = {  # kind -> weight
    "valid": 14, "valid_keys_planted": 3, "valid_chunked": 3, "valid_trickle": 2, "valid_odd_headers": 2,
    "valid_expect_continue": 1, "valid_gzip": 1, "valid_huge": 0.25, "valid_client_leaves": 2, "valid_query_odd": 1,
    "bad_json": 4, "bad_utf8": 3, "bad_surrogate": 3, "bad_not_object": 2, "bad_gzip": 1, "bad_event": 1,
    "wire_bad_method": 3, "wire_lowercase_post": 2, "wire_garbage": 4, "wire_tls": 1, "wire_http2": 1,
    "wire_header_no_colon": 2, "wire_header_nul": 2, "wire_long_header": 2, "wire_cl_and_te": 2, "wire_two_lengths": 2,
    "wire_bad_chunk": 2, "wire_truncated_chunked": 3, "wire_truncated_length": 3, "wire_huge_chunked_cut": 0.5,
    "wire_slowloris": 1, "odd_method": 3, "other_route": 2,
}


def _chunked(body: bytes, rng: random.Random) -> bytes:
    out, i = [], 0
    while i < len(body):
        n = rng.randint(1, max(1, min(len(body) - i, 4096)))
        out.append(b"%x\r\n" % n + body[i:i + n] + b"\r\n")
        i += n
    return b"".join(out) + b"0\r\n\r\n"


async def send(port: int, plan: Plan) -> Outcome:
    """Write the plan's bytes on a fresh connection and read the answer as the plan says."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        return Outcome(error=f"connect: {exc}")
    try:
        for pause, data in plan.parts:
            if pause:
                await asyncio.sleep(pause)
            writer.write(data)
            await writer.drain()
        if plan.read == "none":
            await asyncio.sleep(plan.hold)
            return Outcome()
        if plan.read == "first":
            first = await asyncio.wait_for(reader.read(64), 60)
            return Outcome(status=_status(first))
        answer = await asyncio.wait_for(reader.read(-1), 120)
        return Outcome(status=_status(answer))
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as exc:
        return Outcome(error=f"{type(exc).__name__}: {exc}")
    finally:
        writer.close()


def _status(answer: bytes) -> int | None:
    m = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    return int(m.group(1)) if m else None


async def fire(port: int, plans: list[Plan], concurrency: int) -> list[Outcome]:
    gate = asyncio.Semaphore(concurrency)

    async def one(plan: Plan) -> Outcome:
        async with gate:
            return await send(port, plan)

    return await asyncio.gather(*(one(p) for p in plans))


def nonce_counts(rows: list[bytes]) -> Counter[str]:
    """How many rows hold each nonce (a row holding one several times counts once)."""
    counts: Counter[str] = Counter()
    for row in rows:
        for n in set(NONCE.findall(row)):
            counts[n.decode()] += 1
    return counts


def stored_rows(db: Path) -> list[bytes]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return [bytes(r[0]) for r in con.execute("SELECT record FROM capture_records")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=6000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the fimreplay checkout to run (default: this one)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tag = f"{rng.getrandbits(48):012x}"
    planted = Secrets(header=f"sk-proj-PLANTEDheader{tag}abcdef", xkey=f"planted-xkey-{tag}",
                      body=f"planted-body-{tag}", cookie=f"planted-cookie-{tag}")
    builder = Builder(rng, planted)
    names, weights = list(KINDS), list(KINDS.values())
    plans = [builder.plan(rng.choices(names, weights)[0]) for _ in range(args.requests)]
    env = dict(ENV, PYTHONPATH=str(args.checkout.resolve()))
    with tempfile.TemporaryDirectory(prefix="fimreplay-proxy-hostile-") as tmp, \
            ShapeUpstream(Behaviour(pieces=["def ", "add(a, b):", "\n    return", " a + b"], gap=0.005)) as up:
        work = Path(tmp)
        db, home, port = work / "s.db", work / "home", free_port()
        err_path, out_path = work / "proxy.err", work / "proxy.out"
        with open(err_path, "wb") as err, open(out_path, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "replay", "proxy", "--upstream", up.url, "--listen",
                                     f"127.0.0.1:{port}", "--db", str(db), "--json"], stdout=out, stderr=err,
                                    env={**env, "FIMREPLAY_HOME": str(home)}, cwd=tmp)
            try:
                wait_listening(port)
                t0 = time.perf_counter()
                outcomes = asyncio.run(fire(port, plans, args.concurrency))
                seconds = time.perf_counter() - t0
                alive_plan = builder.plan("valid")
                alive = asyncio.run(send(port, alive_plan))
                alive_ok = proc.poll() is None and alive.status == 200
            finally:
                proc.send_signal(signal.SIGINT)
                try:
                    code = proc.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    code = proc.wait()
        stored = nonce_counts(stored_rows(db))
        rejects_files = sorted((home).rglob("proxy-*.jsonl"))
        rejected = nonce_counts([line for f in rejects_files for line in f.read_bytes().splitlines()])
        stderr = err_path.read_text(encoding="utf-8", errors="replace")
        stdout = out_path.read_text(encoding="utf-8", errors="replace")
        leaks = sum(len(files_holding(work, s)) for s in planted.all())
        leaks += sum(s in stderr + stdout for s in planted.all())
        alive_recorded = stored.get(alive_plan.nonce, 0) == 1
    valid = [p for p in plans if p.expect == "capture"]
    rows = []
    for kind in KINDS:
        mine = [(p, o) for p, o in zip(plans, outcomes) if p.kind == kind]
        if not mine:
            continue
        row = {"kind": kind, "sent": len(mine), "expect": mine[0][0].expect,
               "statuses": dict(Counter(str(o.status or o.error and "cut") for _, o in mine).most_common(4)),
               "stored": sum(stored.get(p.nonce, 0) > 0 for p, _ in mine),
               "stored_twice": sum(stored.get(p.nonce, 0) > 1 for p, _ in mine),
               "in_rejects": sum(rejected.get(p.nonce, 0) > 0 for p, _ in mine)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    bad_bodies = [p for p in plans if p.expect == "reject"]
    stray = sum(stored.get(p.nonce, 0) > 0 for p in plans if p.expect != "capture")
    summary = json.loads(stdout.strip().splitlines()[-1]).get("stopped", {}) if stdout.strip() else {}
    totals = {
        "requests_sent": len(plans), "seconds": round(seconds, 1), "valid_exchanges": len(valid),
        "recorded": sum(stored.get(p.nonce, 0) > 0 for p in valid),
        "lost": sum(stored.get(p.nonce, 0) == 0 for p in valid),
        "duplicated": sum(stored.get(p.nonce, 0) > 1 for p in valid),
        "bad_bodies": len(bad_bodies), "bad_bodies_in_rejects": sum(rejected.get(p.nonce, 0) > 0 for p in bad_bodies
                                                                     if p.nonce.encode() in b"".join(x for _, x in p.parts)),
        "stored_that_should_not_be": stray, "refused_said": summary.get("refused"), "rejected_said": summary.get("rejected"),
        "tracebacks": stderr.count("Traceback"), "exception_names": len(EXCEPTION_NAME.findall(stderr)),
        "stderr_lines": len(stderr.splitlines()), "secrets_found": leaks,
        "proxy_alive_after": alive_ok and alive_recorded, "exit_code": code,
    }
    print(json.dumps(totals))
    shapes = Counter(re.sub(r"\d+", "N", line)[:160] for line in stderr.splitlines())
    print(json.dumps({"stderr_lines_by_shape": dict(shapes.most_common(40))}, indent=1))
    held = (totals["lost"] == totals["duplicated"] == totals["tracebacks"] == totals["exception_names"] == 0
            and totals["secrets_found"] == 0 and stray == 0 and totals["proxy_alive_after"] and code == 0)
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
