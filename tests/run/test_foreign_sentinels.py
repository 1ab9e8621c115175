"""A run stops before it sends a prompt whose template sentinels the target model does not hold
as tokens (another model's template), unless told to go on."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec

from replay.records import RenderedPrompt
from tests.support.backend_stubs import StubServer, openai_reply


def prompt(item_id: str, family: str, text: str, prefix: str, suffix: str = "\n") -> RenderedPrompt:
    return RenderedPrompt(profile="standard", family=family, text=text, prefix_sent=prefix, suffix_sent=suffix, item_id=item_id)


def write(path: Path) -> None:
    code = "MARK = '<fim_prefix>'\n"  # the user's code may name a sentinel: that is not the template's
    prompts = [prompt("own", "qwen2.5-coder", "<|fim_prefix|>x = <|fim_suffix|>\n<|fim_middle|>", "x = "),
               prompt("mention", "qwen2.5-coder", f"<|fim_prefix|>{code}<|fim_suffix|>\n<|fim_middle|>", code),
               prompt("star", "starcoder", "<fim_prefix>y = <fim_suffix>\n<fim_middle>", "y = ")]
    path.write_bytes(b"".join(msgspec.json.encode(p) + b"\n" for p in prompts))


def test_a_prompt_in_another_models_template_stops_the_run(cli, tmp_path: Path) -> None:
    src, db = tmp_path / "p.jsonl", tmp_path / "s.db"
    write(src)
    with StubServer(lambda r: openai_reply("1")) as srv:
        out = cli("run", str(src), "--backend", "openai", "--endpoint", srv.url, "--model", "default", "--db", str(db),
                  "--run-id", "f1", "--json")
        assert not srv.requests
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert "1 of 3 prompts (first: star)" in lines[0] and "<fim_prefix>, <fim_suffix>, <fim_middle>" in lines[0]
    assert "--allow-foreign-sentinels" in lines[0]


def test_asked_to_go_on_the_run_sends_them_as_they_are(cli, tmp_path: Path) -> None:
    src, db = tmp_path / "p.jsonl", tmp_path / "s.db"
    write(src)
    with StubServer(lambda r: openai_reply("1")) as srv:
        out = cli("run", str(src), "--backend", "openai", "--endpoint", srv.url, "--model", "default", "--db", str(db),
                  "--run-id", "f2", "--json", "--allow-foreign-sentinels")
        sent = sorted(r.body["prompt"] for r in srv.requests)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["completed"] == 3 and "<fim_prefix>y = <fim_suffix>\n<fim_middle>" in sent
    with sqlite3.connect(db) as con:
        config = json.loads(con.execute("SELECT config FROM runs WHERE id = 'f2'").fetchone()[0])
    assert config["allow_foreign_sentinels"] is True  # kept: resuming the run goes on the same way
