"""Secrets never reach the disk: the configured key (planted for the suite, see conftest) and
the known credential shapes, echoed by a server or held by an input, go through one rule
(replay.secrets) in every writer: stored completions and the cache, a run's config, rejects
(scrubbed before they are cut), reports, and the messages a command prints. The suite's final
check greps every file written under its temporary base for the planted key.

The server is a real HTTP server on 127.0.0.1 (http.server) that echoes what it is sent: no
real engine does that on demand."""

from __future__ import annotations

import json
import sqlite3
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from replay import secrets
from replay.rejects import RAW_KEEP_BYTES, Reject
from tests.conftest import PLANTED_INPUTS, PLANTED_KEY, PLANTED_KEY_ENV, files_holding, run_cli
from tests.faults.test_run import fault_server, ok, run_args, send, write_prompts


def echo_everything(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    """A server that writes the key it was sent into its answer (as text the model "wrote",
    and as a field of the answer)."""
    key = h.headers.get("authorization", "").split()[-1]
    if "nochoices" in body["prompt"]:
        send(h, json.dumps({"detail": f"bad key {key}", "auth": h.headers.get("authorization")}).encode())
    else:
        send(h, ok(f"API_KEY = '{key}'  # written by the model"))


def test_echoed_key_stays_off_every_file(tmp_path: Path, home: Path) -> None:
    src = write_prompts(tmp_path / "p.jsonl", ["a", "b", "nochoices"])
    db = tmp_path / "s.db"
    report = tmp_path / "report.md"
    with fault_server(echo_everything) as url:
        userinfo_url = url.replace("http://", f"http://user:{PLANTED_KEY}@")
        out = run_cli(*run_args(src, url, db, "--run-id", "r1", "--retries", "0", "--api-key-env", PLANTED_KEY_ENV))
        again = run_cli(*run_args(src, userinfo_url, db, "--run-id", "r2", "--retries", "0", "--api-key-env", PLANTED_KEY_ENV))
    assert out.returncode == 0 and again.returncode == 0, out.stderr
    assert json.loads(again.stdout)["cached"] == 2  # the cache served them: it holds them, scrubbed
    rep = run_cli("report", "r1", "r2", "-o", str(report), "--db", str(db))
    score = run_cli("score", "r1", "--json", "--db", str(db))
    # bare prompts have no item to score against: the page is written, says so, and both exit 1
    assert rep.returncode == 1 and score.returncode == 1 and report.is_file(), rep.stderr
    for proc in (out, again, rep, score):
        assert PLANTED_KEY not in proc.stdout + proc.stderr
    with sqlite3.connect(db) as con:
        texts = [json.loads(r[0]) for r in con.execute("SELECT record FROM completions")]
        configs = [bytes(r[0]).decode() for r in con.execute("SELECT config FROM runs")]
    assert any("<redacted>" in c.get("raw_text", "") for c in texts)
    assert any("<redacted>" in (c.get("error") or "") for c in texts)
    assert sum("<redacted>" in cfg for cfg in configs) == 1  # r2's endpoint password
    assert files_holding(tmp_path, PLANTED_KEY) == []


def test_rejects_scrub_before_the_cut(tmp_path: Path) -> None:
    shaped = "sk-" + "A1b2C3d4" * 6
    straddling = "x" * (RAW_KEEP_BYTES - 10) + " " + shaped
    kept = Reject.at("f.jsonl", 1, "bad", straddling).raw
    assert "sk-" not in kept and "A1b2" not in kept and len(kept.encode()) <= RAW_KEEP_BYTES
    # Cut by the caller already (a line too long to hold): the head of a key left at the end is dropped.
    head = Reject.at("f.jsonl", 2, "bad", "prefix text sk-A1b2C3", length=1 << 20).raw
    assert head == "prefix text "
    # A credential field cut before its closing quote is redacted to the end.
    cut_json = Reject.at("f.jsonl", 3, "bad", '{"userId": "' + "u" * 5000 + '"}').raw
    assert cut_json == '{"userId": "<redacted>"}'
    secrets.register(PLANTED_KEY)
    assert PLANTED_KEY not in Reject.at("f", 4, "bad", "y" * 4090 + PLANTED_KEY).raw


def test_run_rejects_file_holds_no_key(tmp_path: Path, home: Path) -> None:
    """Rejected input lines quote the input: the credential shapes and the configured key are
    taken out before the rejects file is written."""
    src = tmp_path / PLANTED_INPUTS / "mixed.jsonl"
    src.parent.mkdir()
    write_prompts(src, ["ok"])
    with src.open("a") as fh:
        fh.write(json.dumps({"broken": True, "apiKey": "hunter2-very-secret", "note": PLANTED_KEY}) + "\n")
        fh.write('{"cut": "Authorization: Bearer abcdefghijklmnop ' + "z" * 6000 + "\n")
    with fault_server(lambda h, b: send(h, ok("fine"))) as url:
        out = run_cli(*run_args(src, url, tmp_path / "s.db", "--run-id", "r1", "--api-key-env", PLANTED_KEY_ENV))
    assert out.returncode == 0, out.stderr
    rejects = json.loads(out.stdout)["rejects_file"]
    text = Path(rejects).read_text()
    assert len(text.splitlines()) == 2 and text.count("<redacted>") >= 3
    for secret in (PLANTED_KEY, "hunter2-very-secret", "abcdefghijklmnop"):
        assert secret not in text and secret not in out.stderr
