"""Real logs with no outcome event, replayed and judged as a new user would: `score`, `report`
and `compare` over no scored item say so, name why and exit 1; `compare --against logged` puts
the replay beside the completions the editor logged."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.backend_stubs import Reply, Request, StubServer, openai_reply

ROOT = Path(__file__).resolve().parents[2]
# Continue's console logs and a JetBrains prompt.log: seven requests, no outcome logged.
LOGS = ["captures/continue/console/llm-prompt-completion-2024-10.txt", "captures/continue/console/llm-prompt-completion-2025-01.txt",
        "captures/continue/console/issue-3908-pasted.txt", "captures/jetbrains/formatter-fim.log"]


def replayed(cli, tmp_path: Path) -> tuple[str, str]:
    db = str(tmp_path / "s.db")
    imported = json.loads(cli("import", *(str(ROOT / log) for log in LOGS), "--json", "--db", db).stdout)
    assert imported["imported"] == 7 and imported["outcomes"] == 0

    def answer(r: Request) -> Reply:
        return openai_reply("return x\n")

    with StubServer(answer) as srv:
        run = cli("run", "captures", "--backend", "openai", "--endpoint", srv.url, "--model", "qwen2.5-coder-bad",
                  "--json", "--db", db)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["items"] == 4 and summary["completed"] == 4, summary
    return db, summary["run"]


def test_nothing_to_judge_is_said_and_exits_1(cli, tmp_path: Path) -> None:
    db, run_id = replayed(cli, tmp_path)
    why = "4: capture outcome unknown: no accepted text to score against"
    score = cli("score", run_id, "--reference", "accepted", "--db", db)
    assert score.returncode == 1 and why in score.stdout and "nothing scored" in score.stderr
    assert "total" not in score.stdout  # no empty table
    out = json.loads(cli("score", run_id, "--reference", "accepted", "--json", "--db", db).stdout)
    assert out["n_items"] == 0 and out["unscored"] == {why.partition(": ")[2]: 4} and why in out["nothing_scored"]
    report = cli("report", run_id, "--reference", "accepted", "--db", db)
    assert report.returncode == 1 and "Nothing to judge" in report.stdout and why in report.stdout
    page = json.loads(cli("report", run_id, "--reference", "accepted", "--json", "--db", db).stdout)
    assert why in page["runs"][0]["nothing_scored"] and page["nothing_scored"]
    lines = report.stdout.splitlines()
    separators = [n for n, line in enumerate(lines) if line.startswith("|---")]
    assert separators and all(lines[n].count("|") == lines[n - 1].count("|") for n in separators)
    for args in ((run_id, run_id), (run_id, "--against", "logged")):
        res = cli("compare", *args, "--reference", "accepted", "--json", "--db", db)
        out = json.loads(res.stdout)
        assert res.returncode == 1 and out["verdict"] == "nothing to compare" and out["n_items"] == 0
        assert out["n_unscored"] == 4 and why in out["nothing_scored"], out
    text = cli("compare", run_id, run_id, "--reference", "accepted", "--db", db)
    assert text.returncode == 1 and "within noise" not in text.stdout and why in text.stdout
    typed = json.loads(cli("score", run_id, "--json", "--db", db).stdout)  # none typed again in these logs either
    assert typed["n_items"] == 0 and typed["reference"] == "typed" and sum(typed["unscored"].values()) == 4


def test_compare_against_logged_needs_one_of_b_or_the_flag(cli, tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    for args in (("r",), ("r", "s", "--against", "logged")):
        res = cli("compare", *args, "--db", db)
        assert res.returncode == 2 and "--against logged" in res.stderr
