"""`fimreplay run / export / import-results` end to end, as a user runs them: a separate
process, real SQLite, a real HTTP server on 127.0.0.1, the real demo model."""

from __future__ import annotations

from collections.abc import Callable

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import msgspec

from tests.support.backend_stubs import Reply, Request, StubServer, openai_reply
from tests.conftest import ROOT
from replay.editors.tabby.server import TabbyRules
from replay.records import RenderedPrompt
from tests.support.processes import spawned


def write_prompts(path: Path, n: int, stop: tuple[str, ...] = ()) -> list[RenderedPrompt]:
    prompts = [RenderedPrompt(profile="standard", family="qwen2.5-coder", text=f"<|fim_prefix|>x{i} = <|fim_suffix|>\n<|fim_middle|>",
                              prefix_sent=f"x{i} = ", suffix_sent="\n", item_id=f"item-{i}", stop=stop) for i in range(n)]
    path.write_bytes(b"".join(msgspec.json.encode(p) + b"\n" for p in prompts))
    return prompts


def completions(db: Path, run: str) -> list[tuple[str, dict]]:
    with sqlite3.connect(db) as con:
        return [(r[0], json.loads(r[1])) for r in con.execute("SELECT item_id, record FROM completions WHERE run_id = ? ORDER BY rowid", (run,))]


def test_run_with_the_demo_model_json_summary_and_rejects(cli, home: Path, tmp_path: Path) -> None:
    src = tmp_path / "p.jsonl"
    write_prompts(src, 2, stop=("\n",))
    with src.open("a") as fh:
        fh.write("{broken\n")
        fh.write('{"some": "object"}\n')
    db = tmp_path / "s.db"
    out = cli("run", str(src), "--backend", "llamacpp", "--model", "default", "--max-new-tokens", "4", "--threads", "1",
              "--db", str(db), "--json", "--run-id", "r1")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert {k: summary[k] for k in ("run", "items", "completed", "cached", "errors", "rejects")} == \
        {"run": "r1", "items": 2, "completed": 2, "cached": 0, "errors": 0, "rejects": 2}
    assert f"{src}:3:" in out.stderr and f"{src}:4: unknown key(s) 'some'" in out.stderr
    rejects = [json.loads(line) for line in Path(summary["rejects_file"]).read_text().splitlines()]
    assert [r["where"] for r in rejects] == [f"{src}:3", f"{src}:4"] and rejects[0]["raw"] == "{broken"
    rows = completions(db, "r1")
    assert [r[0] for r in rows] == ["item-0", "item-1"]
    assert all(r[1]["backend"] == "llamacpp" and r[1]["n_tokens"] == 4 and "\n" not in r[1]["text"] for r in rows)
    with sqlite3.connect(db) as con:
        config = json.loads(con.execute("SELECT config FROM runs WHERE id = 'r1'").fetchone()[0])
    assert config["model_sha256"] == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert config["family"] == "qwen2.5-coder" and config["editor"] == "standard" and config["backend"] == "llamacpp"
    assert config["corpus_hash"] and config["versions"]["xllamacpp"] == "2026.10.11549" and "tokenizers" in config["versions"]
    again = cli("run", str(src), "--max-new-tokens", "4", "--threads", "1", "--db", str(db), "--json", "--run-id", "r2")
    assert json.loads(again.stdout)["cached"] == 2


def test_usage_errors_exit_2(cli, home: Path, tmp_path: Path) -> None:
    missing = cli("run", str(tmp_path / "nope.jsonl"), "--db", str(tmp_path / "s.db"))
    assert missing.returncode == 2 and "nope.jsonl: no such file" in missing.stderr
    src = tmp_path / "p.jsonl"
    write_prompts(src, 1)
    no_endpoint = cli("run", str(src), "--backend", "openai", "--model", "m", "--db", str(tmp_path / "s.db"))
    assert no_endpoint.returncode == 2 and "needs --endpoint" in no_endpoint.stderr
    no_model = cli("run", str(src), "--model", str(tmp_path / "nothing"), "--db", str(tmp_path / "s.db"))
    assert no_model.returncode == 2 and "needs a local GGUF file" in no_model.stderr


def test_sigkill_mid_run_then_resume_redoes_nothing_finished(home: Path, tmp_path: Path) -> None:
    """A run killed with SIGKILL and started again: finished items are not asked again, nothing is lost."""
    src = tmp_path / "p.jsonl"
    prompts = write_prompts(src, 12)
    db = tmp_path / "s.db"

    def handler(r: Request) -> Reply:
        return Reply(body=openai_reply("v" + re.search(r"x(\d+) =", r.body["prompt"]).group(1)).body, delay=0.25)

    cmd = [sys.executable, "-m", "replay", "run", str(src), "--backend", "openai", "--model", "m", "--endpoint", "",
           "--concurrency", "1", "--run-id", "killed", "--db", str(db), "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with StubServer(handler) as srv:
        cmd[cmd.index("--endpoint") + 1] = srv.url
        with spawned(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if db.exists() and len(_safe_completions(db, "killed")) >= 4:
                    break
                time.sleep(0.05)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        before = {item for item, _ in _safe_completions(db, "killed")}
        assert 4 <= len(before) < 12
        asked_before = _settled(lambda: len(srv.requests))  # a request sent just before the kill still arrives
        done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)
        assert (summary["items"], summary["completed"], summary["errors"], summary["resumed"]) == (12, 12, 0, len(before))
        asked_after = [r.body["prompt"] for r in srv.requests[asked_before:]]
    finished_texts = {p.text for p in prompts if p.item_id in before}
    assert not finished_texts & set(asked_after)  # nothing finished was asked again
    assert len(asked_after) == 12 - len(before)
    rows = completions(db, "killed")
    assert sorted(item for item, _ in rows) == sorted(p.item_id for p in prompts)  # each once, none lost
    assert all(rec["text"] == "v" + item.split("-")[1] for item, rec in rows)


def _settled(count: Callable[[], int], quiet: float = 0.5) -> int:
    """The count once it has not changed for `quiet` seconds (at most 10 s)."""
    last, since, deadline = count(), time.monotonic(), time.monotonic() + 10
    while time.monotonic() - since < quiet and time.monotonic() < deadline:
        time.sleep(0.05)
        if (now := count()) != last:
            last, since = now, time.monotonic()
    return last


def _safe_completions(db: Path, run: str) -> list[tuple[str, dict]]:
    try:
        return completions(db, run)
    except sqlite3.OperationalError:  # the schema is not there yet
        return []


def test_export_openai_batch_and_import_results(cli, home: Path, tmp_path: Path) -> None:
    src = tmp_path / "p.jsonl"
    write_prompts(src, 3, stop=("\n\n",))
    db = tmp_path / "s.db"
    with StubServer(lambda r: Reply(500, {"error": "down"})) as srv:  # the live run fails: results come by batch
        out = cli("run", str(src), "--backend", "openai", "--model", "served-model", "--endpoint", srv.url, "--retries", "0",
                  "--run-id", "b1", "--db", str(db), "--json")
    assert out.returncode == 1 and json.loads(out.stdout)["errors"] == 3 and "every item failed" in out.stderr
    batch = tmp_path / "batch.jsonl"
    exp = cli("export", "--format", "openai-batch", "b1", "-o", str(batch), "--db", str(db), "--json", "--max-new-tokens", "16")
    assert exp.returncode == 0, exp.stderr
    assert json.loads(exp.stdout)["requests"] == 3
    lines = [json.loads(line) for line in batch.read_text().splitlines()]
    assert [x["custom_id"] for x in lines] == ["item-0", "item-1", "item-2"]
    assert lines[0]["method"] == "POST" and lines[0]["url"] == "/v1/completions"
    assert lines[0]["body"]["model"] == "served-model" and lines[0]["body"]["max_tokens"] == 16
    assert lines[0]["body"]["prompt"] == "<|fim_prefix|>x0 = <|fim_suffix|>\n<|fim_middle|>"

    def result(custom_id: str, text: str) -> dict:
        return {"id": "r", "custom_id": custom_id, "response": {"status_code": 200, "request_id": "q",
                "body": {"choices": [{"index": 0, "text": text, "finish_reason": "length"}], "usage": {"completion_tokens": 5}}},
                "error": None}

    results = tmp_path / "results.jsonl"
    results.write_text("\n".join([
        json.dumps(result("item-0", "1\n\nrest")),
        json.dumps(result("item-1", "2")),
        json.dumps({"id": "r", "custom_id": "item-2", "response": {"status_code": 400, "body": {}}, "error": None}),
        json.dumps(result("item-1", "dup")),
        json.dumps(result("item-9", "unknown")),
        "{not json",
    ]) + "\n")
    imp = cli("import-results", str(results), "--run", "b1", "--db", str(db), "--json")
    assert imp.returncode == 0, imp.stderr
    assert {k: v for k, v in json.loads(imp.stdout).items() if k != "rejects_file"} == \
        {"run": "b1", "lines": 6, "imported": 3, "errors": 1, "rejects": 3}
    assert f"{results}:4: custom_id 'item-1' seen before" in imp.stderr and f"{results}:5:" in imp.stderr
    rows = dict(completions(db, "b1"))
    assert (rows["item-0"]["text"], rows["item-0"]["raw_text"], rows["item-0"]["backend"]) == ("1", "1\n\nrest", "openai-batch")
    assert rows["item-1"]["text"] == "2" and rows["item-2"]["error"] == "HTTP 400"
    unknown = cli("import-results", str(results), "--run", "nope", "--db", str(db))
    assert unknown.returncode == 2 and "no run 'nope'" in unknown.stderr


def test_items_render_through_the_standard_profile_and_captures_through_their_editor(cli, home: Path, tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join([
        json.dumps({"id": "sol-1", "file": "A.sol", "prefix": "contract A {\n    uint256 public ", "middle": "total;",
                    "suffix": "\n}\n", "mode": "line", "language": "solidity"}),
        json.dumps({"id": "row-2", "prompt": "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>", "profile": "standard",
                    "family": "qwen2.5-coder", "prefix_sent": "a", "suffix_sent": "b", "line": 7, "stop": ["\n"]}),
        json.dumps({"id": "sol-1", "prefix": "dup", "suffix": ""}),
    ]) + "\n")
    db = tmp_path / "s.db"
    with StubServer(lambda r: openai_reply("ok\nmore")) as srv:
        out = cli("run", str(items), "--backend", "openai", "--endpoint", srv.url, "--model", "default", "--db", str(db),
                  "--run-id", "it", "--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["rejects"] == 1 and f"{items}:3: item id 'sol-1' seen before" in out.stderr
        sent = [r.body["prompt"] for r in srv.requests]
        assert sorted(sent) == sorted(["<|fim_prefix|>contract A {\n    uint256 public <|fim_suffix|>\n}\n<|fim_middle|>",
                                       "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>"])
        assert all(r.body["max_tokens"] == 128 for r in srv.requests)  # the standard profile's own limit
        import_out = cli("import", str(ROOT / "captures" / "tabby"), "--db", str(db), "--json")
        assert import_out.returncode == 0, import_out.stderr
        caps = cli("run", "captures", "--backend", "openai", "--endpoint", srv.url, "--model", "default", "--db", str(db),
                   "--run-id", "caps", "--json")
        assert caps.returncode == 0, caps.stderr
    from replay.store import Store

    with Store(db) as store:
        prompts = {p.item_id: p for p in store.run_prompts("it")}
        assert prompts["sol-1"].profile == "standard" and prompts["sol-1"].token_ids[0] == 151659
        assert {c.item_id: c.text for c in store.completions("it")}["row-2"] == "ok"
        cap_prompts = store.run_prompts("caps")
        # each capture under the Tabby of its day: 64 new tokens from 0.11.0, 128 before
        budgets = {(TabbyRules.for_version(p.profile.partition(",server=")[2]).max_decoding_tokens, p.max_new_tokens)
                   for p in cap_prompts}
        assert cap_prompts and all(p.profile.startswith("tabby@agent=") for p in cap_prompts)
        assert budgets == {(64, 64), (128, 128)}
        assert store.run("caps").editor == "captures' own"


def test_a_tabby_capture_is_replayed_under_the_agent_its_user_agent_names(cli, tmp_path: Path) -> None:
    """Two Tabby events of one day, one from tabby-agent 1.5.0, one from the VS Code extension's
    in-tree 1.9.0-dev: the same engine text "x;" is shown by 1.5.0 (dropBlank) and dropped by
    1.9.0-dev (dropMinimum: under 4 characters), and each prompt says why its rules were chosen."""
    day_ms = 1747958400000  # 2025-05-23T00:00:00Z
    prefix, suffix = "contract A {\n    function f() public {\n        ", "\n    }\n}\n"

    def event(n: int, user_agent: str) -> str:
        prompt = f"<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>"
        return json.dumps({"user": None, "ts": day_ms + n, "event": {"completion": {
            "completion_id": f"cmpl-{n}", "language": "solidity", "prompt": prompt,
            "segments": {"prefix": prefix, "suffix": suffix, "filepath": "A.sol"},
            "choices": [{"index": 0, "text": "x;"}], "user_agent": user_agent}}})

    events = tmp_path / "events"
    events.mkdir()
    (events / "2025-05-23.json").write_text(event(1, "tabby-agent/1.5.0 vim/9.0 TabbyML/vim-tabby/1.5.0") + "\n"
                                            + event(2, "tabby-agent/1.9.0-dev vscode/1.100.2 TabbyML.vscode-tabby/1.26.0") + "\n")
    db = tmp_path / "s.db"
    assert cli("import", str(events), "--db", str(db)).returncode == 0
    with StubServer(lambda r: openai_reply("x;")) as srv:
        run = cli("run", "captures", "--backend", "openai", "--endpoint", srv.url, "--model", "qwen2.5-coder",
                  "--db", str(db), "--run-id", "caps", "--json")
        assert run.returncode == 0, run.stderr
    from replay.store import Store

    with Store(db) as store:
        prompts = sorted(store.run_prompts("caps"), key=lambda p: p.profile)
        shown = {c.item_id: c.shown_text for c in store.completions("caps")}
    assert [p.profile for p in prompts] == ["tabby@agent=1.5.0,server=0.29.0", "tabby@agent=1.9.0-dev@2025-05-14,server=0.29.0"]
    assert "tabby-agent 1.9.0-dev on 2025-05-23" in (prompts[1].version_why or "")
    assert [shown[p.item_id] for p in prompts] == ["x;", None]
