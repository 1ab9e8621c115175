"""`fimreplay leaderboard` end to end: the demo model alone through llama.cpp (resumed from its
runs the second time), and two cheap engines behind a real HTTP server on loopback (a stub: no
second real model server can run in the test suite's time) ranked with their paired difference."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from replay.corpus.evalgen import EvalgenOptions, collect_files, generate
from replay.records import FimItem
from tests.support.backend_stubs import Reply, Request, StubServer, openai_reply, sse_reply
from tests.corpus.test_evalgen import write_corpus


def write_items(tmp_path: Path, per_file: int = 1) -> tuple[Path, list[FimItem]]:
    root = write_corpus(tmp_path / "c")
    items = generate(collect_files([root], ["sol"]), EvalgenOptions(per_file=per_file, mode="line")).items
    path = tmp_path / "items.jsonl"
    path.write_bytes(b"".join(msgspec.json.encode(it) + b"\n" for it in items))
    return path, items


def test_the_demo_model_alone_then_resumed(cli, tmp_path: Path) -> None:
    path, items = write_items(tmp_path)
    items_path = tmp_path / "three.jsonl"
    items_path.write_text("".join(path.read_text().splitlines(keepends=True)[:3]))
    db = str(tmp_path / "s.db")
    args = ("leaderboard", str(items_path), "--model", "default", "--max-new-tokens", "4", "--threads", "1", "--db", db)
    first = cli(*args, "--format", "json")
    assert first.returncode == 0, first.stderr
    board = json.loads(first.stdout)
    (only,) = board["standings"]
    assert only["rank"] == 1 and only["vs_best"] is None and only["n_items"] == 3 and board["n_items"] == 3
    assert only["name"] == "Qwen2.5 Coder 0.5B Instruct AWQ" and board["text"] == "shown" and board["lines"] == "auto"
    assert only["training_overlap"]["message"] == "item dates unknown (model cutoff 2024-01-31)"
    again = cli(*args, "--format", "json")  # the same request: the same run, nothing replayed
    assert json.loads(again.stdout)["standings"][0]["run"] == only["run"]
    assert json.loads(again.stdout)["standings"][0]["mean"] == only["mean"]
    from replay.store import Store

    with Store(db) as store:
        assert [r.id for r in store.runs()] == [only["run"]] and len(store.completions(only["run"])) == 3
    text = cli(*args)
    assert text.returncode == 0 and "1     default" in text.stdout and "wall time" in text.stdout
    run = cli("run", str(items_path), "--model", "default", "--max-new-tokens", "4", "--threads", "1", "--cutoff", "2000-01-01",
              "--db", db)
    assert run.returncode == 0 and "item dates unknown (model cutoff 2000-01-01)" in run.stdout


def test_two_engines_ranked_with_the_paired_difference(cli, tmp_path: Path) -> None:
    path, items = write_items(tmp_path)

    def answer(r: Request) -> Reply:
        # "good" completes every item with its middle, "bad" with nothing useful.
        item = next(it for it in items if r.body["prompt"].split("<|fim_suffix|>")[0].endswith(it.prefix[-200:]))
        text = (item.middle if "good" in r.body["model"] else "x") + "\n\n"
        return sse_reply([text]) if r.body.get("stream") else openai_reply(text)

    out = tmp_path / "board.html"
    with StubServer(answer) as srv:
        args = ("leaderboard", str(path), "--backend", "openai", "--endpoint", srv.url, "--model", "qwen2.5-coder-bad",
                "--model", "qwen2.5-coder-good", "--db", str(tmp_path / "s.db"))
        res = cli(*args, "--format", "json")
        assert res.returncode == 0, res.stderr
        page = cli(*args, "--format", "html", "-o", str(out))
        assert page.returncode == 0, page.stderr
    board = json.loads(res.stdout)
    best, second = board["standings"]
    assert (best["model"], best["rank"], best["mean"]) == ("qwen2.5-coder-good", 1, 1.0)
    assert second["model"] == "qwen2.5-coder-bad" and second["rank"] == 2
    vs = second["vs_best"]
    assert vs["n_items"] == len(items) and vs["wins"] == 0 and vs["losses"] == len(items)
    assert vs["mean_diff"] < 0 and vs["ci95"][1] < 0 and vs["verdict"] == "A better"
    assert vs["mean_diff"] == second["mean"] - best["mean"]
    html = out.read_text()
    assert "fimreplay leaderboard" in html and "best is better" in html and "qwen2.5-coder-bad − qwen2.5-coder-good" in html
    bad = cli("leaderboard", str(path), "--model", "a", "--model", "a", "--db", str(tmp_path / "s.db"))
    assert bad.returncode == 2 and "given twice" in bad.stderr


def test_a_latency_budget_ranks_quality_against_time(cli, tmp_path: Path) -> None:
    """The better engine answers in 0.4 s, the worse at once: under a 250 ms budget every answer of
    the better one counts as nothing shown; both are on the frontier (one better, one faster)."""
    path, items = write_items(tmp_path)

    def answer(r: Request) -> Reply:
        item = next(it for it in items if r.body["prompt"].split("<|fim_suffix|>")[0].endswith(it.prefix[-200:]))
        good = "good" in r.body["model"]
        text = (item.middle if good else item.middle[: len(item.middle) // 2]) + "\n\n"
        reply = sse_reply([text]) if r.body.get("stream") else openai_reply(text)
        reply.delay = 0.4 if good else 0.0
        return reply

    with StubServer(answer) as srv:
        args = ("leaderboard", str(path), "--backend", "openai", "--endpoint", srv.url, "--model", "qwen2.5-coder-fast",
                "--model", "qwen2.5-coder-good", "--latency-budget", "250", "--db", str(tmp_path / "s.db"))
        res = cli(*args, "--format", "json")
        assert res.returncode == 0, res.stderr
        text = cli(*args).stdout
        page = cli(*args, "--format", "html").stdout
    best, fast = json.loads(res.stdout)["standings"]
    assert best["model"] == "qwen2.5-coder-good" and best["mean"] == 1.0
    assert best["latency"]["budget_ms"] == 250 and best["latency"]["late"] == len(items)
    assert best["in_time"]["n_not_shown"] == len(items) and best["in_time"]["mean"]["indel"] == 0.0
    assert fast["in_time"]["n_not_shown"] == 0 and fast["in_time"]["mean"]["indel"] == fast["mean"]
    assert "in time: judged by a 250 ms budget on the whole answer (instead of the editor's timing rules)" in text
    assert "not beaten on both: qwen2.5-coder-fast, qwen2.5-coder-good" in text
    assert "indel mean against latency (* not beaten on both, joined by dots)" in text and "qwen2.5-coder-good *" in text
    assert page.count('class="p90"') == 2 and 'class="frontier"' in page and "a 250 ms budget" in page
    bad = cli("leaderboard", str(path), "--model", "a", "--latency-budget", "0", "--db", str(tmp_path / "s.db"))
    assert bad.returncode == 2 and "--latency-budget" in bad.stderr and "Traceback" not in bad.stderr
