"""`report --json` is the report as one JSON object on stdout, as every summary command's
`--json`; and a run of benchmark lines keeps them as the references `score` reads."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_score_report import make_store
from tests.conftest import ROOT


def test_report_json_is_the_json_report(cli, tmp_path: Path) -> None:
    db, _ = make_store(tmp_path)
    as_json = cli("report", "good", "half", "--json", "--db", str(db))
    as_format = cli("report", "good", "half", "--format", "json", "--db", str(db))
    assert as_json.returncode == as_format.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout) == json.loads(as_format.stdout)
    assert [r["run"] for r in json.loads(as_json.stdout)["runs"]] == ["good", "half"]
    clash = cli("report", "good", "--json", "--format", "html", "--db", str(db))
    assert clash.returncode == 2 and "not with --format html" in clash.stderr


def test_a_run_of_benchmark_lines_can_be_scored(cli, tmp_path: Path) -> None:
    """The shipped Copilot example holds its middle: the run keeps it, `score` finds the item."""
    db = str(tmp_path / "s.db")
    example = str(ROOT / "examples" / "py-open1.jsonl")
    run = cli("run", example, "--editor", "copilot", "--model", "default", "--max-new-tokens", "8", "--run-id", "cp",
              "--db", db)
    assert run.returncode == 0, run.stderr
    score = cli("score", "cp", "--json", "--db", db)
    assert score.returncode == 0, score.stderr
    assert json.loads(score.stdout)["n_items"] == 1 and json.loads(score.stdout)["n_rejects"] == 0
