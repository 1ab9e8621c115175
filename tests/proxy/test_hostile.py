"""Hostile requests to the proxy (raw bytes on a socket, as a broken or malicious client writes
them): no traceback, one line per refused request, bad bodies forwarded as sent and rejected
with a reason, every valid exchange recorded exactly once whatever came with it, no credential
kept. The long run of the same is bench/faults/proxy_hostile.py."""

from __future__ import annotations

import gzip
import json
import re
import socket
import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from replay.proxy.exchange import Exchange, to_recorded
from replay.proxy.recorder import Recorder
from replay.rejects import Rejects
from tests.support.proxy_helpers import captures, running_proxy
from tests.support.proxy_upstream import ShapeUpstream

EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b|Traceback")


def _send(address: str, data: bytes, leave: bool = False, timeout: float = 30) -> bytes:
    """Write raw bytes to the proxy and read until it closes (b"" when it closed without
    answering); with `leave`, close right after writing (a client gone mid-request)."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            return b""
        if leave:
            return b""
        out = []
        while True:
            try:
                piece = s.recv(65536)
            except OSError:
                break
            if not piece:
                break
            out.append(piece)
    return b"".join(out)


def _post(path: str, body: bytes, *headers: str) -> bytes:
    head = [f"POST {path} HTTP/1.1", "Host: x", "Connection: close", "Content-Type: application/json",
            f"Content-Length: {len(body)}", *headers]
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


def _valid(nonce: str) -> bytes:
    return json.dumps({"model": "m", "prompt": f"# {nonce}\ndef f(", "max_tokens": 8, "stream": True}).encode()


def _exchange(body: bytes, headers: dict[str, str] | None = None, route: str = "/v1/completions", number: int = 1) -> Exchange:
    return Exchange(number, "POST", route, route, {}, headers or {}, body, time.time(), status=200)


@pytest.mark.parametrize("body,reason", [
    (b'{"model": "m", "prompt": "\xff\xfe"}', "not UTF-8: byte 0xff at offset 26"),
    (b'{"model": "m", "prompt": "x\\udc00y"}', "not JSON: JSON is malformed: invalid utf-16 surrogate pair"),
    (b'{"model": "m", "prompt": "x\\ud83d"}', "not JSON:"),
    (b'{"model": "m", "prompt": ', "not JSON: Input data was truncated"),
    (b'["m"]', "the body is a JSON list, not an object"),
])
def test_a_body_that_cannot_be_recorded_is_a_reject_with_its_reason(body: bytes, reason: str) -> None:
    got = to_recorded(_exchange(body), "proxy:http://up")
    assert got.capture is None and got.reject is not None and got.reject.startswith(reason)


def test_a_gzip_body_is_read_and_a_bad_one_rejected() -> None:
    good = to_recorded(_exchange(gzip.compress(_valid("n1")), {"Content-Encoding": "gzip"}), "proxy:http://up")
    assert good.capture is not None and "n1" in (good.capture.logged_prompt or "")
    bad = to_recorded(_exchange(_valid("n2"), {"Content-Encoding": "gzip"}), "proxy:http://up")
    assert bad.capture is None and bad.reject is not None and bad.reject.startswith("Content-Encoding 'gzip'")


def test_credentials_of_headers_and_body_fields_are_kept_out_of_the_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that repeats its keys in the prompt or the User-Agent: none of them is kept, and
    no field name is touched however the key looks."""
    from replay import secrets
    from replay.proxy import exchange

    monkeypatch.setattr(secrets, "_registered", set())  # the keys below are registered for the process
    monkeypatch.setattr(exchange, "_remembered", set())
    body = {"model": "model", "prompt": "key-in-prompt-123 and hdr-key-4567 and model", "api_key": "key-in-prompt-123"}
    ex = _exchange(json.dumps(body).encode(), {"Authorization": "Bearer hdr-key-4567", "X-Api-Key": "model",
                                               "User-Agent": "Continue/1.0.0 hdr-key-4567"})
    rec = to_recorded(ex, "proxy:http://up").capture
    assert rec is not None
    kept = json.dumps([rec.logged_prompt, rec.raw, rec.user_agent, rec.extra])
    assert "key-in-prompt-123" not in kept and "hdr-key-4567" not in kept
    assert rec.model == "<redacted>"  # the value repeated a key: the value goes, the field stays


def test_one_exchange_the_store_cannot_keep_costs_no_other(tmp_path: Path) -> None:
    """A User-Agent with bytes that are not UTF-8 (aiohttp hands them over as surrogate escapes)
    in one exchange of a batch: every exchange is recorded (it used to fail the whole batch's
    write, losing up to 256 valid exchanges), its User-Agent with U+FFFD for the damage."""
    rejects = Rejects(tmp_path / "r.jsonl")
    rec = Recorder(tmp_path / "s.db", "proxy:http://up", rejects=rejects)
    for i in range(5):
        ua = "agent/\udcff\udcfe" if i == 2 else "agent/1"
        rec.put(_exchange(_valid(f"nonce-{i}"), {"User-Agent": ua}, number=i + 1))
    rec.put(_exchange(b'{"prompt": "\xff"}', number=6))
    rec.start()
    rec.close()
    recs = captures(tmp_path / "s.db")
    assert sorted(r.logged_prompt.split()[1] for r, _ in recs) == [f"nonce-{i}" for i in range(5)]
    assert [r.user_agent for r, _ in recs if r.user_agent != "agent/1"] == ["agent/\ufffd\ufffd"]
    [line] = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    reject = json.loads(line)
    assert reject["where"] == "proxy:http://up/v1/completions:6" and reject["reason"].startswith("not UTF-8")
    assert reject["raw"] == '{"prompt": "\\xff"}'


def test_a_store_locked_past_the_lock_wait_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program holds the store longer than the lock wait: the recorder says so in one
    line naming the store, keeps the batch and writes it once the lock is gone."""
    monkeypatch.setenv("FIMREPLAY_LOCK_WAIT", "0.2")
    monkeypatch.setattr("replay.proxy.recorder.RETRY_S", 0.1)
    db = tmp_path / "s.db"
    said: list[str] = []
    rec = Recorder(db, "proxy:http://up", on_error=said.append, rejects=Rejects(tmp_path / "r.jsonl"))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        rec.start()
        rec.put(_exchange(_valid("locked-1")))
        deadline = time.monotonic() + 30
        while not said and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        holder.execute("COMMIT")
        holder.close()
    rec.close()
    assert [r.logged_prompt.split()[1] for r, _ in captures(db)] == ["locked-1"]
    assert len(said) == 1 and str(db) in said[0] and "locked by another program" in said[0] and "\n" not in said[0]


def test_requests_refused_on_the_wire_are_one_line_each_and_the_proxy_goes_on(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    said: list[str] = []
    cut_chunked = (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                   b"10\r\n" + b'{"prompt": "' + b"\r\n")
    hostile = [
        b"F\x01O /v1/completions HTTP/1.1\r\nHost: x\r\n\r\n",
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(40),
        _post("/v1/completions", _valid("x"), "X-Long: " + "y" * 20000, "X-Api-Key: sk-proj-LONGHEADERkey0123456789"),
        _post("/v1/completions", _valid("x")).replace(b"Content-Length", b"Transfer-Encoding: chunked\r\nContent-Length", 1),
        b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        cut_chunked,
        _post("/v1/completions", _valid("x"))[:-10],
    ]
    with ShapeUpstream() as up, running_proxy(tmp_path / "s.db", up.url, warn=said.append) as proxy:
        for data in hostile:
            _send(proxy.address, data, leave=data in (cut_chunked, hostile[-1]))
        answer = _send(proxy.address, _post("/v1/completions", _valid("after-all")))
        deadline = time.monotonic() + 10
        while len(said) < len(hostile) and time.monotonic() < deadline:
            time.sleep(0.05)
    assert answer.startswith(b"HTTP/1.1 200")
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and not EXCEPTION_NAME.search(err)
    assert len(said) == len(hostile), said
    assert all("\n" not in s and not EXCEPTION_NAME.search(s) and "sk-proj" not in s and "yyyy" not in s for s in said)
    assert [r.logged_prompt.split()[1] for r, _ in captures(tmp_path / "s.db")] == ["after-all"]


def test_a_gzip_request_is_forwarded_as_sent_and_recorded_read(tmp_path: Path) -> None:
    packed = gzip.compress(_valid("zipped"))
    with ShapeUpstream() as up, running_proxy(tmp_path / "s.db", up.url) as proxy:
        answer = _send(proxy.address, _post("/v1/completions", packed, "Content-Encoding: gzip"))
    assert answer.startswith(b"HTTP/1.1 200") and up.seen[-1].body == packed
    [(rec, _)] = captures(tmp_path / "s.db")
    assert "zipped" in (rec.logged_prompt or "")


_NASTY = st.sampled_from([b"\xff", b"\xed\xa0\xbd", b"\\ud83d", b"\\udc00", b"\x00", b'"', b"\\", b"}", b"\n", b"\r\n",
                          "é".encode(), b"\\u0000"])
_NONCE = re.compile(rb"nonce\d{10}")


@st.composite
def _requests(draw: st.DrawFn) -> tuple[str, bytes]:
    """(expect, request bytes): a valid exchange ("capture": stored once), a body damaged so that
    it is no JSON object a JSON reader keeps ("reject": never stored), or a request with bytes
    replaced anywhere ("mangled": refused on the wire, rejected, or, where the damage left a valid
    request, stored; at most once)."""
    body = _valid(f"nonce{draw(st.integers(0, 10**9)):010d}")
    kind = draw(st.sampled_from(["capture", "reject", "mangled"]))
    if kind == "capture":
        # Each at most once: a second User-Agent or Authorization is refused (aiohttp's parser
        # allows one of each singleton header), so that request would not be a valid exchange.
        extra = draw(st.lists(st.sampled_from(["X-Odd: \xff\xfe", "user-AGENT: a\xe9", "X-Empty:",
                                               "Authorization: Bearer sk-proj-HYPOTHESISkey0123456789"]), max_size=3,
                              unique=True))
        head = _post("/v1/completions", body).split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
        return kind, ("\r\n".join(head + extra)).encode("latin-1") + b"\r\n\r\n" + body
    if kind == "reject":
        after_nonce = body.index(b"nonce") + 15
        at = draw(st.integers(after_nonce, len(body)))
        broken = body[:at] + draw(_NASTY) + body[at:]
        return ("capture" if _json_object(broken) else "reject"), _post("/v1/completions", broken)
    data = _post("/v1/completions", body)
    at = draw(st.integers(0, len(data) - 1))
    return kind, data[:at] + draw(st.binary(min_size=1, max_size=20)) + data[at + 1:]


def _json_object(data: bytes) -> bool:
    """Whether `data` is a JSON object whose every text UTF-8 can hold (Python's reader keeps a
    lone surrogate escape; JSON's stricter readers, and the store, do not)."""
    try:
        obj = json.loads(data)
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except ValueError:
        return False
    return isinstance(obj, dict)


def test_property_every_valid_exchange_once_nothing_else_no_traceback(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Seeded, 60 examples of 1-6 requests each, against one proxy: each valid exchange sent is
    in the store exactly once, a rejected body never, a mangled request at most once, each body
    rejected is in the rejects file, and nothing the proxy said carries a traceback, an
    exception's name or the planted key."""
    said: list[str] = []
    sent: list[tuple[str, str]] = []
    db = tmp_path / "s.db"
    with ShapeUpstream() as up, running_proxy(db, up.url, warn=said.append) as proxy:

        @seed(20261127)
        @settings(max_examples=60, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
        @given(st.lists(_requests(), min_size=1, max_size=6))
        def run(requests: list[tuple[str, bytes]]) -> None:
            mine = []
            for expect, data in requests:
                unique = b"nonce%010d" % len(sent)  # the same width: Content-Length stays right
                data = _NONCE.sub(unique, data, count=1)
                sent.append((expect, unique.decode()))
                mine.append((expect, unique.decode()))
                _send(proxy.address, data, leave=expect == "mangled")
            want = {n for e, n in mine if e == "capture"}
            deadline = time.monotonic() + 20
            stored = _nonces(db)
            while not want <= set(stored) and time.monotonic() < deadline:
                time.sleep(0.05)
                stored = _nonces(db)
            assert all(stored.count(n) == 1 for n in want), [(n, stored.count(n)) for n in want]

        run()
    stored = _nonces(db)
    rejected = (tmp_path / "s.db.rejects.jsonl").read_text(encoding="utf-8") if (tmp_path / "s.db.rejects.jsonl").exists() else ""
    assert [n for e, n in sent if e == "capture" and stored.count(n) != 1] == []
    assert [n for e, n in sent if e == "reject" and (n in stored or n not in rejected)] == []
    assert [n for e, n in sent if e == "mangled" and stored.count(n) > 1] == []
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and not EXCEPTION_NAME.search(err)
    assert all("\n" not in s and not EXCEPTION_NAME.search(s) and "HYPOTHESISkey" not in s for s in said)
    assert b"HYPOTHESISkey" not in b"".join(p.read_bytes() for p in tmp_path.glob("s.db*"))


def _nonces(db: Path) -> list[str]:
    """The nonce of each stored capture (one per capture)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = [bytes(r[0]) for r in con.execute("SELECT record FROM capture_records")]
    return [m.group().decode() for m in (_NONCE.search(r) for r in rows) if m]
