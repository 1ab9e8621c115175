"""Run faults, each named after the fault: a response with a wrongly typed `usage`, a bad gzip
body, a server that trickles a byte a second, an answer over the response cap, a server that
echoes the API key in a 200 without `choices`, an unset `--api-key-env`, a run killed with
SIGKILL or stopped with Ctrl-C and resumed, `render` output without ids, and a run with
nothing usable. Each asserts the exit code and one-line message, no lost or duplicated
completion, and (with the suite's check in conftest) no planted key in any file.

The servers are real HTTP servers on 127.0.0.1 (http.server): a real engine does not send
malformed answers on demand, so the faults are served by a small server of their own.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import msgspec
import pytest

from replay.records import RenderedPrompt
from tests.conftest import PLANTED_INPUTS, PLANTED_KEY, PLANTED_KEY_ENV, ROOT, run_cli
from tests.support.processes import spawned

Handler = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]


class _Quiet(ThreadingHTTPServer):
    """A client that closes its connection (a killed run) is no server error to print."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def fault_server(answer: Handler) -> Iterator[str]:
    """A loopback HTTP server whose every POST is answered by `answer(handler, body)`."""

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            try:
                answer(self, json.loads(self.rfile.read(int(self.headers.get("content-length") or 0))))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client closed the connection (a cut stream, a killed run)

        def log_message(self, *args: Any) -> None:
            pass

    server = _Quiet(("127.0.0.1", 0), H)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def send(h: BaseHTTPRequestHandler, data: bytes, ctype: str = "application/json", **headers: str) -> None:
    h.send_response(200)
    h.send_header("content-type", ctype)
    h.send_header("content-length", str(len(data)))
    for k, v in headers.items():
        h.send_header(k.replace("_", "-"), v)
    h.end_headers()
    h.wfile.write(data)


def ok(text: str, usage: Any = None) -> bytes:
    return json.dumps({"choices": [{"index": 0, "text": text, "finish_reason": "stop"}],
                       "usage": usage if usage is not None else {"completion_tokens": 2}}).encode()


def write_prompts(path: Path, ids: list[str]) -> Path:
    rows = [RenderedPrompt(profile="standard", family="qwen2.5-coder", text=f"<|fim_prefix|>{i} = <|fim_suffix|>\n<|fim_middle|>",
                           prefix_sent=f"{i} = ", suffix_sent="\n", item_id=i) for i in ids]
    path.write_bytes(b"".join(msgspec.json.encode(p) + b"\n" for p in rows))
    return path


def completions(db: Path, run: str) -> dict[str, dict[str, Any]]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT item_id, record FROM completions WHERE run_id = ?", (run,)).fetchall()
    assert len(rows) == len({r[0] for r in rows})  # no duplicate
    return {r[0]: json.loads(r[1]) for r in rows}


def run_args(src: Path, url: str, db: Path, *more: str) -> list[str]:
    return ["run", str(src), "--backend", "openai", "--model", "m", "--endpoint", url, "--db", str(db), "--json", *more]


def which(body: dict[str, Any]) -> str:
    return body["prompt"].removeprefix("<|fim_prefix|>").split(" = ")[0]


def test_bad_responses_fail_their_item_and_the_run_goes_on(tmp_path: Path, home: Path) -> None:
    """Wrongly typed usage, a bad gzip body, a 200 echoing the key without `choices`, a
    trickle, a stream over the cap: each is one item's outcome, the others complete."""
    sent: dict[str, int] = {}

    def answer(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        item = which(body)
        if item == "usage":
            send(h, ok("a", usage={"completion_tokens": "many"}))
        elif item == "usage_list":
            send(h, ok("b", usage=["not", "a", "dict"]))
        elif item == "gzip":
            send(h, b"\x1f\x8b this is not gzip", content_encoding="gzip")
        elif item == "echo":
            auth = h.headers.get("authorization", "")
            send(h, json.dumps({"error": "no such model", "you_sent": auth, "key": auth.split()[-1]}).encode())
        elif item == "trickle":
            h.send_response(200)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", "100000")
            h.end_headers()
            for _ in range(60):
                h.wfile.write(b" ")
                h.wfile.flush()
                time.sleep(1)
        elif item == "huge":
            h.send_response(200)
            h.send_header("content-type", "text/event-stream")
            h.end_headers()
            event = b"data: " + json.dumps({"choices": [{"index": 0, "text": "z" * 4000, "finish_reason": None}]}).encode() + b"\n\n"
            sent["huge"] = 0
            for _ in range(12_000):  # 48 MB if it were all read
                h.wfile.write(event)
                sent["huge"] += len(event)
        else:
            send(h, ok("fine"))

    ids = ["good1", "usage", "usage_list", "gzip", "echo", "trickle", "huge", "good2"]
    src = write_prompts(tmp_path / "p.jsonl", ids)
    db = tmp_path / "s.db"
    with fault_server(answer) as url:
        started = time.monotonic()
        out = run_cli(*run_args(src, url, db, "--run-id", "r1", "--timeout", "3", "--retries", "0",
                                "--api-key-env", PLANTED_KEY_ENV, "--max-response-mb", "0.05", "--concurrency", "8"))
        wall = time.monotonic() - started
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert (summary["items"], summary["completed"], summary["errors"]) == (8, 5, 3)
    rows = completions(db, "r1")
    assert set(rows) == set(ids)
    assert rows["good1"]["text"] == rows["good2"]["text"] == "fine"
    assert rows["usage"]["text"] == "a" and rows["usage_list"]["text"] == "b" and "error" not in rows["usage"]
    assert "cannot be decoded" in rows["gzip"]["error"]
    assert "timed out after 3 s" in rows["trickle"]["error"] and wall < 20  # the trickle would last 60 s
    assert "malformed response" in rows["echo"]["error"] and "<redacted>" in rows["echo"]["error"]
    huge = rows["huge"]
    assert huge.get("truncated") is True and huge["finish_reason"] == "response_cap" and "error" not in huge
    assert 0 < len(huge["raw_text"]) <= 0.05 * 1024 * 1024 and sent["huge"] < 16 * 1024 * 1024  # reading stopped at the cap
    assert PLANTED_KEY.encode() not in db.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("s.db-*"))


def test_api_key_env_unset(tmp_path: Path, home: Path) -> None:
    src = write_prompts(tmp_path / "p.jsonl", ["a"])
    out = run_cli(*run_args(src, "http://127.0.0.1:9", tmp_path / "s.db", "--api-key-env", "FIMREPLAY_NO_SUCH_KEY"))
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and "FIMREPLAY_NO_SUCH_KEY" in lines[0] and "not set" in lines[0]


def test_unreachable_server_fails_every_item_with_one_line(tmp_path: Path, home: Path) -> None:
    src = write_prompts(tmp_path / "p.jsonl", ["a", "b"])
    out = run_cli(*run_args(src, "http://127.0.0.1:9", tmp_path / "s.db", "--retries", "0", "--run-id", "r"))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == "fimreplay: run r: every item failed"
    assert all("connection failed" in c["error"] for c in completions(tmp_path / "s.db", "r").values())


def slow_server(delay: float) -> Any:
    def answer(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        time.sleep(delay)
        send(h, ok("v" + which(body)))

    return fault_server(answer)


def wait_for(db: Path, run: str, n: int, limit: float = 60) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            with sqlite3.connect(db) as con:
                if con.execute("SELECT COUNT(*) FROM completions WHERE run_id = ?", (run,)).fetchone()[0] >= n:
                    return
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{n} completions never arrived")


@pytest.mark.parametrize("how", ["kill -9", "ctrl-c"])
def test_interrupted_run_is_said_and_resumed(tmp_path: Path, home: Path, how: str) -> None:
    ids = [f"i{n:02d}" for n in range(20)]
    src = write_prompts(tmp_path / "p.jsonl", ids)
    db = tmp_path / "s.db"
    with slow_server(0.15) as url:
        env = {"PYTHONPATH": str(ROOT)}
        with spawned([sys.executable, "-m", "replay", *run_args(src, url, db, "--run-id", "r1", "--concurrency", "1")],
                     cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
            wait_for(db, "r1", 4)
            proc.send_signal(signal.SIGKILL if how == "kill -9" else signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        assert proc.returncode == (-9 if how == "kill -9" else 130), err
        if how == "ctrl-c":
            assert err.strip().splitlines()[-1] == "fimreplay: interrupted" and "Traceback" not in err
        done = completions(db, "r1")
        assert 4 <= len(done) < 20
        score = run_cli("score", "r1", "--json", "--db", str(db))
        # a run of bare prompts has no item to score against: said, and nothing judged is exit 1
        assert score.returncode == 1 and "Traceback" not in score.stderr and "nothing scored" in score.stderr
        assert f"run r1 is interrupted: {len(done)} of 20 items" in score.stderr, score.stderr
        report = run_cli("report", "r1", "--db", str(db))
        assert f"run r1 is interrupted: {len(done)} of 20 items" in report.stderr
        assert f"{len(done)} of 20 items" in report.stdout  # in the Markdown page too
        resumed = run_cli("run", "r1", "--db", str(db), "--json")
        assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert (summary["run"], summary["items"], summary["completed"], summary["resumed"]) == ("r1", 20, 20, len(done))
    final = completions(db, "r1")
    assert set(final) == set(ids) and all(final[i]["text"] == "v" + i for i in ids)
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT status FROM runs WHERE id = 'r1'").fetchone()[0] == "done"


def test_render_output_without_ids(tmp_path: Path, home: Path) -> None:
    """Render input may come without `id` (docs/replay-and-scores.md): its output has none, and `run` gives each
    line a content id (the same line again is the same item, nothing duplicated)."""
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("".join(json.dumps({"prefix": f"def f{n}():\n    return ", "suffix": "\n"}) + "\n" for n in range(3)))
    rendered = tmp_path / "rendered.jsonl"
    out = run_cli("render", str(inputs), "--editor", "standard", "--model", "qwen2.5-coder", "-o", str(rendered),
                  "--db", str(tmp_path / "s.db"))
    assert out.returncode == 0, out.stderr
    assert all("id" not in json.loads(line) or json.loads(line)["id"] is None for line in rendered.read_text().splitlines())
    db = tmp_path / "s.db"
    with slow_server(0) as url:
        first = run_cli(*run_args(rendered, url, db, "--run-id", "r1"))
        again = run_cli(*run_args(rendered, url, db, "--run-id", "r1"))
        raw = run_cli(*run_args(inputs, url, db, "--run-id", "r2", "--model", "qwen2.5-coder"))
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["completed"] == 3 and json.loads(first.stdout)["rejects"] == 0
    assert json.loads(again.stdout)["resumed"] == 3
    assert len(completions(db, "r1")) == 3 and all(k.startswith("content-") for k in completions(db, "r1"))
    assert raw.returncode == 0 and json.loads(raw.stdout)["completed"] == 3, raw.stderr


def test_run_with_nothing_usable(tmp_path: Path, home: Path) -> None:
    """Every line rejected: exit 2 and one line, no empty run; the rejects file keeps the
    lines, without the configured key one of them holds."""
    src = tmp_path / PLANTED_INPUTS / "bad.jsonl"
    src.parent.mkdir()
    src.write_text('{"broken\n' + json.dumps({"some": "object", "note": f"key={PLANTED_KEY}"}) + "\n")
    db = tmp_path / "s.db"
    out = run_cli(*run_args(src, "http://127.0.0.1:9", db, "--run-id", "r1", "--api-key-env", PLANTED_KEY_ENV))
    lines = [ln for ln in out.stderr.strip().splitlines() if not re.match(rf"fimreplay: {re.escape(str(src))}:\d+: ", ln)]
    assert out.returncode == 2 and len(lines) == 1 and "nothing to run" in lines[0] and str(src) in lines[0], out.stderr
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
    kept = (tmp_path / "rejects" / "r1.jsonl").read_text()  # beside the store
    assert "<redacted>" in kept and PLANTED_KEY not in kept


def test_run_input_with_line_separators_in_strings(tmp_path: Path, home: Path) -> None:
    """U+2028, U+2029 and U+0085 inside JSON strings are text, not line ends: every item runs."""
    rows = [RenderedPrompt(profile="standard", family="qwen2.5-coder", text=f"<|fim_prefix|>s{n} = '{sep}'<|fim_suffix|>\n<|fim_middle|>",
                           prefix_sent=f"s{n} = ", suffix_sent="\n", item_id=f"s{n}")
            for n, sep in enumerate(["\u2028", "\u2029", "\u0085", "plain"])]
    src = tmp_path / "p.jsonl"
    src.write_bytes(b"\xef\xbb\xbf" + b"".join(msgspec.json.encode(p) + b"\r\n" for p in rows))  # a BOM, CRLF too
    with slow_server(0) as url:
        out = run_cli(*run_args(src, url, tmp_path / "s.db", "--run-id", "r"))
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert (summary["items"], summary["completed"], summary["rejects"]) == (4, 4, 0)
