"""Every capture scored against what the user typed: a Tabby session (two requests in one file,
the first dismissed) imported, replayed against a stub server, listed and scored."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.backend_stubs import Reply, Request, StubServer, openai_reply

HEAD = "pragma solidity ^0.8.0;\n\ncontract Vault {\n    uint256 public total;\n\n    function deposit(uint256 amount) external {\n"
TAIL = "\n    }\n\n    function withdraw(uint256 amount) external {\n        total -= amount;\n    }\n}\n"
TYPED = "total += amount;\n        emit Deposit(msg.sender, amount);"


def event(ts: int, cid: str, prefix: str, suffix: str, text: str) -> dict:
    return {"user": "alice@example.org", "ts": ts, "event": {"completion": {
        "completion_id": cid, "language": "solidity", "prompt": f"<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
        "segments": {"prefix": prefix, "suffix": suffix, "filepath": "src/Vault.sol"},
        "choices": [{"index": 0, "text": text}], "user_agent": "tabby-agent/1.7.0 vscode/1.92.2 TabbyML.vscode-tabby/1.7.0"}}}


def session(tmp_path: Path) -> Path:
    moved_on = HEAD + "        " + TYPED + TAIL[:56]
    lines = [event(1727740790000, "cmpl-1", HEAD + "        ", TAIL, "total += amount * 2;"),
             {"user": "alice@example.org", "ts": 1727740791000, "event": {"dismiss": {"completion_id": "cmpl-1", "choice_index": 0}}},
             event(1727740799000, "cmpl-2", moved_on, TAIL[56:], "total -= amount;")]
    path = tmp_path / "events" / "2024-09-30.json"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_dismissed_capture_is_scored_against_what_was_typed(cli, tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    assert cli("import", str(session(tmp_path)), "--db", db).returncode == 0
    listed = [json.loads(line) for line in cli("captures", "--json", "--db", db).stdout.splitlines()]
    first, second = listed
    assert first["outcome"] == "dismissed" and first["reference"]["source"] == "typed"
    assert first["reference"]["text"] == TYPED and first["reference"]["settled_after_ms"] == 9000 and first["reference"]["complete"]
    assert second["reference"] is None and second["reference_why"].startswith("no typed reference (no later capture")

    def answer(r: Request) -> Reply:
        return openai_reply("total += amount;\n")

    with StubServer(answer) as srv:
        run = cli("run", "captures", "--backend", "openai", "--endpoint", srv.url, "--model", "qwen2.5-coder-bad", "--json",
                  "--db", db)
    assert run.returncode == 0, run.stderr
    run_id = json.loads(run.stdout)["run"]
    typed = json.loads(cli("score", run_id, "--json", "--db", db).stdout)
    assert typed["n_items"] == 1 and typed["reference"] == "typed" and typed["reference_sources"] == {"typed": 1}
    assert list(typed["unscored"]) == [second["reference_why"]]
    first_line = json.loads(cli("score", run_id, "--lines", "1", "--json", "--db", db).stdout)
    assert first_line["mean"]["exact"] == 1.0 and typed["mean"]["exact"] == 0.0  # cut as any reference is
    accepted = cli("score", run_id, "--reference", "accepted", "--db", db)
    assert accepted.returncode == 1 and "no accepted text" in accepted.stdout
    text = cli("score", run_id, "--db", db).stdout
    assert "captures scored against: typed 1" in text and "not scored: 1: no typed reference" in text
    # the replay beside what the user was shown (the dismissed "total += amount * 2;"), on the same reference
    logged = json.loads(cli("compare", run_id, "--against", "logged", "--json", "--metric", "exact", "--lines", "1", "--db", db).stdout)
    assert (logged["a"], logged["b"], logged["n_items"], logged["wins"]) == ("logged", run_id, 1, 1)
    assert logged["n_unscored"] == 1 and logged["mean_a"] == 0.0 and logged["mean_b"] == 1.0
