"""Acceptance as a signal (replay.reports.acceptance) and `report --acceptance` on the session log."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from replay.reports.acceptance import Shown, acceptance, auc, auc_interval, by_group, predictors, to_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_auc_is_the_chance_an_accepted_item_scores_above_a_rejected_one() -> None:
    labels = np.array([True, True, False, False])
    assert auc(np.array([0.9, 0.8, 0.1, 0.2]), labels) == 1.0
    assert auc(np.array([0.1, 0.2, 0.9, 0.8]), labels) == 0.0
    assert auc(np.array([0.5, 0.5, 0.5, 0.5]), labels) == 0.5  # ties count half
    assert auc(np.array([0.9, 0.1, 0.5, 0.2]), labels) == 0.5
    lo, hi = auc_interval(np.array([0.9, 0.8, 0.7, 0.1, 0.2, 0.3]), np.array([True] * 3 + [False] * 3), seed=1)
    assert lo == hi == 1.0
    assert auc_interval(np.array([0.9, 0.8]), np.array([True, True])) is None


def shown(accepted: bool, indel: float | None, retained: bool | None = None, editor: str = "tabby") -> Shown:
    return Shown(editor, "1.7.0", "solidity", "m", accepted, shown_chars=10 if accepted else 30, accepted_chars=8 if accepted else 0,
                 retained=retained, values={} if indel is None else {"indel": indel, "exact": float(indel == 1.0)})


def test_groups_count_acceptance_and_retention() -> None:
    items = [shown(True, 0.9, True), shown(True, 0.4, False), shown(True, None), shown(False, 0.2), shown(False, None, editor="continue")]
    (continue_, tabby) = by_group(items, "editor")
    assert (tabby["shown"], tabby["accepted"], tabby["retained"], tabby["retention_known"]) == (4, 3, 1, 2)
    assert tabby["retention"] == 0.5 and tabby["retained_chars"] == 8 and tabby["accepted_chars"] == 16
    assert continue_["acceptance"] == 0.0 and continue_["retention"] is None
    by_metric = {p["metric"]: p for p in predictors(items)}
    assert by_metric["indel"]["n"] == 3 and by_metric["indel"]["auc"] == 1.0  # only where a typed reference is
    assert by_metric["shown_chars"]["n"] == 5 and by_metric["shown_chars"]["auc"] == 0.0  # shorter ones were accepted
    assert by_metric["codebleu"]["auc"] is None and by_metric["codebleu"]["n"] == 0
    page = to_markdown(acceptance(items))
    lines = page.splitlines()
    assert all(lines[n].count("|") == lines[n - 1].count("|") for n, line in enumerate(lines) if line.startswith("|---"))


def test_report_acceptance_on_a_session_log(cli, tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    assert cli("import", str(ROOT / "captures" / "session"), "--db", db).returncode == 0
    out = json.loads(cli("report", "--acceptance", "--json", "--db", db).stdout)
    assert (out["n_shown"], out["n_accepted"], out["n_with_typed_reference"]) == (7, 3, 6)
    (tabby,) = out["by"]["editor"]
    assert tabby["retained"] == tabby["retention_known"] == 2
    assert {p["metric"] for p in out["predictors"]} == {"indel", "exact", "bleu", "codebleu", "shown_chars"}
    page = cli("report", "--acceptance", "--db", db)
    assert page.returncode == 0 and "## Which score predicts acceptance" in page.stdout
    empty = cli("report", "--acceptance", "--db", str(tmp_path / "empty.db"))
    assert empty.returncode == 1 and "no capture's log says whether" in empty.stderr
    assert cli("report", "run-x", "--acceptance", "--db", db).returncode == 2
