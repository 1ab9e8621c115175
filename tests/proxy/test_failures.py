"""The proxy's failure paths, with a real loopback upstream (tests/proxy_upstream.py) and real
clients: upstream down, 5xx, slow, a client that leaves mid-stream, huge bodies, 16 clients at
once, no secret kept or printed, a SIGTERM that loses no finished exchange, the loopback rule."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from replay.store import Store
from tests.conftest import free_port, wait_listening
from tests.support.processes import spawned
from tests.support.proxy_helpers import captures, running_proxy
from tests.support.proxy_upstream import Behaviour, ShapeUpstream

STREAM = {"model": "m", "prompt": "def f(", "max_tokens": 8, "stream": True}


def test_upstream_down_gives_502_with_one_line_and_is_recorded(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    with running_proxy(tmp_path / "s.db", dead) as proxy:
        r = httpx.post(f"http://{proxy.address}/v1/completions", json=STREAM)
    assert r.status_code == 502 and r.text.count("\n") == 1 and "unreachable" in r.text
    [(rec, _)] = captures(tmp_path / "s.db")
    assert rec.extra["wire"]["http_status"] == 502 and "unreachable" in rec.extra["wire"]["error"] and rec.completion is None


def test_upstream_5xx_reaches_the_editor_and_the_capture(tmp_path: Path) -> None:
    with ShapeUpstream(Behaviour(status=503)) as up, running_proxy(tmp_path / "s.db", up.url) as proxy:
        r = httpx.post(f"http://{proxy.address}/api/generate", json={"model": "m", "prompt": "x"})
    assert r.status_code == 503 and r.json() == {"error": "upstream failed with 503"}
    [(rec, _)] = captures(tmp_path / "s.db")
    assert rec.extra["wire"]["http_status"] == 503 and rec.completion is None


def test_stream_is_passed_chunk_by_chunk_not_buffered_and_slow_upstream_timed(tmp_path: Path) -> None:
    """The first piece reaches the client while the upstream is still waiting to send the next."""
    with ShapeUpstream(Behaviour(pieces=["a", "b", "c"], gap=0.6, first_byte_delay=0.5)) as up, \
            running_proxy(tmp_path / "s.db", up.url) as proxy:
        start = time.perf_counter()
        arrivals = []
        with httpx.stream("POST", f"http://{proxy.address}/v1/completions", json=STREAM) as r:
            for _ in r.iter_raw():
                arrivals.append(time.perf_counter() - start)
    assert arrivals[0] >= 0.5 and arrivals[0] < 0.5 + 0.4  # the first event, not the whole stream
    assert arrivals[-1] >= 0.5 + 2 * 0.6
    [(rec, _)] = captures(tmp_path / "s.db")
    timings = rec.extra["wire"]["timings"]
    assert timings["ttfb_s"] >= 0.5 and timings["total_s"] >= 1.7 and rec.completion == "abc"


def test_client_leaving_mid_stream_closes_the_upstream_and_is_recorded(tmp_path: Path) -> None:
    with ShapeUpstream(Behaviour(pieces=[f"t{i} " for i in range(200)], gap=0.02)) as up, \
            running_proxy(tmp_path / "s.db", up.url) as proxy:
        with httpx.stream("POST", f"http://{proxy.address}/v1/completions", json=STREAM) as r:
            for i, _ in enumerate(r.iter_raw()):
                if i == 2:
                    break
        deadline = time.time() + 5
        while not up.disconnects and time.time() < deadline:
            time.sleep(0.05)
    assert up.disconnects == 1  # the model stops generating: the upstream saw the close
    [(rec, _)] = captures(tmp_path / "s.db")
    assert rec.extra["wire"]["client_disconnected"] is True
    assert rec.completion.startswith("t0 t1") and len(rec.completion) < len("".join(f"t{i} " for i in range(200)))


def test_huge_body_forwarded_whole_recorded_cut_with_a_flag(tmp_path: Path) -> None:
    prompt = "x = 1\n" * (3 << 20)  # 18 MiB
    data = json.dumps({"model": "m", "prompt": prompt, "max_tokens": 4}).encode()
    with ShapeUpstream() as up, running_proxy(tmp_path / "s.db", up.url, max_body=64 << 10) as proxy:
        r = httpx.post(f"http://{proxy.address}/v1/completions", content=data, timeout=60)
    assert r.status_code == 200 and up.seen[-1].body == data
    [(rec, _)] = captures(tmp_path / "s.db")
    assert rec.extra["wire"]["truncated"] is True and len(rec.raw) <= 64 << 10 and len(rec.logged_prompt) == 64 << 10


def test_huge_answer_passed_whole_recorded_cut_with_a_flag(tmp_path: Path) -> None:
    pieces = [f"line {i}\n" for i in range(5000)]
    with ShapeUpstream(Behaviour(pieces=pieces)) as up, running_proxy(tmp_path / "s.db", up.url, max_body=4096) as proxy:
        r = httpx.post(f"http://{proxy.address}/api/generate", json={"model": "m", "prompt": "x"})
    received = "".join(json.loads(line)["response"] for line in r.text.splitlines())
    assert received == "".join(pieces)
    [(rec, _)] = captures(tmp_path / "s.db")
    assert rec.extra["wire"]["truncated"] is True and rec.completion and "".join(pieces).startswith(rec.completion)
    assert len(rec.completion) < len(received)


def test_sixteen_clients_at_once_each_get_their_own_stream(tmp_path: Path) -> None:
    with ShapeUpstream(Behaviour(pieces=["one ", "two ", "three"], gap=0.05)) as up, \
            running_proxy(tmp_path / "s.db", up.url) as proxy:
        def one(i: int) -> tuple[int, str]:
            body = {**STREAM, "prompt": f"client {i}"}
            with httpx.Client() as client:
                r = client.post(f"http://{proxy.address}/v1/completions", json=body)
            text = "".join(json.loads(line[6:])["choices"][0]["text"] for line in r.text.splitlines()
                           if line.startswith("data: {"))
            return r.status_code, text

        with ThreadPoolExecutor(16) as pool:
            results = list(pool.map(one, range(16)))
    assert results == [(200, "one two three")] * 16
    recs = captures(tmp_path / "s.db")
    assert sorted(rec.logged_prompt for rec, _ in recs) == sorted(f"client {i}" for i in range(16))
    assert all(rec.completion == "one two three" for rec, _ in recs)


SECRETS = ("sk-proj-NEVERSTOREDnever0123456789", "tabby-auth-token-abcdef123456", "x-key-value-9f8e7d6c5b4a",
           "cookie-value-SESSION-42")


def test_no_secret_reaches_the_store_the_log_or_the_listing(tmp_path: Path) -> None:
    """Keys in headers and in the body: forwarded to the upstream, absent from the store file
    (WAL included), from the proxy's output, and from `captures --json --full`; the key of the
    Authorization header is kept out wherever the client repeats it (here its User-Agent)."""
    db = tmp_path / "s.db"
    port = free_port()
    env = {**os.environ, "FIMREPLAY_HOME": str(tmp_path / "home")}
    with ShapeUpstream() as up:
        with spawned([sys.executable, "-m", "replay", "proxy", "--upstream", up.url, "--listen", f"127.0.0.1:{port}",
                      "--db", str(db)], sig=signal.SIGINT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                     text=True) as proc:
            wait_listening(port)
            headers = {"Authorization": f"Bearer {SECRETS[0]}", "X-Api-Key": SECRETS[2], "Cookie": SECRETS[3],
                       "User-Agent": f"Continue/1.0.0 (key {SECRETS[0]})"}
            for route, body in (("/v1/completions", {**STREAM, "api_key": SECRETS[1]}),
                                ("/api/generate", {"model": "m", "prompt": "x", "options": {"api_key": SECRETS[0]}}),
                                ("/v1/events", {"type": "view", "completion_id": "c", "choice_index": 0, "token": SECRETS[1]})):
                assert httpx.post(f"http://127.0.0.1:{port}{route}", json=body, headers=headers).status_code == 200
            assert up.seen[0].headers["Authorization"] == f"Bearer {SECRETS[0]}" and up.seen[0].headers["X-Api-Key"] == SECRETS[2]
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
    listing = subprocess.run([sys.executable, "-m", "replay", "captures", "--json", "--full", "--db", str(db)],
                             capture_output=True, text=True, env=env, check=True).stdout
    assert len(listing.splitlines()) == 2
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("s.db*"))
    for secret in SECRETS:
        assert secret.encode() not in stored and secret not in out + err + listing
    assert "recorded 2 captures" in err


def test_sigterm_loses_no_finished_exchange(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    port = free_port()
    with ShapeUpstream() as up:
        with spawned([sys.executable, "-m", "replay", "proxy", "--upstream", up.url, "--listen", f"127.0.0.1:{port}",
                      "--db", str(db), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     env={**os.environ, "FIMREPLAY_HOME": str(tmp_path / "home")}) as proc:
            wait_listening(port)
            with httpx.Client() as client:
                for i in range(40):
                    assert client.post(f"http://127.0.0.1:{port}/v1/completions", json={**STREAM, "prompt": str(i)}).status_code == 200
            proc.send_signal(signal.SIGTERM)  # right after the last answer: some are still queued
            out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert json.loads(out.splitlines()[-1]) == {"stopped": {"address": f"127.0.0.1:{port}", "captures": 40, "outcomes": 0,
                                                           "rejected": 0, "refused": 0, "unwritten": 0, "rejects_file": None}}
    store = Store(db)
    try:
        assert store.count_captures() == 40
    finally:
        store.close()


def test_listening_beyond_loopback_is_said_loudly(tmp_path: Path) -> None:
    warnings: list[str] = []
    from replay.usecases.proxy import ProxyOptions, start_proxy

    with ShapeUpstream() as up:
        handle = start_proxy(tmp_path / "s.db", ProxyOptions(up.url, "0.0.0.0:0", rejects_path=tmp_path / "r.jsonl"),
                             warn=warnings.append)
        handle.stop()
    assert len(warnings) == 1 and warnings[0].startswith("WARNING: listening on 0.0.0.0, not on loopback")


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    for args, message in ((["--upstream", "ftp://x"], "not an http(s) URL"), (["--upstream", "http://x", "--listen", "nope"], "HOST:PORT")):
        r = subprocess.run([sys.executable, "-m", "replay", "proxy", *args, "--db", str(tmp_path / "s.db")], capture_output=True,
                           text=True, env={**os.environ, "FIMREPLAY_HOME": str(tmp_path / "home")})
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr

